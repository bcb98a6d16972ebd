/* [output] history = run.csv: one CSV row per history time (Trixi.jl's
 * AnalysisCallback, PyFR's integrate plugin): t, step, dt (of the step
 * that reached t; 0 at t = 0), wall (seconds since this process's time
 * loop started), then the quantities of problems/solver/quantities.h
 * (errors against the exact solution, the flux file's integrals), in
 * columns named after them (the file and its safety: problems/io/history.h).
 * Rows at t = 0, every [output] history_steps steps or at every multiple
 * of history_interval (the loop lands on those; neither: at the [output]
 * interval times), and at the final time.  The path is relative to
 * [output] directory (an absolute one as given).
 *
 * The row of a step is written before the signal observer's checkpoint of
 * that step (first in the registry), so that a --restart, which keeps the
 * rows up to the checkpoint's step, gives the uninterrupted run's CSV
 * except the wall column (the quantities are computed from the state,
 * which the restart continues bit for bit).  Under MPI the quantities are
 * reduced over the ranks and rank 0 writes. */
#include <stdlib.h>
#include <string.h>

#include "core/fsutil.h"
#include "problems/driver/observer.h"
#include "problems/driver/run_state.h"
#include "problems/io/history.h"

typedef struct history {
  char *path;
  dg_history *file;   /* rank 0, from the start to the end */
  int64_t last_step;  /* of the last row written (-1: none) */
  double *values;
} history;

static void history_destroy(dg_observer *self) {
  history *h = self->ctx;
  dg_history_destroy(&h->file);
  free(h->path);
  free(h->values);
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
  double iv = p->history_interval > 0 ? p->history_interval : p->output_interval;
  return dg_observe_is_multiple(now->t, iv);
}

static dg_error rank0_work(history *h, dg_observe_event ev, const dg_run_now *now, int row) {
  dg_quantities *q = now->run->quantities;
  int nq = dg_quantities_count(q);
  if (ev == DG_OBSERVE_START) {
    const char **names = calloc((size_t)nq + 1, sizeof *names);
    DG_CHECK(names, DG_ERR_MEMORY, "out of memory");
    for (int i = 0; i < nq; i++)
      names[i] = dg_quantities_name(q, i);
    dg_error err = dg_history_open(h->path, names, nq, now->opt->restart ? now->step : -1,
                                   &h->file);
    free(names);
    DG_CALL(err);
  }
  if (row) {
    double wall = now->loop_start > 0 ? dg_run_now_seconds() - now->loop_start : 0;
    DG_CALL(dg_history_row(h->file, now->t, now->step, now->step > 0 ? now->dt : 0.0, wall,
                           h->values));
  }
  if (ev == DG_OBSERVE_END)
    DG_CALL(dg_history_finish(h->file));
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

dg_error dg_observe_history_create(dg_run_state *r, const dg_run_options *opt,
                                   dg_observer *o) {
  (void)opt;
  const dg_problem *p = r->prob;
  if (!p->history[0])
    return DG_OK;
  char *path =
      p->history[0] == '/' ? strdup(p->history) : dg_fsutil_join(p->output_dir, p->history);
  DG_CHECK(path, DG_ERR_MEMORY, "out of memory");
  /* (a directory in the way or one that cannot be written: before anything runs) */
  dg_error err =
      dg_parallel_agree(r->par->comm, r->par->rank == 0 ? dg_history_check(path) : DG_OK);
  history *h = err == DG_OK ? calloc(1, sizeof *h) : NULL;
  if (!h) {
    free(path);
    DG_CALL(err);
    DG_RAISE(DG_ERR_MEMORY, "out of memory");
  }
  h->path = path;
  h->last_step = -1;
  o->ctx = h;
  o->destroy = history_destroy;
  o->name = "history";
  o->trigger.every_steps = 1; /* (row_due decides) */
  o->trigger.every_dt = p->history_interval;
  o->trigger.at_start = 1;
  o->trigger.at_end = 1;
  o->notify = notify;
  return DG_OK;
}
