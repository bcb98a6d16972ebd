/* cuda_loader: the CUDA driver (libcuda.so.1) and NVRTC, loaded with dlopen.
 *
 * dgrun never links libcuda or libnvrtc, so one binary runs on machines with
 * and without a GPU (DESIGN.md, "Dependencies").  cuda.h and nvrtc.h are
 * included for their types and constants only; every function is reached
 * through the tables below, filled with dlsym.
 *
 * Symbols are resolved under the versioned names cuda.h maps the public
 * names to (cuMemAlloc -> cuMemAlloc_v2, ...): dlsym bypasses those macros,
 * and the unversioned symbols are the old ABIs kept for old binaries.
 * Each table field is named exactly like the symbol it holds, so an error
 * message can name the driver entry point that failed.
 *
 * The libraries are loaded once per process and never unloaded: they are
 * process-wide by nature (the driver keeps its own global state), so the
 * tables are process-wide too.  Loading is thread-safe. */
#ifndef DG_CORE_CUDA_LOADER_H
#define DG_CORE_CUDA_LOADER_H

#if defined(DGRUN_HAVE_CUDA)

#include <cuda.h>
#include <nvrtc.h>

#include "core/error.h"

typedef struct dg_cuda_driver {
  char path[256];       /* what was dlopen'ed */
  CUresult init_status; /* cuInit(0): CUDA_SUCCESS or CUDA_ERROR_NO_DEVICE */
  int version;          /* cuDriverGetVersion, e.g. 12040 for 12.4 */
  CUresult (*cuGetErrorString)(CUresult, const char **);
  CUresult (*cuGetErrorName)(CUresult, const char **);
  CUresult (*cuInit)(unsigned int);
  CUresult (*cuDriverGetVersion)(int *);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceGetName)(char *, int, CUdevice);
  CUresult (*cuDeviceTotalMem_v2)(size_t *, CUdevice);
  CUresult (*cuDeviceGetAttribute)(int *, CUdevice_attribute, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuDevicePrimaryCtxRelease_v2)(CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxSynchronize)(void);
  CUresult (*cuMemGetInfo_v2)(size_t *, size_t *);
  CUresult (*cuMemAlloc_v2)(CUdeviceptr *, size_t);
  CUresult (*cuMemFree_v2)(CUdeviceptr);
  CUresult (*cuMemcpyHtoD_v2)(CUdeviceptr, const void *, size_t);
  CUresult (*cuMemcpyDtoH_v2)(void *, CUdeviceptr, size_t);
  CUresult (*cuMemcpyDtoD_v2)(CUdeviceptr, CUdeviceptr, size_t);
  CUresult (*cuMemsetD8_v2)(CUdeviceptr, unsigned char, size_t); /* optional */
  /* Optional (NULL when the driver lacks them): pinned host memory and
   * copies ordered on a stream, for staging halo exchanges. */
  CUresult (*cuMemHostAlloc)(void **, size_t, unsigned int);
  CUresult (*cuMemFreeHost)(void *);
  CUresult (*cuMemcpyHtoDAsync_v2)(CUdeviceptr, const void *, size_t, CUstream);
  CUresult (*cuMemcpyDtoHAsync_v2)(void *, CUdeviceptr, size_t, CUstream);
  CUresult (*cuModuleLoadDataEx)(CUmodule *, const void *, unsigned int,
                                 CUjit_option *, void **);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuFuncGetAttribute)(int *, CUfunction_attribute, CUfunction);
  CUresult (*cuFuncSetAttribute)(CUfunction, CUfunction_attribute, int);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned int, unsigned int,
                             unsigned int, unsigned int, unsigned int,
                             unsigned int, unsigned int, CUstream, void **,
                             void **);
  CUresult (*cuStreamCreate)(CUstream *, unsigned int);
  CUresult (*cuStreamDestroy_v2)(CUstream);
  CUresult (*cuStreamSynchronize)(CUstream);
  CUresult (*cuStreamWaitEvent)(CUstream, CUevent, unsigned int);
  CUresult (*cuEventCreate)(CUevent *, unsigned int);
  CUresult (*cuEventDestroy_v2)(CUevent);
  CUresult (*cuEventRecord)(CUevent, CUstream);
  CUresult (*cuEventSynchronize)(CUevent);
  /* cuEventElapsedTime_v2 (CUDA >= 12.8), else the older cuEventElapsedTime:
   * same signature and meaning. */
  CUresult (*cuEventElapsedTime_v2)(float *, CUevent, CUevent);
} dg_cuda_driver;

typedef struct dg_cuda_nvrtc {
  char path[256]; /* what was dlopen'ed */
  int major, minor; /* nvrtcVersion */
  const char *(*nvrtcGetErrorString)(nvrtcResult);
  nvrtcResult (*nvrtcVersion)(int *, int *);
  nvrtcResult (*nvrtcCreateProgram)(nvrtcProgram *, const char *, const char *,
                                    int, const char *const *,
                                    const char *const *);
  nvrtcResult (*nvrtcDestroyProgram)(nvrtcProgram *);
  nvrtcResult (*nvrtcCompileProgram)(nvrtcProgram, int, const char *const *);
  nvrtcResult (*nvrtcGetProgramLogSize)(nvrtcProgram, size_t *);
  nvrtcResult (*nvrtcGetProgramLog)(nvrtcProgram, char *);
  nvrtcResult (*nvrtcGetCUBINSize)(nvrtcProgram, size_t *);
  nvrtcResult (*nvrtcGetCUBIN)(nvrtcProgram, char *);
  /* Optional (NULL when the library lacks them). */
  nvrtcResult (*nvrtcGetNumSupportedArchs)(int *);
  nvrtcResult (*nvrtcGetSupportedArchs)(int *);
} dg_cuda_nvrtc;

/* Load libcuda.so.1 (once) and call cuInit(0).  Errors: DG_ERR_DEVICE when
 * the library is missing, lacks a symbol, or cuInit fails for a reason other
 * than "no device" (CUDA_ERROR_NO_DEVICE is not an error here: the device
 * count is then 0). */
dg_error dg_cuda_loader_driver(const dg_cuda_driver **out);

/* Load NVRTC (once).  Search order: $DGRUN_NVRTC (a path), then
 * libnvrtc.so, libnvrtc.so.13, libnvrtc.so.12 on the loader's path, then the
 * same names under DGRUN_CUDA_ROOT/lib64.  Errors: DG_ERR_UNSUPPORTED when
 * none loads (the message lists what was tried and why each failed). */
dg_error dg_cuda_loader_nvrtc(const dg_cuda_nvrtc **out);

#endif /* DGRUN_HAVE_CUDA */
#endif
