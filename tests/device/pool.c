/* core.device_pool: the pooled allocator reuses freed blocks of the same
 * size class, keeps its byte counts straight, trims, rejects foreign
 * pointers; upload / download / copy / offset / zero move the right bytes. */
#include <string.h>

#include "devtest.h"

int main(void) {
  uint64_t rng = dt_seed();
  dg_device *dev;
  MUST(dg_device_create("cpu", 0, &dev));
  dg_device_stats s0 = dg_device_get_stats(dev);
  CHECK(s0.bytes_allocated == 0 && s0.bytes_reserved == 0,
        "a new device holds nothing");

  /* 1000 B rounds up to 1024 (= 2^9 * 2, the top class of the octave
   * (512, 1024]); 1020 B is in the same class. */
  void *p, *q, *r;
  MUST(dg_device_malloc(dev, 1000, &p));
  CHECK(((uintptr_t)p & 63) == 0, "block %p is not 64-byte aligned", p);
  dg_device_stats s = dg_device_get_stats(dev);
  CHECK(s.bytes_allocated == 1024 && s.bytes_reserved == 1024 &&
            s.raw_allocations == 1 && s.pool_reuses == 0,
        "after malloc(1000): allocated %lld reserved %lld raw %lld",
        (long long)s.bytes_allocated, (long long)s.bytes_reserved,
        (long long)s.raw_allocations);
  MUST(dg_device_free(dev, p));
  s = dg_device_get_stats(dev);
  CHECK(s.bytes_allocated == 0 && s.bytes_reserved == 1024,
        "a freed block stays reserved: allocated %lld reserved %lld",
        (long long)s.bytes_allocated, (long long)s.bytes_reserved);
  MUST(dg_device_malloc(dev, 1000, &q));
  CHECK(q == p, "malloc after free of the same size must reuse %p, got %p", p,
        q);
  MUST(dg_device_free(dev, q));
  MUST(dg_device_malloc(dev, 1020, &q));
  CHECK(q == p, "1020 B is in the 1000 B class: expected %p, got %p", p, q);
  s = dg_device_get_stats(dev);
  CHECK(s.pool_reuses == 2 && s.raw_allocations == 1,
        "reuses %lld raw %lld, expected 2 and 1", (long long)s.pool_reuses,
        (long long)s.raw_allocations);
  /* A live block is never handed out twice. */
  MUST(dg_device_malloc(dev, 1000, &r));
  CHECK(r != q, "two live blocks share %p", r);
  /* A different class does not take the freed block: 1100 B -> 1280. */
  MUST(dg_device_free(dev, r));
  void *t;
  MUST(dg_device_malloc(dev, 1100, &t));
  CHECK(t != r, "a 1100 B request must not get the 1024 B block");
  s = dg_device_get_stats(dev);
  CHECK(s.bytes_allocated == 1024 + 1280 &&
            s.bytes_reserved == 1024 + 1024 + 1280,
        "allocated %lld reserved %lld", (long long)s.bytes_allocated,
        (long long)s.bytes_reserved);
  /* Small requests share the 256 B class. */
  void *u;
  MUST(dg_device_malloc(dev, 1, &u));
  MUST(dg_device_free(dev, u));
  void *v;
  MUST(dg_device_malloc(dev, 256, &v));
  CHECK(u == v, "1 B and 256 B share the smallest class");
  MUST(dg_device_free(dev, v));

  /* malloc(0) gives NULL, free(NULL) is fine. */
  void *z = &z;
  MUST(dg_device_malloc(dev, 0, &z));
  CHECK(z == NULL, "malloc(0) must give NULL");
  MUST(dg_device_free(dev, NULL));

  /* Foreign pointers and double frees are errors. */
  int local;
  CHECK(dg_device_free(dev, &local) == DG_ERR_ARG, "foreign pointer accepted");
  dg_error_clear();
  MUST(dg_device_free(dev, t));
  CHECK(dg_device_free(dev, t) == DG_ERR_ARG, "double free accepted");
  dg_error_clear();

  /* Trim returns every free block; live ones stay. */
  MUST(dg_device_trim(dev));
  s = dg_device_get_stats(dev);
  CHECK(s.bytes_reserved == 1024 && s.bytes_allocated == 1024,
        "after trim: reserved %lld allocated %lld (only q is live)",
        (long long)s.bytes_reserved, (long long)s.bytes_allocated);
  MUST(dg_device_free(dev, q));

  /* Many blocks: the live table grows and still finds each one. */
  enum { N = 500 };
  void *blocks[N];
  for (int i = 0; i < N; i++)
    MUST(dg_device_malloc(dev, (size_t)(64 + 37 * i), &blocks[i]));
  for (int i = N - 1; i >= 0; i -= 2)
    MUST(dg_device_free(dev, blocks[i]));
  for (int i = 0; i < N; i += 2)
    MUST(dg_device_free(dev, blocks[i]));
  s = dg_device_get_stats(dev);
  CHECK(s.bytes_allocated == 0, "all freed, %lld still allocated",
        (long long)s.bytes_allocated);
  MUST(dg_device_trim(dev));
  s = dg_device_get_stats(dev);
  CHECK(s.bytes_reserved == 0, "after trim %lld reserved",
        (long long)s.bytes_reserved);

  /* Data movement on random bytes. */
  enum { M = 10007 };
  unsigned char *a = malloc(M), *b = malloc(M);
  CHECK(a && b, "out of memory");
  for (int i = 0; i < M; i++)
    a[i] = (unsigned char)(dt_uniform(&rng) * 127.0 + 128.0);
  void *d1, *d2;
  MUST(dg_device_malloc(dev, M, &d1));
  MUST(dg_device_malloc(dev, M, &d2));
  MUST(dg_device_upload(dev, d1, a, M));
  MUST(dg_device_copy(dev, d2, d1, M));
  memset(b, 0xA5, M);
  MUST(dg_device_download(dev, b, d2, M));
  CHECK(memcmp(a, b, M) == 0, "upload + copy + download changed the bytes");
  /* Offsets address inside a block: download the tail 1000 bytes. */
  memset(b, 0xA5, M);
  MUST(dg_device_download(dev, b, dg_device_offset(d1, M - 1000), 1000));
  CHECK(memcmp(a + M - 1000, b, 1000) == 0, "offset download is wrong");
  MUST(dg_device_free(dev, d1));
  MUST(dg_device_free(dev, d2));
  free(a);
  free(b);

  /* dg_device_zero clears exactly the bytes asked for, over several of the
   * backend's 1 MiB chunks and a partial last one. */
  size_t big = ((size_t)3 << 20) + 12345, lo = 7, hi = big - 5;
  unsigned char *h = malloc(big);
  CHECK(h != NULL, "out of memory");
  memset(h, 0xA5, big);
  void *dz;
  MUST(dg_device_malloc(dev, big, &dz));
  MUST(dg_device_upload(dev, dz, h, big));
  MUST(dg_device_zero(dev, dg_device_offset(dz, lo), hi - lo));
  MUST(dg_device_download(dev, h, dz, big));
  for (size_t i = 0; i < big; i++)
    CHECK(h[i] == (i >= lo && i < hi ? 0 : 0xA5), "byte %zu is %d after zeroing [%zu, %zu)",
          i, h[i], lo, hi);
  MUST(dg_device_free(dev, dz));
  free(h);
  dg_device_destroy(&dev);
  return 0;
}
