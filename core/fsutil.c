#include "core/fsutil.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>


char *dg_fsutil_join(const char *dir, const char *name) {
  size_t a = strlen(dir), b = strlen(name);
  char *s = malloc(a + b + 2);
  if (!s)
    return NULL;
  memcpy(s, dir, a);
  size_t k = a;
  if (a > 0 && dir[a - 1] != '/')
    s[k++] = '/';
  memcpy(s + k, name, b + 1);
  return s;
}

dg_error dg_fsutil_mkdir_p(const char *path, mode_t mode) {
  DG_CHECK(path && path[0], DG_ERR_ARG, "empty directory path");
  char *p = strdup(path);
  DG_CHECK(p, DG_ERR_MEMORY, "out of memory copying path '%s'", path);
  dg_error err = DG_OK;
  /* Walk the components left to right; EEXIST is fine as long as the
   * component is a directory (checked once at the end for the full path). */
  for (char *s = p + 1;; s++) {
    char c = *s;
    if (c == '/' || c == '\0') {
      *s = '\0';
      if (mkdir(p, mode) != 0 && errno != EEXIST) {
        err = dg_error_raise(DG_ERR_IO, __FILE__, __LINE__, __func__,
                             "cannot create directory '%s' (for '%s'): %s", p,
                             path, strerror(errno));
        break;
      }
      *s = c;
      if (c == '\0')
        break;
    }
  }
  free(p);
  if (err)
    return err;
  struct stat st;
  DG_CHECK(stat(path, &st) == 0 && S_ISDIR(st.st_mode), DG_ERR_IO,
           "'%s' exists but is not a directory", path);
  return DG_OK;
}

static int write_all(int fd, const void *data, size_t n) {
  const char *p = data;
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR)
        continue;
      return -1;
    }
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

dg_error dg_fsutil_write_fd(int fd, const void *data, size_t n, const char *path) {
  DG_CHECK(write_all(fd, data, n) == 0, DG_ERR_IO, "cannot write '%s': %s", path,
           strerror(errno));
  return DG_OK;
}

/* "a FIFO", "a directory", ... for a file that is not regular. */
static const char *kind_of(mode_t m) {
  return S_ISFIFO(m)  ? "a FIFO"
         : S_ISCHR(m) ? "a character device"
         : S_ISBLK(m) ? "a block device"
         : S_ISDIR(m) ? "a directory"
         : S_ISSOCK(m) ? "a socket"
         : S_ISLNK(m) ? "a symbolic link"
                      : "not a plain file";
}

dg_error dg_fsutil_open_input(const char *path, const char *what, int *fd) {
  *fd = -1;
  DG_CHECK(path && path[0], DG_ERR_ARG, "empty %s path", what);
  int f = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  DG_CHECK(f >= 0, DG_ERR_IO, "cannot open %s '%s': %s", what, path, strerror(errno));
  struct stat st;
  if (fstat(f, &st) != 0) {
    int e = errno;
    close(f);
    DG_RAISE(DG_ERR_IO, "cannot stat %s '%s': %s", what, path, strerror(e));
  }
  if (!S_ISREG(st.st_mode)) {
    close(f);
    DG_RAISE(DG_ERR_INPUT, "%s '%s' is %s, not a regular file: give the path of a file", what,
             path, kind_of(st.st_mode));
  }
  int flags = fcntl(f, F_GETFL);
  if (flags < 0 || fcntl(f, F_SETFL, flags & ~O_NONBLOCK) != 0) {
    int e = errno;
    close(f);
    DG_RAISE(DG_ERR_IO, "cannot use %s '%s': %s", what, path, strerror(e));
  }
  *fd = f;
  return DG_OK;
}

dg_error dg_fsutil_fopen_input(const char *path, const char *what, FILE **out) {
  *out = NULL;
  int fd;
  DG_CALL(dg_fsutil_open_input(path, what, &fd));
  FILE *f = fdopen(fd, "rb");
  if (!f) {
    int e = errno;
    close(fd);
    DG_RAISE(DG_ERR_IO, "cannot open %s '%s': %s", what, path, strerror(e));
  }
  *out = f;
  return DG_OK;
}

dg_error dg_fsutil_check_input(const char *path, const char *what) {
  int fd;
  DG_CALL(dg_fsutil_open_input(path, what, &fd));
  close(fd);
  return DG_OK;
}

