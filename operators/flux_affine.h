/* Can a physics run on Bernstein-Bezier coefficients instead of nodal
 * values?
 *
 * A kernel that applies a pointwise function g to the nodal values u_i of
 * an element computes the interpolant of g(u).  Applying g to the Bernstein
 * coefficients c_i of u instead gives the same polynomial exactly when g is
 * affine, g(u) = A u + b, with A and b constant on the element: Bernstein
 * polynomials are a partition of unity (sum_i B_i = 1), so
 *   sum_i (A c_i + b) B_i = A sum_i c_i B_i + b = A u + b
 * (Chan & Warburton, "GPU-accelerated Bernstein-Bezier discontinuous
 * Galerkin methods for wave problems", SIAM J. Sci. Comput. 39 (2017)).
 * A nonlinear g (u*u, 1/u, sqrt(u), a comparison of u) or coefficients that
 * vary inside the element (anything of x) break the identity.
 *
 * So a physics qualifies when every expression its right-hand side
 * evaluates -- volume terms, their surface forms, numerical fluxes,
 * sources and boundary exterior states, with the let bindings they use --
 * is built from
 *   leaves:  numbers, params, fields (any side), the normal n (constant on
 *            each face of a straight-sided element, which is what the
 *            generator assumes: affine geometry), lets with such bodies;
 *   + - and unary -, VEC and INDEX, a derivative of an affine argument
 *            (differentiation is linear);
 *   * dot cross   with at most one state-dependent operand;
 *   /             with a state-independent denominator;
 *   ^             of a state-independent base, or the state to the literal
 *                 exponent 1;
 *   c ? a : b     with a state-independent condition c (the branch is then
 *                 chosen per face, e.g. an upwind flux by the sign of a.n;
 *                 a and b may depend on the state);
 *   comparisons, && || !, min max abs sqrt and the other functions: only
 *                 of state-independent arguments.
 * x is refused everywhere (its coefficients vary inside an element), and so
 * is every coefficient (`coefficients eps`): problem.cfg may give one as an
 * expression of x, per node, and the choice is made after the kernels'
 * physics is fixed; a per-region coefficient would be element-constant and
 * qualify, but the physics cannot tell the two apart.  t is
 * refused everywhere too, although a function of t alone is constant on an
 * element: the Bernstein path is defined for time-independent coefficients
 * only (a conservative choice: relax DG_FLUX_T in flux_affine.c if a
 * Bernstein kernel takes t).  Initial conditions are not checked: they are
 * evaluated at the nodes and converted to Bernstein coefficients
 * afterwards; nor are the boundary conditions that ph->bc_used marks as
 * used by no mesh face (a periodic mesh runs none).  A physics with
 * second-order terms (ph->ngrad > 0) never qualifies: the Bernstein path
 * has no pass that lifts gradients. */
#ifndef DG_OPERATORS_FLUX_AFFINE_H
#define DG_OPERATORS_FLUX_AFFINE_H

#include "core/error.h"
#include "operators/codegen.h"

/* 0 when every expression of ph is affine in the state with
 * element-constant coefficients; otherwise DG_ERR_INPUT with a message
 * naming the first offending term (volume terms first, then surface forms,
 * numerical fluxes, sources, boundary states; fields in order):
 *   origin given: "maxwell.flux:12:7: error: the numerical flux of field E
 *                  uses x: a Bernstein basis needs coefficients constant on
 *                  each element"
 *   origin NULL:  "the numerical flux of field E uses x (line 12, column 7):
 *                  a Bernstein basis needs ..."
 * The location is that of the offending node; when it lies in a let body,
 * the message adds where the checked expression uses that let.
 * field_names[f] (may be NULL: "field 0", ...) names the fields.  NULL
 * trees are skipped: an absent source, or a boundary state the caller
 * blanks in a copy of bc_ext because no face of its mesh uses that
 * condition (a periodic mesh uses none). */
dg_error dg_flux_check_affine(const dg_physics *ph, const char *const *field_names,
                              const char *origin);

#endif
