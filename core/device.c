/* dg_device: the backend registry, the pooled allocator, kernel-cache
 * lookups and the thin public wrappers over the backend method table
 * (core/device_backend.h).  Backends implement only what differs. */
#include "core/device.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/device_backend.h"
#include "core/forkpool.h"
#include "core/hash.h"
#include "core/kernel_cache.h"
#include "core/log.h"
#include "core/suggest.h"

/* Register the cuda backend when the build has CUDA headers. */
#if defined(DGRUN_HAVE_CUDA)
#define DG_REGISTER_CUDA 1
#endif
#ifndef DG_REGISTER_CUDA
#define DG_REGISTER_CUDA 0
#endif

/* The registry: the only process-wide state of this module, and constant. */
static const dg_backend_ops *const registry[] = {
#if DG_REGISTER_CUDA
    &dg_backend_cuda_ops,
#endif
    &dg_backend_cpu_ops,
};
enum { NBACKENDS = sizeof registry / sizeof registry[0] };

/* ------------------------------------------------------------------------ */
/* Pool size classes.  Up to 256 B everything is one class.  Above, a size
 * is rounded up to the next of 2^k * {1.25, 1.5, 1.75, 2}: four classes per
 * octave (as in jemalloc), so a request wastes at most 25 % while repeated
 * allocations of similar sizes (time-step temporaries, tuning variants)
 * still land in one class and reuse each other's blocks.  Every class is a
 * multiple of 64 B, so pooled blocks keep the backend's alignment. */
enum { MIN_CLASS = 256, CLASSES_PER_OCTAVE = 4, NCLASSES = 1 + 56 * 4 };

static int size_class(size_t bytes, size_t *rounded) {
  if (bytes <= MIN_CLASS) {
    *rounded = MIN_CLASS;
    return 0;
  }
  int k = 0; /* 2^k < bytes <= 2^(k+1) */
  while (((size_t)1 << (k + 1)) < bytes)
    k++;
  size_t base = (size_t)1 << k, step = base / CLASSES_PER_OCTAVE;
  size_t j = (bytes - base + step - 1) / step; /* 1..4 */
  *rounded = base + j * step;
  return 1 + (k - 8) * CLASSES_PER_OCTAVE + (int)(j - 1);
}

typedef struct block {
  void *ptr;
  size_t size; /* class size actually reserved */
  int cls;
  struct block *next;
} block;

struct dg_device {
  const dg_backend_ops *ops;
  void *state;
  dg_device_info info;
  pthread_mutex_t lock; /* pool and stats */
  block *free_list[NCLASSES];
  block **live;         /* hash table of handed-out blocks, by pointer */
  size_t nbuckets, nlive;
  dg_device_stats stats;
  dg_kernel_cache *cache;
  int cache_disabled;   /* opening the cache failed once: do not retry */
};

struct dg_kernel {
  dg_module *mod;
  void *function;
  char *entry;
  struct dg_kernel *next;
};

struct dg_module {
  dg_device *dev;
  void *handle;
  char *name;
  dg_kernel *kernels; /* owned: freed with the module */
};

struct dg_stream {
  dg_device *dev;
  void *handle;
};

struct dg_event {
  dg_device *dev;
  void *handle;
};

/* ------------------------------------------------------------------------ */
/* Registry and selection. */

int dg_device_cuda_built(void) { return DG_REGISTER_CUDA; }

int dg_device_cuda_available(void) {
#if DG_REGISTER_CUDA
  return dg_backend_cuda_ops.available();
#else
  return 0;
#endif
}

static const dg_backend_ops *auto_backend(void) {
  const dg_backend_ops *best = NULL;
  for (int i = 0; i < NBACKENDS; i++)
    if ((!best || registry[i]->priority > best->priority) &&
        registry[i]->available())
      best = registry[i];
  return best;
}

