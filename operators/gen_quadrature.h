/* Kernel family: dg_quantities, the run's quantities by element quadrature
 * (gen_quadrature.c): a module of its own, compiled beside dg_operators and
 * never part of a right-hand side.
 *
 * Per owned element k it interpolates the state and the node coordinates
 * to the points of a volume cubature rule and to the nodes, and writes
 *   out[(2e)   * K_owned + k] = sum_p w_p J_k |u(x_p) - exact_f(x_p, t)|^2
 *   out[(2e+1) * K_owned + k] = max over nodes and components |u - exact_f|
 * for the e-th field f with an exact solution (e = 0, 1, ... in field
 * order; a NaN anywhere is kept), and
 *   out[(2 nexact + i) * K_owned + k] = sum_p w_p J_k integrand_i(u(x_p), x_p, t)
 * for each integral i.  Summed (max-reduced) over elements these are the
 * squared L2 errors, the max nodal errors and the integrals: with a rule
 * exact for degree 2N + 2 the error of a smooth exact solution is
 * integrated, not that of its interpolant (the nodal mass-matrix norm
 * sum_k J_k e^T M e sees only the error at the nodes).
 *
 * Arguments (args[i] points at the value, both backends):
 *   (q, vx, Jk, IQ, IX, W, t, K, K_owned, out)
 * q the state (device layout, sreal), vx the node coordinates
 * vx[(d*K + k)*NP_PAD + i] (sreal), Jk[k] the element's Jacobian
 * determinant (double, affine), IQ and IX (NPT x NP row-major, double,
 * NPT = NCUB + NP) the state and coordinate interpolation to the cubature
 * points then the nodes (IX is V(points) V^-1 from nodal values; IQ the
 * same for a nodal state, times the Bernstein Vandermonde for one of
 * Bernstein-Bezier coefficients), W[NCUB] the reference weights, t double,
 * K (the state's stride) and K_owned long long, out double.  cuda: one
 * thread per element, K_owned threads.  All arithmetic is in double. */
#ifndef DG_OPERATORS_GEN_QUADRATURE_H
#define DG_OPERATORS_GEN_QUADRATURE_H

#include "core/strbuf.h"
#include "operators/codegen.h"

typedef struct dg_quadrature_spec {
  int dim, Np, np_pad;
  int ncub;                /* cubature points */
  dg_field_layout layout;  /* of the state */
  int state_float;         /* q and vx hold floats */
  const dg_physics *ph;    /* fields, lets and params the expressions use */
  const dg_flux_node *const *exact; /* per field, NULL entries: no exact solution */
  const dg_flux_node *const *integrands;
  int nintegrals;
} dg_quadrature_spec;

/* Outputs per element: 2 per field with an exact solution + the integrals. */
int dg_gen_quadrature_outputs(const dg_quadrature_spec *spec);

/* The whole dg_quantities module for target tg into *source (malloc'd). */
dg_error dg_gen_quadrature(dg_codegen_target tg, const dg_quadrature_spec *spec,
                           char **source);

#endif
