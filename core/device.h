/* dg_device: one interface over the compute backends.
 *
 * Backends (registered by name, libCEED style):
 *   "cuda" - CUDA Driver API + NVRTC, both loaded with dlopen at run time, so
 *            one binary runs on machines with and without a GPU;
 *   "cpu"  - generated C compiled by the system compiler into a shared object
 *            (cc -O3 -march=native -fopenmp -shared -fPIC), loaded by dlopen.
 * "auto" picks cuda when a device exists, else cpu.
 *
 * Pointers returned by dg_device_malloc are device addresses for cuda
 * (a CUdeviceptr stored in a void*) and host addresses for cpu; only the
 * device functions below may dereference them portably.
 *
 * Kernels.  Both backends take the argument list the CUDA way: args[i]
 * points at the value of argument i (e.g. &d_ptr, &n).
 *   cuda: the entry is a __global__ function; dg_launch's grid/block/shared
 *         are used as given.
 *   cpu:  the entry is   void name(void **args, int64_t first, int64_t count)
 *         and processes items [first, first+count) of launch->items; the
 *         backend cuts [0, items) into chunks of launch->chunk items and runs
 *         the chunks on OpenMP threads.  A kernel that writes one partial
 *         result per chunk (reductions) takes the chunk size as an argument
 *         and uses first / chunk as its slot.
 * The same generator description feeds both; CUDA-only ideas (shared memory,
 * barriers) stay in the CUDA source. */
#ifndef DG_CORE_DEVICE_H
#define DG_CORE_DEVICE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/error.h"

typedef enum { DG_BACKEND_CPU = 0, DG_BACKEND_CUDA = 1 } dg_backend_kind;

typedef struct dg_device dg_device;
typedef struct dg_module dg_module;
typedef struct dg_kernel dg_kernel;
typedef struct dg_stream dg_stream;
typedef struct dg_event dg_event;

/* What a device is, for listings, cache keys and tuning keys. */
typedef struct dg_device_info {
  dg_backend_kind backend;
  char backend_name[16];   /* "cuda" or "cpu" */
  char name[256];          /* "NVIDIA H100 80GB HBM3" or the CPU model */
  int index;               /* device ordinal (cuda) or 0 */
  int cc_major, cc_minor;  /* compute capability (cuda), 0 for cpu */
  int multiprocessors;     /* SMs (cuda) or OpenMP threads (cpu) */
  size_t total_memory;     /* bytes */
  int max_threads_per_block;
  int max_shared_per_block;          /* bytes, default (48 KiB on Hopper) */
  int max_shared_per_block_optin;    /* bytes, with the opt-in attribute */
  int warp_size;
  char compiler_identity[256]; /* "nvrtc 13.0 sm_90" or "cc path + version" */
  int driver_version;          /* cuda driver, e.g. 12040; 0 for cpu (tuning keys) */
} dg_device_info;

/* Counters a test can read: a second identical run compiles nothing. */
typedef struct dg_device_stats {
  int64_t compilations;   /* modules actually compiled (NVRTC / cc) */
  int64_t cache_hits;     /* modules loaded from the on-disk cache */
  int64_t cache_rebuilds; /* corrupt entries detected and recompiled */
  int64_t bytes_allocated;/* currently handed out by the pool */
  int64_t bytes_reserved; /* held by the pool, in use or free */
  int64_t raw_allocations;/* blocks obtained from the driver / system */
  int64_t pool_reuses;    /* mallocs served from a freed pooled block */
} dg_device_stats;

/* backend: "auto", "cuda" or "cpu".  index < 0 means: $DGRUN_DEVICE if set,
 * else 0.  Errors: DG_ERR_DEVICE (no such device), DG_ERR_INPUT (bad name). */
dg_error dg_device_create(const char *backend, int index, dg_device **out);
void dg_device_destroy(dg_device **dev);
/* Devices the backend ("auto", "cuda", "cpu") would choose from, and
 * whether $DGRUN_DEVICE names one (one rank per GPU: picked otherwise). */
dg_error dg_device_count(const char *backend, int *n);
int dg_device_env_index_set(void);

/* Print every backend this build has and the devices each can see. */
dg_error dg_device_list(FILE *out);
/* What each backend of this build finds at run time: the CUDA driver and
 * NVRTC versions, the C compiler of the cpu backend (`dgrun --version`). */
void dg_device_print_runtime(FILE *out);

/* Whether the cuda backend was built in, and whether a GPU can be used now. */
int dg_device_cuda_built(void);
int dg_device_cuda_available(void);

const dg_device_info *dg_device_get_info(const dg_device *dev);
dg_device_stats dg_device_get_stats(const dg_device *dev);

