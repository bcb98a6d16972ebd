#include "core/kernel_cache.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/fsutil.h"
#include "core/hash.h"
#include "core/log.h"

struct dg_kernel_cache {
  char *dir;
};

/* Header layout (byte offsets). */
enum {
  OFF_MAGIC = 0,     /* 8 bytes "dgrunKC\0" */
  OFF_VERSION = 8,   /* u32 DG_KERNEL_CACHE_FORMAT */
  OFF_HEADER = 12,   /* u32 header size */
  OFF_KEY = 16,      /* 64 bytes, NUL padded */
  OFF_SIZE = 80,     /* u64 payload size */
  OFF_CHECKSUM = 88, /* 32 bytes SHA-256 of the payload */
  HEADER_SIZE = 120
};
static const char MAGIC[8] = {'d', 'g', 'r', 'u', 'n', 'K', 'C', '\0'};

static void put_u64(unsigned char *p, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; i++)
    p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_u64(const unsigned char *p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; i++)
    v |= (uint64_t)p[i] << (8 * i);
  return v;
}

dg_error dg_kernel_cache_default_dir(char **dir) {
  *dir = NULL;
  const char *env = getenv("DGRUN_CACHE_DIR");
  if (env && env[0]) {
    *dir = strdup(env);
  } else if ((env = getenv("XDG_CACHE_HOME")) && env[0]) {
    *dir = dg_fsutil_join(env, "dgrun");
  } else {
    const char *home = getenv("HOME");
    DG_CHECK(home && home[0], DG_ERR_IO,
             "no kernel cache directory: set DGRUN_CACHE_DIR (HOME, "
             "XDG_CACHE_HOME and DGRUN_CACHE_DIR are all unset)");
    *dir = dg_fsutil_join(home, ".cache/dgrun");
  }
  DG_CHECK(*dir, DG_ERR_MEMORY, "out of memory for the cache path");
  return DG_OK;
}

dg_error dg_kernel_cache_create(const char *dir, dg_kernel_cache **out) {
  *out = NULL;
  char *d = NULL;
  if (dir) {
    d = strdup(dir);
    DG_CHECK(d, DG_ERR_MEMORY, "out of memory for the cache path");
  } else {
    DG_CALL(dg_kernel_cache_default_dir(&d));
  }
  dg_error err = dg_fsutil_mkdir_p(d, 0700);
  if (err) {
    free(d);
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  }
  dg_kernel_cache *c = malloc(sizeof *c);
  if (!c) {
    free(d);
    DG_RAISE(DG_ERR_MEMORY, "out of memory for the kernel cache");
  }
  c->dir = d;
  *out = c;
  return DG_OK;
}

void dg_kernel_cache_destroy(dg_kernel_cache **cache) {
  if (!cache || !*cache)
    return;
  free((*cache)->dir);
  free(*cache);
  *cache = NULL;
}

const char *dg_kernel_cache_dir(const dg_kernel_cache *cache) {
  return cache->dir;
}

static dg_error check_key(const char *key) {
  size_t n = key ? strlen(key) : 0;
  DG_CHECK(n >= 1 && n <= DG_KERNEL_CACHE_KEY_MAX, DG_ERR_ARG,
           "kernel cache key must have 1..%d characters, got %zu",
           DG_KERNEL_CACHE_KEY_MAX, n);
  for (size_t i = 0; i < n; i++)
    DG_CHECK((key[i] >= '0' && key[i] <= '9') ||
                 (key[i] >= 'a' && key[i] <= 'z'),
             DG_ERR_ARG, "kernel cache key '%s' has character '%c' (only 0-9 a-z)",
             key, key[i]);
  return DG_OK;
}

dg_error dg_kernel_cache_entry_path(const dg_kernel_cache *cache,
                                    const char *key, char **path) {
  *path = NULL;
  DG_CALL(check_key(key));
  char name[DG_KERNEL_CACHE_KEY_MAX + 8];
  snprintf(name, sizeof name, "%s.dgk", key);
  *path = dg_fsutil_join(cache->dir, name);
  DG_CHECK(*path, DG_ERR_MEMORY, "out of memory for a cache path");
  return DG_OK;
}

