#include "core/hash.h"

#include <string.h>

/* Round constants: first 32 bits of the fractional parts of the cube roots
 * of the first 64 primes (FIPS 180-4, sec. 4.2.2). */
static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
    0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
    0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
    0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
    0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
    0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
    0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
    0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

static uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

/* One 512-bit block: message schedule and 64 rounds (FIPS 180-4, 6.2.2). */
static void compress(uint32_t state[8], const unsigned char *p) {
  uint32_t w[64];
  for (int t = 0; t < 16; t++)
    w[t] = (uint32_t)p[4 * t] << 24 | (uint32_t)p[4 * t + 1] << 16 |
           (uint32_t)p[4 * t + 2] << 8 | (uint32_t)p[4 * t + 3];
  for (int t = 16; t < 64; t++) {
    uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
    uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
    w[t] = w[t - 16] + s0 + w[t - 7] + s1;
  }
  uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
  uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
  for (int t = 0; t < 64; t++) {
    uint32_t S1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
    uint32_t ch = (e & f) ^ (~e & g);
    uint32_t t1 = h + S1 + ch + K[t] + w[t];
    uint32_t S0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
    uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
    uint32_t t2 = S0 + maj;
    h = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  state[0] += a;
  state[1] += b;
  state[2] += c;
  state[3] += d;
  state[4] += e;
  state[5] += f;
  state[6] += g;
  state[7] += h;
}

void dg_hash_init(dg_hash *h) {
  /* Initial hash value (FIPS 180-4, 5.3.3). */
  static const uint32_t H0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372,
                                 0xa54ff53a, 0x510e527f, 0x9b05688c,
                                 0x1f83d9ab, 0x5be0cd19};
  memcpy(h->state, H0, sizeof H0);
  h->length = 0;
  h->fill = 0;
}

void dg_hash_update(dg_hash *h, const void *data, size_t n) {
  const unsigned char *p = data;
  h->length += n;
  if (h->fill > 0) {
    size_t take = 64 - h->fill < n ? 64 - h->fill : n;
    memcpy(h->block + h->fill, p, take);
    h->fill += take;
    p += take;
    n -= take;
    if (h->fill < 64)
      return;
    compress(h->state, h->block);
    h->fill = 0;
  }
  for (; n >= 64; p += 64, n -= 64)
    compress(h->state, p);
  memcpy(h->block, p, n);
  h->fill = n;
}

void dg_hash_update_field(dg_hash *h, const char *s) {
  uint64_t n = s ? strlen(s) : 0;
  unsigned char len[8];
  for (int i = 0; i < 8; i++)
    len[i] = (unsigned char)(n >> (8 * i));
  dg_hash_update(h, len, sizeof len);
  if (n > 0)
    dg_hash_update(h, s, (size_t)n);
}

void dg_hash_final(dg_hash *h, unsigned char digest[DG_HASH_SIZE]) {
  /* Padding: 0x80, zeros to 56 mod 64, then the bit length big-endian. */
  uint64_t bits = h->length * 8;
  static const unsigned char pad[64] = {0x80};
  size_t padlen = h->fill < 56 ? 56 - h->fill : 120 - h->fill;
  unsigned char len[8];
  for (int i = 0; i < 8; i++)
    len[i] = (unsigned char)(bits >> (56 - 8 * i));
  dg_hash_update(h, pad, padlen);
  dg_hash_update(h, len, sizeof len);
  for (int i = 0; i < 8; i++) {
    digest[4 * i] = (unsigned char)(h->state[i] >> 24);
    digest[4 * i + 1] = (unsigned char)(h->state[i] >> 16);
    digest[4 * i + 2] = (unsigned char)(h->state[i] >> 8);
    digest[4 * i + 3] = (unsigned char)h->state[i];
  }
}

void dg_hash_buffer(const void *data, size_t n,
                    unsigned char digest[DG_HASH_SIZE]) {
  dg_hash h;
  dg_hash_init(&h);
  dg_hash_update(&h, data, n);
  dg_hash_final(&h, digest);
}

void dg_hash_hex(const unsigned char *bytes, size_t n, char *hex) {
  static const char digits[] = "0123456789abcdef";
  for (size_t i = 0; i < n; i++) {
    hex[2 * i] = digits[bytes[i] >> 4];
    hex[2 * i + 1] = digits[bytes[i] & 15];
  }
  hex[2 * n] = '\0';
}
