/* The solver's state, shared by its files (solver.c: set-up, kernels, the
 * stepping loop; solver_coefficients.c: material data).  Not a public API. */
#ifndef DG_PROBLEMS_SOLVER_PRIVATE_H
#define DG_PROBLEMS_SOLVER_PRIVATE_H

#include "core/reduction.h"
#include "dg/bernstein.h"
#include "problems/solver/solver.h"

typedef struct dg_solver_smooth dg_solver_smooth;

struct dg_solver {
  dg_device *dev;
  const dg_discretization *disc;
  dg_opdata *od;
  dg_generated gen;
  dg_kernel_config cfg;
  dg_module *mod;
  dg_kernel *k_surface, *k_volume, *k_lserk, *k_ssp;
  dg_kernel *k_gradient; /* second-order terms (physics ngrad > 0): the lifted gradients */
  /* Curved elements [0, od->Kc) (issue 40): their own module and knobs
   * (dg_surface_curved, dg_volume_curved; NULL and unused on an affine
   * mesh), and their per-node metric terms cgeo, cfgeo (dg/opdata.h). */
  dg_kernel_config ccfg;
  dg_module *cmod;
  dg_generated cgen;
  dg_kernel *k_surface_curved, *k_volume_curved;
  void *cgeo, *cfgeo;
  int ncomp;
  int64_t n_state; /* reals in one state array */
  size_t rs;       /* real size */
  /* device arrays */
  void *q, *res, *rhs, *q0, *fl;
  void *q_alt; /* fused surface + update: the volume kernel writes here, then swap */
  void *egeo, *fgeo, *fx, *vx, *mapM, *mapP, *fbc;
  void *cf, *fcf;  /* coefficients at the volume nodes and their face traces (codegen.h);
                      physics with ncoef > 0, set by dg_solver_set_coefficients */
  int coef_set;
  void *Qg;      /* the lifted gradients (codegen.h: field-major, ngrad*dim components) */
  dg_halo *halo; /* partitioned runs */
  dg_halo *qhalo; /* partitioned runs with second-order terms: the exchange of Qg */
  const dg_halo_spec *halo_spec; /* partitioned runs: dg_solver_create_partitioned's (borrowed,
                                    it outlives the solver), for exchanges made later
                                    (shock capturing's, problems/solver/shock.c) */
  dg_solver_timings timings;
  dg_reduction *finite; /* created on first use */
  dg_element_ops el;
  dg_bernstein *bb; /* basis bernstein: the state holds BB coefficients (created on first use) */
  const dg_physics *physics;
  struct dg_shock *shock; /* shock capturing (problems/solver/shock.h), owned; NULL: none */
  struct dg_solver_smooth *smooth; /* its first-order twin (solver_smooth.h); NULL: not built */
  dg_codegen_target target;
  const char *dump_dir;
};

/* The kernels of one first-order right-hand side and their knobs: the
 * solver's own, or shock capturing's first-order twin (solver_smooth.h). */
typedef struct dg_rhs_kernels {
  const dg_kernel_config *cfg;
  dg_kernel *surface, *volume;
  unsigned volume_shared; /* dg_volume's dynamic shared memory */
} dg_rhs_kernels;

/* The second state buffer of a fused surface + update under cfg, zero
 * padding included (nothing where cfg does not fuse both, or it exists). */
dg_error dg_solver_ensure_alt_state(dg_solver *s, const dg_kernel_config *cfg);

/* bytes of host data to a new device buffer (*out NULL for 0 bytes). */
dg_error dg_solver_upload_new(dg_device *dev, const void *host, size_t bytes, void **out);
/* u (ncomp components, logical order, owned elements) into buf in the
 * device layout (n_state reals of the solver's size, the rest zero). */
dg_error dg_solver_pack_state(const dg_solver *s, const double *u, void *buf);

/* One right-hand-side evaluation at t (a, b, dt: the fused LSERK update's,
 * 0, 0, 1 for rhs into res with the update fused; 0, 0, 0 for rhs into rhs
 * otherwise), as dg_solver_step runs it; for the embedded pairs
 * (problems/solver/embedded.c). */
dg_error dg_solver_eval_rhs(dg_solver *s, double t, double a, double b, double dt);

#endif
