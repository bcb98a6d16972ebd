/* The physics of a flux program with one coefficient set to zero, its
 * trees simplified (issue 41): the first-order twin of a shock-capturing
 * run.
 *
 * A file with artificial viscosity writes it as a coefficient of its
 * second-order terms, `div(av*grad(rho))` and `dot(ldg(av*grad(rho)), n)`.
 * Where the sensor finds the flow smooth, av is zero at every node, every
 * such term is exactly zero, and the right-hand side is that of the file
 * without them: no lifted gradients, no gradient pass.  This builds that
 * physics: every tree with coefficient `coef` replaced by zero and the
 * terms that vanish with it removed (0*x, x + 0, div(0), dot(0, n), traces
 * of 0, lets whose bodies vanish), so that the generator emits the kernels
 * of the first-order file (for sod3d.flux, the Euler equations' own).
 *
 * What does not vanish keeps its coefficient reads (e.g. a term av + 1),
 * which the caller's zeros make exact.  The twin is first order when no
 * lifted gradient and no LDG switch remains in any tree the kernels read;
 * otherwise (a viscosity that does not depend on the coefficient, as in
 * Navier-Stokes with shock capturing) there is no twin. */
#ifndef DG_OPERATORS_PHYSICS_VANISH_H
#define DG_OPERATORS_PHYSICS_VANISH_H

#include "core/error.h"
#include "operators/codegen.h"
#include "operators/flux_ast.h"

typedef struct dg_physics_vanish_tables dg_physics_vanish_tables;

/* *out: ph with coefficient coef zero (new trees in arena a, which must
 * outlive *out; the arrays in *tables).  *first_order: 1 when *out has no
 * second-order terms left (ngrad 0, the kernels of a first-order file);
 * 0: *out is not usable as a first-order twin (tables still returned).
 * The coefficient count is kept, so the kernels take the same arguments. */
dg_error dg_physics_vanish(const dg_physics *ph, dg_flux_arena *a, int coef, dg_physics *out,
                           dg_physics_vanish_tables **tables, int *first_order);
void dg_physics_vanish_tables_destroy(dg_physics_vanish_tables **tables);

/* The tree n with coefficient coef zero, simplified (the rules above);
 * let_zero[l] != 0 marks the lets whose (simplified) bodies vanish (NULL:
 * none).  *out is n itself where nothing changes; *zero: the whole value
 * vanishes (*out is then a zero of n's shape). */
dg_error dg_flux_ast_vanish(dg_flux_arena *a, const dg_flux_node *n, int coef,
                            const unsigned char *let_zero, const dg_flux_node **out, int *zero);

#endif
