/* The tuner of a companion module: kernels of their own beside the
 * solver's main ones, tuned as an operator of their own with the main
 * knobs fixed (autotune_companion.c).  Its instances: the curved elements'
 * kernels (autotune_curved.c) and shock capturing's first-order twin
 * (autotune_smooth.c). */
#ifndef DG_PROBLEMS_SOLVER_AUTOTUNE_COMPANION_H
#define DG_PROBLEMS_SOLVER_AUTOTUNE_COMPANION_H

#include "problems/solver/autotune.h"

typedef struct dg_autotune_companion {
  const char *what; /* in messages: "the curved elements' kernels" */
  const char *name; /* short: "curved kernels" */
  dg_solver_kernel_id surface, volume; /* launched (where they launch) and timed together */
  const dg_physics *physics;           /* of the module (candidates are compiled ahead) */
  int curved;                          /* dg_element_ops.curved of the module */
  const char *digest;                  /* 64 hex digits: the operator's key in the database */
  const dg_kernel_config *(*get)(const dg_solver *s);
  dg_error (*set)(dg_solver *s, const dg_kernel_config *cfg);
  /* the knobs of a candidate as the module takes them */
  dg_kernel_config (*map)(const dg_solver *s, const dg_kernel_config *cfg);
  /* every candidate also with the other fuse_surface (the face fluxes in the
   * volume kernel or a kernel of their own: which wins depends on the
   * module's geometry loads, not only on the main operator's choice) */
  int surface_twins;
} dg_autotune_companion;

/* The database's entry for c on q's device and problem where it has one
 * (auto), else (cuda, or a full search) every volume and surface variant of
 * the tuning space, as c->map takes them, timed on s; the choice is set on
 * s and returned in out. */
dg_error dg_autotune_companion_run(const dg_autotune_request *q, dg_solver *s,
                                   const dg_autotune_companion *c, dg_autotune_outcome *out);

#endif