static dg_error find_backend(const char *name, const dg_backend_ops **out) {
  *out = NULL;
  if (!name || strcmp(name, "auto") == 0) {
    *out = auto_backend();
    DG_CHECK(*out, DG_ERR_DEVICE, "no backend is available on this machine");
    return DG_OK;
  }
  for (int i = 0; i < NBACKENDS; i++)
    if (strcmp(registry[i]->name, name) == 0) {
      DG_CHECK(registry[i]->available(), DG_ERR_DEVICE,
               "backend '%s' is not available on this machine (for cuda: "
               "no driver, no NVRTC or no GPU); use 'auto' or 'cpu'", name);
      *out = registry[i];
      return DG_OK;
    }
  if (strcmp(name, "cuda") == 0)
    DG_RAISE(DG_ERR_UNSUPPORTED,
             "this dgrun was built without the cuda backend (no CUDA headers "
             "at build time); use 'auto' or 'cpu'");
  const char *known[] = {"auto", "cpu", "cuda"};
  const char *near = dg_suggest_closest(name, known, 3);
  DG_RAISE(DG_ERR_INPUT, "unknown device backend '%s'%s%s%s (known: auto, "
           "cpu, cuda)", name, near ? "; did you mean '" : "",
           near ? near : "", near ? "'?" : "");
}

static dg_error env_index(int *index) {
  const char *s = getenv("DGRUN_DEVICE");
  *index = 0;
  if (!s || !s[0])
    return DG_OK;
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  DG_CHECK(errno == 0 && *end == '\0' && v >= 0 && v <= 65535, DG_ERR_INPUT,
           "DGRUN_DEVICE='%s' is not a device index (a number >= 0)", s);
  *index = (int)v;
  return DG_OK;
}

dg_error dg_device_count(const char *backend, int *n) {
  const dg_backend_ops *ops;
  DG_CALL(find_backend(backend, &ops));
  *n = 0;
  DG_CALL(ops->count(n));
  return DG_OK;
}

int dg_device_env_index_set(void) {
  const char *s = getenv("DGRUN_DEVICE");
  return s && s[0];
}

dg_error dg_device_create(const char *backend, int index, dg_device **out) {
  *out = NULL;
  const dg_backend_ops *ops;
  DG_CALL(find_backend(backend, &ops));
  if (index < 0)
    DG_CALL(env_index(&index));
  int n = 0;
  DG_CALL(ops->count(&n));
  DG_CHECK(index < n, DG_ERR_DEVICE,
           "device index %d out of range: backend %s has %d device(s) "
           "(indices 0..%d)", index, ops->name, n, n - 1);
  dg_device *dev = calloc(1, sizeof *dev);
  DG_CHECK(dev, DG_ERR_MEMORY, "out of memory for a device object");
  dev->ops = ops;
  dev->nbuckets = 64;
  dev->live = calloc(dev->nbuckets, sizeof *dev->live);
  if (!dev->live) {
    free(dev);
    DG_RAISE(DG_ERR_MEMORY, "out of memory for the pool table");
  }
  dg_error err = ops->open(index, &dev->info, &dev->state);
  if (err) {
    free(dev->live);
    free(dev);
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  }
  snprintf(dev->info.backend_name, sizeof dev->info.backend_name, "%s",
           ops->name);
  dev->info.backend =
      strcmp(ops->name, "cuda") == 0 ? DG_BACKEND_CUDA : DG_BACKEND_CPU;
  dev->info.index = index;
  pthread_mutex_init(&dev->lock, NULL);
  dg_debug("device: %s [%d] %s", ops->name, index, dev->info.name);
  *out = dev;
  return DG_OK;
}

/* Return every pooled block in list to the backend. */
static void release_list(dg_device *dev, block **list) {
  for (block *b = *list, *next; b; b = next) {
    next = b->next;
    if (dev->ops->release(dev->state, b->ptr) != DG_OK) {
      dg_warn("device: releasing a %zu-byte block failed: %s", b->size,
              dg_error_message());
      dg_error_clear();
    }
    dev->stats.bytes_reserved -= (int64_t)b->size;
    free(b);
  }
  *list = NULL;
}

void dg_device_destroy(dg_device **devp) {
  if (!devp || !*devp)
    return;
  dg_device *dev = *devp;
  if (dev->nlive > 0)
    dg_debug("device: %zu block(s) still allocated at destroy; releasing",
             dev->nlive);
  for (size_t i = 0; i < dev->nbuckets; i++)
    release_list(dev, &dev->live[i]);
  for (int c = 0; c < NCLASSES; c++)
    release_list(dev, &dev->free_list[c]);
  free(dev->live);
  dg_kernel_cache_destroy(&dev->cache);
  dev->ops->close(dev->state);
  pthread_mutex_destroy(&dev->lock);
  free(dev);
  *devp = NULL;
}

