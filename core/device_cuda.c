/* The cuda backend: CUDA Driver API (dlopen'ed, core/cuda_loader.h) and
 * NVRTC (core/nvrtc.h) behind dg_backend_ops.
 *
 * Contexts.  Each open device retains the device's primary context, the one
 * the CUDA runtime and libraries share, so dgrun cooperates with them in one
 * process.  Every method makes that context current on the calling thread
 * first (cuCtxSetCurrent is a thread-local store), so any thread may call.
 *
 * Streams.  A NULL stream is the legacy default stream: kernels launched
 * without a stream and the copies (cuMemcpyHtoD/DtoH/DtoD) are ordered on
 * it.  upload and download are complete when they return; copy (device to
 * device) is asynchronous, ordered on the default stream.  Streams from
 * stream_create are non-blocking: they do not synchronise with the default
 * stream, so data written on them must be waited for (event or stream
 * synchronisation) before a copy reads it, and a kernel on them must not
 * read what a copy on the default stream has not finished.
 *
 * Errors.  Every driver call is checked; a failing CUresult becomes
 * DG_ERR_DEVICE naming the entry point, the error name and string, and what
 * was being done.  An allocation failure is DG_ERR_MEMORY with the bytes
 * asked for and the bytes free. */
#if defined(DGRUN_HAVE_CUDA)

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cuda_loader.h"
#include "core/device_backend.h"
#include "core/log.h"
#include "core/nvrtc.h"

typedef struct cuda_state {
  const dg_cuda_driver *cu;
  CUdevice dev;
  CUcontext ctx;
  dg_device_info info;
  char arch[16];
} cuda_state;

/* A kernel: the driver handle plus what a launch needs without asking the
 * driver again. */
typedef struct cuda_function {
  CUfunction f;
  char *entry;
  int static_shared;
  int max_threads;
  /* The CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES last set (0: the
   * default limit).  Atomic: launches may come from several threads. */
  atomic_int dynamic_shared_limit;
  struct cuda_function *next;
} cuda_function;

/* A loaded module owns the kernels taken from it (freed on unload). */
typedef struct cuda_module {
  CUmodule m;
  pthread_mutex_t lock;
  cuda_function *functions;
} cuda_module;

/* ------------------------------------------------------------- errors */

/* Errors after which the context is unusable: every later call fails
 * with the same code, and the call that reports it is rarely the culprit. */
static int sticky(CUresult r) {
  switch (r) {
  case CUDA_ERROR_ILLEGAL_ADDRESS:
  case CUDA_ERROR_LAUNCH_FAILED:
  case CUDA_ERROR_MISALIGNED_ADDRESS:
  case CUDA_ERROR_ILLEGAL_INSTRUCTION:
  case CUDA_ERROR_HARDWARE_STACK_ERROR:
  case CUDA_ERROR_INVALID_ADDRESS_SPACE:
  case CUDA_ERROR_INVALID_PC:
  case CUDA_ERROR_ASSERT:
  case CUDA_ERROR_LAUNCH_TIMEOUT:
    return 1;
  default:
    return 0;
  }
}

/* Raise DG_ERR_DEVICE for a failed driver call.  context says what was
 * being done (may be NULL). */
static dg_error cu_raise(const dg_cuda_driver *cu, CUresult r,
                         const char *call, const char *context,
                         const char *file, int line, const char *func) {
  const char *name = NULL, *str = NULL;
  if (cu->cuGetErrorName(r, &name) != CUDA_SUCCESS || !name)
    name = "unknown CUresult";
  if (cu->cuGetErrorString(r, &str) != CUDA_SUCCESS || !str)
    str = "no description";
  return dg_error_raise(
      DG_ERR_DEVICE, file, line, func, "%s failed: %s (%s) [CUresult %d]%s%s%s",
      call, name, str, (int)r, context ? " while " : "", context ? context : "",
      sticky(r) ? "; this reports an earlier asynchronous kernel fault and "
                  "the CUDA context is unusable from here on (rerun with "
                  "CUDA_LAUNCH_BLOCKING=1 to find the kernel)"
                : "");
}

/* CU(st, fn, args...): call the driver entry point fn, return on failure. */
#define CU(st, fn, ...)                                                       \
  do {                                                                        \
    CUresult cu_r_ = (st)->cu->fn(__VA_ARGS__);                               \
    if (cu_r_ != CUDA_SUCCESS)                                                \
      return cu_raise((st)->cu, cu_r_, #fn, NULL, __FILE__, __LINE__,         \
                      __func__);                                              \
  } while (0)

