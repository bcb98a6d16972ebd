/* core.cuda_device: the cuda backend's method table on a real GPU.
 *
 * Calls dg_backend_cuda_ops directly (core/device_backend.h), below the
 * pool and the kernel cache of core/device.c, so what is tested is the
 * backend alone: device description, allocation, copies, NVRTC compile +
 * load, launches checked against CPU loops on fresh random data with
 * poisoned outputs, opt-in dynamic shared memory, kernel attributes,
 * streams ordered by events, event timing, and the error paths.
 * Exits 77 when no CUDA device (or no NVRTC) can be used. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/device_backend.h"
#include "core/error.h"
#include "tests/expect.h"


static const dg_backend_ops *ops = &dg_backend_cuda_ops;
static void *st; /* the open device */
static dg_device_info info;

/* xorshift64*: fresh data each run (seeded from the clock, printed). */
static uint64_t rng_state;
static double uniform(void) {
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return (double)((rng_state * 2685821657736338717ull) >> 11) * 0x1p-53;
}

static const char *kernels =
    "extern \"C\" __global__ void axpy(long long n, double a,\n"
    "                                  const double *x, double *y) {\n"
    "  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
    "  if (i < n) y[i] = a * x[i] + y[i];\n"
    "}\n"
    "// At most 128 threads per block, whatever the registers allow.\n"
    "extern \"C\" __global__ void __launch_bounds__(128) bounded(float *p) {\n"
    "  p[threadIdx.x] = 1.0f;\n"
    "}\n"
    "// 256 doubles of static shared memory: reverse a block of 256.\n"
    "extern \"C\" __global__ void static_shared(const double *in,\n"
    "                                           double *out) {\n"
    "  __shared__ double buf[256];\n"
    "  buf[threadIdx.x] = in[threadIdx.x];\n"
    "  __syncthreads();\n"
    "  out[threadIdx.x] = buf[255 - threadIdx.x];\n"
    "}\n"
    "// Reverse nwords ints through dynamic shared memory.\n"
    "extern \"C\" __global__ void dynamic_shared(int nwords, const int *in,\n"
    "                                            int *out) {\n"
    "  extern __shared__ int sh[];\n"
    "  for (int k = threadIdx.x; k < nwords; k += blockDim.x) sh[k] = in[k];\n"
    "  __syncthreads();\n"
    "  for (int k = threadIdx.x; k < nwords; k += blockDim.x)\n"
    "    out[k] = sh[nwords - 1 - k];\n"
    "}\n"
    "// Busy-wait `cycles` SM clocks, then fill p with v: slow on purpose,\n"
    "// so that a reader not ordered after it would see the old values.\n"
    "extern \"C\" __global__ void slow_fill(long long n, double v, double *p,\n"
    "                                       long long cycles) {\n"
    "  long long t0 = clock64();\n"
    "  while (clock64() - t0 < cycles) {}\n"
    "  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
    "  if (i < n) p[i] = v;\n"
    "}\n"
    "extern \"C\" __global__ void add_one(long long n, const double *src,\n"
    "                                     double *dst) {\n"
    "  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
    "  if (i < n) dst[i] = src[i] + 1.0;\n"
    "}\n";

static void *get(void *module, const char *entry) {
  void *f = NULL;
  MUST(ops->get_function(st, module, entry, &f));
  return f;
}

static dg_launch launch_1d(int64_t n, unsigned block, unsigned shared) {
  dg_launch l;
  memset(&l, 0, sizeof l);
  l.grid[0] = (unsigned)((n + block - 1) / block);
  l.block[0] = block;
  l.shared_bytes = shared;
  return l;
}

static void test_describe(void) {
  int n = 0;
  MUST(ops->count(&n));
  EXPECT(n >= 1, "count %d", n);
  MUST(ops->describe(0, &info));
  printf("device 0: %s, cc %d.%d, %d SMs, %.1f GiB, %s\n", info.name,
         info.cc_major, info.cc_minor, info.multiprocessors,
         info.total_memory / 1073741824.0, info.compiler_identity);
  EXPECT(info.backend == DG_BACKEND_CUDA &&
             strcmp(info.backend_name, "cuda") == 0,
         "backend %d '%s'", (int)info.backend, info.backend_name);
  EXPECT(info.name[0] != '\0', "empty name");
  EXPECT(info.cc_major >= 5, "compute capability %d.%d", info.cc_major,
         info.cc_minor);
  EXPECT(info.multiprocessors > 0, "%d SMs", info.multiprocessors);
  EXPECT(info.total_memory >= ((size_t)1 << 30), "total memory %zu",
         info.total_memory);
  /* Fixed by the CUDA programming model for every cc >= 2.0. */
  EXPECT(info.max_threads_per_block == 1024, "max threads/block %d",
         info.max_threads_per_block);
  EXPECT(info.warp_size == 32, "warp size %d", info.warp_size);
  EXPECT(info.max_shared_per_block == 48 * 1024, "shared/block %d",
         info.max_shared_per_block);
  EXPECT(info.max_shared_per_block_optin >= info.max_shared_per_block,
         "opt-in shared %d < default %d", info.max_shared_per_block_optin,
         info.max_shared_per_block);
  char want[64];
  snprintf(want, sizeof want, " sm_%d%d", info.cc_major, info.cc_minor);
  EXPECT(strncmp(info.compiler_identity, "nvrtc ", 6) == 0 &&
             strstr(info.compiler_identity, want),
         "identity '%s' lacks '%s'", info.compiler_identity, want);
  dg_device_info bad;
  EXPECT(ops->describe(n, &bad) == DG_ERR_DEVICE, "device %d described", n);
  dg_error_clear();
}