dg_error dg_device_list(FILE *out) {
  fprintf(out, "backends in this build:");
  for (int i = 0; i < NBACKENDS; i++)
    fprintf(out, " %s", registry[i]->name);
  if (!DG_REGISTER_CUDA)
    fprintf(out, " (no cuda backend in this build)");
  fprintf(out, "\n");
  for (int i = 0; i < NBACKENDS; i++) {
    const dg_backend_ops *ops = registry[i];
    if (!ops->available()) {
      fprintf(out, "%s: not available on this machine%s\n", ops->name,
              strcmp(ops->name, "cuda") == 0
                  ? " (no driver, no NVRTC or no GPU)" : "");
      continue;
    }
    int n = 0;
    DG_CALL(ops->count(&n));
    fprintf(out, "%s: %d device%s\n", ops->name, n, n == 1 ? "" : "s");
    for (int d = 0; d < n; d++) {
      dg_device_info info;
      memset(&info, 0, sizeof info);
      DG_CALL(ops->describe(d, &info));
      fprintf(out, "  [%d] %s: %.1f GiB", d, info.name,
              (double)info.total_memory / (1024.0 * 1024.0 * 1024.0));
      if (strcmp(ops->name, "cuda") == 0)
        fprintf(out, ", %d SMs, compute capability %d.%d\n",
                info.multiprocessors, info.cc_major, info.cc_minor);
      else
        fprintf(out, ", %d threads\n", info.multiprocessors);
    }
  }
  const dg_backend_ops *a = auto_backend();
  fprintf(out, "auto selects: %s\n", a ? a->name : "(none)");
  return DG_OK;
}

void dg_device_print_runtime(FILE *out) {
  for (int i = 0; i < NBACKENDS; i++)
    if (registry[i]->print_runtime)
      registry[i]->print_runtime(out);
}

const dg_device_info *dg_device_get_info(const dg_device *dev) {
  return &dev->info;
}

dg_device_stats dg_device_get_stats(const dg_device *dev) {
  dg_device *d = (dg_device *)dev; /* the lock is not part of the value */
  pthread_mutex_lock(&d->lock);
  dg_device_stats s = d->stats;
  pthread_mutex_unlock(&d->lock);
  return s;
}

/* ------------------------------------------------------------------------ */
/* Pooled allocator. */

static size_t bucket_of(const dg_device *dev, const void *ptr) {
  /* Fibonacci hashing of the address without its alignment bits. */
  uint64_t h = ((uint64_t)(uintptr_t)ptr >> 6) * 0x9E3779B97F4A7C15ull;
  return (size_t)(h >> 32) & (dev->nbuckets - 1);
}

static void live_insert(dg_device *dev, block *b) {
  size_t i = bucket_of(dev, b->ptr);
  b->next = dev->live[i];
  dev->live[i] = b;
  dev->nlive++;
}

/* Keep the table at most one block per bucket on average; if growing fails
 * the table just gets longer chains. */
static void live_maybe_grow(dg_device *dev) {
  if (dev->nlive < dev->nbuckets)
    return;
  size_t nb = dev->nbuckets * 2;
  block **t = calloc(nb, sizeof *t);
  if (!t)
    return;
  block **old = dev->live;
  size_t ob = dev->nbuckets;
  dev->live = t;
  dev->nbuckets = nb;
  dev->nlive = 0;
  for (size_t i = 0; i < ob; i++)
    for (block *b = old[i], *next; b; b = next) {
      next = b->next;
      live_insert(dev, b);
    }
  free(old);
}