/* CU_WHY(st, fn, (args), fmt, ...): the same, saying what was being done. */
#define CU_WHY(st, fn, args, ...)                                             \
  do {                                                                        \
    CUresult cu_r_ = (st)->cu->fn args;                                       \
    if (cu_r_ != CUDA_SUCCESS) {                                              \
      char cu_why_[512];                                                      \
      snprintf(cu_why_, sizeof cu_why_, __VA_ARGS__);                         \
      return cu_raise((st)->cu, cu_r_, #fn, cu_why_, __FILE__, __LINE__,      \
                      __func__);                                              \
    }                                                                         \
  } while (0)

/* One int-valued driver query (device or function attribute) and the int
 * field of an info struct it fills. */
typedef struct {
  int attr;
  const char *what;
  size_t offset;
} int_query;

/* Make st's context current on this thread. */
static dg_error bind(cuda_state *st) {
  CU(st, cuCtxSetCurrent, st->ctx);
  return DG_OK;
}

/* ------------------------------------------------------- devices */

static dg_error cuda_count(int *n) {
  DG_CHECK(n, DG_ERR_ARG, "n is NULL");
  const dg_cuda_driver *cu;
  DG_CALL(dg_cuda_loader_driver(&cu));
  *n = 0;
  if (cu->init_status == CUDA_ERROR_NO_DEVICE)
    return DG_OK;
  cuda_state tmp = {.cu = cu};
  CU(&tmp, cuDeviceGetCount, n);
  return DG_OK;
}

/* Usable = the driver loads, sees a device, and NVRTC loads.  The reason
 * it is not goes to the log (debug level), not to the error trace. */
static int cuda_available(void) {
  int n = 0;
  const dg_cuda_nvrtc *rtc;
  if (cuda_count(&n) != DG_OK ||
      (n > 0 && dg_cuda_loader_nvrtc(&rtc) != DG_OK)) {
    dg_debug("cuda backend unavailable: %s", dg_error_message());
    dg_error_clear();
    return 0;
  }
  if (n == 0)
    dg_debug("cuda backend unavailable: the driver reports no device");
  return n > 0;
}

static dg_error get_attribute(cuda_state *st, CUdevice_attribute a,
                              const char *what, int *out) {
  CU_WHY(st, cuDeviceGetAttribute, (out, a, st->dev),
         "reading %s of device %d", what, st->info.index);
  return DG_OK;
}

/* Fill st->dev, st->info and st->arch for device index. */
static dg_error query_device(cuda_state *st, int index) {
  int n;
  DG_CALL(cuda_count(&n));
  DG_CHECK(index >= 0 && index < n, DG_ERR_DEVICE,
           "no CUDA device %d: this machine has %d (valid: 0..%d; check "
           "$DGRUN_DEVICE and CUDA_VISIBLE_DEVICES)",
           index, n, n - 1);
  DG_CALL(dg_cuda_loader_driver(&st->cu));
  dg_device_info *info = &st->info;
  memset(info, 0, sizeof *info);
  info->backend = DG_BACKEND_CUDA;
  snprintf(info->backend_name, sizeof info->backend_name, "cuda");
  info->index = index;
  CU(st, cuDeviceGet, &st->dev, index);
  CU(st, cuDeviceGetName, info->name, (int)sizeof info->name, st->dev);
  CU(st, cuDeviceTotalMem_v2, &info->total_memory, st->dev);
  static const int_query attrs[] = {
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, "compute capability",
       offsetof(dg_device_info, cc_major)},
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, "compute capability",
       offsetof(dg_device_info, cc_minor)},
      {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "SM count",
       offsetof(dg_device_info, multiprocessors)},
      {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "threads per block",
       offsetof(dg_device_info, max_threads_per_block)},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, "shared memory",
       offsetof(dg_device_info, max_shared_per_block)},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
       "opt-in shared memory",
       offsetof(dg_device_info, max_shared_per_block_optin)},
      {CU_DEVICE_ATTRIBUTE_WARP_SIZE, "warp size",
       offsetof(dg_device_info, warp_size)},
  };
  for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++)
    DG_CALL(get_attribute(st, (CUdevice_attribute)attrs[i].attr, attrs[i].what,
                          (int *)((char *)info + attrs[i].offset)));
  DG_CALL(dg_nvrtc_arch_name(info->cc_major, info->cc_minor, st->arch,
                             sizeof st->arch));
  /* The identity needs NVRTC; a listing still works without it. */
  info->driver_version = st->cu->version;
  if (dg_nvrtc_identity(st->arch, info->compiler_identity,
                        sizeof info->compiler_identity) != DG_OK) {
    snprintf(info->compiler_identity, sizeof info->compiler_identity,
             "nvrtc (not loaded) %s", st->arch);
    dg_error_clear();
  }
  return DG_OK;
}

