/* core.cuda_mock_precompile: the tuner's precompile on the cuda backend
 * (the mock libcuda.so.1, real NVRTC): distinct modules compile once each,
 * in forked worker processes, into the kernel cache, each a CUBIN the
 * following dg_device_compile loads as a cache hit; a source NVRTC refuses
 * is left for its own compile to report.  Exits 77 without NVRTC. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/device.h"
#include "tests/device/devtest.h"

static const char *const kernel =
    "extern \"C\" __global__ void iota(double *x, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) x[i] = i;\n"
    "}\n";

int main(void) {
  const char *cache = dt_fresh_cache_dir();
  dg_device *dev = NULL;
  if (dg_device_create("cuda", 0, &dev) != DG_OK) {
    printf("skipped: no cuda device through the mock (NVRTC missing?): %s\n",
           dg_error_message());
    dt_remove_dir(cache);
    return 77;
  }
  enum { N = 6 };
  char *src[N + 1];
  /* N distinct modules, one kernel each (iota: a name the mock knows) */
  for (int i = 0; i < N; i++) {
    size_t n = strlen(kernel) + 64;
    src[i] = malloc(n);
    CHECK(src[i] != NULL);
    snprintf(src[i], n, "/* variant %d */\n%s", i, kernel);
  }
  src[N] = "extern \"C\" __global__ void broken( { }"; /* NVRTC refuses it */
  dt_precompile_expect(dev, cache, src, N + 1, 3, N);
  for (int i = 0; i < N; i++) {
    dg_module *m = NULL;
    MUST(dg_device_compile(dev, "iota", src[i], NULL, 0, &m));
    dg_kernel *k = NULL;
    MUST(dg_module_get_kernel(m, "iota", &k));
    dg_module_destroy(&m);
  }
  dg_device_stats s = dg_device_get_stats(dev);
  EXPECT(s.compilations == N && s.cache_hits == N, "after the loads: %lld compiled, %lld hits",
         (long long)s.compilations, (long long)s.cache_hits);
  dt_expect_compile_error(dev, src[N]);
  for (int i = 0; i < N; i++)
    free(src[i]);
  dg_device_destroy(&dev);
  dt_remove_dir(cache);
  return expect_finish();
}
