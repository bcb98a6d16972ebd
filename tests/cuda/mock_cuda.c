/* The mock libcuda.so.1: see mock_cuda.h.  cuda.h gives the exact types
 * and constants; the functions keep the names the real library exports. */
#include <cuda.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tests/cuda/mock_cuda.h"

static mock_cuda_stats stats;
static int ctx_dummy;
static int device_count = -1;

mock_cuda_stats *mock_cuda_get_stats(void);
mock_cuda_stats *mock_cuda_get_stats(void) { return &stats; }

/* Injected failure: the named call returns the chosen code once. */
#define FAIL_POINT()                                                          \
  do {                                                                        \
    if (stats.fail_code && strcmp(stats.fail_call, __func__) == 0) {          \
      CUresult code_ = (CUresult)stats.fail_code;                             \
      stats.fail_code = 0;                                                    \
      return code_;                                                           \
    }                                                                         \
  } while (0)

static const struct {
  CUresult code;
  const char *name, *text;
} errors[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE",
     "no CUDA-capable device is detected"},
    {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE",
     "device kernel image is invalid"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS",
     "an illegal memory access was encountered"},
};

static int find_error(CUresult r) {
  for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
    if (errors[i].code == r)
      return (int)i;
  return -1;
}

CUresult cuGetErrorName(CUresult r, const char **s) {
  int i = find_error(r);
  if (i < 0)
    return CUDA_ERROR_INVALID_VALUE;
  *s = errors[i].name;
  return CUDA_SUCCESS;
}

CUresult cuGetErrorString(CUresult r, const char **s) {
  int i = find_error(r);
  if (i < 0)
    return CUDA_ERROR_INVALID_VALUE;
  *s = errors[i].text;
  return CUDA_SUCCESS;
}

CUresult cuInit(unsigned flags) {
  FAIL_POINT();
  if (flags != 0)
    return CUDA_ERROR_INVALID_VALUE;
  const char *env = getenv("MOCK_CUDA_DEVICES");
  device_count = env ? atoi(env) : 1;
  return device_count > 0 ? CUDA_SUCCESS : CUDA_ERROR_NO_DEVICE;
}

CUresult cuDriverGetVersion(int *v) {
  *v = 13000;
  return CUDA_SUCCESS;
}

static CUresult check_device(CUdevice d) {
  if (device_count < 0)
    return CUDA_ERROR_NOT_INITIALIZED;
  return d >= 0 && d < device_count ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

CUresult cuDeviceGetCount(int *n) {
  FAIL_POINT();
  if (device_count <= 0)
    return CUDA_ERROR_NOT_INITIALIZED;
  *n = device_count;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice *d, int ordinal) {
  FAIL_POINT();
  CUresult r = check_device(ordinal);
  if (r == CUDA_SUCCESS)
    *d = ordinal;
  return r;
}

CUresult cuDeviceGetName(char *name, int len, CUdevice d) {
  CUresult r = check_device(d);
  if (r == CUDA_SUCCESS && len > 0) {
    strncpy(name, MOCK_CUDA_NAME, (size_t)len - 1);
    name[len - 1] = '\0';
  }
  return r;
}

CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice d) {
  CUresult r = check_device(d);
  if (r == CUDA_SUCCESS)
    *bytes = MOCK_CUDA_TOTAL_MEMORY;
  return r;
}

CUresult cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice d) {
  FAIL_POINT();
  CUresult r = check_device(d);
  if (r != CUDA_SUCCESS)
    return r;
  switch (a) {
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = 9; break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *v = 0; break;
  case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *v = MOCK_CUDA_SMS; break;
  case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *v = 1024; break;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK:
    *v = MOCK_CUDA_SHARED_DEFAULT;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
    *v = MOCK_CUDA_SHARED_OPTIN;
    break;
  case CU_DEVICE_ATTRIBUTE_WARP_SIZE: *v = 32; break;
  default: return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice d) {
  FAIL_POINT();
  CUresult r = check_device(d);
  if (r == CUDA_SUCCESS) {
    *ctx = (CUcontext)(void *)&ctx_dummy;
    stats.ctx_refs++;
  }
  return r;
}

CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d) {
  CUresult r = check_device(d);
  if (r == CUDA_SUCCESS)
    stats.ctx_refs--;
  return r;
}

CUresult cuCtxSetCurrent(CUcontext ctx) {
  if (ctx != (CUcontext)(void *)&ctx_dummy)
    return CUDA_ERROR_INVALID_CONTEXT;
  stats.ctx_set_current++;
  return CUDA_SUCCESS;
}

CUresult cuCtxSynchronize(void) {
  FAIL_POINT();
  return CUDA_SUCCESS;
}

CUresult cuMemGetInfo_v2(size_t *free_b, size_t *total_b) {
  *free_b = MOCK_CUDA_TOTAL_MEMORY - (size_t)stats.bytes_live;
  *total_b = MOCK_CUDA_TOTAL_MEMORY;
  return CUDA_SUCCESS;
}

