/* core.cuda_mock / core.cuda_mock_nodevice: the cuda backend's own logic
 * without a GPU, against the mock libcuda.so.1 (tests/cuda/mock_cuda.h)
 * that ctest puts first on LD_LIBRARY_PATH.  Checks what the backend asks
 * of the driver (primary context, non-blocking streams, the opt-in shared
 * memory attribute only when needed, the launch geometry), how it turns
 * driver failures into dg_error messages, and the symbol fallback for
 * cuEventElapsedTime.  Real NVRTC compiles the module; without NVRTC the
 * test exits 77.  With the argument "nodevice" (and MOCK_CUDA_DEVICES=0)
 * it checks the no-device answers instead. */
#include <cuda.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/device_backend.h"
#include "core/error.h"
#include "tests/expect.h"
#include "tests/cuda/mock_cuda.h"

static const dg_backend_ops *ops = &dg_backend_cuda_ops;
static mock_cuda_stats *mock;
static void *st;

/* The stats of the libcuda.so.1 the backend loaded; NULL if it is not the
 * mock (then this test would be testing a real driver: refuse). */
static mock_cuda_stats *find_mock(void) {
  void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (!h)
    return NULL;
  void *sym = dlsym(h, "mock_cuda_get_stats");
  mock_cuda_get_stats_fn get;
  memcpy(&get, &sym, sizeof get); /* POSIX: same representation */
  return sym ? get() : NULL;
}

static void fail_next(const char *call, int code);

static void test_describe(void) {
  dg_device_info info;
  MUST(ops->describe(0, &info));
  EXPECT(strcmp(info.name, MOCK_CUDA_NAME) == 0, "name '%s'", info.name);
  EXPECT(info.cc_major == 9 && info.cc_minor == 0, "cc %d.%d", info.cc_major,
         info.cc_minor);
  EXPECT(info.multiprocessors == MOCK_CUDA_SMS, "SMs %d",
         info.multiprocessors);
  EXPECT(info.total_memory == MOCK_CUDA_TOTAL_MEMORY, "memory %zu",
         info.total_memory);
  EXPECT(info.max_shared_per_block == MOCK_CUDA_SHARED_DEFAULT &&
             info.max_shared_per_block_optin == MOCK_CUDA_SHARED_OPTIN,
         "shared %d / %d", info.max_shared_per_block,
         info.max_shared_per_block_optin);
  EXPECT(info.warp_size == 32 && info.max_threads_per_block == 1024,
         "warp %d, threads %d", info.warp_size, info.max_threads_per_block);
  EXPECT(strncmp(info.compiler_identity, "nvrtc ", 6) == 0 &&
             strstr(info.compiler_identity, " sm_90"),
         "identity '%s'", info.compiler_identity);
  EXPECT(ops->describe(1, &info) == DG_ERR_DEVICE &&
             strstr(dg_error_message(), "no CUDA device 1"),
         "device 1: %s", dg_error_message());
  dg_error_clear();
}

