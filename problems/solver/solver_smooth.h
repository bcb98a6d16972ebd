/* The first-order twin of a shock-capturing run (solver_smooth.c; issue
 * 41; its public part is in solver.h).  Not a public API.
 *
 * A flux file with artificial viscosity has second-order terms in the
 * viscosity coefficient only (sod3d.flux: div(av*grad(rho)), ldg(...)).
 * Where the sensor finds every element smooth, the viscosity is zero at
 * every node, those terms are exactly zero, and the stage's right-hand side
 * is that of the file without them: the first-order kernels of the physics
 * with the coefficient set to zero (operators/physics_vanish.h), no
 * gradient pass.  This module builds that twin (on the first smooth stage,
 * or when the tuner asks: problems/solver/autotune_smooth.c), with knobs of
 * its own in what the kernels alone decide (the solver's state layout,
 * fused update and stepping are shared), and runs it; a file whose
 * second-order terms do not all carry the coefficient has no twin, and its
 * stages all run the viscous kernels. */
#ifndef DG_PROBLEMS_SOLVER_SOLVER_SMOOTH_H
#define DG_PROBLEMS_SOLVER_SOLVER_SMOOTH_H

#include "problems/solver/solver_private.h"

/* The twin's kernels, built on first use for coefficient coef; *ready 0:
 * this physics has none (the viscous kernels run). */
dg_error dg_solver_smooth_kernels(dg_solver *s, int coef, dg_rhs_kernels *k, int *ready);
/* The twin's kernels as built (DG_ERR_ARG before dg_solver_smooth_prepare
 * or where there is none). */
dg_error dg_solver_smooth_loaded(const dg_solver *s, dg_rhs_kernels *k);
/* Forget the twin (the solver's knobs changed, or it is destroyed). */
void dg_solver_smooth_free(dg_solver *s);

#endif
