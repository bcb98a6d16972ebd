/* Only built with the CUDA headers (see core/CMakeLists.txt). */
#if defined(DGRUN_HAVE_CUDA)

#include "core/cuda_loader.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef DGRUN_CUDA_ROOT
#define DGRUN_CUDA_ROOT "/usr/local/cuda"
#endif

/* One entry point to resolve: its symbol name, an older name with the same
 * signature to fall back on (or NULL), where it goes in the table, and
 * whether a library without it is still usable. */
typedef struct {
  const char *name;
  const char *fallback;
  size_t offset;
  int optional;
} symbol;

#define DRV(s) {#s, NULL, offsetof(dg_cuda_driver, s), 0}
static const symbol driver_symbols[] = {
    DRV(cuGetErrorString),
    DRV(cuGetErrorName),
    DRV(cuInit),
    DRV(cuDriverGetVersion),
    DRV(cuDeviceGet),
    DRV(cuDeviceGetCount),
    DRV(cuDeviceGetName),
    DRV(cuDeviceTotalMem_v2),
    DRV(cuDeviceGetAttribute),
    DRV(cuDevicePrimaryCtxRetain),
    DRV(cuDevicePrimaryCtxRelease_v2),
    DRV(cuCtxSetCurrent),
    DRV(cuCtxSynchronize),
    DRV(cuMemGetInfo_v2),
    DRV(cuMemAlloc_v2),
    DRV(cuMemFree_v2),
    DRV(cuMemcpyHtoD_v2),
    DRV(cuMemcpyDtoH_v2),
    DRV(cuMemcpyDtoD_v2),
    {"cuMemsetD8_v2", NULL, offsetof(dg_cuda_driver, cuMemsetD8_v2), 1},
    {"cuMemHostAlloc", NULL, offsetof(dg_cuda_driver, cuMemHostAlloc), 1},
    {"cuMemFreeHost", NULL, offsetof(dg_cuda_driver, cuMemFreeHost), 1},
    {"cuMemcpyHtoDAsync_v2", NULL, offsetof(dg_cuda_driver, cuMemcpyHtoDAsync_v2), 1},
    {"cuMemcpyDtoHAsync_v2", NULL, offsetof(dg_cuda_driver, cuMemcpyDtoHAsync_v2), 1},
    DRV(cuModuleLoadDataEx),
    DRV(cuModuleUnload),
    DRV(cuModuleGetFunction),
    DRV(cuFuncGetAttribute),
    DRV(cuFuncSetAttribute),
    DRV(cuLaunchKernel),
    DRV(cuStreamCreate),
    DRV(cuStreamDestroy_v2),
    DRV(cuStreamSynchronize),
    DRV(cuStreamWaitEvent),
    DRV(cuEventCreate),
    DRV(cuEventDestroy_v2),
    DRV(cuEventRecord),
    DRV(cuEventSynchronize),
    {"cuEventElapsedTime_v2", "cuEventElapsedTime",
     offsetof(dg_cuda_driver, cuEventElapsedTime_v2), 0},
};
#undef DRV

#define RTC(s) {#s, NULL, offsetof(dg_cuda_nvrtc, s), 0}
static const symbol nvrtc_symbols[] = {
    RTC(nvrtcGetErrorString),
    RTC(nvrtcVersion),
    RTC(nvrtcCreateProgram),
    RTC(nvrtcDestroyProgram),
    RTC(nvrtcCompileProgram),
    RTC(nvrtcGetProgramLogSize),
    RTC(nvrtcGetProgramLog),
    RTC(nvrtcGetCUBINSize),
    RTC(nvrtcGetCUBIN),
    {"nvrtcGetNumSupportedArchs", NULL,
     offsetof(dg_cuda_nvrtc, nvrtcGetNumSupportedArchs), 1},
    {"nvrtcGetSupportedArchs", NULL,
     offsetof(dg_cuda_nvrtc, nvrtcGetSupportedArchs), 1},
};
#undef RTC

/* Fill the table at `table` from library handle h.  On a missing required
 * symbol, writes its name into why and returns 0.  POSIX guarantees that a
 * dlsym result may be stored in a function pointer (same representation),
 * which the memcpy relies on. */
static int resolve(void *h, const symbol *syms, size_t n, void *table,
                   char *why, size_t why_size) {
  for (size_t i = 0; i < n; i++) {
    void *p = dlsym(h, syms[i].name);
    if (!p && syms[i].fallback)
      p = dlsym(h, syms[i].fallback);
    if (!p && !syms[i].optional) {
      snprintf(why, why_size, "it has no symbol %s%s%s", syms[i].name,
               syms[i].fallback ? " (nor " : "",
               syms[i].fallback ? syms[i].fallback : "");
      if (syms[i].fallback)
        strncat(why, ")", why_size - strlen(why) - 1);
      return 0;
    }
    memcpy((char *)table + syms[i].offset, &p, sizeof p);
  }
  return 1;
}

/* ------------------------------------------------------------------ driver */

static pthread_once_t driver_once = PTHREAD_ONCE_INIT;
static dg_cuda_driver driver;
static int driver_ok;
static char driver_error[1024];