/* y = a x + y on n (not a multiple of the block) random doubles; the pad
 * past n must stay untouched, and the download lands on NaN poison. */
static void test_axpy(void *module) {
  const int64_t n = 1000003, pad = 64;
  size_t bytes = (size_t)(n + pad) * sizeof(double);
  double *x = malloc(bytes), *y = malloc(bytes), *out = malloc(bytes),
         *out2 = malloc(bytes);
  if (!x || !y || !out || !out2)
    exit(1);
  for (int64_t i = 0; i < n + pad; i++) {
    x[i] = 2 * uniform() - 1;
    y[i] = i < n ? 2 * uniform() - 1 : 1e300; /* sentinel */
    out[i] = out2[i] = NAN;
  }
  double a = 0.5 + uniform();
  void *dx, *dy, *dz;
  MUST(ops->alloc(st, bytes, &dx));
  MUST(ops->alloc(st, bytes, &dy));
  MUST(ops->alloc(st, bytes, &dz));
  MUST(ops->upload(st, dx, x, bytes));
  MUST(ops->upload(st, dy, y, bytes));
  int64_t nn = n;
  void *args[] = {&nn, &a, &dx, &dy};
  dg_launch l = launch_1d(n, 256, 0);
  MUST(ops->launch(st, get(module, "axpy"), &l, args, NULL));
  MUST(ops->copy(st, dz, dy, bytes));
  MUST(ops->download(st, out, dy, bytes));
  MUST(ops->download(st, out2, dz, bytes));
  int64_t bad = 0, first = -1;
  for (int64_t i = 0; i < n + pad; i++) {
    /* The device may fuse a*x+y into one FMA or not: either result is
     * within one rounding of each operation, 2 eps (|a x| + |y|). */
    double ref = i < n ? a * x[i] + y[i] : 1e300;
    double tol = i < n ? 2 * 0x1p-52 * (fabs(a * x[i]) + fabs(y[i])) : 0;
    if (!(fabs(out[i] - ref) <= tol)) {
      if (first < 0)
        first = i;
      bad++;
    }
  }
  EXPECT(bad == 0, "%lld of %lld axpy values wrong, first at %lld: %.17g",
         (long long)bad, (long long)(n + pad), (long long)first,
         first >= 0 ? out[first] : 0.0);
  EXPECT(memcmp(out, out2, bytes) == 0, "device-to-device copy differs");
  MUST(ops->release(st, dx));
  MUST(ops->release(st, dy));
  MUST(ops->release(st, dz));
  free(x), free(y), free(out), free(out2);
}

static void test_attributes(void *module) {
  dg_kernel_attributes a;
  memset(&a, 0xff, sizeof a);
  MUST(ops->attributes(st, get(module, "bounded"), &a));
  EXPECT(a.max_threads_per_block > 0 && a.max_threads_per_block <= 128,
         "__launch_bounds__(128) kernel allows %d threads",
         a.max_threads_per_block);
  EXPECT(a.num_regs > 0 && a.num_regs <= 255, "registers %d", a.num_regs);
  EXPECT(a.local_bytes == 0, "no-spill kernel has %d local bytes",
         a.local_bytes);
  EXPECT(a.shared_bytes_static == 0, "static shared %d",
         a.shared_bytes_static);
  MUST(ops->attributes(st, get(module, "static_shared"), &a));
  EXPECT(a.shared_bytes_static >= 256 * 8, "static shared %d < 2048",
         a.shared_bytes_static);
  EXPECT(a.max_threads_per_block >= 256, "max threads %d",
         a.max_threads_per_block);

  /* Beyond the kernel's own limit a launch is refused before the driver. */
  void *dp;
  MUST(ops->alloc(st, 1024 * sizeof(float), &dp));
  void *args[] = {&dp};
  dg_launch l = launch_1d(256, 256, 0);
  EXPECT(ops->launch(st, get(module, "bounded"), &l, args, NULL) ==
                 DG_ERR_ARG &&
             strstr(dg_error_message(), "bounded"),
         "256 threads on a 128-thread kernel: %s", dg_error_message());
  dg_error_clear();
  MUST(ops->release(st, dp));

  /* The static shared buffer works: reverse 256 random doubles. */
  double in[256], out[256];
  for (int i = 0; i < 256; i++)
    in[i] = uniform(), out[i] = NAN;
  void *din, *dout;
  MUST(ops->alloc(st, sizeof in, &din));
  MUST(ops->alloc(st, sizeof out, &dout));
  MUST(ops->upload(st, din, in, sizeof in));
  void *args2[] = {&din, &dout};
  l = launch_1d(256, 256, 0);
  MUST(ops->launch(st, get(module, "static_shared"), &l, args2, NULL));
  MUST(ops->download(st, out, dout, sizeof out));
  int bad = 0;
  for (int i = 0; i < 256; i++)
    bad += out[i] != in[255 - i];
  EXPECT(bad == 0, "%d of 256 reversed values wrong", bad);
  MUST(ops->release(st, din));
  MUST(ops->release(st, dout));
}