dg_error dg_fsutil_check_output(const char *path, const char *what) {
  DG_CHECK(path && path[0], DG_ERR_ARG, "empty %s path", what);
  struct stat st;
  if (lstat(path, &st) != 0) {
    DG_CHECK(errno == ENOENT, DG_ERR_IO, "cannot use '%s' as %s: %s", path, what,
             strerror(errno));
    return DG_OK; /* a new name */
  }
  if (S_ISREG(st.st_mode))
    return DG_OK;
  if (S_ISLNK(st.st_mode)) {
    struct stat to;
    DG_CHECK(stat(path, &to) == 0, DG_ERR_IO,
             "%s '%s' is a symbolic link to nothing (%s): remove it or give another path",
             what, path, strerror(errno));
    DG_CHECK(S_ISREG(to.st_mode), DG_ERR_IO,
             "%s '%s' is a symbolic link to %s, not to a regular file: dgrun writes only "
             "regular files or new names; give another path",
             what, path, kind_of(to.st_mode));
    return DG_OK;
  }
  DG_RAISE(DG_ERR_IO,
           "%s '%s' is %s, not a regular file: dgrun writes only regular files or new names "
           "(it would replace it); give another path",
           what, path, kind_of(st.st_mode));
}

/* fsync the directory holding path so the rename itself is durable: 0, or
 * the errno of a failure (a file system that cannot fsync directories,
 * EINVAL or EROFS, is not one). */
static int sync_parent(const char *path) {
  char *dir = strdup(path);
  if (!dir)
    return ENOMEM;
  char *slash = strrchr(dir, '/');
  if (slash == dir)
    slash[1] = '\0';
  else if (slash)
    *slash = '\0';
  else
    strcpy(dir, ".");
  int fd = open(dir, O_RDONLY);
  int saved = fd < 0 ? errno : 0;
  if (fd >= 0) {
    if (fsync(fd) != 0 && errno != EINVAL && errno != EROFS)
      saved = errno;
    close(fd);
  }
  free(dir);
  return saved;
}

/* Write everything to fd and close it; 0 or the first errno. */
static int write_close(int fd, const void *data, size_t n) {
  int saved = write_all(fd, data, n) != 0 ? errno : 0;
  if (close(fd) != 0 && !saved)
    saved = errno;
  return saved;
}

/* Raise DG_ERR_IO "cannot <what> '<path>': <errno text>" and free path (a
 * temporary name that will not be handed out). */
static dg_error raise_free(const char *what, char *path, int saved) {
  dg_error e = dg_error_raise(DG_ERR_IO, __FILE__, __LINE__, __func__,
                              "cannot %s '%s': %s", what, path,
                              strerror(saved));
  free(path);
  return e;
}

static dg_error write_renamed(const char *path, const void *data, size_t n, mode_t mode,
                              int durable) {
  DG_CHECK(path && path[0], DG_ERR_ARG, "empty file path");
  DG_CALL(dg_fsutil_check_output(path, "output file"));
  size_t len = strlen(path) + 64;
  char *tmp = malloc(len);
  DG_CHECK(tmp, DG_ERR_MEMORY, "out of memory for a temporary name");
  /* Unique name without mkstemp so that the umask applies to mode as for
   * any new file: pid + clock + counter, retried on the rare clash. */
  static _Thread_local unsigned counter;
  int fd = -1;
  for (int attempt = 0; attempt < 100 && fd < 0; attempt++) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    snprintf(tmp, len, "%s.tmp.%ld.%lx.%u", path, (long)getpid(),
             (unsigned long)ts.tv_nsec, counter++);
    fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, mode);
    if (fd < 0 && errno != EEXIST)
      break;
  }
  if (fd < 0)
    return raise_free("create temporary file", tmp, errno);
  const char *what = NULL;
  int saved = 0;
  if (write_all(fd, data, n) != 0 || (durable && fsync(fd) != 0)) {
    what = durable ? "write + fsync" : "write";
    saved = errno;
  }
  if (close(fd) != 0 && !what) {
    what = "close";
    saved = errno;
  }
  if (!what && rename(tmp, path) != 0) {
    what = "rename";
    saved = errno;
  }
  if (what) {
    unlink(tmp);
    free(tmp);
    DG_RAISE(DG_ERR_IO, "atomic write of '%s' failed at %s: %s", path, what,
             strerror(saved));
  }
  free(tmp);
  int e = durable ? sync_parent(path) : 0;
  DG_CHECK(e == 0, DG_ERR_IO,
           "wrote '%s', but cannot sync its directory (the rename may not survive a crash): %s",
           path, strerror(e));
  return DG_OK;
}

dg_error dg_fsutil_write_atomic(const char *path, const void *data, size_t n,
                                mode_t mode) {
  return write_renamed(path, data, n, mode, 1);
}