static dg_error pool_malloc(dg_device *dev, size_t bytes, void **ptr) {
  size_t rounded;
  int cls = size_class(bytes, &rounded);
  block *b = dev->free_list[cls];
  if (b) {
    dev->free_list[cls] = b->next;
    dev->stats.pool_reuses++;
  } else {
    b = malloc(sizeof *b);
    DG_CHECK(b, DG_ERR_MEMORY, "out of host memory for a pool record");
    dg_error err = dev->ops->alloc(dev->state, rounded, &b->ptr);
    if (err == DG_ERR_MEMORY) {
      /* Out of device memory: give the pool's free blocks back, retry. */
      dg_error_clear();
      for (int c = 0; c < NCLASSES; c++)
        release_list(dev, &dev->free_list[c]);
      err = dev->ops->alloc(dev->state, rounded, &b->ptr);
    }
    if (err) {
      free(b);
      return dg_error_push(err, __FILE__, __LINE__, __func__);
    }
    b->size = rounded;
    b->cls = cls;
    dev->stats.bytes_reserved += (int64_t)rounded;
    dev->stats.raw_allocations++;
  }
  live_maybe_grow(dev);
  live_insert(dev, b);
  dev->stats.bytes_allocated += (int64_t)b->size;
  *ptr = b->ptr;
  return DG_OK;
}

dg_error dg_device_malloc(dg_device *dev, size_t bytes, void **ptr) {
  *ptr = NULL;
  if (bytes == 0)
    return DG_OK;
  DG_CHECK(bytes <= (SIZE_MAX >> 2), DG_ERR_MEMORY,
           "cannot allocate %zu bytes on %s", bytes, dev->info.name);
  pthread_mutex_lock(&dev->lock);
  dg_error err = pool_malloc(dev, bytes, ptr);
  pthread_mutex_unlock(&dev->lock);
  DG_CALL(err);
  return DG_OK;
}

dg_error dg_device_free(dg_device *dev, void *ptr) {
  if (!ptr)
    return DG_OK;
  pthread_mutex_lock(&dev->lock);
  block **pp = &dev->live[bucket_of(dev, ptr)];
  while (*pp && (*pp)->ptr != ptr)
    pp = &(*pp)->next;
  block *b = *pp;
  if (b) {
    *pp = b->next;
    dev->nlive--;
    b->next = dev->free_list[b->cls];
    dev->free_list[b->cls] = b;
    dev->stats.bytes_allocated -= (int64_t)b->size;
  }
  pthread_mutex_unlock(&dev->lock);
  DG_CHECK(b, DG_ERR_ARG,
           "dg_device_free: pointer %p was not allocated by this device (%s) "
           "or was already freed", ptr, dev->info.name);
  return DG_OK;
}

dg_error dg_device_trim(dg_device *dev) {
  pthread_mutex_lock(&dev->lock);
  for (int c = 0; c < NCLASSES; c++)
    release_list(dev, &dev->free_list[c]);
  pthread_mutex_unlock(&dev->lock);
  return DG_OK;
}

dg_error dg_device_upload(dg_device *dev, void *dst_dev, const void *src_host,
                          size_t bytes) {
  if (bytes == 0)
    return DG_OK;
  DG_CHECK(dst_dev && src_host, DG_ERR_ARG, "upload of %zu bytes with a NULL "
           "pointer (dst %p, src %p)", bytes, dst_dev, src_host);
  DG_CALL(dev->ops->upload(dev->state, dst_dev, src_host, bytes));
  return DG_OK;
}

dg_error dg_device_download(dg_device *dev, void *dst_host,
                            const void *src_dev, size_t bytes) {
  if (bytes == 0)
    return DG_OK;
  DG_CHECK(dst_host && src_dev, DG_ERR_ARG, "download of %zu bytes with a "
           "NULL pointer (dst %p, src %p)", bytes, dst_host, src_dev);
  DG_CALL(dev->ops->download(dev->state, dst_host, src_dev, bytes));
  return DG_OK;
}

/* Pinned memory and stream copies from the backend, or the fallback here
 * (malloc / free, the stream finished before a plain copy). */
static int has_staging(const dg_device *dev) {
  return dev->ops->host_alloc && (!dev->ops->staging || dev->ops->staging(dev->state));
}

dg_error dg_device_host_alloc(dg_device *dev, size_t bytes, void **ptr) {
  *ptr = NULL;
  if (has_staging(dev)) {
    DG_CALL(dev->ops->host_alloc(dev->state, bytes ? bytes : 1, ptr));
    return DG_OK;
  }
  *ptr = malloc(bytes ? bytes : 1);
  DG_CHECK(*ptr, DG_ERR_MEMORY, "out of host memory (%zu bytes)", bytes);
  return DG_OK;
}