/* Memory (pooled: freed blocks are kept for reuse, by size class; a size is
 * rounded up to 256 B or to 2^k * {1.25, 1.5, 1.75, 2}).  malloc of 0 bytes
 * gives NULL; freeing NULL does nothing. */
dg_error dg_device_malloc(dg_device *dev, size_t bytes, void **ptr);
dg_error dg_device_free(dg_device *dev, void *ptr);
/* Return every free pooled block to the driver / system. */
dg_error dg_device_trim(dg_device *dev);
dg_error dg_device_upload(dg_device *dev, void *dst_dev, const void *src_host,
                          size_t bytes);
dg_error dg_device_download(dg_device *dev, void *dst_host,
                            const void *src_dev, size_t bytes);
dg_error dg_device_copy(dg_device *dev, void *dst_dev, const void *src_dev,
                        size_t bytes);
/* Set bytes of device memory to zero, on the device (no host buffer of
 * zeros to fill, page in and copy over); complete on return. */
dg_error dg_device_zero(dg_device *dev, void *dst_dev, size_t bytes);
/* Page-locked host memory for staging transfers (cuda: cuMemHostAlloc;
 * otherwise, and on cpu, malloc), freed with dg_device_host_free. */
dg_error dg_device_host_alloc(dg_device *dev, size_t bytes, void **ptr);
void dg_device_host_free(dg_device *dev, void *ptr);
/* Copies ordered on stream s (NULL: the default stream).  Asynchronous on
 * cuda: the host buffer must not be touched until an event recorded on s
 * after the copy has completed.  cpu: done on return. */
dg_error dg_device_upload_async(dg_device *dev, void *dst_dev, const void *src_host,
                                size_t bytes, dg_stream *s);
dg_error dg_device_download_async(dg_device *dev, void *dst_host, const void *src_dev,
                                  size_t bytes, dg_stream *s);

/* Pointer arithmetic on device addresses (valid for both backends). */
void *dg_device_offset(void *ptr, size_t bytes);

/* Compile sources[0..n) into the kernel cache without loading them, in up
 * to `workers` forked processes at once (<= 0: one per online processor;
 * processes because NVRTC serializes one process's compiles, see
 * core/forkpool.h), so that
 * the dg_device_compile of each that follows is a cache hit: the tuner's
 * candidates compile side by side instead of one after the other.  Sources
 * already cached are skipped; one that does not compile is left for its
 * dg_device_compile to report.  Without a kernel cache it does nothing. */
dg_error dg_device_precompile(dg_device *dev, const char *const *sources, int n, int workers);

/* Compile a module from generated source (looked up in the kernel cache
 * first).  name labels the module in messages and dumps.  options are
 * backend compiler options added to the defaults (may be NULL). */
dg_error dg_device_compile(dg_device *dev, const char *name,
                           const char *source, const char *const *options,
                           int noptions, dg_module **out);
void dg_module_destroy(dg_module **mod);
dg_error dg_module_get_kernel(dg_module *mod, const char *entry,
                              dg_kernel **out);

/* Static properties of a compiled kernel (tuner pruning).  Zero on cpu.
 * The module owns its kernels: they die with dg_module_destroy, and asking
 * twice for one entry gives the same dg_kernel. */
typedef struct dg_kernel_attributes {
  int num_regs;
  int shared_bytes_static;
  int local_bytes;        /* spills / stack frame */
  int max_threads_per_block;
} dg_kernel_attributes;
dg_error dg_kernel_get_attributes(const dg_kernel *k, dg_kernel_attributes *out);

/* Launch geometry.  cuda uses grid/block/shared_bytes; cpu uses items and
 * chunk (chunk <= 0: the backend picks items / (4 * threads)). */
typedef struct dg_launch {
  unsigned grid[3];
  unsigned block[3];
  unsigned shared_bytes;
  int64_t items;
  int64_t chunk;
} dg_launch;

/* stream may be NULL (the device's default stream).  Asynchronous on cuda. */
dg_error dg_kernel_launch(dg_kernel *k, const dg_launch *launch, void **args,
                          dg_stream *stream);

/* Streams and events (events time device work; cpu uses a host clock). */
dg_error dg_stream_create(dg_device *dev, dg_stream **out);
void dg_stream_destroy(dg_stream **s);
dg_error dg_stream_synchronize(dg_stream *s);
dg_error dg_device_synchronize(dg_device *dev);
dg_error dg_event_create(dg_device *dev, dg_event **out);
void dg_event_destroy(dg_event **e);
dg_error dg_event_record(dg_event *e, dg_stream *s);
dg_error dg_event_synchronize(dg_event *e);
/* Milliseconds between two recorded events. */
dg_error dg_event_elapsed_ms(dg_event *start, dg_event *stop, float *ms);
/* Make stream s wait for event e (no host synchronisation). */
dg_error dg_stream_wait_event(dg_stream *s, dg_event *e);

#endif