/* More dynamic shared memory than the 48 KiB default: the backend must
 * raise the kernel's opt-in limit, or the launch fails. */
static void test_dynamic_shared(void *module) {
  int bytes = info.max_shared_per_block_optin;
  if (bytes <= info.max_shared_per_block) {
    printf("no opt-in shared memory on this device: part skipped\n");
    return;
  }
  if (bytes > 160 * 1024)
    bytes = 160 * 1024;
  int nwords = bytes / 4;
  int *in = malloc((size_t)bytes), *out = malloc((size_t)bytes);
  if (!in || !out)
    exit(1);
  for (int i = 0; i < nwords; i++)
    in[i] = (int)(uniform() * 2e9) - 1000000000, out[i] = INT32_MIN;
  void *din, *dout;
  MUST(ops->alloc(st, (size_t)bytes, &din));
  MUST(ops->alloc(st, (size_t)bytes, &dout));
  MUST(ops->upload(st, din, in, (size_t)bytes));
  MUST(ops->upload(st, dout, out, (size_t)bytes));
  void *f = get(module, "dynamic_shared");
  void *args[] = {&nwords, &din, &dout};
  dg_launch l = launch_1d(1, 512, (unsigned)bytes);
  dg_error e = ops->launch(st, f, &l, args, NULL);
  if (e != DG_OK)
    dg_error_print(stderr);
  EXPECT(e == DG_OK, "launch with %d bytes of dynamic shared memory", bytes);
  MUST(ops->download(st, out, dout, (size_t)bytes));
  int bad = 0;
  for (int i = 0; i < nwords; i++)
    bad += out[i] != in[nwords - 1 - i];
  EXPECT(bad == 0, "%d of %d words wrong after a %d-byte shared reversal",
         bad, nwords, bytes);
  /* One byte past the device's opt-in maximum is refused. */
  l.shared_bytes = (unsigned)info.max_shared_per_block_optin + 1;
  EXPECT(ops->launch(st, f, &l, args, NULL) == DG_ERR_ARG,
         "launch past the opt-in shared maximum accepted");
  dg_error_clear();
  MUST(ops->release(st, din));
  MUST(ops->release(st, dout));
  free(in), free(out);
}

/* s2 waits (on the device) for an event recorded on s1 after a slow kernel
 * that fills A; a kernel on s2 then computes B = A + 1.  Without the wait
 * B would be computed from the old A (0), since the slow kernel spins for
 * milliseconds first.  Also times the slow kernel with events. */
