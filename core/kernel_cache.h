/* On-disk cache of compiled kernel modules (cubins, shared objects).
 *
 * Location: $DGRUN_CACHE_DIR, else $XDG_CACHE_HOME/dgrun, else
 * $HOME/.cache/dgrun; created (mode 0700: entries are machine code that
 * dgrun loads and runs, so nobody else may write them) as needed.
 *
 * One file per entry, "<key>.dgk": a fixed 120-byte header (magic, format
 * version, key, payload size, SHA-256 of the payload; little-endian) and the
 * payload.  Entries are written atomically (core/fsutil), so concurrent
 * writers of the same key (MPI ranks compiling the same kernel) are safe:
 * the last rename wins and every version is complete.  A short, torn,
 * foreign or bit-flipped entry fails the header or checksum test and is
 * reported as corrupt, never handed out; the caller recompiles and puts a
 * fresh one.  The key is the caller's business (core/device.c hashes
 * source + options + backend + compiler identity). */
#ifndef DG_CORE_KERNEL_CACHE_H
#define DG_CORE_KERNEL_CACHE_H

#include <stddef.h>

#include "core/error.h"

enum { DG_KERNEL_CACHE_FORMAT = 1, DG_KERNEL_CACHE_KEY_MAX = 64 };

typedef struct dg_kernel_cache dg_kernel_cache;

typedef enum {
  DG_KERNEL_CACHE_MISS = 0, /* no entry */
  DG_KERNEL_CACHE_HIT,      /* valid entry, payload returned */
  DG_KERNEL_CACHE_CORRUPT   /* entry present but unusable (reason logged) */
} dg_kernel_cache_status;

/* The directory the environment selects (malloc'ed; not created). */
dg_error dg_kernel_cache_default_dir(char **dir);

/* Open the cache in dir (NULL: the default directory), creating it. */
dg_error dg_kernel_cache_create(const char *dir, dg_kernel_cache **out);
void dg_kernel_cache_destroy(dg_kernel_cache **cache);
const char *dg_kernel_cache_dir(const dg_kernel_cache *cache);

/* Path of the entry file for key (malloc'ed), e.g. for tests and messages.
 * key: 1..64 characters of [0-9a-z] (a hex digest). */
dg_error dg_kernel_cache_entry_path(const dg_kernel_cache *cache,
                                    const char *key, char **path);

/* Look key up.  On HIT, *payload (malloc'ed, caller frees) and *size hold
 * the stored bytes; otherwise they are NULL / 0.  I/O trouble reading an
 * existing entry counts as CORRUPT, not as an error: the cache is only an
 * accelerator, and a rebuild is always possible. */
dg_error dg_kernel_cache_get(dg_kernel_cache *cache, const char *key,
                             void **payload, size_t *size,
                             dg_kernel_cache_status *status);

/* Store payload under key (atomically replacing any existing entry). */
dg_error dg_kernel_cache_put(dg_kernel_cache *cache, const char *key,
                             const void *payload, size_t size);

#endif