static void test_memory(void) {
  enum { N = 1000 };
  int h[N], back[N];
  for (int i = 0; i < N; i++)
    h[i] = rand(), back[i] = -1;
  void *a = NULL, *b = NULL;
  MUST(ops->alloc(st, sizeof h, &a));
  MUST(ops->alloc(st, sizeof h, &b));
  EXPECT(mock->bytes_live == 2 * (long long)sizeof h, "live %lld",
         mock->bytes_live);
  MUST(ops->upload(st, a, h, sizeof h));
  MUST(ops->copy(st, b, a, sizeof h));
  MUST(ops->download(st, back, b, sizeof h));
  EXPECT(memcmp(h, back, sizeof h) == 0, "round trip differs");
  /* zero: on the device (cuMemsetD8), exactly the bytes asked for */
  MUST(ops->zero(st, (char *)b + 4 * sizeof(int), 10 * sizeof(int)));
  MUST(ops->download(st, back, b, sizeof h));
  for (int i = 0; i < N; i++)
    EXPECT(back[i] == (i >= 4 && i < 14 ? 0 : h[i]), "after zero: int %d is %d", i, back[i]);

  /* Out of memory: the bytes asked for and the bytes free, both exact. */
  size_t huge = MOCK_CUDA_TOTAL_MEMORY, free_b = huge - 2 * sizeof h;
  char want_ask[64], want_free[64];
  snprintf(want_ask, sizeof want_ask, "asked for %zu bytes", huge);
  snprintf(want_free, sizeof want_free, "%zu bytes", free_b);
  void *p = NULL;
  EXPECT(ops->alloc(st, huge, &p) == DG_ERR_MEMORY && p == NULL &&
             strstr(dg_error_message(), want_ask) &&
             strstr(dg_error_message(), want_free) &&
             strstr(dg_error_message(), " free"),
         "out of memory: %s", dg_error_message());
  dg_error_clear();
  EXPECT(ops->alloc(st, 0, &p) == DG_ERR_ARG, "0 bytes allocated");
  dg_error_clear();

  /* A failing driver call names itself, its error and the hint that a
   * kernel fault is sticky. */
  fail_next("cuMemcpyDtoH_v2", CUDA_ERROR_ILLEGAL_ADDRESS);
  const char *m = dg_error_message();
  EXPECT(ops->download(st, back, b, sizeof h) == DG_ERR_DEVICE &&
             strstr(m, "cuMemcpyDtoH_v2 failed") &&
             strstr(m, "CUDA_ERROR_ILLEGAL_ADDRESS") &&
             strstr(m, "an illegal memory access was encountered") &&
             strstr(m, "4000 bytes device -> host") && strstr(m, "unusable"),
         "injected failure: %s", m);
  dg_error_clear();
  fail_next("cuMemAlloc_v2", CUDA_ERROR_INVALID_VALUE);
  EXPECT(ops->alloc(st, 64, &p) == DG_ERR_DEVICE &&
             strstr(dg_error_message(), "CUDA_ERROR_INVALID_VALUE") &&
             !strstr(dg_error_message(), "unusable"),
         "alloc failure: %s", dg_error_message());
  dg_error_clear();
  MUST(ops->release(st, a));
  MUST(ops->release(st, b));
  EXPECT(mock->bytes_live == 0, "leaked %lld bytes", mock->bytes_live);
}

static const char *kernels =
    "extern \"C\" __global__ void iota(long long n, int *p) {\n"
    "  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
    "  if (i < n) p[i] = (int)i;\n"
    "}\n"
    "extern \"C\" __global__ void big_shared(int *p) {\n"
    "  extern __shared__ int sh[];\n"
    "  sh[threadIdx.x] = 1;\n"
    "  __syncthreads();\n"
    "  p[threadIdx.x] = sh[(threadIdx.x + 1) % blockDim.x];\n"
    "}\n";