void dg_device_host_free(dg_device *dev, void *ptr) {
  if (!ptr)
    return;
  if (has_staging(dev))
    dev->ops->host_free(dev->state, ptr);
  else
    free(ptr);
}

static dg_error copy_async(dg_device *dev, void *dst, const void *src, size_t bytes,
                           int to_device, dg_stream *s) {
  if (bytes == 0)
    return DG_OK;
  DG_CHECK(dst && src, DG_ERR_ARG, "copy of %zu bytes with a NULL pointer", bytes);
  DG_CHECK(!s || s->dev == dev, DG_ERR_ARG, "copy on a stream of another device");
  if (has_staging(dev)) {
    DG_CALL(dev->ops->copy_async(dev->state, dst, src, bytes, to_device, s ? s->handle : NULL));
    return DG_OK;
  }
  /* Without stream copies: finish the stream's work, then copy. */
  if (s)
    DG_CALL(dev->ops->stream_synchronize(dev->state, s->handle));
  if (to_device)
    DG_CALL(dev->ops->upload(dev->state, dst, src, bytes));
  else
    DG_CALL(dev->ops->download(dev->state, dst, src, bytes));
  return DG_OK;
}

dg_error dg_device_upload_async(dg_device *dev, void *dst_dev, const void *src_host,
                                size_t bytes, dg_stream *s) {
  DG_CALL(copy_async(dev, dst_dev, src_host, bytes, 1, s));
  return DG_OK;
}

dg_error dg_device_download_async(dg_device *dev, void *dst_host, const void *src_dev,
                                  size_t bytes, dg_stream *s) {
  DG_CALL(copy_async(dev, dst_host, src_dev, bytes, 0, s));
  return DG_OK;
}

dg_error dg_device_copy(dg_device *dev, void *dst_dev, const void *src_dev,
                        size_t bytes) {
  if (bytes == 0)
    return DG_OK;
  DG_CHECK(dst_dev && src_dev, DG_ERR_ARG, "device copy of %zu bytes with a "
           "NULL pointer (dst %p, src %p)", bytes, dst_dev, src_dev);
  DG_CALL(dev->ops->copy(dev->state, dst_dev, src_dev, bytes));
  return DG_OK;
}

dg_error dg_device_zero(dg_device *dev, void *dst_dev, size_t bytes) {
  if (bytes == 0)
    return DG_OK;
  DG_CHECK(dst_dev, DG_ERR_ARG, "zeroing %zu bytes at a NULL device pointer", bytes);
  if (dev->ops->zero) {
    DG_CALL(dev->ops->zero(dev->state, dst_dev, bytes));
    return DG_OK;
  }
  /* Upload zeros, a bounded host buffer at a time. */
  size_t chunk = bytes < ((size_t)1 << 24) ? bytes : (size_t)1 << 24;
  void *z = calloc(1, chunk);
  DG_CHECK(z, DG_ERR_MEMORY, "out of host memory (%zu bytes)", chunk);
  dg_error err = DG_OK;
  for (size_t off = 0; off < bytes && err == DG_OK; off += chunk)
    err = dev->ops->upload(dev->state, dg_device_offset(dst_dev, off), z,
                           bytes - off < chunk ? bytes - off : chunk);
  free(z);
  DG_CALL(err);
  return DG_OK;
}

void *dg_device_offset(void *ptr, size_t bytes) {
  /* Integer arithmetic: a CUdeviceptr in a void* is not a host object. */
  return (void *)((uintptr_t)ptr + bytes);
}

/* ------------------------------------------------------------------------ */
/* Modules: compile through the kernel cache. */

/* Key = SHA-256 over (format tag, backend, compiler identity, options,
 * source), each length-prefixed so no two different inputs can concatenate
 * to the same byte stream. */
