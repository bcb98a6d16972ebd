/* The time step from the flux file's wave speed (issue 42): the step rate
 * max_k ((N+1)^2 lambda_k / h_k + (N+1)^4 nu / h_k^2) computed on the device
 * (problems/solver/wave_speed.h) at the start of every segment between two
 * landing times and every [time] dt_interval steps, dt_max = cfl / rate,
 * grown by at most [time] dt_growth from the last update's dt_max (not from
 * the last step, which a short segment before an output time shortens);
 * the rest of the
 * segment is then re-planned in equal steps that land on its end
 * (dg_rk_plan_steps), so output times are still hit exactly.
 *
 * Restarts: the dt sequence is a function of the state, the step number,
 * the last step's dt and the last update's dt_max, all in the checkpoint
 * (time, step, dt, dt_max).  A
 * checkpoint at a landing time starts the next segment as the continued
 * run does (a new rate); one inside a segment continues it with its dt
 * for the steps left, llround((stop - t) / dt) (t = t0 + s dt summed step
 * by step, so the quotient is within round-off of an integer).  Either
 * way the next updates happen at the same steps on the same state, so
 * the dt sequence is the continued run's bit for bit. */
#include <math.h>

#include "core/log.h"
#include "problems/driver/run_loop_speed.h"

double dg_run_diffusivity(const dg_run_state *r, double h_min) {
  const dg_problem *p = r->prob;
  /* [shock]: the artificial viscosity's diffusive limit too.  Element k's
   * viscosity is at most min(max_viscosity, scale * 2 h_k / N) (h_k the
   * disc's half altitude), so eps_k / h_k^2 <= nu / h_min^2 with nu below. */
  double nu = p->diffusivity;
  if (p->shock.sensor && p->shock.sensor[0])
    nu = fmax(nu, fmin(p->shock.max_viscosity, p->shock.scale * 2.0 * h_min / r->disc->N));
  return nu;
}

dg_error dg_run_speed_dt(dg_run_state *r, double t, int64_t step, double *dt_max) {
  const dg_problem *p = r->prob;
  double rate, nu = p->diffusivity;
  if (p->shock.sensor && p->shock.sensor[0]) { /* the bound needs the smallest element */
    double h_min = r->disc->h_min;
    DG_CALL(dg_parallel_min(r->par, &h_min, 1));
    nu = dg_run_diffusivity(r, h_min);
  }
  DG_CALL(dg_wave_speed_rate(r->speed, t, nu, &rate));
  DG_CHECK(!isnan(rate) && !isinf(rate), DG_ERR_NUMERIC,
           "t = %.9g (step %lld): the wave speed of the flux file is not finite (the state "
           "blew up: reduce [time] cfl, now %g)",
           t, (long long)step, p->cfl);
  DG_CHECK(rate > 0, DG_ERR_INPUT,
           "t = %.9g (step %lld): the wave speed of the flux file is 0 at every node, so the "
           "CFL condition gives no step; set [time] wave_speed or [time] dt",
           t, (long long)step);
  double dt = p->cfl / rate, ref = r->speed_dt_max;
  if (ref > 0 && dt > p->dt_growth * ref)
    dt = p->dt_growth * ref;
  *dt_max = r->speed_dt_max = dt;
  return DG_OK;
}

void dg_run_speed_place(double (*landing)(void *ctx, double t), void *ctx, dg_run_resume *at) {
  at->in_segment = 0;
  if (at->step == 0 || !(at->dt > 0))
    return; /* from the start: a segment starts */
  if (landing(ctx, at->t - 0.5 * at->dt) == at->t)
    return; /* at a landing time (the loop sets t to it exactly): a segment starts */
  double stop = landing(ctx, at->t);
  long long left = llround((stop - at->t) / at->dt);
  if (left < 1)
    return;
  at->in_segment = 1;
  at->seg_t0 = at->t;
  at->seg_stop = stop;
  at->seg_n = left;
  at->seg_s = 0;
}

int64_t dg_run_speed_estimate(int64_t step, double stop, int64_t left, double t_final,
                              double dt_max) {
  double rest = t_final - stop;
  return step + left + (rest > 0 ? (int64_t)ceil(rest / dt_max) : 0);
}