/* Each block carries its size in front, for the accounting. */
CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t bytes) {
  FAIL_POINT();
  if (bytes == 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (bytes > MOCK_CUDA_TOTAL_MEMORY - (size_t)stats.bytes_live)
    return CUDA_ERROR_OUT_OF_MEMORY;
  size_t *block = malloc(bytes + 16);
  if (!block)
    return CUDA_ERROR_OUT_OF_MEMORY;
  block[0] = bytes;
  stats.bytes_live += (long long)bytes;
  *p = (CUdeviceptr)(uintptr_t)((char *)block + 16);
  return CUDA_SUCCESS;
}

CUresult cuMemFree_v2(CUdeviceptr p) {
  if (!p)
    return CUDA_ERROR_INVALID_VALUE;
  size_t *block = (size_t *)(void *)((char *)(uintptr_t)p - 16);
  stats.bytes_live -= (long long)block[0];
  free(block);
  return CUDA_SUCCESS;
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n) {
  FAIL_POINT();
  memcpy((void *)(uintptr_t)dst, src, n);
  return CUDA_SUCCESS;
}

CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n) {
  FAIL_POINT();
  memcpy(dst, (const void *)(uintptr_t)src, n);
  return CUDA_SUCCESS;
}

/* Pinned memory and stream copies: plain host memory, copies done at once
 * (the mock's streams complete everything immediately).  Built with
 * MOCK_CUDA_NO_STAGING: an old driver without them. */
#if !defined(MOCK_CUDA_NO_STAGING)
CUresult cuMemHostAlloc(void **p, size_t n, unsigned int flags) {
  FAIL_POINT();
  (void)flags;
  *p = malloc(n);
  return *p ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

CUresult cuMemFreeHost(void *p) {
  FAIL_POINT();
  free(p);
  return CUDA_SUCCESS;
}

CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n, CUstream s) {
  FAIL_POINT();
  (void)s;
  memcpy((void *)(uintptr_t)dst, src, n);
  return CUDA_SUCCESS;
}

CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t n, CUstream s) {
  FAIL_POINT();
  (void)s;
  memcpy(dst, (const void *)(uintptr_t)src, n);
  return CUDA_SUCCESS;
}
#endif

CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t n) {
  FAIL_POINT();
  memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
  return CUDA_SUCCESS;
}

CUresult cuMemsetD8_v2(CUdeviceptr dst, unsigned char v, size_t n) {
  FAIL_POINT();
  memset((void *)(uintptr_t)dst, v, n);
  return CUDA_SUCCESS;
}

/* ------------------------------------------------ modules and kernels */

typedef struct mock_function {
  const char *name;
  int static_shared, max_threads, dynamic_limit;
} mock_function;

typedef struct mock_module {
  mock_function iota, big_shared;
} mock_module;

CUresult cuModuleLoadDataEx(CUmodule *m, const void *image, unsigned n,
                            CUjit_option *opt, void **val) {
  FAIL_POINT();
  (void)n, (void)opt, (void)val;
  if (memcmp(image, "\x7f" "ELF", 4) != 0)
    return CUDA_ERROR_INVALID_IMAGE;
  mock_module *mod = calloc(1, sizeof *mod);
  if (!mod)
    return CUDA_ERROR_OUT_OF_MEMORY;
  mod->iota = (mock_function){"iota", 0, 1024, 0};
  mod->big_shared = (mock_function){"big_shared", MOCK_CUDA_STATIC_SHARED,
                                    MOCK_CUDA_MAX_THREADS, 0};
  stats.modules_live++;
  *m = (CUmodule)(void *)mod;
  return CUDA_SUCCESS;
}

CUresult cuModuleUnload(CUmodule m) {
  free((void *)m);
  stats.modules_live--;
  return CUDA_SUCCESS;
}

CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name) {
  FAIL_POINT();
  mock_module *mod = (mock_module *)(void *)m;
  if (strcmp(name, "iota") == 0)
    *f = (CUfunction)(void *)&mod->iota;
  else if (strcmp(name, "big_shared") == 0)
    *f = (CUfunction)(void *)&mod->big_shared;
  else
    return CUDA_ERROR_NOT_FOUND;
  return CUDA_SUCCESS;
}