static void test_kernels(void) {
  void *cubin = NULL, *module = NULL, *iota = NULL, *big = NULL, *f2 = NULL;
  size_t size = 0;
  MUST(ops->compile(st, "mock.cu", kernels, NULL, 0, &cubin, &size));
  MUST(ops->load(st, cubin, size, &module));
  EXPECT(mock->modules_live == 1, "modules %d", mock->modules_live);
  MUST(ops->get_function(st, module, "iota", &iota));
  MUST(ops->get_function(st, module, "big_shared", &big));
  MUST(ops->get_function(st, module, "iota", &f2));
  EXPECT(f2 == iota, "the same entry gave two kernels");
  EXPECT(ops->get_function(st, module, "nope", &f2) == DG_ERR_DEVICE &&
             strstr(dg_error_message(), "'nope'") &&
             strstr(dg_error_message(), "extern \"C\""),
         "missing kernel: %s", dg_error_message());
  dg_error_clear();

  /* iota over 200 items in 4 blocks of 64 (y, z left 0 = 1). */
  enum { CAP = 256 };
  int out[CAP];
  void *d;
  MUST(ops->alloc(st, sizeof out, &d));
  for (int i = 0; i < CAP; i++)
    out[i] = -7;
  MUST(ops->upload(st, d, out, sizeof out));
  long long n = 200;
  void *args[] = {&n, &d};
  dg_launch l;
  memset(&l, 0, sizeof l);
  l.grid[0] = 4;
  l.block[0] = 64;
  MUST(ops->launch(st, iota, &l, args, NULL));
  EXPECT(mock->last_grid[0] == 4 && mock->last_grid[1] == 1 &&
             mock->last_grid[2] == 1 && mock->last_block[0] == 64 &&
             mock->last_block[1] == 1 && mock->last_block[2] == 1 &&
             mock->last_shared == 0 && mock->last_stream == NULL,
         "geometry %ux%ux%u / %ux%ux%u / %u", mock->last_grid[0],
         mock->last_grid[1], mock->last_grid[2], mock->last_block[0],
         mock->last_block[1], mock->last_block[2], mock->last_shared);
  MUST(ops->download(st, out, d, sizeof out));
  int bad = 0;
  for (int i = 0; i < CAP; i++)
    bad += out[i] != (i < 200 ? i : -7);
  EXPECT(bad == 0, "%d of %d values wrong after iota", bad, CAP);
  MUST(ops->release(st, d));
  l.grid[0] = 0;
  EXPECT(ops->launch(st, iota, &l, args, NULL) == DG_ERR_ARG, "empty grid");
  dg_error_clear();

  /* Dynamic shared memory: within 48 KiB (with the 1 KiB static part) no
   * opt-in; beyond, the attribute is raised once per new maximum. */
  void *pargs[] = {&d};
  int calls0 = mock->set_attribute_calls;
  l.grid[0] = 1;
  l.block[0] = 128;
  l.shared_bytes = MOCK_CUDA_SHARED_DEFAULT - MOCK_CUDA_STATIC_SHARED;
  MUST(ops->launch(st, big, &l, pargs, NULL));
  EXPECT(mock->set_attribute_calls == calls0, "opt-in at exactly 48 KiB");
  l.shared_bytes += 1;
  MUST(ops->launch(st, big, &l, pargs, NULL));
  EXPECT(mock->set_attribute_calls == calls0 + 1 &&
             mock->dynamic_shared_attr == (int)l.shared_bytes,
         "opt-in: %d calls, attribute %d", mock->set_attribute_calls - calls0,
         mock->dynamic_shared_attr);
  l.shared_bytes = 64 * 1024;
  MUST(ops->launch(st, big, &l, pargs, NULL));
  MUST(ops->launch(st, big, &l, pargs, NULL));
  l.shared_bytes = 60 * 1024;
  MUST(ops->launch(st, big, &l, pargs, NULL));
  EXPECT(mock->set_attribute_calls == calls0 + 2 &&
             mock->dynamic_shared_attr == 64 * 1024,
         "raising to 64 KiB: %d calls, attribute %d",
         mock->set_attribute_calls - calls0, mock->dynamic_shared_attr);
  l.shared_bytes = MOCK_CUDA_SHARED_OPTIN - MOCK_CUDA_STATIC_SHARED;
  MUST(ops->launch(st, big, &l, pargs, NULL));
  l.shared_bytes += 1;
  EXPECT(ops->launch(st, big, &l, pargs, NULL) == DG_ERR_ARG &&
             strstr(dg_error_message(), "big_shared"),
         "past the opt-in maximum: %s", dg_error_message());
  dg_error_clear();
  /* The kernel allows 256 threads: 257 is refused before the driver. */
  int launches = mock->launches;
  l.shared_bytes = 0;
  l.block[0] = MOCK_CUDA_MAX_THREADS + 1;
  EXPECT(ops->launch(st, big, &l, pargs, NULL) == DG_ERR_ARG &&
             mock->launches == launches,
         "too many threads: %s", dg_error_message());
  dg_error_clear();

  dg_kernel_attributes a;
  MUST(ops->attributes(st, big, &a));
  EXPECT(a.num_regs == 40 && a.shared_bytes_static == MOCK_CUDA_STATIC_SHARED &&
             a.local_bytes == 0 && a.max_threads_per_block == MOCK_CUDA_MAX_THREADS,
         "attributes %d %d %d %d", a.num_regs, a.shared_bytes_static,
         a.local_bytes, a.max_threads_per_block);

  /* A failed launch says which kernel and geometry. */
  fail_next("cuLaunchKernel", CUDA_ERROR_INVALID_VALUE);
  l.block[0] = 32;
  EXPECT(ops->launch(st, big, &l, pargs, NULL) == DG_ERR_DEVICE &&
             strstr(dg_error_message(), "'big_shared'") &&
             strstr(dg_error_message(), "block 32x1x1"),
         "launch failure: %s", dg_error_message());
  dg_error_clear();

  /* A truncated image never reaches the driver; a refused one says so. */
  void *m2 = NULL;
  EXPECT(ops->load(st, cubin, size - 1, &m2) == DG_ERR_INPUT && !m2,
         "truncated CUBIN loaded");
  dg_error_clear();
  fail_next("cuModuleLoadDataEx", CUDA_ERROR_INVALID_IMAGE);
  EXPECT(ops->load(st, cubin, size, &m2) == DG_ERR_DEVICE && !m2 &&
             strstr(dg_error_message(), "CUDA_ERROR_INVALID_IMAGE") &&
             strstr(dg_error_message(), "sm_90"),
         "refused image: %s", dg_error_message());
  dg_error_clear();
  EXPECT(mock->modules_live == 1, "modules %d", mock->modules_live);
  ops->unload(st, module);
  EXPECT(mock->modules_live == 0, "module not unloaded");
  free(cubin);
}

