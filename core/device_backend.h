/* Private: the table of methods each backend fills in (libCEED style).
 * core/device.c owns the registry, the pooled allocator, the kernel cache
 * lookups and the public dg_device_* functions; backends (device_cpu.c,
 * device_cuda.c) implement only what differs.  Nothing outside core/
 * includes this header. */
#ifndef DG_CORE_DEVICE_BACKEND_H
#define DG_CORE_DEVICE_BACKEND_H

#include <stdio.h>

#include "core/device.h"

typedef struct dg_backend_ops {
  const char *name;  /* "cuda" or "cpu" */
  int priority;      /* "auto" takes the available backend of highest priority */

  /* Is the backend usable on this machine now (libraries load, devices > 0)? */
  int (*available)(void);
  /* Number of devices, and their descriptions (for dg_device_list). */
  dg_error (*count)(int *n);
  dg_error (*describe)(int index, dg_device_info *info);
  /* One line or two on what the backend found at run time (libraries and
   * their versions, the compiler it would use), for `dgrun --version`;
   * never fails: what is missing is said. */
  void (*print_runtime)(FILE *out);

  /* Open device index; *state is the backend's private context.  device.c
   * fills info->backend, backend_name and index itself afterwards. */
  dg_error (*open)(int index, dg_device_info *info, void **state);
  void (*close)(void *state);

  /* Raw allocation (the pool in device.c sits on top).  Out of memory is
   * DG_ERR_MEMORY: the pool then returns its free blocks and retries. */
  dg_error (*alloc)(void *state, size_t bytes, void **ptr);
  dg_error (*release)(void *state, void *ptr);
  dg_error (*upload)(void *state, void *dst, const void *src, size_t bytes);
  dg_error (*download)(void *state, void *dst, const void *src, size_t bytes);
  dg_error (*copy)(void *state, void *dst, const void *src, size_t bytes);
  /* Optional (NULL: zeros uploaded from the host): set bytes to zero,
   * complete on return like upload. */
  dg_error (*zero)(void *state, void *dst, size_t bytes);
  /* Optional (NULL: malloc/free and synchronous copies, in device.c):
   * page-locked host memory, and copies ordered on a stream (to_device:
   * host -> device).  staging (optional) answers 0 when the open device
   * cannot serve these three after all (a driver without the entry
   * points): device.c then takes its fallback for them as well. */
  dg_error (*host_alloc)(void *state, size_t bytes, void **ptr);
  void (*host_free)(void *state, void *ptr);
  dg_error (*copy_async)(void *state, void *dst, const void *src, size_t bytes,
                         int to_device, void *stream);
  int (*staging)(void *state);

  /* Compile source to a binary blob (cubin / shared object bytes, malloc'ed;
   * device.c frees it) that the kernel cache stores.  A failed compile
   * raises DG_ERR_COMPILE whose message holds the compiler's log and the
   * offending source lines.  load turns a blob into a loaded module. */
  dg_error (*compile)(void *state, const char *name, const char *source,
                      const char *const *options, int noptions,
                      void **blob, size_t *blob_size);
  /* Identity of the compiler + target, part of every cache key (a string
   * owned by state, stable while the device is open). */
  const char *(*compiler_identity)(void *state);
  dg_error (*load)(void *state, const void *blob, size_t blob_size,
                   void **module);
  void (*unload)(void *state, void *module);
  dg_error (*get_function)(void *state, void *module, const char *entry,
                           void **function);
  dg_error (*attributes)(void *state, void *function,
                         dg_kernel_attributes *out);
  dg_error (*launch)(void *state, void *function, const dg_launch *launch,
                     void **args, void *stream);

  dg_error (*stream_create)(void *state, void **stream);
  void (*stream_destroy)(void *state, void *stream);
  dg_error (*stream_synchronize)(void *state, void *stream);
  dg_error (*synchronize)(void *state);
  dg_error (*event_create)(void *state, void **event);
  void (*event_destroy)(void *state, void *event);
  dg_error (*event_record)(void *state, void *event, void *stream);
  dg_error (*event_synchronize)(void *state, void *event);
  dg_error (*event_elapsed_ms)(void *state, void *start, void *stop, float *ms);
  dg_error (*stream_wait_event)(void *state, void *stream, void *event);
} dg_backend_ops;

/* Defined by each backend file. */
extern const dg_backend_ops dg_backend_cpu_ops;
#if defined(DGRUN_HAVE_CUDA)
extern const dg_backend_ops dg_backend_cuda_ops;
#endif

#endif
