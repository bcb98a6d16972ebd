/* A standalone scalar expression of the flux language (position x, the
 * program's params and constants), parsed from text outside a flux file:
 * problem.cfg's [regions] predicates and [coefficients] values.
 * (Declarations only here: the implementation comes from branch coeflang.) */
#ifndef DG_OPERATORS_FLUX_EXPR_H
#define DG_OPERATORS_FLUX_EXPR_H

#include "core/error.h"
#include "operators/flux.h"

typedef struct dg_flux_expr dg_flux_expr;

/* Parse text (found at file:line:col, for messages) as a scalar expression
 * in dim dimensions that may read x and prog's params; errors are
 * DG_ERR_INPUT naming file:line:col. */
dg_error dg_flux_expr_parse(const char *text, const char *file, int line, int col, int dim,
                            const dg_flux_program *prog, dg_flux_expr **out);
/* Its value at position x (dim coordinates). */
dg_error dg_flux_expr_eval(const dg_flux_expr *e, const double *x, double *v);
/* 1 if it reads x (its value varies in space), else 0. */
int dg_flux_expr_uses_x(const dg_flux_expr *e);
void dg_flux_expr_destroy(dg_flux_expr **e);

#endif