CUresult cuFuncGetAttribute(int *v, CUfunction_attribute a, CUfunction f) {
  FAIL_POINT();
  mock_function *mf = (mock_function *)(void *)f;
  switch (a) {
  case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *v = mf->max_threads; break;
  case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *v = mf->static_shared; break;
  case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES: *v = 0; break;
  case CU_FUNC_ATTRIBUTE_NUM_REGS: *v = 40; break;
  default: return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

CUresult cuFuncSetAttribute(CUfunction f, CUfunction_attribute a, int v) {
  FAIL_POINT();
  mock_function *mf = (mock_function *)(void *)f;
  if (a != CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES || v < 0 ||
      v + mf->static_shared > MOCK_CUDA_SHARED_OPTIN)
    return CUDA_ERROR_INVALID_VALUE;
  mf->dynamic_limit = v;
  stats.set_attribute_calls++;
  stats.dynamic_shared_attr = v;
  return CUDA_SUCCESS;
}

/* The real driver refuses more than 48 KiB of shared memory per block
 * unless the kernel opted in to it; so does the mock. */
CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz,
                        unsigned bx, unsigned by, unsigned bz,
                        unsigned shared, CUstream s, void **args,
                        void **extra) {
  FAIL_POINT();
  mock_function *mf = (mock_function *)(void *)f;
  if (extra || !gx || !gy || !gz || !bx || !by || !bz ||
      (long long)bx * by * bz > mf->max_threads)
    return CUDA_ERROR_INVALID_VALUE;
  if ((int)shared + mf->static_shared > MOCK_CUDA_SHARED_DEFAULT &&
      (int)shared > mf->dynamic_limit)
    return CUDA_ERROR_INVALID_VALUE;
  stats.launches++;
  stats.last_grid[0] = gx, stats.last_grid[1] = gy, stats.last_grid[2] = gz;
  stats.last_block[0] = bx, stats.last_block[1] = by,
  stats.last_block[2] = bz;
  stats.last_shared = shared;
  stats.last_stream = (void *)s;
  if (strcmp(mf->name, "iota") == 0) {
    long long n = *(const long long *)args[0];
    int *p = *(int *const *)args[1];
    long long threads = (long long)gx * bx;
    for (long long i = 0; i < n && i < threads; i++)
      p[i] = (int)i;
  }
  return CUDA_SUCCESS;
}

/* ------------------------------------------------------ streams, events */

CUresult cuStreamCreate(CUstream *s, unsigned flags) {
  FAIL_POINT();
  *s = (CUstream)malloc(8);
  if (!*s)
    return CUDA_ERROR_OUT_OF_MEMORY;
  stats.streams_live++;
  stats.last_stream_flags = flags;
  return CUDA_SUCCESS;
}

CUresult cuStreamDestroy_v2(CUstream s) {
  free((void *)s);
  stats.streams_live--;
  return CUDA_SUCCESS;
}

CUresult cuStreamSynchronize(CUstream s) {
  (void)s;
  FAIL_POINT();
  return CUDA_SUCCESS;
}

CUresult cuStreamWaitEvent(CUstream s, CUevent e, unsigned flags) {
  (void)s;
  FAIL_POINT();
  return e && flags == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

typedef struct mock_event {
  int recorded;
  double t; /* seconds, CLOCK_MONOTONIC */
} mock_event;

CUresult cuEventCreate(CUevent *e, unsigned flags) {
  FAIL_POINT();
  (void)flags;
  *e = (CUevent)(void *)calloc(1, sizeof(mock_event));
  if (!*e)
    return CUDA_ERROR_OUT_OF_MEMORY;
  stats.events_live++;
  return CUDA_SUCCESS;
}

CUresult cuEventDestroy_v2(CUevent e) {
  free((void *)e);
  stats.events_live--;
  return CUDA_SUCCESS;
}

CUresult cuEventRecord(CUevent e, CUstream s) {
  (void)s;
  FAIL_POINT();
  mock_event *me = (mock_event *)(void *)e;
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  me->t = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
  me->recorded = 1;
  return CUDA_SUCCESS;
}

CUresult cuEventSynchronize(CUevent e) {
  FAIL_POINT();
  return ((mock_event *)(void *)e)->recorded ? CUDA_SUCCESS
                                              : CUDA_ERROR_INVALID_HANDLE;
}

/* Only the pre-12.8 name: the loader must fall back to it.  cuda.h maps
 * the name to cuEventElapsedTime_v2, hence the #undef. */
#undef cuEventElapsedTime
CUresult cuEventElapsedTime(float *ms, CUevent a, CUevent b);
CUresult cuEventElapsedTime(float *ms, CUevent a, CUevent b) {
  FAIL_POINT();
  mock_event *ea = (mock_event *)(void *)a, *eb = (mock_event *)(void *)b;
  if (!ea->recorded || !eb->recorded)
    return CUDA_ERROR_INVALID_HANDLE;
  *ms = (float)((eb->t - ea->t) * 1e3);
  return CUDA_SUCCESS;
}

/* NVRTC itself opens libcuda.so.1 and asks for this private entry point
 * (it calls cuInit first); answering "not supported" makes it go on
 * without the driver, as on a machine with none. */
CUresult cuGetExportTable(const void **table, const CUuuid *id);
CUresult cuGetExportTable(const void **table, const CUuuid *id) {
  (void)id;
  if (table)
    *table = NULL;
  return CUDA_ERROR_NOT_SUPPORTED;
}