static void cache_key(const dg_device *dev, const char *identity,
                      const char *source, const char *const *options,
                      int noptions, char key[DG_HASH_HEX_SIZE]) {
  dg_hash h;
  dg_hash_init(&h);
  dg_hash_update_field(&h, "dgrun kernel cache key v1");
  dg_hash_update_field(&h, dev->ops->name);
  dg_hash_update_field(&h, identity);
  char count[32];
  snprintf(count, sizeof count, "%d", noptions);
  dg_hash_update_field(&h, count);
  for (int i = 0; i < noptions; i++)
    dg_hash_update_field(&h, options[i]);
  dg_hash_update_field(&h, source);
  unsigned char digest[DG_HASH_SIZE];
  dg_hash_final(&h, digest);
  dg_hash_hex(digest, DG_HASH_SIZE, key);
}

/* The cache is opened on first use, so $DGRUN_CACHE_DIR set after the
 * device was created still counts; if it cannot be opened (read-only home,
 * say), dgrun warns once and compiles without caching. */
static dg_kernel_cache *device_cache(dg_device *dev) {
  if (!dev->cache && !dev->cache_disabled) {
    if (dg_kernel_cache_create(NULL, &dev->cache) != DG_OK) {
      dg_warn("kernel cache disabled: %s", dg_error_message());
      dg_error_clear();
      dev->cache_disabled = 1;
    }
  }
  return dev->cache;
}

static void bump(dg_device *dev, int64_t *counter) {
  pthread_mutex_lock(&dev->lock);
  (*counter)++;
  pthread_mutex_unlock(&dev->lock);
}

/* Compile source, store the blob in the cache (best effort), load it. */
static dg_error compile_store_load(dg_device *dev, dg_kernel_cache *cache,
                                  const char *key, const char *name,
                                  const char *source,
                                  const char *const *options, int noptions,
                                  void **handle) {
  void *blob = NULL;
  size_t size = 0;
  DG_CALL(dev->ops->compile(dev->state, name, source, options, noptions,
                            &blob, &size));
  bump(dev, &dev->stats.compilations);
  if (cache && dg_kernel_cache_put(cache, key, blob, size) != DG_OK) {
    dg_warn("could not store module '%s' in the kernel cache: %s", name,
            dg_error_message());
    dg_error_clear();
  }
  dg_error err = dev->ops->load(dev->state, blob, size, handle);
  free(blob);
  DG_CALL(err);
  return DG_OK;
}

typedef struct precompile_job {
  dg_device *dev;
  dg_kernel_cache *cache;
  const char *const *sources;
  char (*keys)[DG_HASH_HEX_SIZE];
} precompile_job;

/* One module into the cache, in a forked worker (core/forkpool.h): errors
 * are left for the load, which compiles what is missing. */
static int precompile_one(int i, void *arg) {
  precompile_job *j = arg;
  void *blob = NULL;
  size_t size = 0;
  int stored = 0;
  if (j->dev->ops->compile(j->dev->state, "precompile", j->sources[i], NULL, 0, &blob, &size) ==
      DG_OK)
    stored = dg_kernel_cache_put(j->cache, j->keys[i], blob, size) == DG_OK;
  dg_error_clear();
  free(blob);
  return stored;
}

dg_error dg_device_precompile(dg_device *dev, const char *const *sources, int n, int workers) {
  dg_kernel_cache *cache = device_cache(dev);
  if (!cache || n <= 0)
    return DG_OK;
  precompile_job j = {dev, cache, NULL, NULL};
  int nt = 0; /* modules to compile */
  const char **todo = calloc((size_t)n, sizeof *todo);
  j.keys = calloc((size_t)n, sizeof *j.keys);
  if (!todo || !j.keys) {
    free(todo);
    free(j.keys);
    DG_RAISE(DG_ERR_MEMORY, "out of memory for %d modules", n);
  }
  const char *identity = dev->ops->compiler_identity(dev->state);
  for (int i = 0; i < n; i++) {
    char key[DG_HASH_HEX_SIZE];
    cache_key(dev, identity, sources[i], NULL, 0, key);
    void *blob = NULL;
    size_t size;
    dg_kernel_cache_status st = DG_KERNEL_CACHE_MISS;
    if (dg_kernel_cache_get(cache, key, &blob, &size, &st) != DG_OK)
      dg_error_clear();
    free(blob);
    if (st == DG_KERNEL_CACHE_HIT)
      continue;
    int dup = 0; /* the same module twice: compile it once */
    for (int k = 0; k < nt && !dup; k++)
      dup = strcmp(j.keys[k], key) == 0;
    if (dup)
      continue;
    memcpy(j.keys[nt], key, sizeof key);
    todo[nt++] = sources[i];
  }
  j.sources = todo;
  /* no module finished for 5 minutes: a worker hangs (one compiles in
   * seconds); the loads compile what is missing */
  int forked = 0, stored = dg_forkpool_run(nt, workers, 300.0, precompile_one, &j, &forked);
  pthread_mutex_lock(&dev->lock);
  dev->stats.compilations += stored;
  pthread_mutex_unlock(&dev->lock);
  dg_debug("precompiled %d of %d modules (%d stored) in %d processes", nt, n, stored, forked);
  free(todo);
  free(j.keys);
  return DG_OK;
}

