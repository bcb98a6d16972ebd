/* core.device_precompile: dg_device_precompile compiles each distinct
 * source once, side by side, into the kernel cache; the dg_device_compile of
 * each that follows is a cache hit whose kernel is correct; a cached source
 * is not compiled again, and a source that does not compile is left for its
 * own dg_device_compile to report. */
#include <string.h>

#include "devtest.h"

int main(void) {
  const char *cache = dt_fresh_cache_dir();
  uint64_t rng = dt_seed();
  enum { N = 5 };
  char *src[N + 2];
  for (int i = 0; i < N; i++) { /* N distinct modules of the same kernels */
    size_t n = strlen(dt_kernel_source) + 64;
    src[i] = malloc(n);
    CHECK(src[i] != NULL);
    snprintf(src[i], n, "/* variant %d */\n%s", i, dt_kernel_source);
  }
  src[N] = src[0];                                  /* the same source twice */
  src[N + 1] = "this is not C; it does not compile"; /* a broken one */
  dg_device *dev;
  MUST(dg_device_create("cpu", 0, &dev));
  dt_precompile_expect(dev, cache, src, N + 2, 3, N);
  for (int i = 0; i < N; i++) {
    dg_module *m;
    MUST(dg_device_compile(dev, "k", src[i], NULL, 0, &m));
    dt_check_axpby(dev, m, 300, 297, 16, &rng);
    dg_module_destroy(&m);
  }
  dg_device_stats s = dg_device_get_stats(dev);
  EXPECT(s.compilations == N && s.cache_hits == N, "after the loads: %lld compiled, %lld hits",
         (long long)s.compilations, (long long)s.cache_hits);
  /* everything cached: nothing to compile */
  MUST(dg_device_precompile(dev, (const char *const *)src, N, 0));
  EXPECT(dg_device_get_stats(dev).compilations == N, "cached sources were compiled again");
  /* the broken source reports at its own compile */
  dt_expect_compile_error(dev, src[N + 1]);
  for (int i = 0; i < N; i++)
    free(src[i]);
  dg_device_destroy(&dev);
  dt_remove_dir(cache);
  return expect_finish();
}
