/* The steps of an embedded Runge–Kutta pair (dg/timestep_embedded.h) on
 * the solver's device state, for adaptive time steps ([time] scheme = rk34
 * | rk45, issue 42 item 2): the stage updates, the error register and the
 * scaled error norm run on the device as elementwise kernels and one
 * reduction (core/elementwise.h, core/reduction.h); no state comes to the
 * host.  Three registers of the state's size beside the solver's: u0 (the
 * state at the start of the step, restored when the step is rejected), acc
 * (the accumulated solution) and err (dt * sum_i (b_i - bhat_i) k_i).
 *
 * The norm is taken over the owned elements' Np nodes of every component
 * (no padding, no ghost slots), on what the state holds: nodal values, or
 * Bernstein coefficients with [backend] basis = bernstein (both norms of
 * the same polynomial; the controller needs only a consistent one). */
#ifndef DG_PROBLEMS_SOLVER_EMBEDDED_H
#define DG_PROBLEMS_SOLVER_EMBEDDED_H

#include <stdint.h>

#include "core/strbuf.h"
#include "dg/timestep_embedded.h"
#include "problems/solver/solver.h"

typedef struct dg_embedded dg_embedded;

/* The registers and kernels for solver s (which must outlive it). */
dg_error dg_embedded_create(dg_solver *s, dg_embedded **out);
void dg_embedded_destroy(dg_embedded **e);

/* One step of pair rk from t to t + dt on the solver's state, which then
 * holds the new solution; *sum_sq is this rank's sum of the squared scaled
 * errors (dg_rk_error_sum_sq's, on the device) and *count the number of
 * values in it (ncomp * K_owned * Np), for the caller to add over ranks. */
dg_error dg_embedded_step(dg_embedded *e, const dg_rk_embedded *rk, double t, double dt,
                          double atol, double rtol, double *sum_sq, double *count);
/* A rejected step: the state back to the start of the last step. */
dg_error dg_embedded_restore(dg_embedded *e);

/* The kernels (elementwise: the start, a stage, zeroing; a reduction: the
 * norm), their source for the cuda (cuda != 0) or cpu backend appended to
 * out, as dg_embedded_create compiles them: for the NVRTC, emulator and
 * digest tests (no device needed). */
enum { DG_EMBEDDED_START, DG_EMBEDDED_STAGE, DG_EMBEDDED_ZERO, DG_EMBEDDED_NORM,
       DG_EMBEDDED_NKERNELS };
dg_error dg_embedded_kernel_source(int which, int is_float, int cuda, dg_strbuf *out);

#endif