static void test_streams_events(void *module) {
  const int64_t n = 1 << 20;
  size_t bytes = (size_t)n * sizeof(double);
  double *h = malloc(bytes);
  if (!h)
    exit(1);
  for (int64_t i = 0; i < n; i++)
    h[i] = 0.0;
  void *da, *db;
  MUST(ops->alloc(st, bytes, &da));
  MUST(ops->alloc(st, bytes, &db));
  MUST(ops->upload(st, da, h, bytes));
  MUST(ops->upload(st, db, h, bytes));
  void *s1, *s2, *e, *t0, *t1;
  MUST(ops->stream_create(st, &s1));
  MUST(ops->stream_create(st, &s2));
  MUST(ops->event_create(st, &e));
  MUST(ops->event_create(st, &t0));
  MUST(ops->event_create(st, &t1));

  /* 2e7 SM clocks: at most 3 GHz (no GPU clocks faster), so >= 6.7 ms. */
  int64_t nn = n, cycles = 20000000;
  double v = 3.0 + uniform();
  void *fill_args[] = {&nn, &v, &da, &cycles};
  void *add_args[] = {&nn, &da, &db};
  dg_launch l = launch_1d(n, 256, 0);
  MUST(ops->event_record(st, t0, s1));
  MUST(ops->launch(st, get(module, "slow_fill"), &l, fill_args, s1));
  MUST(ops->event_record(st, t1, s1));
  MUST(ops->event_record(st, e, s1));
  MUST(ops->stream_wait_event(st, s2, e));
  MUST(ops->launch(st, get(module, "add_one"), &l, add_args, s2));
  MUST(ops->stream_synchronize(st, s2));
  for (int64_t i = 0; i < n; i++)
    h[i] = NAN;
  MUST(ops->download(st, h, db, bytes));
  int64_t bad = 0;
  for (int64_t i = 0; i < n; i++)
    bad += h[i] != v + 1.0;
  EXPECT(bad == 0, "%lld of %lld values read A before s1 wrote it (h[0] "
                   "= %g, want %g)",
         (long long)bad, (long long)n, h[0], v + 1.0);

  MUST(ops->event_synchronize(st, t1));
  float ms = -1;
  MUST(ops->event_elapsed_ms(st, t0, t1, &ms));
  printf("slow_fill (2e7 clocks): %.3f ms\n", ms);
  EXPECT(ms >= 20000000 / 3e9 * 1e3 && ms < 10000,
         "elapsed %.3f ms for 2e7 SM clocks", ms);

  /* The NULL stream and device-wide synchronisation work too. */
  MUST(ops->event_record(st, t0, NULL));
  MUST(ops->event_record(st, t1, NULL));
  MUST(ops->synchronize(st));
  MUST(ops->event_elapsed_ms(st, t0, t1, &ms));
  EXPECT(ms >= 0 && ms < 1000, "empty interval took %.3f ms", ms);

  ops->event_destroy(st, e);
  ops->event_destroy(st, t0);
  ops->event_destroy(st, t1);
  ops->stream_destroy(st, s1);
  ops->stream_destroy(st, s2);
  MUST(ops->release(st, da));
  MUST(ops->release(st, db));
  free(h);
}

static void test_errors(void *module, const void *cubin, size_t size) {
  void *f = NULL;
  EXPECT(ops->get_function(st, module, "no_such_kernel", &f) ==
                 DG_ERR_DEVICE &&
             strstr(dg_error_message(), "no_such_kernel"),
         "missing kernel: %s", dg_error_message());
  dg_error_clear();

  void *blob = NULL;
  size_t bsize = 0;
  const char *broken = "extern \"C\" __global__ void k(int *p) {\n"
                       "  *p = undefined_thing;\n"
                       "}\n";
  EXPECT(ops->compile(st, "broken.cu", broken, NULL, 0, &blob, &bsize) ==
                 DG_ERR_COMPILE &&
             strstr(dg_error_message(), "undefined_thing") &&
             strstr(dg_error_message(), ">     2 |"),
         "broken source: %s", dg_error_message());
  dg_error_clear();

  void *m = NULL;
  EXPECT(ops->load(st, cubin, size / 2, &m) == DG_ERR_INPUT && m == NULL,
         "half a CUBIN loaded");
  dg_error_clear();

  void *p = NULL;
  size_t huge = info.total_memory * 2;
  EXPECT(ops->alloc(st, huge, &p) == DG_ERR_MEMORY && p == NULL &&
             strstr(dg_error_message(), "free"),
         "allocating %zu bytes: %s", huge, dg_error_message());
  dg_error_clear();
  /* The device still works after the failed allocation. */
  MUST(ops->alloc(st, 4096, &p));
  MUST(ops->release(st, p));
}

int main(void) {
  if (!ops->available()) {
    printf("skipped: no usable CUDA device (driver, GPU or NVRTC missing)\n");
    return 77;
  }
  rng_state = (uint64_t)time(NULL) * 0x9E3779B97F4A7C15ull | 1;
  printf("random seed state %llu\n", (unsigned long long)rng_state);
  test_describe();
  dg_device_info opened;
  MUST(ops->open(0, &opened, &st));
  EXPECT(strcmp(opened.name, info.name) == 0 &&
             strcmp(ops->compiler_identity(st), info.compiler_identity) == 0,
         "open described '%s' / '%s'", opened.name,
         ops->compiler_identity(st));

  void *cubin = NULL, *module = NULL;
  size_t size = 0;
  MUST(ops->compile(st, "cuda_device_test.cu", kernels, NULL, 0, &cubin,
                    &size));
  MUST(ops->load(st, cubin, size, &module));
  EXPECT(get(module, "axpy") == get(module, "axpy"),
         "the same entry gives two kernels");

  test_axpy(module);
  test_attributes(module);
  test_dynamic_shared(module);
  test_streams_events(module);
  test_errors(module, cubin, size);

  MUST(ops->synchronize(st));
  ops->unload(st, module);
  free(cubin);
  ops->close(st);
  return expect_finish();
}
