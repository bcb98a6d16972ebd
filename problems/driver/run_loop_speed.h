/* The time step from the computed wave speed (run_loop_speed.c); internal
 * to problems/driver. */
#ifndef DG_PROBLEMS_RUN_LOOP_SPEED_H
#define DG_PROBLEMS_RUN_LOOP_SPEED_H

#include "problems/driver/run_state.h"

/* The largest diffusion coefficient of the time step: [time] diffusivity,
 * and with [shock] the artificial viscosity's bound on elements of size
 * >= h_min (the smallest over the ranks). */
double dg_run_diffusivity(const dg_run_state *r, double h_min);
/* dt_max = cfl / rate of the state at t (step: for messages), at most
 * dt_growth * r->speed_dt_max (0: no bound), which it then becomes.  A rate
 * that is not finite (a blown-up state) or zero is an error. */
dg_error dg_run_speed_dt(dg_run_state *r, double t, int64_t step, double *dt_max);
/* A restart's place: in_segment and the steps left in it (seg_n, from
 * seg_s = 0 at seg_t0 = t) when the checkpoint lies inside a segment. */
void dg_run_speed_place(double (*landing)(void *ctx, double t), void *ctx, dg_run_resume *at);
/* The progress line's estimate of the total step count: the steps taken,
 * those left in the segment ending at stop, and the rest at dt_max. */
int64_t dg_run_speed_estimate(int64_t step, double stop, int64_t left, double t_final,
                              double dt_max);

#endif
