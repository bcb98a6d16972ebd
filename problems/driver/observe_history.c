/* [output] history = run.csv: one CSV row per history time (Trixi.jl's
 * AnalysisCallback, PyFR's integrate plugin): t, step, dt (of the step
 * that reached t; 0 at t = 0), wall (seconds since this process's time
 * loop started), then the quantities of problems/solver/quantities.h
 * (errors against the exact solution, the flux file's integrals), in
 * columns named after them, under a header row.  Rows at t = 0, every
 * [output] history_steps steps or at every multiple of history_interval
 * (the loop lands on those; neither: at the [output] interval times), and
 * at the final time.
 *
 * Safety.  During the run the rows go to <history>.partial, one write(2)
 * per row, so that a killed process leaves every complete row (the file is
 * fsync'ed at most once a second and at the end, so that a crash of the
 * machine loses at most the last second); at the end the file is synced
 * and renamed to <history>, so that a complete-looking history is a
 * complete one.  A fresh run removes the <history> of an earlier run when
 * it starts its own.  The rows of a step are written before the signal
 * observer's checkpoint of that step (first in the registry), so that a
 * --restart continues <history>.partial (or <history>) with the rows up to
 * the checkpoint's step and drops the later rows of the run it continues:
 * the restarted run's CSV is the uninterrupted run's except the wall
 * column.  Under MPI the quantities are reduced over the ranks and rank 0
 * writes. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/fsutil.h"
#include "core/log.h"
#include "core/strbuf.h"
#include "problems/driver/observer.h"
#include "problems/driver/run_state.h"

typedef struct history {
  char *path, *partial; /* <history> in [output] directory; <history>.partial */
  int fd;               /* rank 0, from the start to the end: the .partial file */
  int64_t last_step;    /* of the last row written (-1: none) */
  double last_sync;     /* wall clock of the last fsync */
  double *values;
} history;

static void history_destroy(dg_observer *self) {
  history *h = self->ctx;
  if (h->fd >= 0)
    close(h->fd);
  h->fd = -1;
  free(h->path);
  free(h->partial);
  free(h->values);
}