static dg_error cuda_describe(int index, dg_device_info *info) {
  DG_CHECK(info, DG_ERR_ARG, "info is NULL");
  cuda_state st;
  memset(&st, 0, sizeof st);
  DG_CALL(query_device(&st, index));
  *info = st.info;
  return DG_OK;
}

static dg_error cuda_open(int index, dg_device_info *info, void **state) {
  DG_CHECK(info && state, DG_ERR_ARG, "info/state is NULL");
  *state = NULL;
  cuda_state *st = calloc(1, sizeof *st);
  DG_CHECK(st, DG_ERR_MEMORY, "out of host memory for a device");
  dg_error err;
  DG_CALL_GOTO(err, fail, query_device(st, index));
  /* A cuda device without a compiler is of no use to dgrun: fail here, with
   * NVRTC's reason, rather than at the first kernel. */
  int major, minor, supported;
  DG_CALL_GOTO(err, fail, dg_nvrtc_version(&major, &minor));
  DG_CALL_GOTO(err, fail, dg_nvrtc_supports_arch(st->arch, &supported));
  DG_CHECK_GOTO(err, fail, supported, DG_ERR_UNSUPPORTED,
                "NVRTC %d.%d cannot generate code for %s (%s, device %d); "
                "point $DGRUN_NVRTC at a newer libnvrtc.so",
                major, minor, st->arch, st->info.name, index);
  /* A CUBIN from a newer major release than the driver may not load. */
  if (st->cu->version > 0 && st->cu->version / 1000 < major)
    dg_warn("the CUDA driver supports CUDA %d.%d but NVRTC is %d.%d; if "
            "modules fail to load, set $DGRUN_NVRTC to an NVRTC no newer "
            "than the driver",
            st->cu->version / 1000, st->cu->version % 1000 / 10, major,
            minor);
  CUresult r = st->cu->cuDevicePrimaryCtxRetain(&st->ctx, st->dev);
  if (r != CUDA_SUCCESS) {
    char why[64];
    snprintf(why, sizeof why, "opening device %d", index);
    err = cu_raise(st->cu, r, "cuDevicePrimaryCtxRetain", why, __FILE__,
                   __LINE__, __func__);
    goto fail;
  }
  err = bind(st);
  if (err != DG_OK) {
    st->cu->cuDevicePrimaryCtxRelease_v2(st->dev);
    goto fail;
  }
  *info = st->info;
  *state = st;
  dg_debug("cuda device %d: %s, %s", index, st->info.name,
           st->info.compiler_identity);
  return DG_OK;
fail:
  free(st);
  return err;
}

static void cuda_close(void *state) {
  cuda_state *st = state;
  if (!st)
    return;
  CUresult r = st->cu->cuDevicePrimaryCtxRelease_v2(st->dev);
  if (r != CUDA_SUCCESS)
    dg_warn("cuDevicePrimaryCtxRelease_v2 failed on device %d: CUresult %d",
            st->info.index, (int)r);
  free(st);
}

/* ------------------------------------------------------------- memory */

static CUdeviceptr dptr(const void *p) { return (CUdeviceptr)(uintptr_t)p; }

