/* The solver's curved elements (solver_curved.c; the public part is in
 * solver.h).  Not a public API. */
#ifndef DG_PROBLEMS_SOLVER_SOLVER_CURVED_H
#define DG_PROBLEMS_SOLVER_SOLVER_CURVED_H

#include "problems/solver/solver_private.h"

/* A kernel's real scalar argument in the device precision. */
typedef union {
  double d;
  float f;
} dg_real_arg;

/* Generate, compile and look up the curved module for cfg (NULL: from the
 * affine configuration), as dg_solver_curved_config makes it. */
dg_error dg_solver_curved_load(dg_solver *s, const dg_kernel_config *cfg);
/* The curved kernels run the fused surface (cuda, fuse_surface): no
 * dg_surface_curved launch. */
int dg_solver_curved_fused(const dg_solver *s);
/* cgeo and cfgeo to the device (after the operator data). */
dg_error dg_solver_curved_upload(dg_solver *s);
void dg_solver_curved_free(dg_solver *s);
/* dg_surface_curved (nothing with the fused surface) and dg_volume_curved
 * over [0, Kc) (the volume's LSERK coefficients a, b, dt as for dg_volume). */
dg_error dg_solver_curved_surface(dg_solver *s, dg_real_arg t);
dg_error dg_solver_curved_volume(dg_solver *s, dg_real_arg t, dg_real_arg a, dg_real_arg b,
                                 dg_real_arg dt);

#endif