/* The header line "t,step,dt,wall,<quantities>\n". */
static dg_error header(const dg_quantities *q, dg_strbuf *b) {
  dg_strbuf_appendf(b, "t,step,dt,wall");
  for (int i = 0; i < dg_quantities_count(q); i++)
    dg_strbuf_appendf(b, ",%s", dg_quantities_name(q, i));
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

static dg_error open_append(history *h) {
  h->fd = open(h->partial, O_WRONLY | O_APPEND | O_CLOEXEC);
  DG_CHECK(h->fd >= 0, DG_ERR_IO, "cannot open history '%s': %s", h->partial, strerror(errno));
  h->last_sync = dg_run_now_seconds();
  return DG_OK;
}

/* A fresh run: a new .partial with the header; an earlier run's complete
 * history goes (it would look like this run's). */
static dg_error start_fresh(history *h, const char *head) {
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
static dg_error start_restart(history *h, const char *head, int64_t step) {
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
  dg_error err = b.failed ? DG_ERR_MEMORY : DG_OK;
  if (err == DG_OK)
    err = dg_fsutil_write_atomic(h->partial, b.data, b.len, 0644);
  dg_strbuf_free(&b);
  DG_CALL(err);
  if (src == h->path)
    unlink(h->path);
  DG_CALL(open_append(h));
  return DG_OK;
}

/* One row, in one write(2); synced when the last sync is a second old. */
static dg_error write_row(history *h, const dg_run_now *now, int nq) {
  dg_strbuf b;
  dg_strbuf_init(&b);
  double wall = now->loop_start > 0 ? dg_run_now_seconds() - now->loop_start : 0;
  dg_strbuf_appendf(&b, "%.17g,%lld,%.17g,%.6f", now->t, (long long)now->step,
                   now->step > 0 ? now->dt : 0.0, wall);
  for (int i = 0; i < nq; i++)
    dg_strbuf_appendf(&b, ",%.17g", h->values[i]);
  dg_strbuf_appendf(&b, "\n");
  dg_error err = b.failed ? DG_ERR_MEMORY : DG_OK;
  if (err == DG_OK)
    err = dg_fsutil_write_fd(h->fd, b.data, b.len, h->partial);
  dg_strbuf_free(&b);
  DG_CALL(err);
  if (dg_run_now_seconds() - h->last_sync >= 1.0) {
    DG_CHECK(fsync(h->fd) == 0, DG_ERR_IO, "cannot sync history '%s': %s", h->partial,
             strerror(errno));
    h->last_sync = dg_run_now_seconds();
  }
  return DG_OK;
}

/* The end: synced, closed, renamed to its name. */
static dg_error finish(history *h) {
  DG_CHECK(fsync(h->fd) == 0, DG_ERR_IO, "cannot sync history '%s': %s", h->partial,
           strerror(errno));
  close(h->fd);
  h->fd = -1;
  DG_CHECK(rename(h->partial, h->path) == 0, DG_ERR_IO, "cannot rename history '%s' to '%s': %s",
           h->partial, h->path, strerror(errno));
  sync_dir_of(h->path);
  return DG_OK;
}

/* A row after this step? (the same on every rank) */
static int row_due(const history *h, const dg_run_now *now) {
  const dg_problem *p = now->run->prob;
  if (now->step == h->last_step)
    return 0;
  if (!(now->t < p->t_final * (1 - 1e-14)))
    return 1; /* the final time */
  if (p->history_steps > 0)
    return now->step % p->history_steps == 0;
  return dg_observe_is_multiple(now->t, p->history_interval > 0 ? p->history_interval
                                                     : p->output_interval);
}

static dg_error rank0_work(history *h, dg_observe_event ev, const dg_run_now *now, int row) {
  dg_run_state *r = now->run;
  int nq = dg_quantities_count(r->quantities);
  if (ev == DG_OBSERVE_START) {
    dg_strbuf b;
    dg_strbuf_init(&b);
    dg_error err = header(r->quantities, &b);
    if (err == DG_OK)
      err = now->opt->restart ? start_restart(h, b.data, now->step)
                              : start_fresh(h, b.data);
    dg_strbuf_free(&b);
    DG_CALL(err);
  }
  if (row)
    DG_CALL(write_row(h, now, nq));
  if (ev == DG_OBSERVE_END)
    DG_CALL(finish(h));
  return DG_OK;
}

static dg_error notify(dg_observer *self, dg_observe_event ev, const dg_run_now *now) {
  history *h = self->ctx;
  dg_run_state *r = now->run;
  if (ev == DG_OBSERVE_TIME)
    return DG_OK; /* (every_dt only makes the loop land on the history times) */
  int nq = dg_quantities_count(r->quantities);
  if (ev == DG_OBSERVE_START) {
    h->values = calloc((size_t)nq + 1, sizeof(double));
    DG_CHECK(h->values, DG_ERR_MEMORY, "out of memory");
  }
  /* (a restart's rows up to its checkpoint are those of the run it continues) */
  int row = ev == DG_OBSERVE_STEP ? row_due(h, now)
            : ev == DG_OBSERVE_START ? !now->opt->restart
                                     : 0;
  if (row) {
    DG_CALL(dg_quantities_eval(r->quantities, now->t, h->values)); /* (collective) */
    h->last_step = now->step;
  }
  dg_error err = r->par->rank == 0 ? rank0_work(h, ev, now, row) : DG_OK;
  DG_CALL(dg_parallel_agree(r->par->comm, err)); /* (one rank: err itself) */
  return DG_OK;
}

/* The history's file: in [output] directory (absolute: as given); a
 * directory or another non-regular file in the way, or a directory that
 * cannot be written, is an error before anything runs. */
static dg_error check_paths(const history *h) {
  DG_CALL(dg_fsutil_check_output(h->path, "[output] history"));
  DG_CALL(dg_fsutil_check_output(h->partial, "[output] history"));
  char *probe = malloc(strlen(h->path) + 8);
  DG_CHECK(probe, DG_ERR_MEMORY, "out of memory");
  sprintf(probe, "%s.probe", h->path);
  dg_error err = dg_fsutil_write_atomic(probe, "ok\n", 3, 0644);
  unlink(probe);
  free(probe);
  if (err != DG_OK)
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  return DG_OK;
}

dg_error dg_observe_history_create(dg_run_state *r, const dg_run_options *opt,
                                   dg_observer *o) {
  (void)opt;
  const dg_problem *p = r->prob;
  if (!p->history[0])
    return DG_OK;
  history *h = calloc(1, sizeof *h);
  DG_CHECK(h, DG_ERR_MEMORY, "out of memory");
  h->fd = -1;
  h->last_step = -1;
  o->ctx = h;
  o->destroy = history_destroy;
  h->path = p->history[0] == '/' ? strdup(p->history) : dg_fsutil_join(p->output_dir, p->history);
  h->partial = h->path ? malloc(strlen(h->path) + 9) : NULL;
  dg_error err = DG_OK;
  if (!h->partial)
    err = dg_error_raise(DG_ERR_MEMORY, __FILE__, __LINE__, __func__, "out of memory");
  else
    sprintf(h->partial, "%s.partial", h->path);
  if (err == DG_OK)
    err = dg_parallel_agree(r->par->comm, r->par->rank == 0 ? check_paths(h) : DG_OK);
  if (err != DG_OK) { /* (the loop frees only the observers it was handed) */
    history_destroy(o);
    free(h);
    o->ctx = NULL;
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  }
  o->name = "history";
  o->trigger.every_steps = 1; /* (row_due decides) */
  o->trigger.every_dt = p->history_interval;
  o->trigger.at_start = 1;
  o->trigger.at_end = 1;
  o->notify = notify;
  return DG_OK;
}
