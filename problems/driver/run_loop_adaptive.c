/* Adaptive time steps (issue 42 item 2): the embedded pair's step on the
 * device (problems/solver/embedded.h), its scaled error norm summed over
 * the ranks, and the PI controller (dg/timestep_embedded.h) deciding
 * whether the step stands and what the next one is; the loop of PyFR's
 * adaptive controller (Vincent, Witherden et al.), here with landing
 * times that are hit exactly.
 *
 * Landing times (outputs, checkpoints, the final time): a step that would
 * pass the next one is clipped to land on it (dg_rk_pi_step_size).  The
 * controller's next step after a clipped, accepted step is not its
 * proposal from the clipped one (which the clip, not the error, made
 * small) but at least the step it had proposed before the clip.
 *
 * Restarts: the step sequence depends on the state, t, the landing times
 * and the controller's state (next step, last accepted error, counts),
 * all of which a checkpoint holds (rk_dt_next, rk_err_prev, rk_rejected;
 * the step count is the accepted one), so a restart continues it bit for
 * bit.  Under MPI the error norm's sum is added over the ranks (in
 * another order than one rank adds it: dt agrees to round-off only). */
#include "problems/driver/run_loop_adaptive.h"

#include <math.h>

#include "core/log.h"
#include "problems/driver/run_loop_speed.h"

/* Rejections in a row after which the run stops (min_fac^50 of a step). */
enum { MAX_REJECTED_IN_A_ROW = 50 };

dg_error dg_run_adaptive_start(dg_run_state *r, const dg_run_resume *at, double dt_cfl,
                               double t, int64_t step) {
  const dg_problem *p = r->prob;
  if (at && at->rk_ctrl.dt > 0) {
    r->rk_ctrl = at->rk_ctrl;
    return DG_OK;
  }
  double dt0 = dt_cfl;
  if (p->dt_fixed > 0)
    dt0 = p->dt_fixed;
  else if (p->speed_computed)
    DG_CALL(dg_run_speed_dt(r, t, step, &dt0));
  DG_CHECK(dt0 > 0 && isfinite(dt0), DG_ERR_INTERNAL, "no first step for the adaptive scheme");
  dg_rk_pi_start(dt0, &r->rk_ctrl);
  r->rk_ctrl.accepted = step;
  return DG_OK;
}

/* One try of a step of dt from t: *err, the scaled error norm over all
 * ranks. */
static dg_error try_step(dg_run_state *r, double t, double dt, double *err) {
  const dg_problem *p = r->prob;
  double v[2];
  DG_CALL(dg_embedded_step(r->embedded, &p->embedded, t, dt, p->atol, p->rtol, &v[0], &v[1]));
  DG_CALL(dg_parallel_sum(r->par, v, 2));
  *err = dg_rk_error_finish(v[0], v[1]);
  return DG_OK;
}

dg_error dg_run_adaptive_step(dg_run_state *r, dg_run_now *now, double stop, int *lands) {
  const dg_problem *p = r->prob;
  dg_rk_pi_state *st = &r->rk_ctrl;
  double t = now->t;
  for (int tries = 0;; tries++) {
    DG_CHECK(tries < MAX_REJECTED_IN_A_ROW, DG_ERR_NUMERIC,
             "t = %.9g (step %lld): the error controller of [time] scheme = %s rejected %d "
             "steps in a row (dt now %.3g): the state is not finite or the tolerances "
             "(atol %g, rtol %g) cannot be met",
             t, (long long)now->step, p->embedded.name, tries, st->dt, p->atol, p->rtol);
    DG_CHECK(p->max_steps <= 0 || now->step < p->max_steps, DG_ERR_INPUT,
             "t = %.9g: reaching t = %g needs more than [time] max_steps = %lld steps "
             "(dt %.3g from the error controller)",
             t, p->t_final, (long long)p->max_steps, st->dt);
    double proposal = st->dt;
    double dt = dg_rk_pi_step_size(st, t, stop, lands);
    DG_CHECK(dt > 0 && t + dt > t, DG_ERR_NUMERIC,
             "t = %.9g (step %lld): the adaptive step %.3g no longer advances t", t,
             (long long)now->step, dt);
    double err = NAN;
    DG_CALL(try_step(r, t, dt, &err));
    int accept;
    dg_rk_pi_update(&p->pi, st, dt, err, &accept);
    if (!accept) {
      DG_CALL(dg_embedded_restore(r->embedded));
      dg_debug("t = %.9g: step of %.6g rejected (error %.3g), next %.6g", t, dt, err, st->dt);
      continue;
    }
    if (*lands && dt < proposal && st->dt < proposal)
      st->dt = proposal; /* the clip's shorter step is not the controller's */
    if (r->filter) /* after the whole step: H&W 2008 sec. 5.3 */
      DG_CALL(dg_state_filter_apply(r->filter));
    now->dt = dt;
    now->t = *lands ? stop : t + dt;
    return DG_OK;
  }
}

int64_t dg_run_adaptive_estimate(const dg_run_state *r, const dg_run_now *now) {
  double rest = r->prob->t_final - now->t, dt = r->rk_ctrl.dt;
  return now->step + (rest > 0 && dt > 0 ? (int64_t)ceil(rest / dt) : 0);
}