/* Pinned staging buffers and copies on a stream (halo exchanges). */
static void test_staging(void) {
  enum { N = 500 };
  double *h = NULL, *back = NULL;
  void *d = NULL, *strm = NULL;
  EXPECT(ops->staging(st), "the driver has the staging entry points");
  MUST(ops->host_alloc(st, sizeof(double) * N, (void **)&h));
  MUST(ops->host_alloc(st, sizeof(double) * N, (void **)&back));
  for (int i = 0; i < N; i++)
    h[i] = i * 0.5, back[i] = -1;
  MUST(ops->alloc(st, sizeof(double) * N, &d));
  MUST(ops->stream_create(st, &strm));
  MUST(ops->copy_async(st, d, h, sizeof(double) * N, 1, strm));
  MUST(ops->copy_async(st, back, d, sizeof(double) * N, 0, strm));
  MUST(ops->stream_synchronize(st, strm));
  EXPECT(memcmp(h, back, sizeof(double) * N) == 0, "staged round trip differs");
  fail_next("cuMemcpyDtoHAsync_v2", CUDA_ERROR_INVALID_VALUE);
  EXPECT(ops->copy_async(st, back, d, 8, 0, strm) == DG_ERR_DEVICE &&
             strstr(dg_error_message(), "cuMemcpyDtoHAsync_v2"),
         "async copy failure: %s", dg_error_message());
  dg_error_clear();
  ops->stream_destroy(st, strm);
  MUST(ops->release(st, d));
  ops->host_free(st, h);
  ops->host_free(st, back);
}

static void test_streams_events(void) {
  void *s = NULL, *e0 = NULL, *e1 = NULL;
  MUST(ops->stream_create(st, &s));
  EXPECT(mock->last_stream_flags == CU_STREAM_NON_BLOCKING,
         "stream flags %u", mock->last_stream_flags);
  MUST(ops->event_create(st, &e0));
  MUST(ops->event_create(st, &e1));
  EXPECT(mock->streams_live == 1 && mock->events_live == 2,
         "streams %d events %d", mock->streams_live, mock->events_live);
  MUST(ops->event_record(st, e0, s));
  struct timespec nap = {0, 20 * 1000 * 1000};
  nanosleep(&nap, NULL);
  MUST(ops->event_record(st, e1, s));
  MUST(ops->stream_wait_event(st, NULL, e1));
  MUST(ops->stream_synchronize(st, s));
  MUST(ops->synchronize(st));
  float ms = -1;
  /* Goes through cuEventElapsedTime: the mock has no _v2. */
  MUST(ops->event_elapsed_ms(st, e0, e1, &ms));
  EXPECT(ms >= 19.0f && ms < 5000.0f, "20 ms sleep timed as %.3f ms", ms);
  ops->event_destroy(st, e0);
  ops->event_destroy(st, e1);
  ops->stream_destroy(st, s);
  EXPECT(mock->streams_live == 0 && mock->events_live == 0,
         "streams %d events %d left", mock->streams_live, mock->events_live);
}

