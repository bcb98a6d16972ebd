/* Adaptive time steps (run_loop_adaptive.c): an embedded Runge–Kutta pair
 * with a PI controller ([time] scheme = rk34 | rk45); internal to
 * problems/driver. */
#ifndef DG_PROBLEMS_RUN_LOOP_ADAPTIVE_H
#define DG_PROBLEMS_RUN_LOOP_ADAPTIVE_H

#include "problems/driver/observer.h"
#include "problems/driver/run_state.h"

/* The controller's state at the loop's start: a restart's (at->rk_ctrl
 * with a step to try) as it was written, else a fresh one whose first step
 * is [time] dt, the CFL dt of the given wave speed (dt_cfl) or, with the
 * computed wave speed, cfl / its rate now. */
dg_error dg_run_adaptive_start(dg_run_state *r, const dg_run_resume *at, double dt_cfl,
                               double t, int64_t step);
/* One accepted step from now->t towards stop (rejected tries are undone
 * and retried with the controller's smaller step): now->t and now->dt
 * become the step's; *lands: it ended on stop exactly (t = stop). */
dg_error dg_run_adaptive_step(dg_run_state *r, dg_run_now *now, double stop, int *lands);
/* The progress line's estimate of the total step count. */
int64_t dg_run_adaptive_estimate(const dg_run_state *r, const dg_run_now *now);

#endif