/* Why: two fsyncs an entry slowed the tuner's side-by-side compiles, whose
 * every module goes to the kernel cache (H100 machine, the Maxwell fp64 N = 7
 * tuning run with 134 candidates: 74.3 and 69.7 s with them, 67.4 and 61.0 s
 * without; tuning/RESULTS.md, session 13). */
dg_error dg_fsutil_write_replace(const char *path, const void *data, size_t n,
                                 mode_t mode) {
  return write_renamed(path, data, n, mode, 0);
}

dg_error dg_fsutil_write_file(const char *path, const void *data, size_t n,
                              mode_t mode) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
  DG_CHECK(fd >= 0, DG_ERR_IO, "cannot create '%s': %s", path,
           strerror(errno));
  int saved = write_close(fd, data, n);
  DG_CHECK(!saved, DG_ERR_IO, "cannot write '%s': %s", path, strerror(saved));
  return DG_OK;
}

dg_error dg_fsutil_read_file(const char *path, void **data, size_t *n) {
  *data = NULL;
  *n = 0;
  int fd;
  DG_CALL(dg_fsutil_open_input(path, "file", &fd));
  struct stat st;
  if (fstat(fd, &st) != 0) {
    close(fd);
    DG_RAISE(DG_ERR_IO, "cannot stat '%s': %s", path, strerror(errno));
  }
  size_t size = (size_t)st.st_size;
  char *buf = malloc(size + 1);
  if (!buf) {
    close(fd);
    DG_RAISE(DG_ERR_MEMORY, "out of memory reading '%s' (%zu bytes)", path,
             size);
  }
  size_t got = 0;
  while (got < size) {
    ssize_t r = read(fd, buf + got, size - got);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      break; /* shrank under us or failed: report what we have below */
    got += (size_t)r;
  }
  int saved = errno;
  close(fd);
  if (got != size) {
    free(buf);
    DG_RAISE(DG_ERR_IO, "short read of '%s' (%zu of %zu bytes): %s", path, got,
             size, strerror(saved));
  }
  buf[size] = '\0';
  *data = buf;
  *n = size;
  return DG_OK;
}

static char *temp_template(const char *prefix) {
  const char *dir = getenv("TMPDIR");
  if (!dir || !dir[0])
    dir = "/tmp";
  size_t len = strlen(dir) + strlen(prefix) + 16;
  char *t = malloc(len);
  if (t)
    snprintf(t, len, "%s/%sXXXXXX", dir, prefix);
  return t;
}

dg_error dg_fsutil_make_temp_dir(const char *prefix, char **path) {
  *path = NULL;
  char *t = temp_template(prefix);
  DG_CHECK(t, DG_ERR_MEMORY, "out of memory for a temporary name");
  if (!mkdtemp(t))
    return raise_free("create temporary directory", t, errno);
  *path = t;
  return DG_OK;
}

dg_error dg_fsutil_write_temp(const char *prefix, const void *data, size_t n,
                              char **path) {
  *path = NULL;
  char *t = temp_template(prefix);
  DG_CHECK(t, DG_ERR_MEMORY, "out of memory for a temporary name");
  int fd = mkstemp(t);
  if (fd < 0)
    return raise_free("create temporary file", t, errno);
  int saved = write_close(fd, data, n);
  if (saved) {
    unlink(t);
    return raise_free("write temporary file", t, saved);
  }
  *path = t;
  return DG_OK;
}

dg_error dg_fsutil_remove_tree(const char *path) {
  struct stat st;
  if (lstat(path, &st) != 0) {
    DG_CHECK(errno == ENOENT, DG_ERR_IO, "cannot stat '%s': %s", path,
             strerror(errno));
    return DG_OK;
  }
  if (S_ISDIR(st.st_mode)) {
    DIR *d = opendir(path);
    DG_CHECK(d, DG_ERR_IO, "cannot open directory '%s': %s", path,
             strerror(errno));
    struct dirent *e;
    dg_error err = DG_OK;
    while (!err && (e = readdir(d)) != NULL) {
      if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
        continue;
      char *child = dg_fsutil_join(path, e->d_name);
      if (!child) {
        err = dg_error_raise(DG_ERR_MEMORY, __FILE__, __LINE__, __func__,
                             "out of memory removing '%s'", path);
        break;
      }
      err = dg_fsutil_remove_tree(child);
      free(child);
    }
    closedir(d);
    if (err)
      return dg_error_push(err, __FILE__, __LINE__, __func__);
    DG_CHECK(rmdir(path) == 0, DG_ERR_IO, "cannot remove directory '%s': %s",
             path, strerror(errno));
    return DG_OK;
  }
  DG_CHECK(unlink(path) == 0 || errno == ENOENT, DG_ERR_IO,
           "cannot remove '%s': %s", path, strerror(errno));
  return DG_OK;
}