static int no_device(void) {
  EXPECT(!ops->available(), "available without a device");
  int n = -1;
  EXPECT(ops->count(&n) == DG_OK && n == 0, "count %d", n);
  dg_device_info info;
  void *s = NULL;
  EXPECT(ops->open(0, &info, &s) == DG_ERR_DEVICE && s == NULL &&
             strstr(dg_error_message(), "has 0"),
         "open: %s", dg_error_message());
  dg_error_clear();
  EXPECT(find_mock() != NULL, "the mock libcuda.so.1 was not loaded");
  return expect_finish();
}

/* A driver without pinned memory and stream copies (mock built with
 * MOCK_CUDA_NO_STAGING): the backend says so, and the device's staging
 * calls fall back to malloc and synchronous copies (core/device.c). */
static int old_driver(void) {
  enum { N = 300 };
  dg_device_info info;
  MUST(ops->open(0, &info, &st));
  EXPECT(!ops->staging(st), "staging claimed without the driver's entry points");
  ops->close(st);
  dg_device *dev = NULL;
  dg_stream *strm = NULL;
  double *h = NULL, *back = NULL;
  void *d = NULL;
  MUST(dg_device_create("cuda", 0, &dev));
  MUST(dg_device_host_alloc(dev, sizeof(double) * N, (void **)&h));
  MUST(dg_device_host_alloc(dev, sizeof(double) * N, (void **)&back));
  for (int i = 0; i < N; i++)
    h[i] = 1.0 / (i + 1), back[i] = -1;
  MUST(dg_device_malloc(dev, sizeof(double) * N, &d));
  MUST(dg_stream_create(dev, &strm));
  MUST(dg_device_upload_async(dev, d, h, sizeof(double) * N, strm));
  MUST(dg_device_download_async(dev, back, d, sizeof(double) * N, strm));
  MUST(dg_stream_synchronize(strm));
  EXPECT(memcmp(h, back, sizeof(double) * N) == 0, "round trip through the fallback differs");
  dg_stream_destroy(&strm);
  MUST(dg_device_free(dev, d));
  dg_device_host_free(dev, h);
  dg_device_host_free(dev, back);
  dg_device_destroy(&dev);
  return expect_finish();
}

static void fail_next(const char *call, int code) {
  snprintf(mock->fail_call, sizeof mock->fail_call, "%s", call);
  mock->fail_code = code;
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "nodevice") == 0)
    return no_device();
  if (argc > 1 && strcmp(argv[1], "olddriver") == 0) {
    if (!ops->available()) {
      printf("skipped: NVRTC is not available\n");
      return 77;
    }
    return old_driver();
  }
  if (!ops->available()) {
    if (!find_mock()) {
      fprintf(stderr, "FAILED: the mock libcuda.so.1 was not loaded\n");
      return 1;
    }
    printf("skipped: NVRTC is not available\n");
    return 77;
  }
  mock = find_mock();
  if (!mock) {
    fprintf(stderr, "FAILED: a libcuda.so.1 other than the mock was loaded "
                    "(check LD_LIBRARY_PATH)\n");
    return 1;
  }
  srand((unsigned)time(NULL));
  test_describe();
  dg_device_info info;
  MUST(ops->open(0, &info, &st));
  EXPECT(mock->ctx_refs == 1 && mock->ctx_set_current > 0,
         "primary context: %d refs, %d binds", mock->ctx_refs,
         mock->ctx_set_current);
  test_memory();
  test_kernels();
  test_streams_events();
  test_staging();
  ops->close(st);
  EXPECT(mock->ctx_refs == 0, "primary context refs %d after close",
         mock->ctx_refs);
  return expect_finish();
}
