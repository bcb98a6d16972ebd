/* dgbench rhs with shock capturing (problem.cfg's [shock]): the module's
 * kernels (problems/solver/shock.h) timed as rows of their own beside the
 * right-hand side, and the RHS with shock capturing over the RHS without. */
#ifndef DG_PROBLEMS_BENCH_RHSBENCH_SHOCK_H
#define DG_PROBLEMS_BENCH_RHSBENCH_SHOCK_H

#include <stdio.h>

#include "problems/driver/problem.h"
#include "problems/solver/solver.h"

struct dg_autotune_request;

/* Build the [shock] module of problem p for solver s (whose state and
 * coefficients it reads and writes), time each of its kernels over
 * `repeats` (median, device events, after a warm-up), attach it to s (s
 * owns it after), tune its first-order twin with tune (NULL: its knobs as
 * they come) and time the twin's RHS alone, then a whole stage with
 * shock capturing, end to end (RHS with the sensor, the viscosity or the
 * first-order twin, update, limiter); print the rows and the ratios stage
 * / rhs_ms and stage / twin RHS to out.  *ratio gets the first. */
dg_error dg_rhsbench_shock(dg_solver *s, const dg_discretization *disc, dg_problem *p,
                           const dg_physics *ph, const struct dg_autotune_request *tune,
                           int repeats, double rhs_ms, FILE *out, double *ratio);

#endif