static dg_error cuda_alloc(void *state, size_t bytes, void **ptr) {
  cuda_state *st = state;
  DG_CHECK(ptr, DG_ERR_ARG, "ptr is NULL");
  DG_CHECK(bytes > 0, DG_ERR_ARG, "cannot allocate 0 bytes");
  *ptr = NULL;
  DG_CALL(bind(st));
  CUdeviceptr p = 0;
  CUresult r = st->cu->cuMemAlloc_v2(&p, bytes);
  if (r == CUDA_ERROR_OUT_OF_MEMORY) {
    size_t free_b = 0, total_b = 0;
    if (st->cu->cuMemGetInfo_v2(&free_b, &total_b) != CUDA_SUCCESS)
      free_b = total_b = 0;
    DG_RAISE(DG_ERR_MEMORY,
             "cuMemAlloc_v2: out of memory on cuda device %d (%s): asked for "
             "%zu bytes (%.3f GiB), %zu bytes (%.3f GiB) free of %zu",
             st->info.index, st->info.name, bytes, bytes / 1073741824.0,
             free_b, free_b / 1073741824.0, total_b);
  }
  if (r != CUDA_SUCCESS) {
    char why[96];
    snprintf(why, sizeof why, "allocating %zu bytes", bytes);
    return cu_raise(st->cu, r, "cuMemAlloc_v2", why, __FILE__, __LINE__,
                    __func__);
  }
  *ptr = (void *)(uintptr_t)p;
  return DG_OK;
}

static dg_error cuda_release(void *state, void *ptr) {
  cuda_state *st = state;
  if (!ptr)
    return DG_OK;
  DG_CALL(bind(st));
  CU_WHY(st, cuMemFree_v2, (dptr(ptr)), "freeing device address %p", ptr);
  return DG_OK;
}

static dg_error cuda_upload(void *state, void *dst, const void *src,
                            size_t bytes) {
  cuda_state *st = state;
  if (bytes == 0)
    return DG_OK;
  DG_CHECK(dst && src, DG_ERR_ARG, "NULL pointer (dst %p, src %p)", dst, src);
  DG_CALL(bind(st));
  CU_WHY(st, cuMemcpyHtoD_v2, (dptr(dst), src, bytes),
         "copying %zu bytes host -> device", bytes);
  /* From pageable memory cuMemcpyHtoD may return once the data is staged,
   * before it lands; non-blocking streams would not wait for it.  Waiting
   * here makes an upload complete on return, for every stream. */
  CU_WHY(st, cuStreamSynchronize, ((CUstream)0),
         "finishing a %zu-byte upload", bytes);
  return DG_OK;
}

static dg_error cuda_download(void *state, void *dst, const void *src,
                              size_t bytes) {
  cuda_state *st = state;
  if (bytes == 0)
    return DG_OK;
  DG_CHECK(dst && src, DG_ERR_ARG, "NULL pointer (dst %p, src %p)", dst, src);
  DG_CALL(bind(st));
  CU_WHY(st, cuMemcpyDtoH_v2, (dst, dptr(src), bytes),
         "copying %zu bytes device -> host", bytes);
  return DG_OK;
}

static dg_error cuda_copy(void *state, void *dst, const void *src,
                          size_t bytes) {
  cuda_state *st = state;
  if (bytes == 0)
    return DG_OK;
  DG_CHECK(dst && src, DG_ERR_ARG, "NULL pointer (dst %p, src %p)", dst, src);
  DG_CALL(bind(st));
  CU_WHY(st, cuMemcpyDtoD_v2, (dptr(dst), dptr(src), bytes),
         "copying %zu bytes device -> device", bytes);
  return DG_OK;
}

static dg_error cuda_zero(void *state, void *dst, size_t bytes) {
  cuda_state *st = state;
  if (bytes == 0)
    return DG_OK;
  DG_CALL(bind(st));
  if (!st->cu->cuMemsetD8_v2) { /* an old driver: zeros from the host */
    void *z = calloc(1, bytes);
    DG_CHECK(z, DG_ERR_MEMORY, "out of host memory (%zu bytes)", bytes);
    dg_error err = cuda_upload(state, dst, z, bytes);
    free(z);
    DG_CALL(err);
    return DG_OK;
  }
  CU_WHY(st, cuMemsetD8_v2, (dptr(dst), 0, bytes), "zeroing %zu bytes of device memory",
         bytes);
  /* complete on return, for every stream (as an upload) */
  CU_WHY(st, cuStreamSynchronize, ((CUstream)0), "finishing a %zu-byte memset", bytes);
  return DG_OK;
}

static void warn_failed(cuda_state *st, CUresult r, const char *call);

/* Pinned staging memory and stream-ordered copies, when the driver has the
 * entry points (optional in core/cuda_loader.c); without them device.c's
 * fallback (malloc, synchronous copies) does the same job more slowly. */
static int cuda_staging(void *state) {
  const cuda_state *st = state;
  return st->cu->cuMemHostAlloc && st->cu->cuMemFreeHost && st->cu->cuMemcpyHtoDAsync_v2 &&
         st->cu->cuMemcpyDtoHAsync_v2;
}

