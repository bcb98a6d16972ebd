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
#include "problems/solver/halo.h"

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
 * ghost slots filled by an exchange every stage (problems/solver/halo.h);
 * collective over halo->comm.  halo NULL: dg_solver_create.  halo (and
 * the partition it names) must outlive the solver: shock capturing's
 * exchanges are made from it later (problems/solver/shock.h). */
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
/* q = the physics' initial condition at time t, evaluated by the generated
 * dg_initial kernel on the device (no host evaluation, no upload). */
dg_error dg_solver_set_initial(dg_solver *s, double t);

/* rhs = L(q) at time t, returned in logical order (testing, benchmarks). */
dg_error dg_solver_rhs(dg_solver *s, double t, double *rhs_out);

/* One step of the scheme from t to t + dt. */
dg_error dg_solver_step(dg_solver *s, const dg_rk_scheme *rk, double t, double dt);

/* ---- kernel selection (tuner, benchmarks) ---------------------------------- */

typedef enum {
  DG_SOLVER_SURFACE = 0, /* dg_surface (after dg_gradient: second-order terms) */
  DG_SOLVER_VOLUME = 1,  /* dg_volume (fused or not, as configured) */
  DG_SOLVER_UPDATE = 2,  /* dg_update_lserk (nothing when the update is fused) */
  /* Curved elements (a mesh with dg_solver_curved_elements > 0): above, the
   * curved kernels and then the affine ones (every element, as in a step);
   * these, the curved elements' own kernels alone. */
  DG_SOLVER_SURFACE_CURVED = 3, /* dg_surface_curved */
  DG_SOLVER_VOLUME_CURVED = 4,  /* dg_volume_curved */
  /* Shock capturing's first-order twin (dg_solver_smooth_prepare), every
   * element: the kernels a stage without viscosity runs. */
  DG_SOLVER_SURFACE_SMOOTH = 5,
  DG_SOLVER_VOLUME_SMOOTH = 6
} dg_solver_kernel_id;

/* Launch one kernel of a LSERK stage on the current state, asynchronously
 * (the same work as in dg_solver_step; the fused volume kernel runs with
 * a = b = dt = 0, which rewrites q and res unchanged). */
dg_error dg_solver_launch_kernel(dg_solver *s, dg_solver_kernel_id which, double t);

/* Whether dg_solver_launch_kernel(which) launches anything (the surface
 * and update kernels do not where the volume kernel fuses them). */
int dg_solver_kernel_launches(const dg_solver *s, dg_solver_kernel_id which);
/* Registers, spills, static shared memory (zero on cpu) and dynamic shared. */
dg_error dg_solver_kernel_attributes(const dg_solver *s, dg_solver_kernel_id which,
                                     dg_kernel_attributes *out, unsigned *dynamic_shared);
/* Regenerate and reload the kernels for cfg, which must keep the data
 * layout (np_align, layout) of the solver's: the tuner's slicing search. */
dg_error dg_solver_set_kernels(dg_solver *s, const dg_kernel_config *cfg);
const dg_kernel_config *dg_solver_kernels(const dg_solver *s);
/* Curved elements: their number (0 on an affine mesh), the knobs of their
 * kernels, and their choice (the tuner's curved operators).  The curved
 * kernels follow the affine configuration in what the two share (layout,
 * np_align, fuse_update, batch_residual); dg_solver_curved_config says
 * which knobs of cfg they take (node-per-thread work modes, no fused
 * surface, nodal basis). */
int64_t dg_solver_curved_elements(const dg_solver *s);
const dg_kernel_config *dg_solver_kernels_curved(const dg_solver *s);
dg_error dg_solver_set_kernels_curved(dg_solver *s, const dg_kernel_config *cfg);
dg_kernel_config dg_solver_curved_config(const dg_kernel_config *affine,
                                         const dg_kernel_config *curved);
/* Shock capturing's first-order twin (problems/solver/solver_smooth.h):
 * build it for viscosity coefficient coef (*available 0: the physics has
 * none, its second-order terms do not all vanish with the coefficient),
 * its knobs and physics (NULL before it is built or where there is none),
 * and their choice (the tuner's smooth operator).  The twin follows the
 * solver's knobs in what the two share (layout, np_align, fuse_update,
 * batch_residual, basis, cpu_chunk; partitioned: all of them);
 * dg_solver_smooth_config says which knobs of cfg it takes. */
dg_error dg_solver_smooth_prepare(dg_solver *s, int coef, int *available);
const dg_kernel_config *dg_solver_kernels_smooth(const dg_solver *s);
const dg_physics *dg_solver_physics_smooth(const dg_solver *s);
dg_error dg_solver_set_kernels_smooth(dg_solver *s, const dg_kernel_config *cfg);
dg_kernel_config dg_solver_smooth_config(const dg_solver *s, const dg_kernel_config *cfg);
dg_device *dg_solver_device(const dg_solver *s);
/* The device state (it may move between steps: ask again each time) and
 * the node coordinates vx, in the layout of dg_solver_opdata, for the
 * kernels of other modules that read them (problems/solver/quantities.c). */
void *dg_solver_device_state(const dg_solver *s);
void *dg_solver_device_coordinates(const dg_solver *s);
/* Physics with coefficients (ncoef > 0): their values at the volume nodes
 * of this rank's owned elements, values[(c*K_owned + k)*Np + i] (finite;
 * problems/solver/coefficients.h builds them from problem.cfg).  Required
 * before the first right-hand side; builds the face traces, across ranks
 * through the halo (collective in partitioned runs; the state is kept).
 * dg_solver_device_coefficients: the device array cf (codegen.h), or NULL. */
dg_error dg_solver_set_coefficients(dg_solver *s, const double *values);
void *dg_solver_device_coefficients(const dg_solver *s);
/* Coefficient c's values now on the device at the owned nodes, out[k*Np + i]
 * (shock capturing rewrites its viscosity coefficient every stage: the
 * snapshots show the live one). */
dg_error dg_solver_get_coefficient(dg_solver *s, int c, double *out);
/* Shock capturing (problems/solver/shock.h), owned by the solver from now
 * on: its viscosity before every right-hand side, its limiter after every
 * stage.  NULL: none (the default). */
struct dg_shock;
void dg_solver_set_shock(dg_solver *s, struct dg_shock *shock);
/* Where the generated sources are dumped (dg_solver_options.dump_dir), or NULL;
 * dg_solver_dump writes another module's source there as name (nothing
 * without a dump directory). */
dg_error dg_solver_dump(const dg_solver *s, const char *name, const char *src);
const char *dg_solver_dump_dir(const dg_solver *s);
/* *finite = whether every state value of the owned elements is finite,
 * decided on the device (one reduction, no state download; ghost slots are
 * not looked at). */
dg_error dg_solver_state_finite(dg_solver *s, int *finite);

/* Work done so far: right-hand-side evaluations (for DOF-updates/s). */
typedef struct dg_solver_timings {
  int64_t rhs_evaluations;
  int64_t smooth_evaluations; /* of them, shock capturing's first-order ones (no viscosity
                                 anywhere: problems/solver/solver_smooth.h) */
  dg_halo_timings halo; /* zero in serial runs */
} dg_solver_timings;
dg_solver_timings dg_solver_get_timings(const dg_solver *s);

#endif
