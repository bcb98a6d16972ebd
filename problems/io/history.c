/* A run's history file: see history.h. */
#include "problems/io/history.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/fsutil.h"
#include "core/log.h"
#include "core/strbuf.h"
#include "core/timing.h"

struct dg_history {
  char *path, *partial; /* <path>.partial */
  int fd;               /* the .partial file, open for appending */
  int n;                /* values per row */
  double last_sync;     /* monotonic seconds of the last fsync */
};

static char *partial_of(const char *path) {
  char *p = malloc(strlen(path) + 9);
  if (p)
    sprintf(p, "%s.partial", path);
  return p;
}

/* The header line "t,step,dt,wall,<names>\n". */
static dg_error header(const char *const *names, int n, dg_strbuf *b) {
  dg_strbuf_appendf(b, "t,step,dt,wall");
  for (int i = 0; i < n; i++)
    dg_strbuf_appendf(b, ",%s", names[i]);
  dg_strbuf_appendf(b, "\n");
  DG_CHECK(!b->failed, DG_ERR_MEMORY, "out of memory");
  return DG_OK;
}

/* The rename is durable once the directory holding it is synced. */
static void sync_dir_of(const char *path) {
  const char *slash = strrchr(path, '/');
  char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : NULL;
  int fd = open(dir ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  free(dir);
  if (fd >= 0) { /* (where a directory cannot be opened or synced, nothing more is possible) */
    fsync(fd);
    close(fd);
  }
}

static dg_error open_append(dg_history *h) {
  h->fd = open(h->partial, O_WRONLY | O_APPEND | O_CLOEXEC);
  DG_CHECK(h->fd >= 0, DG_ERR_IO, "cannot open history '%s': %s", h->partial, strerror(errno));
  h->last_sync = dg_timing_now();
  return DG_OK;
}

/* A fresh run: a new .partial with the header; an earlier run's complete
 * history goes (it would look like this run's). */
static dg_error start_fresh(dg_history *h, const char *head) {
  DG_CALL(dg_fsutil_write_atomic(h->partial, head, strlen(head), 0644));
  if (unlink(h->path) != 0 && errno != ENOENT)
    DG_RAISE(DG_ERR_IO, "cannot remove the history '%s' of an earlier run: %s", h->path,
             strerror(errno));
  DG_CALL(open_append(h));
  return DG_OK;
}

/* The rows of text (after its header line) whose step is at most step,
 * appended to b; a last line without its newline (a torn write) is
 * dropped. */
static void keep_rows(const char *text, int64_t step, dg_strbuf *b) {
  const char *line = strchr(text, '\n');
  while (line && *++line) {
    const char *end = strchr(line, '\n');
    const char *comma = memchr(line, ',', end ? (size_t)(end - line) : 0);
    if (!end || !comma || strtoll(comma + 1, NULL, 10) > step)
      return;
    dg_strbuf_appendn(b, line, (size_t)(end + 1 - line));
    line = end;
  }
}

/* --restart at step: continue the history of the run it continues (its
 * .partial, or its complete file), up to and including step. */
static dg_error start_restart(dg_history *h, const char *head, int64_t step) {
  const char *src = access(h->partial, F_OK) == 0 ? h->partial
                    : access(h->path, F_OK) == 0  ? h->path
                                                  : NULL;
  if (!src) {
    dg_warn("history: neither '%s' nor '%s' exists; the history starts at the checkpoint "
            "(step %lld) without the rows before it",
            h->path, h->partial, (long long)step);
    DG_CALL(start_fresh(h, head));
    return DG_OK;
  }
  void *data = NULL;
  size_t n = 0;
  DG_CALL(dg_fsutil_read_file(src, &data, &n));
  const char *text = data;
  size_t hl = strlen(head);
  if (n < hl || memcmp(text, head, hl) != 0) {
    const char *nl = strchr(text, '\n');
    int len = nl ? (int)(nl - text) : (int)strlen(text);
    dg_error e = dg_error_raise(DG_ERR_INPUT, __FILE__, __LINE__, __func__,
                                "history '%s' has the columns '%.*s', but this run writes '%.*s': "
                                "the problem changed since the checkpoint; move the file away "
                                "to start a new history",
                                src, len > 300 ? 300 : len, text, (int)hl - 1, head);
    free(data);
    return e;
  }
  dg_strbuf b;
  dg_strbuf_init(&b);
  dg_strbuf_appendn(&b, head, hl);
  keep_rows(text, step, &b);
  free(data);
  dg_error err = b.failed ? dg_error_raise(DG_ERR_MEMORY, __FILE__, __LINE__, __func__,
                                           "out of memory")
                           : DG_OK;
  if (err == DG_OK)
    err = dg_fsutil_write_atomic(h->partial, b.data, b.len, 0644);
  dg_strbuf_free(&b);
  DG_CALL(err);
  if (src == h->path)
    unlink(h->path);
  DG_CALL(open_append(h));
  return DG_OK;
}

dg_error dg_history_open(const char *path, const char *const *names, int n,
                         int64_t continue_step, dg_history **out) {
  *out = NULL;
  dg_history *h = calloc(1, sizeof *h);
  DG_CHECK(h, DG_ERR_MEMORY, "out of memory");
  h->fd = -1;
  h->n = n;
  h->path = strdup(path);
  h->partial = partial_of(path);
  dg_strbuf b;
  dg_strbuf_init(&b);
  dg_error err = h->path && h->partial ? header(names, n, &b)
                                       : dg_error_raise(DG_ERR_MEMORY, __FILE__, __LINE__,
                                                        __func__, "out of memory");
  if (err == DG_OK)
    err = continue_step >= 0 ? start_restart(h, b.data, continue_step) : start_fresh(h, b.data);
  dg_strbuf_free(&b);
  if (err != DG_OK) {
    dg_history_destroy(&h);
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  }
  *out = h;
  return DG_OK;
}

/* One row, in one write(2); synced when the last sync is a second old. */
dg_error dg_history_row(dg_history *h, double t, int64_t step, double dt, double wall,
                        const double *values) {
  dg_strbuf b;
  dg_strbuf_init(&b);
  dg_strbuf_appendf(&b, "%.17g,%lld,%.17g,%.6f", t, (long long)step, dt, wall);
  for (int i = 0; i < h->n; i++)
    dg_strbuf_appendf(&b, ",%.17g", values[i]);
  dg_strbuf_appendf(&b, "\n");
  dg_error err = b.failed ? dg_error_raise(DG_ERR_MEMORY, __FILE__, __LINE__, __func__,
                                           "out of memory")
                           : DG_OK;
  if (err == DG_OK)
    err = dg_fsutil_write_fd(h->fd, b.data, b.len, h->partial);
  dg_strbuf_free(&b);
  DG_CALL(err);
  if (dg_timing_now() - h->last_sync >= 1.0) {
    DG_CHECK(fsync(h->fd) == 0, DG_ERR_IO, "cannot sync history '%s': %s", h->partial,
             strerror(errno));
    h->last_sync = dg_timing_now();
  }
  return DG_OK;
}

/* The end: synced, closed, renamed to its name. */
dg_error dg_history_finish(dg_history *h) {
  DG_CHECK(fsync(h->fd) == 0, DG_ERR_IO, "cannot sync history '%s': %s", h->partial,
           strerror(errno));
  close(h->fd);
  h->fd = -1;
  DG_CHECK(rename(h->partial, h->path) == 0, DG_ERR_IO, "cannot rename history '%s' to '%s': %s",
           h->partial, h->path, strerror(errno));
  sync_dir_of(h->path);
  return DG_OK;
}

void dg_history_destroy(dg_history **h) {
  if (!*h)
    return;
  if ((*h)->fd >= 0)
    close((*h)->fd);
  free((*h)->path);
  free((*h)->partial);
  free(*h);
  *h = NULL;
}

dg_error dg_history_check(const char *path) {
  char *partial = partial_of(path);
  DG_CHECK(partial, DG_ERR_MEMORY, "out of memory");
  dg_error err = dg_fsutil_check_output(path, "[output] history");
  if (err == DG_OK)
    err = dg_fsutil_check_output(partial, "[output] history");
  free(partial);
  DG_CALL(err);
  char *probe = malloc(strlen(path) + 8);
  DG_CHECK(probe, DG_ERR_MEMORY, "out of memory");
  sprintf(probe, "%s.probe", path);
  err = dg_fsutil_write_atomic(probe, "ok\n", 3, 0644);
  unlink(probe);
  free(probe);
  if (err != DG_OK)
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  return DG_OK;
}
