/* A problem opened for a benchmark as dgrun opens it (problems/bench/):
 * the problem file with its overrides, the device, the discretization, the
 * physics (boundary conditions no face uses do not count, as in dgrun) and
 * the coefficients' values ([regions], [coefficients]); then the tuned
 * kernel variant and a solver with the coefficients set.  `dgbench rhs`
 * (rhsbench.c) and `dgbench step` (stepbench.c) share it, so that both time
 * the kernels dgrun would run. */
#ifndef DG_PROBLEMS_BENCH_BENCH_CASE_H
#define DG_PROBLEMS_BENCH_BENCH_CASE_H

#include "core/device.h"
#include "operators/physics.h"
#include "problems/driver/problem.h"
#include "problems/solver/coefficients.h"
#include "problems/solver/solver.h"

typedef struct dg_bench_case {
  dg_problem *p;
  dg_device *dev;
  dg_discretization *disc;
  dg_physics ph;
  dg_physics_tables *tab;
  unsigned char *used; /* ph.bc_used */
  dg_coefficients *co; /* NULL: the physics has none */
} dg_bench_case;

/* Open cfg with the section.key=value overrides ov[0..nov). */
dg_error dg_bench_case_open(const char *cfg, const char *const *ov, int nov, dg_bench_case *c);
void dg_bench_case_close(dg_bench_case *c);

/* The variant dgrun would run with tune (dg_tune_mode; off: the file's
 * [backend] knobs), looked up or searched as dgrun does. */
dg_error dg_bench_case_tune(dg_bench_case *c, int tune, dg_kernel_config *kc);

/* A solver with kernels kc and the coefficients set; with tune on and
 * curved elements, the curved kernels' own variant tuned too. */
dg_error dg_bench_case_solver(dg_bench_case *c, const dg_kernel_config *kc, int tune,
                              dg_solver **s);

#endif