static dg_error cuda_host_alloc(void *state, size_t bytes, void **ptr) {
  cuda_state *st = state;
  *ptr = NULL;
  DG_CALL(bind(st));
  CUresult r = st->cu->cuMemHostAlloc(ptr, bytes, 0);
  DG_CHECK(r == CUDA_SUCCESS, DG_ERR_MEMORY,
           "cuMemHostAlloc of %zu bytes of pinned host memory failed (CUresult %d)", bytes,
           (int)r);
  return DG_OK;
}

static void cuda_host_free(void *state, void *ptr) {
  cuda_state *st = state;
  warn_failed(st, st->cu->cuCtxSetCurrent(st->ctx), "cuCtxSetCurrent");
  warn_failed(st, st->cu->cuMemFreeHost(ptr), "cuMemFreeHost");
}

static dg_error cuda_copy_async(void *state, void *dst, const void *src, size_t bytes,
                                int to_device, void *stream) {
  cuda_state *st = state;
  DG_CALL(bind(st));
  if (to_device)
    CU_WHY(st, cuMemcpyHtoDAsync_v2, (dptr(dst), src, bytes, (CUstream)stream),
           "copying %zu bytes host -> device on a stream", bytes);
  else
    CU_WHY(st, cuMemcpyDtoHAsync_v2, (dst, dptr(src), bytes, (CUstream)stream),
           "copying %zu bytes device -> host on a stream", bytes);
  return DG_OK;
}

/* ------------------------------------------------------------ modules */

static dg_error cuda_compile(void *state, const char *name, const char *source,
                             const char *const *options, int noptions,
                             void **blob, size_t *blob_size) {
  cuda_state *st = state;
  DG_CALL(dg_nvrtc_compile(name, source, st->arch, options, noptions, blob,
                           blob_size));
  return DG_OK;
}

static const char *cuda_compiler_identity(void *state) {
  cuda_state *st = state;
  return st->info.compiler_identity;
}

