/* --restart: read the checkpoint, and continue with the steps the
 * uninterrupted run takes.
 *
 * Between two landing times the loop takes n equal steps of
 * dt = (stop - t0) / n and computes the time after step s as t0 + s * dt.
 * A checkpoint written between two landing times (SIGINT/SIGTERM stop at
 * any step) holds t = t0 + s * dt; planning the rest from t would give
 * (stop - t) / (n - s), which differs from dt in the last bits, and so
 * would the times of the stages, so the final state would not be bitwise
 * the uninterrupted run's.  The landing times and the plan of each
 * segment depend only on the cfg, so the restart replays them from t = 0
 * and continues the segment the checkpoint lies in with its own t0 and dt
 * when the checkpoint's time, dt and step are exactly those of that
 * segment; otherwise (a cfg changed between the runs) it plans from the
 * checkpoint's time. */
#include <stdlib.h>
#include <string.h>

#include "core/comm.h"
#include "core/log.h"
#include "dg/timestep.h"
#include "problems/driver/run_state.h"

void dg_run_checkpoint_info(const dg_run_state *r, dg_checkpoint_info *info) {
  const dg_discretization *d = r->disc;
  memset(info, 0, sizeof *info);
  info->dim = d->dim;
  info->N = d->N;
  info->Np = d->Np;
  info->K = r->par->K_global; /* checkpoints hold all elements in global order */
  info->real_size = 8;
  info->nfields = r->ncomp;
  info->field_names = (const char *const *)r->comp_names;
  info->scheme = r->prob->scheme.name;
  info->problem_id = r->prob->name;
  info->element_order = r->prob->element_order;
  info->mesh_hash = r->mesh_hash;
  info->mesh_name = r->mesh_name;
  info->config_text = r->prob->resolved_cfg;
  info->flux_text = r->prob->resolved_cfg ? r->prob->flux_text : NULL;
  /* this rank's values (a gathering writer points at the gathered ones) */
  info->ncoef = r->coef ? r->coef->ncoef : 0;
  info->coef_names = r->coef_names;
  info->coef_values = r->coef_local;
  info->dt_max = r->speed_dt_max;
  if (r->prob->adaptive)
    info->scheme = r->prob->embedded.name;
  info->rk_dt_next = r->rk_ctrl.dt;
  info->rk_err_prev = r->rk_ctrl.err_prev;
  info->rk_rejected = r->rk_ctrl.rejected;
}

dg_error dg_run_restart_read(const dg_run_options *opt, dg_run_state *r, dg_run_resume *at) {
  const dg_discretization *d = r->disc;
  dg_checkpoint_info info;
  dg_run_checkpoint_info(r, &info);
  /* Every rank reads its own elements of the global state, so a run may
   * continue on any number of ranks; no rank holds more than its part
   * (nothing of K_global size is allocated for a restart, except one
   * field at a time from a format 1 file; see checkpoint.h).  The host
   * state holds the owned elements only (the ghost slots live on the
   * device and are filled by the first halo exchange). */
  void *fields[DG_CHECKPOINT_MAX_FIELDS];
  DG_CHECK(r->ncomp <= DG_CHECKPOINT_MAX_FIELDS, DG_ERR_UNSUPPORTED,
           "more than %d state components", DG_CHECKPOINT_MAX_FIELDS);
  for (int c = 0; c < r->ncomp; c++)
    fields[c] = r->u + (int64_t)c * d->K * d->Np;
  dg_error err;
  if (!r->par->gk) {
    err = dg_checkpoint_read(opt->restart, &info, fields); /* one rank: all elements */
  } else {
    dg_h5part *part = r->part; /* collective output made it already */
    if (!part)
      err = dg_comm_agree(r->par->comm, dg_h5part_create(r->par->gk, r->par->K,
                                                         r->par->K_global, &part));
    else
      err = DG_OK;
    if (err == DG_OK)
      err = dg_checkpoint_read_part(opt->restart, &info, fields, r->par->comm, part);
    if (part != r->part)
      dg_h5part_destroy(&part);
    err = dg_parallel_agree(r->par->comm, err);
  }
  DG_CALL(err);
  memset(at, 0, sizeof *at);
  at->t = info.time;
  at->dt = info.dt;
  at->dt_max = info.dt_max;
  at->rk_ctrl = (dg_rk_pi_state){.dt = info.rk_dt_next, .err_prev = info.rk_err_prev,
                                 .accepted = info.step, .rejected = info.rk_rejected};
  at->step = info.step;
  /* rank 0 (gathering), or all collectively; every rank learns of a
   * failure (rank 0's own would leave the others waiting for it) */
  DG_CALL(dg_parallel_agree(r->par->comm,
                            r->writer ? dg_snapshot_writer_resume(r->writer, at->step) : DG_OK));
  dg_info("restarting from %s at t = %.9g (step %lld)", opt->restart, at->t,
          (long long)at->step);
  return DG_OK;
}

dg_error dg_run_restart_place(double (*landing)(void *ctx, double t), void *ctx,
                              double t_final, double dt_max, dg_run_resume *at) {
  at->in_segment = 0;
  double t0 = 0;
  int64_t before = 0; /* steps before t0 */
  while (t0 < t_final * (1 - 1e-14) && t0 < at->t && before < at->step) {
    double stop = landing(ctx, t0);
    int64_t n;
    double dt;
    DG_CALL(dg_rk_plan_steps(t0, stop, dt_max, 0, &n, &dt));
    if (before + n > at->step) {
      int64_t s = at->step - before;
      /* (the same expression as the loop's, so equal bit for bit) */
      if (t0 + (double)s * dt == at->t && dt == at->dt) {
        at->in_segment = 1;
        at->seg_t0 = t0;
        at->seg_stop = stop;
        at->seg_n = n;
        at->seg_s = s;
      }
      return DG_OK;
    }
    before += n;
    t0 = stop;
  }
  return DG_OK; /* at a landing time, or not on this cfg's step sequence */
}