char *dg_fsutil_missing_top(const char *path) {
  struct stat st;
  char *d = strdup(path), *top = NULL;
  while (d && stat(d, &st) != 0) {
    free(top);
    top = strdup(d);
    char *slash = strrchr(d, '/');
    while (slash && slash > d && slash[1] == '\0') { /* trailing slashes */
      *slash = '\0';
      slash = strrchr(d, '/');
    }
    if (!slash || slash == d)
      break;
    *slash = '\0';
  }
  free(d);
  return top;
}

void dg_fsutil_remove_created(const char *path, const char *top) {
  if (!path || !top)
    return;
  char *d = strdup(path);
  while (d && rmdir(d) == 0 && strcmp(d, top) != 0) {
    char *slash = strrchr(d, '/');
    if (!slash || slash == d)
      break;
    *slash = '\0';
  }
  free(d);
}

dg_error dg_fsutil_free_space(const char *path, unsigned long long *bytes) {
  struct statvfs sv;
  DG_CHECK(statvfs(path, &sv) == 0, DG_ERR_IO, "cannot query free space of '%s': %s", path,
           strerror(errno));
  *bytes = (unsigned long long)sv.f_bavail * (unsigned long long)sv.f_frsize;
  return DG_OK;
}

char *dg_fsutil_keep_source(const char *name, const char *ext, const char *source) {
  char prefix[80];
  int k = snprintf(prefix, sizeof prefix, "dgrun-failed-");
  for (const char *c = name; *c && k < 60; c++)
    prefix[k++] = isalnum((unsigned char)*c) ? *c : '_';
  prefix[k++] = '-';
  prefix[k] = '\0';
  char *tmp = NULL;
  if (dg_fsutil_write_temp(prefix, source, strlen(source), &tmp) != DG_OK) {
    dg_error_clear();
    return NULL;
  }
  size_t n = strlen(tmp) + strlen(ext) + 1;
  char *path = malloc(n);
  if (path) {
    snprintf(path, n, "%s%s", tmp, ext);
    if (link(tmp, path) != 0) { /* link, not rename: never replaces a file */
      free(path);
      path = tmp;
      tmp = NULL;
    }
  }
  if (tmp) {
    unlink(tmp);
    free(tmp);
  }
  return path;
}

static int compare_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

void dg_fsutil_free_names(char **names, int n) {
  for (int i = 0; i < n; i++)
    free(names[i]);
  free(names);
}

dg_error dg_fsutil_check_outputs(const char *dir, const char *prefix, const char *suffix) {
  char **names;
  int n;
  DG_CALL(dg_fsutil_list(dir, suffix, &names, &n));
  dg_error err = DG_OK;
  size_t lp = strlen(prefix);
  for (int i = 0; i < n && err == DG_OK; i++) {
    if (strncmp(names[i], prefix, lp) != 0)
      continue;
    char *path = dg_fsutil_join(dir, names[i]);
    err = path ? dg_fsutil_check_output(path, "output file")
               : dg_error_raise(DG_ERR_MEMORY, __FILE__, __LINE__, __func__, "out of memory");
    free(path);
  }
  dg_fsutil_free_names(names, n);
  if (err != DG_OK)
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  return DG_OK;
}

dg_error dg_fsutil_list(const char *dir, const char *suffix, char ***names, int *n) {
  *names = NULL;
  *n = 0;
  DIR *d = opendir(dir);
  if (!d) {
    DG_CHECK(errno == ENOENT || errno == ENOTDIR, DG_ERR_IO, "cannot open directory '%s': %s",
             dir, strerror(errno));
    return DG_OK;
  }
  size_t ls = strlen(suffix);
  int cap = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    size_t l = strlen(e->d_name);
    if (l < ls || strcmp(e->d_name + l - ls, suffix) != 0)
      continue;
    if (*n == cap) {
      cap = cap ? 2 * cap : 16;
      char **grown = realloc(*names, (size_t)cap * sizeof *grown);
      if (!grown)
        break;
      *names = grown;
    }
    if (!((*names)[*n] = strdup(e->d_name)))
      break;
    (*n)++;
  }
  int complete = e == NULL;
  closedir(d);
  if (!complete) {
    dg_fsutil_free_names(*names, *n);
    *names = NULL;
    *n = 0;
    DG_RAISE(DG_ERR_MEMORY, "out of memory listing '%s'", dir);
  }
  if (*n > 1)
    qsort(*names, (size_t)*n, sizeof **names, compare_names);
  return DG_OK;
}