static dg_error cuda_load(void *state, const void *blob, size_t blob_size,
                          void **module) {
  cuda_state *st = state;
  DG_CHECK(module, DG_ERR_ARG, "module is NULL");
  *module = NULL;
  DG_CALL(dg_nvrtc_check_cubin(blob, blob_size));
  DG_CALL(bind(st));
  cuda_module *mod = calloc(1, sizeof *mod);
  DG_CHECK(mod, DG_ERR_MEMORY, "out of host memory for a module");
  char log[2048] = "";
  CUjit_option opt[] = {CU_JIT_ERROR_LOG_BUFFER,
                        CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *val[] = {log, (void *)(uintptr_t)sizeof log};
  CUresult r = st->cu->cuModuleLoadDataEx(&mod->m, blob, 2, opt, val);
  if (r != CUDA_SUCCESS) {
    free(mod);
    char why[2400];
    int major = 0, minor = 0;
    if (dg_nvrtc_version(&major, &minor) != DG_OK)
      dg_error_clear();
    snprintf(why, sizeof why,
             "loading a CUBIN of %zu bytes for %s (driver CUDA %d.%d, NVRTC "
             "%d.%d)%s%s",
             blob_size, st->arch, st->cu->version / 1000,
             st->cu->version % 1000 / 10, major, minor,
             log[0] ? ": " : "", log);
    return cu_raise(st->cu, r, "cuModuleLoadDataEx", why, __FILE__, __LINE__,
                    __func__);
  }
  if (pthread_mutex_init(&mod->lock, NULL) != 0) {
    st->cu->cuModuleUnload(mod->m);
    free(mod);
    DG_RAISE(DG_ERR_INTERNAL, "pthread_mutex_init failed");
  }
  *module = mod;
  return DG_OK;
}

static void cuda_unload(void *state, void *module) {
  cuda_state *st = state;
  cuda_module *mod = module;
  if (!mod)
    return;
  if (bind(st) != DG_OK) {
    dg_warn("unloading a module: %s", dg_error_message());
    dg_error_clear();
  }
  CUresult r = st->cu->cuModuleUnload(mod->m);
  if (r != CUDA_SUCCESS)
    dg_warn("cuModuleUnload failed: CUresult %d", (int)r);
  for (cuda_function *f = mod->functions, *next; f; f = next) {
    next = f->next;
    free(f->entry);
    free(f);
  }
  pthread_mutex_destroy(&mod->lock);
  free(mod);
}

static dg_error function_attribute(cuda_state *st, CUfunction f,
                                   CUfunction_attribute a, const char *what,
                                   const char *entry, int *out) {
  CU_WHY(st, cuFuncGetAttribute, (out, a, f), "reading %s of kernel '%s'",
         what, entry);
  return DG_OK;
}

/* Look entry up in mod (caller holds mod->lock); create it on first use. */
static dg_error find_function(cuda_state *st, cuda_module *mod,
                              const char *entry, cuda_function **out) {
  for (cuda_function *f = mod->functions; f; f = f->next)
    if (strcmp(f->entry, entry) == 0) {
      *out = f;
      return DG_OK;
    }
  CUfunction h;
  CUresult r = st->cu->cuModuleGetFunction(&h, mod->m, entry);
  if (r == CUDA_ERROR_NOT_FOUND)
    DG_RAISE(DG_ERR_DEVICE,
             "cuModuleGetFunction: no kernel '%s' in the module (is it "
             "declared extern \"C\" __global__?)",
             entry);
  if (r != CUDA_SUCCESS) {
    char why[320];
    snprintf(why, sizeof why, "looking up kernel '%.256s'", entry);
    return cu_raise(st->cu, r, "cuModuleGetFunction", why, __FILE__,
                    __LINE__, __func__);
  }
  cuda_function *f = calloc(1, sizeof *f);
  DG_CHECK(f, DG_ERR_MEMORY, "out of host memory for a kernel");
  dg_error err;
  f->f = h;
  DG_CHECK_GOTO(err, fail, (f->entry = malloc(strlen(entry) + 1)),
                DG_ERR_MEMORY, "out of host memory for a kernel name");
  strcpy(f->entry, entry);
  DG_CALL_GOTO(err, fail,
               function_attribute(st, h, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
                                  "static shared size", entry,
                                  &f->static_shared));
  DG_CALL_GOTO(err, fail,
               function_attribute(st, h,
                                  CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                                  "max threads per block", entry,
                                  &f->max_threads));
  atomic_init(&f->dynamic_shared_limit, 0);
  f->next = mod->functions;
  mod->functions = f;
  *out = f;
  return DG_OK;
fail:
  free(f->entry);
  free(f);
  return err;
}

static dg_error cuda_get_function(void *state, void *module, const char *entry,
                                  void **function) {
  cuda_state *st = state;
  cuda_module *mod = module;
  DG_CHECK(mod && entry && function, DG_ERR_ARG,
           "module/entry/function is NULL");
  *function = NULL;
  DG_CALL(bind(st));
  pthread_mutex_lock(&mod->lock);
  cuda_function *f = NULL;
  dg_error err = find_function(st, mod, entry, &f);
  pthread_mutex_unlock(&mod->lock);
  DG_CALL(err);
  *function = f;
  return DG_OK;
}

static dg_error cuda_attributes(void *state, void *function,
                                dg_kernel_attributes *out) {
  cuda_state *st = state;
  cuda_function *f = function;
  DG_CHECK(f && out, DG_ERR_ARG, "function/out is NULL");
  DG_CALL(bind(st));
  static const int_query attrs[] = {
      {CU_FUNC_ATTRIBUTE_NUM_REGS, "registers",
       offsetof(dg_kernel_attributes, num_regs)},
      {CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, "static shared size",
       offsetof(dg_kernel_attributes, shared_bytes_static)},
      {CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, "local memory size",
       offsetof(dg_kernel_attributes, local_bytes)},
      {CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "max threads per block",
       offsetof(dg_kernel_attributes, max_threads_per_block)},
  };
  for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++)
    DG_CALL(function_attribute(st, f->f, (CUfunction_attribute)attrs[i].attr,
                               attrs[i].what, f->entry,
                               (int *)((char *)out + attrs[i].offset)));
  return DG_OK;
}

/* Grid/block extents: x must be given; y and z default to 1 when 0, so a
 * 1-D launch may leave them unset. */
static unsigned extent(unsigned v, int axis) { return v ? v : axis ? 1u : 0u; }

