/* Standalone expressions of the flux language for problem.cfg values: a
 * coefficient's value (`eps = 1 + 0.5*x[0]`) or a region's predicate
 * (`glass = x[0] > 0`).  The text is lexed, parsed and checked by the flux
 * language itself (never pasted into a flux file): a scalar of x (a
 * dim-vector), pi, the built-in functions and the flux program's params at
 * their values when the expression is parsed; comparisons, && || ! give
 * 1 or 0.  Fields, coefficients, lets, t, n, traces and derivatives are
 * errors.
 *
 *   dg_flux_expr *e;
 *   DG_CALL(dg_flux_expr_parse("x[0] > 0", "problem.cfg", 12, 9, 2, prog, &e));
 *   double inside;
 *   DG_CALL(dg_flux_expr_eval(e, centroid, &inside));
 *   dg_flux_expr_destroy(&e);
 */
#ifndef DG_OPERATORS_FLUX_EXPR_H
#define DG_OPERATORS_FLUX_EXPR_H

#include "operators/flux.h"

typedef struct dg_flux_expr dg_flux_expr;

/* Parse text, written at (line, col) of file (col: the column of the
 * value's first character; 0, 0 for a value from the command line, where
 * file names it, e.g. "<command line>"), for a mesh of dimension dim (1..3); prog may
 * be NULL (no params).  Mistakes: DG_ERR_INPUT whose message is the
 * compiler-style reports "file:line:COL: error: ...", COL counted in the
 * cfg line, each followed by the value and a caret under the mistake. */
dg_error dg_flux_expr_parse(const char *text, const char *file, int line, int col, int dim,
                            const dg_flux_program *prog, dg_flux_expr **out);
/* The value at position x (dim coordinates; may be NULL when the
 * expression does not use x). */
dg_error dg_flux_expr_eval(const dg_flux_expr *e, const double *x, double *out);
/* Whether the value depends on x (a constant needs one evaluation). */
int dg_flux_expr_uses_x(const dg_flux_expr *e);
void dg_flux_expr_destroy(dg_flux_expr **e);

#endif
