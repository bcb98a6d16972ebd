/* SHA-256 (FIPS 180-4) for cache keys and payload checksums.
 *
 * Why a cryptographic hash for a cache: keys are built from whole kernel
 * sources plus compiler identities, and a collision would silently load the
 * wrong machine code.  SHA-256 makes that practically impossible and is
 * cheap next to a compiler run.  Incremental use: init, update..., final. */
#ifndef DG_CORE_HASH_H
#define DG_CORE_HASH_H

#include <stddef.h>
#include <stdint.h>

enum { DG_HASH_SIZE = 32, DG_HASH_HEX_SIZE = 2 * DG_HASH_SIZE + 1 };

typedef struct dg_hash {
  uint32_t state[8];
  uint64_t length;       /* bytes hashed so far */
  unsigned char block[64];
  size_t fill;           /* bytes waiting in block */
} dg_hash;

void dg_hash_init(dg_hash *h);
void dg_hash_update(dg_hash *h, const void *data, size_t n);
/* Feed a string as (length, bytes), so that concatenated fields can never be
 * confused ("ab"+"c" differs from "a"+"bc").  s == NULL hashes like "". */
void dg_hash_update_field(dg_hash *h, const char *s);
void dg_hash_final(dg_hash *h, unsigned char digest[DG_HASH_SIZE]);

/* One-shot digest of a buffer. */
void dg_hash_buffer(const void *data, size_t n,
                    unsigned char digest[DG_HASH_SIZE]);
/* Lower-case hex of n bytes into hex (2n+1 chars with the terminator). */
void dg_hash_hex(const unsigned char *bytes, size_t n, char *hex);

#endif