static dg_error cuda_launch(void *state, void *function,
                            const dg_launch *launch, void **args,
                            void *stream) {
  cuda_state *st = state;
  cuda_function *f = function;
  DG_CHECK(f && launch, DG_ERR_ARG, "function/launch is NULL");
  unsigned g[3], b[3];
  for (int i = 0; i < 3; i++) {
    g[i] = extent(launch->grid[i], i);
    b[i] = extent(launch->block[i], i);
  }
  DG_CHECK(g[0] > 0 && b[0] > 0, DG_ERR_ARG,
           "kernel '%s': empty launch (grid.x %u, block.x %u)", f->entry,
           g[0], b[0]);
  uint64_t threads = (uint64_t)b[0] * b[1] * b[2];
  DG_CHECK(threads <= (uint64_t)f->max_threads, DG_ERR_ARG,
           "kernel '%s': block %ux%ux%u has %llu threads, more than the %d "
           "this kernel allows on %s (registers or __launch_bounds__ limit "
           "it)",
           f->entry, b[0], b[1], b[2], (unsigned long long)threads,
           f->max_threads, st->info.name);
  uint64_t shared = launch->shared_bytes;
  DG_CHECK(shared + (uint64_t)f->static_shared <=
               (uint64_t)st->info.max_shared_per_block_optin,
           DG_ERR_ARG,
           "kernel '%s': %llu bytes of dynamic + %d of static shared memory "
           "exceed the %d bytes a block may have on %s",
           f->entry, (unsigned long long)shared, f->static_shared,
           st->info.max_shared_per_block_optin, st->info.name);
  DG_CALL(bind(st));
  /* Beyond the default per-block limit (48 KiB) a kernel must opt in to
   * more dynamic shared memory (CUDA C Programming Guide, "Shared Memory",
   * compute capability 7.x and later). */
  if (shared + (uint64_t)f->static_shared >
          (uint64_t)st->info.max_shared_per_block &&
      (int)shared > atomic_load(&f->dynamic_shared_limit)) {
    CU_WHY(st, cuFuncSetAttribute,
           (f->f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            (int)shared),
           "allowing kernel '%s' %llu bytes of dynamic shared memory",
           f->entry, (unsigned long long)shared);
    atomic_store(&f->dynamic_shared_limit, (int)shared);
  }
  CU_WHY(st, cuLaunchKernel,
         (f->f, g[0], g[1], g[2], b[0], b[1], b[2], (unsigned)shared,
          (CUstream)stream, args, NULL),
         "launching kernel '%s' with grid %ux%ux%u, block %ux%ux%u, %llu "
         "bytes of dynamic shared memory",
         f->entry, g[0], g[1], g[2], b[0], b[1], b[2],
         (unsigned long long)shared);
  return DG_OK;
}

/* ----------------------------------------------------- streams, events */

static dg_error cuda_stream_create(void *state, void **stream) {
  cuda_state *st = state;
  DG_CHECK(stream, DG_ERR_ARG, "stream is NULL");
  DG_CALL(bind(st));
  CUstream s;
  CU(st, cuStreamCreate, &s, CU_STREAM_NON_BLOCKING);
  *stream = s;
  return DG_OK;
}

/* For the void-returning destroy methods: report, do not propagate. */
static void warn_failed(cuda_state *st, CUresult r, const char *call) {
  if (r == CUDA_SUCCESS)
    return;
  const char *name = NULL;
  if (st->cu->cuGetErrorName(r, &name) != CUDA_SUCCESS || !name)
    name = "unknown CUresult";
  dg_warn("%s failed on cuda device %d: %s", call, st->info.index, name);
}

static void cuda_stream_destroy(void *state, void *stream) {
  cuda_state *st = state;
  if (!stream)
    return;
  warn_failed(st, st->cu->cuCtxSetCurrent(st->ctx), "cuCtxSetCurrent");
  warn_failed(st, st->cu->cuStreamDestroy_v2((CUstream)stream),
              "cuStreamDestroy_v2");
}

static dg_error cuda_stream_synchronize(void *state, void *stream) {
  cuda_state *st = state;
  DG_CALL(bind(st));
  CU(st, cuStreamSynchronize, (CUstream)stream);
  return DG_OK;
}

static dg_error cuda_synchronize(void *state) {
  cuda_state *st = state;
  DG_CALL(bind(st));
  CU(st, cuCtxSynchronize);
  return DG_OK;
}

static dg_error cuda_event_create(void *state, void **event) {
  cuda_state *st = state;
  DG_CHECK(event, DG_ERR_ARG, "event is NULL");
  DG_CALL(bind(st));
  CUevent e;
  CU(st, cuEventCreate, &e, CU_EVENT_DEFAULT);
  *event = e;
  return DG_OK;
}