dg_error dg_device_compile(dg_device *dev, const char *name,
                           const char *source, const char *const *options,
                           int noptions, dg_module **out) {
  *out = NULL;
  DG_CHECK(source, DG_ERR_ARG, "dg_device_compile: NULL source");
  DG_CHECK(noptions >= 0 && (noptions == 0 || options), DG_ERR_ARG,
           "dg_device_compile: %d options but options is NULL", noptions);
  if (!name)
    name = "module";
  char key[DG_HASH_HEX_SIZE];
  cache_key(dev, dev->ops->compiler_identity(dev->state), source, options,
            noptions, key);

  dg_kernel_cache *cache = device_cache(dev);
  void *handle = NULL;
  int loaded = 0;
  if (cache) {
    void *blob;
    size_t size;
    dg_kernel_cache_status st;
    DG_CALL(dg_kernel_cache_get(cache, key, &blob, &size, &st));
    if (st == DG_KERNEL_CACHE_HIT) {
      if (dev->ops->load(dev->state, blob, size, &handle) == DG_OK) {
        loaded = 1;
        bump(dev, &dev->stats.cache_hits);
        dg_debug("module '%s': kernel cache hit %s", name, key);
      } else {
        /* Intact bytes that do not load (e.g. a foreign libc): rebuild. */
        dg_warn("cached module '%s' (%s) does not load (%s); rebuilding it",
                name, key, dg_error_message());
        dg_error_clear();
        st = DG_KERNEL_CACHE_CORRUPT;
      }
      free(blob);
    }
    if (st == DG_KERNEL_CACHE_CORRUPT)
      bump(dev, &dev->stats.cache_rebuilds);
  }
  if (!loaded)
    DG_CALL(compile_store_load(dev, cache, key, name, source, options,
                               noptions, &handle));

  dg_module *mod = calloc(1, sizeof *mod);
  char *copy = strdup(name);
  if (!mod || !copy) {
    free(mod);
    free(copy);
    dev->ops->unload(dev->state, handle);
    DG_RAISE(DG_ERR_MEMORY, "out of memory for module '%s'", name);
  }
  mod->dev = dev;
  mod->handle = handle;
  mod->name = copy;
  *out = mod;
  return DG_OK;
}

void dg_module_destroy(dg_module **modp) {
  if (!modp || !*modp)
    return;
  dg_module *mod = *modp;
  for (dg_kernel *k = mod->kernels, *next; k; k = next) {
    next = k->next;
    free(k->entry);
    free(k);
  }
  mod->dev->ops->unload(mod->dev->state, mod->handle);
  free(mod->name);
  free(mod);
  *modp = NULL;
}

dg_error dg_module_get_kernel(dg_module *mod, const char *entry,
                              dg_kernel **out) {
  *out = NULL;
  DG_CHECK(entry && entry[0], DG_ERR_ARG, "empty kernel name in module '%s'",
           mod->name);
  for (dg_kernel *k = mod->kernels; k; k = k->next)
    if (strcmp(k->entry, entry) == 0) {
      *out = k;
      return DG_OK;
    }
  void *fn;
  DG_CALL(mod->dev->ops->get_function(mod->dev->state, mod->handle, entry,
                                      &fn));
  dg_kernel *k = calloc(1, sizeof *k);
  char *copy = strdup(entry);
  if (!k || !copy) {
    free(k);
    free(copy);
    DG_RAISE(DG_ERR_MEMORY, "out of memory for kernel '%s'", entry);
  }
  k->mod = mod;
  k->function = fn;
  k->entry = copy;
  k->next = mod->kernels;
  mod->kernels = k;
  *out = k;
  return DG_OK;
}