/* Why the entry in buf[0..n) is unusable for key, or NULL if it is valid. */
static const char *validate(const unsigned char *buf, size_t n, const char *key,
                            int *stale) {
  *stale = 0;
  if (n < HEADER_SIZE)
    return "shorter than its header (truncated)";
  if (memcmp(buf + OFF_MAGIC, MAGIC, sizeof MAGIC) != 0)
    return "bad magic (not a dgrun cache entry)";
  if (get_u64(buf + OFF_VERSION, 4) != DG_KERNEL_CACHE_FORMAT ||
      get_u64(buf + OFF_HEADER, 4) != HEADER_SIZE) {
    *stale = 1;
    return "written by another cache format version";
  }
  char stored[DG_KERNEL_CACHE_KEY_MAX + 1];
  memcpy(stored, buf + OFF_KEY, DG_KERNEL_CACHE_KEY_MAX);
  stored[DG_KERNEL_CACHE_KEY_MAX] = '\0';
  if (strcmp(stored, key) != 0)
    return "holds a different key";
  if (get_u64(buf + OFF_SIZE, 8) != n - HEADER_SIZE)
    return "payload size differs from the header (truncated or extended)";
  unsigned char sum[DG_HASH_SIZE];
  dg_hash_buffer(buf + HEADER_SIZE, n - HEADER_SIZE, sum);
  if (memcmp(sum, buf + OFF_CHECKSUM, DG_HASH_SIZE) != 0)
    return "payload checksum mismatch";
  return NULL;
}

dg_error dg_kernel_cache_get(dg_kernel_cache *cache, const char *key,
                             void **payload, size_t *size,
                             dg_kernel_cache_status *status) {
  *payload = NULL;
  *size = 0;
  *status = DG_KERNEL_CACHE_MISS;
  char *path;
  DG_CALL(dg_kernel_cache_entry_path(cache, key, &path));
  struct stat st;
  if (stat(path, &st) != 0 && errno == ENOENT) {
    free(path);
    return DG_OK;
  }
  void *buf;
  size_t n;
  dg_error err = dg_fsutil_read_file(path, &buf, &n);
  if (err) {
    dg_warn("kernel cache entry %s is unreadable (%s); rebuilding it", path,
            dg_error_message());
    dg_error_clear();
    *status = DG_KERNEL_CACHE_CORRUPT;
    free(path);
    return DG_OK;
  }
  int stale;
  const char *why = validate(buf, n, key, &stale);
  if (why) {
    dg_log(stale ? DG_LOG_DEBUG : DG_LOG_WARN,
           "kernel cache entry %s: %s; rebuilding it", path, why);
    free(buf);
    *status = DG_KERNEL_CACHE_CORRUPT;
    free(path);
    return DG_OK;
  }
  free(path);
  /* Hand out the payload alone: shift it to the front of the buffer. */
  memmove(buf, (char *)buf + HEADER_SIZE, n - HEADER_SIZE);
  *payload = buf;
  *size = n - HEADER_SIZE;
  *status = DG_KERNEL_CACHE_HIT;
  return DG_OK;
}

dg_error dg_kernel_cache_put(dg_kernel_cache *cache, const char *key,
                             const void *payload, size_t size) {
  char *path;
  DG_CALL(dg_kernel_cache_entry_path(cache, key, &path));
  unsigned char *buf = malloc(HEADER_SIZE + size);
  if (!buf) {
    free(path);
    DG_RAISE(DG_ERR_MEMORY, "out of memory for a %zu-byte cache entry", size);
  }
  memset(buf, 0, HEADER_SIZE);
  memcpy(buf + OFF_MAGIC, MAGIC, sizeof MAGIC);
  put_u64(buf + OFF_VERSION, DG_KERNEL_CACHE_FORMAT, 4);
  put_u64(buf + OFF_HEADER, HEADER_SIZE, 4);
  memcpy(buf + OFF_KEY, key, strlen(key));
  put_u64(buf + OFF_SIZE, size, 8);
  dg_hash_buffer(payload, size, buf + OFF_CHECKSUM);
  memcpy(buf + HEADER_SIZE, payload, size);
  /* Replaced atomically but not fsync'ed (README, "What is atomic"): an entry is a
   * rebuildable artefact checked by its SHA-256 on every read, so one lost or torn by a
   * power loss costs a recompile, and the fsyncs cost the tuner's compiles ~10%. */
  dg_error err = dg_fsutil_write_replace(path, buf, HEADER_SIZE + size, 0600);
  free(buf);
  free(path);
  DG_CALL(err);
  return DG_OK;
}