static void cuda_event_destroy(void *state, void *event) {
  cuda_state *st = state;
  if (!event)
    return;
  warn_failed(st, st->cu->cuCtxSetCurrent(st->ctx), "cuCtxSetCurrent");
  warn_failed(st, st->cu->cuEventDestroy_v2((CUevent)event),
              "cuEventDestroy_v2");
}

static dg_error cuda_event_record(void *state, void *event, void *stream) {
  cuda_state *st = state;
  DG_CHECK(event, DG_ERR_ARG, "event is NULL");
  DG_CALL(bind(st));
  CU(st, cuEventRecord, (CUevent)event, (CUstream)stream);
  return DG_OK;
}

static dg_error cuda_event_synchronize(void *state, void *event) {
  cuda_state *st = state;
  DG_CHECK(event, DG_ERR_ARG, "event is NULL");
  DG_CALL(bind(st));
  CU(st, cuEventSynchronize, (CUevent)event);
  return DG_OK;
}

static dg_error cuda_event_elapsed_ms(void *state, void *start, void *stop,
                                      float *ms) {
  cuda_state *st = state;
  DG_CHECK(start && stop && ms, DG_ERR_ARG, "start/stop/ms is NULL");
  DG_CALL(bind(st));
  /* Waiting for stop first turns CUDA_ERROR_NOT_READY into a result. */
  CU(st, cuEventSynchronize, (CUevent)stop);
  CU_WHY(st, cuEventElapsedTime_v2, (ms, (CUevent)start, (CUevent)stop),
         "timing between two events (were both recorded?)");
  return DG_OK;
}

static dg_error cuda_stream_wait_event(void *state, void *stream,
                                       void *event) {
  cuda_state *st = state;
  DG_CHECK(event, DG_ERR_ARG, "event is NULL");
  DG_CALL(bind(st));
  CU(st, cuStreamWaitEvent, (CUstream)stream, (CUevent)event, 0);
  return DG_OK;
}

static void cuda_print_runtime(FILE *out) {
  const dg_cuda_driver *cu;
  if (dg_cuda_loader_driver(&cu) == DG_OK)
    fprintf(out, "cuda: driver supports CUDA %d.%d\n", cu->version / 1000, cu->version % 1000 / 10);
  else
    fprintf(out, "cuda: no driver (%s)\n", dg_error_message());
  dg_error_clear();
  int major, minor;
  const char *path;
  if (dg_nvrtc_version(&major, &minor) == DG_OK && dg_nvrtc_path(&path) == DG_OK)
    fprintf(out, "cuda: NVRTC %d.%d (%s)\n", major, minor, path);
  else
    fprintf(out, "cuda: no NVRTC (%s)\n", dg_error_message());
  dg_error_clear();
}

/* Priority above the cpu backend: "auto" prefers a GPU when one works. */
const dg_backend_ops dg_backend_cuda_ops = {
    .print_runtime = cuda_print_runtime,
    .host_alloc = cuda_host_alloc,
    .host_free = cuda_host_free,
    .copy_async = cuda_copy_async,
    .staging = cuda_staging,
    .name = "cuda",
    .priority = 100,
    .available = cuda_available,
    .count = cuda_count,
    .describe = cuda_describe,
    .open = cuda_open,
    .close = cuda_close,
    .alloc = cuda_alloc,
    .release = cuda_release,
    .upload = cuda_upload,
    .download = cuda_download,
    .copy = cuda_copy,
    .zero = cuda_zero,
    .compile = cuda_compile,
    .compiler_identity = cuda_compiler_identity,
    .load = cuda_load,
    .unload = cuda_unload,
    .get_function = cuda_get_function,
    .attributes = cuda_attributes,
    .launch = cuda_launch,
    .stream_create = cuda_stream_create,
    .stream_destroy = cuda_stream_destroy,
    .stream_synchronize = cuda_stream_synchronize,
    .synchronize = cuda_synchronize,
    .event_create = cuda_event_create,
    .event_destroy = cuda_event_destroy,
    .event_record = cuda_event_record,
    .event_synchronize = cuda_event_synchronize,
    .event_elapsed_ms = cuda_event_elapsed_ms,
    .stream_wait_event = cuda_stream_wait_event,
};

#else
/* Built without the CUDA headers: no cuda backend (device.c registers only
 * what is declared in core/device_backend.h). */
typedef int dg_device_cuda_unused;
#endif