static void load_driver(void) {
  const char *name = "libcuda.so.1";
  void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *e = dlerror();
    snprintf(driver_error, sizeof driver_error,
             "cannot load the CUDA driver %s (%s): no NVIDIA driver on this "
             "machine, use the cpu backend",
             name, e ? e : "unknown reason");
    return;
  }
  char why[256];
  if (!resolve(h, driver_symbols,
               sizeof driver_symbols / sizeof driver_symbols[0], &driver, why,
               sizeof why)) {
    snprintf(driver_error, sizeof driver_error,
             "the CUDA driver %s is too old: %s; update the NVIDIA driver",
             name, why);
    return;
  }
  snprintf(driver.path, sizeof driver.path, "%s", name);
  driver.init_status = driver.cuInit(0);
  if (driver.init_status != CUDA_SUCCESS &&
      driver.init_status != CUDA_ERROR_NO_DEVICE) {
    const char *es = NULL, *en = NULL;
    driver.cuGetErrorString(driver.init_status, &es);
    driver.cuGetErrorName(driver.init_status, &en);
    snprintf(driver_error, sizeof driver_error,
             "cuInit failed: %s (%s) [CUresult %d]", en ? en : "?",
             es ? es : "unknown error", (int)driver.init_status);
    return;
  }
  if (driver.cuDriverGetVersion(&driver.version) != CUDA_SUCCESS)
    driver.version = 0;
  driver_ok = 1;
}

dg_error dg_cuda_loader_driver(const dg_cuda_driver **out) {
  DG_CHECK(out, DG_ERR_ARG, "out is NULL");
  pthread_once(&driver_once, load_driver);
  DG_CHECK(driver_ok, DG_ERR_DEVICE, "%s", driver_error);
  *out = &driver;
  return DG_OK;
}

/* ------------------------------------------------------------------- nvrtc */

static pthread_once_t nvrtc_once = PTHREAD_ONCE_INIT;
static dg_cuda_nvrtc nvrtc;
static int nvrtc_ok;
static char nvrtc_error[1536];

/* Try one candidate; on failure append the reason to nvrtc_error. */
static int try_nvrtc(const char *path) {
  size_t used = strlen(nvrtc_error);
  char *tail = nvrtc_error + used;
  size_t room = sizeof nvrtc_error - used;
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *e = dlerror();
    snprintf(tail, room, "\n  %s: %s", path, e ? e : "cannot be loaded");
    return 0;
  }
  dg_cuda_nvrtc t;
  memset(&t, 0, sizeof t);
  char why[256];
  if (!resolve(h, nvrtc_symbols, sizeof nvrtc_symbols / sizeof nvrtc_symbols[0],
               &t, why, sizeof why)) {
    snprintf(tail, room, "\n  %s: %s", path, why);
    dlclose(h);
    return 0;
  }
  if (t.nvrtcVersion(&t.major, &t.minor) != NVRTC_SUCCESS) {
    snprintf(tail, room, "\n  %s: nvrtcVersion failed", path);
    dlclose(h);
    return 0;
  }
  snprintf(t.path, sizeof t.path, "%s", path);
  nvrtc = t;
  return 1;
}

static void load_nvrtc(void) {
  static const char *const names[] = {"libnvrtc.so", "libnvrtc.so.13",
                                      "libnvrtc.so.12"};
  enum { NNAMES = sizeof names / sizeof names[0] };
  snprintf(nvrtc_error, sizeof nvrtc_error, "cannot load NVRTC; tried:");
  const char *env = getenv("DGRUN_NVRTC");
  if (env && env[0]) {
    /* An explicit choice is final: falling back silently would compile with
     * a compiler the user did not ask for. */
    nvrtc_ok = try_nvrtc(env);
    if (!nvrtc_ok)
      strncat(nvrtc_error, "\n  ($DGRUN_NVRTC names a library that does not "
                           "load; fix or unset it)",
              sizeof nvrtc_error - strlen(nvrtc_error) - 1);
    return;
  }
  for (int i = 0; i < NNAMES; i++)
    if ((nvrtc_ok = try_nvrtc(names[i])))
      return;
  for (int i = 0; i < NNAMES; i++) {
    char path[512];
    snprintf(path, sizeof path, "%s/lib64/%s", DGRUN_CUDA_ROOT, names[i]);
    if ((nvrtc_ok = try_nvrtc(path)))
      return;
  }
  strncat(nvrtc_error, "\n  (install the CUDA toolkit's NVRTC or set "
                       "$DGRUN_NVRTC to the path of libnvrtc.so)",
          sizeof nvrtc_error - strlen(nvrtc_error) - 1);
}

dg_error dg_cuda_loader_nvrtc(const dg_cuda_nvrtc **out) {
  DG_CHECK(out, DG_ERR_ARG, "out is NULL");
  pthread_once(&nvrtc_once, load_nvrtc);
  DG_CHECK(nvrtc_ok, DG_ERR_UNSUPPORTED, "%s", nvrtc_error);
  *out = &nvrtc;
  return DG_OK;
}

#else
/* ISO C wants at least one declaration in a translation unit. */
typedef int dg_cuda_loader_unused;
#endif