dg_error dg_kernel_get_attributes(const dg_kernel *k, dg_kernel_attributes *out) {
  memset(out, 0, sizeof *out);
  dg_device *dev = k->mod->dev;
  DG_CALL(dev->ops->attributes(dev->state, k->function, out));
  return DG_OK;
}

dg_error dg_kernel_launch(dg_kernel *k, const dg_launch *launch, void **args,
                          dg_stream *stream) {
  DG_CHECK(launch, DG_ERR_ARG, "launch of kernel '%s' without geometry",
           k->entry);
  DG_CHECK(launch->items >= 0, DG_ERR_ARG,
           "launch of kernel '%s' with items = %lld (must be >= 0)", k->entry,
           (long long)launch->items);
  dg_device *dev = k->mod->dev;
  DG_CHECK(!stream || stream->dev == dev, DG_ERR_ARG,
           "kernel '%s' launched on a stream of another device", k->entry);
  DG_CALL(dev->ops->launch(dev->state, k->function, launch, args,
                           stream ? stream->handle : NULL));
  return DG_OK;
}

/* ------------------------------------------------------------------------ */
/* Streams and events. */

dg_error dg_stream_create(dg_device *dev, dg_stream **out) {
  *out = NULL;
  dg_stream *s = calloc(1, sizeof *s);
  DG_CHECK(s, DG_ERR_MEMORY, "out of memory for a stream");
  s->dev = dev;
  dg_error err = dev->ops->stream_create(dev->state, &s->handle);
  if (err) {
    free(s);
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  }
  *out = s;
  return DG_OK;
}

void dg_stream_destroy(dg_stream **sp) {
  if (!sp || !*sp)
    return;
  (*sp)->dev->ops->stream_destroy((*sp)->dev->state, (*sp)->handle);
  free(*sp);
  *sp = NULL;
}

dg_error dg_stream_synchronize(dg_stream *s) {
  DG_CALL(s->dev->ops->stream_synchronize(s->dev->state, s->handle));
  return DG_OK;
}

dg_error dg_device_synchronize(dg_device *dev) {
  DG_CALL(dev->ops->synchronize(dev->state));
  return DG_OK;
}

dg_error dg_event_create(dg_device *dev, dg_event **out) {
  *out = NULL;
  dg_event *e = calloc(1, sizeof *e);
  DG_CHECK(e, DG_ERR_MEMORY, "out of memory for an event");
  e->dev = dev;
  dg_error err = dev->ops->event_create(dev->state, &e->handle);
  if (err) {
    free(e);
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  }
  *out = e;
  return DG_OK;
}

void dg_event_destroy(dg_event **ep) {
  if (!ep || !*ep)
    return;
  (*ep)->dev->ops->event_destroy((*ep)->dev->state, (*ep)->handle);
  free(*ep);
  *ep = NULL;
}

dg_error dg_event_record(dg_event *e, dg_stream *s) {
  DG_CHECK(!s || s->dev == e->dev, DG_ERR_ARG,
           "event recorded on a stream of another device");
  DG_CALL(e->dev->ops->event_record(e->dev->state, e->handle,
                                    s ? s->handle : NULL));
  return DG_OK;
}

dg_error dg_event_synchronize(dg_event *e) {
  DG_CALL(e->dev->ops->event_synchronize(e->dev->state, e->handle));
  return DG_OK;
}

dg_error dg_event_elapsed_ms(dg_event *start, dg_event *stop, float *ms) {
  DG_CHECK(start->dev == stop->dev, DG_ERR_ARG,
           "elapsed time between events of two devices");
  DG_CALL(start->dev->ops->event_elapsed_ms(start->dev->state, start->handle,
                                            stop->handle, ms));
  return DG_OK;
}

dg_error dg_stream_wait_event(dg_stream *s, dg_event *e) {
  DG_CHECK(!s || s->dev == e->dev, DG_ERR_ARG,
           "stream waits on an event of another device");
  DG_CALL(e->dev->ops->stream_wait_event(e->dev->state, s ? s->handle : NULL,
                                         e->handle));
  return DG_OK;
}
