/* Checkpoints (problems/io/checkpoint.h): the whole state bit for bit at
 * every [output] checkpoint_interval and at the final time; the signal
 * observer writes one too when a run is stopped. */
#include <stdio.h>
#include <stdlib.h>

#include "core/fsutil.h"
#include "core/log.h"
#include "problems/driver/observer.h"
#include "problems/driver/run_state.h"

char *dg_observe_checkpoint_path(const dg_run_state *r, int64_t step) {
  char name[512];
  snprintf(name, sizeof name, "%s_checkpoint_%06lld.h5", r->prob->name, (long long)step);
  return dg_fsutil_join(r->prob->output_dir, name);
}

dg_error dg_observe_checkpoint_fields_check(const dg_run_state *r) {
  DG_CHECK(r->ncomp <= DG_CHECKPOINT_MAX_FIELDS, DG_ERR_INPUT,
           "%s has %d state components, but a checkpoint holds at most %d: run it without "
           "checkpoints ([output] checkpoint_interval = 0, no --restart)",
           r->prob->name, r->ncomp, DG_CHECKPOINT_MAX_FIELDS);
  return DG_OK;
}

static dg_error write_file(dg_run_state *r, dg_checkpoint_info *info, const double *u) {
  const dg_discretization *d = r->disc;
  int64_t step = info->step;
  double t = info->time;
  const void *fields[DG_CHECKPOINT_MAX_FIELDS];
  for (int c = 0; c < r->ncomp; c++)
    fields[c] = u + (int64_t)c * r->par->K_global * d->Np;
  char *path = dg_observe_checkpoint_path(r, step);
  DG_CHECK(path, DG_ERR_MEMORY, "out of memory");
  dg_error err = dg_checkpoint_write(path, info, fields);
  if (err == DG_OK)
    dg_info("checkpoint %s (t = %.6g)", path, t);
  free(path);
  DG_CALL(err);
  return DG_OK;
}

static dg_error write_collective(dg_run_state *r, dg_checkpoint_info *info) {
  /* every rank writes its elements into the one file */
  const dg_discretization *d = r->disc;
  const void *fields[DG_CHECKPOINT_MAX_FIELDS];
  for (int c = 0; c < r->ncomp; c++)
    fields[c] = r->u + (int64_t)c * d->K * d->Np;
  char *path = dg_observe_checkpoint_path(r, info->step);
  DG_CHECK(path, DG_ERR_MEMORY, "out of memory");
  dg_error err = dg_checkpoint_write_part(path, info, fields, r->par->comm, r->part);
  if (err == DG_OK && r->par->rank == 0)
    dg_info("checkpoint %s (t = %.6g)", path, info->time);
  free(path);
  DG_CALL(dg_parallel_agree(r->par->comm, err));
  return DG_OK;
}

dg_error dg_observe_write_checkpoint(dg_run_state *r, double t, double dt, int64_t step) {
  /* (also reached by a signal in a run without checkpoint_interval) */
  DG_CALL(dg_parallel_agree(r->par->comm, dg_observe_checkpoint_fields_check(r)));
  dg_checkpoint_info info;
  dg_run_checkpoint_info(r, &info);
  info.time = t;
  info.dt = dt;
  info.step = step;
  if (r->collective)
    return write_collective(r, &info);
  const double *u = r->u;
  if (r->par->size > 1) {
    DG_CALL(dg_parallel_gather(r->par, r->ncomp, r->disc->Np, r->u, r->u_global));
    u = r->u_global;
    info.coef_values = r->coef_gathered; /* (gathered in set-up) */
  }
  dg_error err = DG_OK;
  if (r->par->rank == 0)
    err = write_file(r, &info, u);
  DG_CALL(dg_parallel_agree(r->par->comm, err)); /* (one rank: err itself) */
  return DG_OK;
}

static dg_error notify(dg_observer *self, dg_observe_event ev, const dg_run_now *now) {
  (void)self;
  (void)ev; /* TIME at the multiples before the final time; END at it */
  DG_CALL(dg_observe_write_checkpoint(now->run, now->t, now->dt, now->step));
  return DG_OK;
}

dg_error dg_observe_checkpoint_create(dg_run_state *r, const dg_run_options *opt,
                                      dg_observer *o) {
  (void)opt;
  if (r->prob->checkpoint_interval <= 0)
    return DG_OK;
  o->name = "checkpoint";
  o->trigger.every_dt = r->prob->checkpoint_interval;
  o->trigger.at_end = 1;
  o->notify = notify;
  return DG_OK;
}
