/* Lowering of checked flux trees to the scalar form a kernel emitter
 * writes line by line.
 *
 * dg_flux_lower_component turns a vector (or matrix) expression into the
 * scalar expression of one of its components: no VEC, INDEX, dot, cross or
 * norm is left, every leaf is a scalar (FIELD/X/NORMAL/LET with `comp`
 * set; a matrix-valued LET is indexed by its flattened component), and
 * grad/div/curl become sums of partials DERIV(D_X + j) of scalar
 * arguments.
 *
 * dg_flux_lower_volume splits one scalar component of a volume term into
 *   V = pointwise + sum_k coef_k * d/dx[dir_k] (arg_k)
 * where arg_k are pointwise scalar expressions of fields (evaluate them at
 * the volume nodes, differentiate with D_r, D_s, D_t and the geometric
 * factors) and coef_k are field-free (constants, params, x, t,
 * coefficients).  This is
 * the strong-form volume operator of Hesthaven & Warburton (2008),
 * Sec. 6.1, written per Cartesian direction. */
#ifndef DG_OPERATORS_FLUX_LOWER_H
#define DG_OPERATORS_FLUX_LOWER_H

#include "operators/flux_ast.h"

/* Scalar expression of flattened component i of n (0 for a scalar).
 * Fails with DG_ERR_INPUT if the expansion would exceed a node budget
 * (deeply nested vector operations grow it geometrically). */
dg_error dg_flux_lower_component(dg_flux_arena *a, int dim, const dg_flux_node *n, int i,
                                 dg_flux_node **out);

typedef struct dg_flux_dterm {
  int dir;                  /* 0, 1, 2: d/dx[dir] */
  const dg_flux_node *coef; /* field-free scalar */
  const dg_flux_node *arg;  /* pointwise scalar of fields (side NONE) */
} dg_flux_dterm;

typedef struct dg_flux_volume {
  const dg_flux_node *pointwise; /* scalar, derivative-free (NUM 0 if none) */
  int nterms;
  dg_flux_dterm *terms;          /* in the arena */
} dg_flux_volume;

/* Split a scalar component of a volume term (as lowered by
 * dg_flux_lower_component from a checked rhs). */
dg_error dg_flux_lower_volume(dg_flux_arena *a, const dg_flux_node *scalar_rhs,
                              dg_flux_volume *out);

#endif
