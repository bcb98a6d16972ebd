/* The DG time-dependent operator on a device: generated kernels, operator
 * data and state arrays for one (discretization, physics, configuration),
 * and the Runge–Kutta stepping loop over them.
 *
 * The state lives on the device in the generated layout (dg/opdata.h); the
 * host sees it in the logical order u[(c*K + k)*Np + i] (component-major,
 * doubles) through dg_solver_set_state / dg_solver_get_state. */
#ifndef DG_PROBLEMS_SOLVER_H
#define DG_PROBLEMS_SOLVER_H

#include <stdint.h>

#include "core/device.h"
#include "dg/discretization.h"
#include "dg/opdata.h"
#include "dg/timestep.h"
#include "operators/codegen.h"
#include "problems/halo.h"

typedef struct dg_solver dg_solver;

typedef struct dg_solver_options {
  dg_kernel_config kernels;
  const char *dump_dir; /* write the generated source there (NULL: no) */
} dg_solver_options;

/* tag_to_bc: per mesh tag, the boundary-condition index of the physics. */
dg_error dg_solver_create(dg_device *dev, const dg_discretization *disc,
                          const dg_physics *physics, const int *tag_to_bc,
                          const dg_solver_options *opt, dg_solver **out);
/* A partitioned run: disc is this rank's part, and its halo faces get
 * ghost slots filled by an exchange every stage (problems/halo.h);
 * collective over halo->comm.  halo NULL: dg_solver_create. */
dg_error dg_solver_create_partitioned(dg_device *dev, const dg_discretization *disc,
                                      const dg_physics *physics, const int *tag_to_bc,
                                      const dg_solver_options *opt, const dg_halo_spec *halo,
                                      dg_solver **out);
void dg_solver_destroy(dg_solver **s);

int dg_solver_ncomp(const dg_solver *s);
const dg_opdata *dg_solver_opdata(const dg_solver *s);
const dg_generated *dg_solver_generated(const dg_solver *s);

/* Host state in logical order, ncomp*K*Np doubles. */
dg_error dg_solver_set_state(dg_solver *s, const double *u);
dg_error dg_solver_get_state(dg_solver *s, double *u);

/* rhs = L(q) at time t, returned in logical order (testing, benchmarks). */
dg_error dg_solver_rhs(dg_solver *s, double t, double *rhs_out);

/* One step of the scheme from t to t + dt. */
dg_error dg_solver_step(dg_solver *s, const dg_rk_scheme *rk, double t, double dt);

/* Work done so far: right-hand-side evaluations (for DOF-updates/s). */
typedef struct dg_solver_timings {
  int64_t rhs_evaluations;
  dg_halo_timings halo; /* zero in serial runs */
} dg_solver_timings;
dg_solver_timings dg_solver_get_timings(const dg_solver *s);

#endif
