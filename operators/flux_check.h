/* The checker of the flux language: syntax tree -> typed, resolved AST.
 *
 * It resolves every name to a table index, computes shapes, enforces where
 * each construct may appear (traces and n on faces only, derivatives in
 * volume terms only, x/t/params in initial conditions, ...), checks that
 * every field has its equations and every boundary condition every field,
 * and builds the surface form of each volume term.  Mistakes go to the
 * source's diagnostics; checking goes on to find more of them. */
#ifndef DG_OPERATORS_FLUX_CHECK_H
#define DG_OPERATORS_FLUX_CHECK_H

#include "operators/flux.h"
#include "operators/flux_parser.h"

/* The program object (operators/ internal; others use the accessors). */
struct dg_flux_program {
  dg_flux_arena *arena;
  const char *name;
  int dim;
  int nfields, state_size;
  dg_flux_field_info *fields;
  int nparams;
  dg_flux_param_info *params;
  int ncoefs;
  dg_flux_coef_info *coefs;
  int nlets;
  dg_flux_let_info *lets;
  unsigned char *lets_bare; /* [let]: reads side-NONE fields or coefficients (the side of
                               a LET node matters), as the transforms take it */
  int nboundaries;
  dg_flux_boundary_info *boundaries;
  int nintegrals;
  dg_flux_integral_info *integrals;
  int ngradients;
  dg_flux_gradient_info *gradients;
  const dg_flux_node *wave_speed; /* `wave_speed = expr`, or NULL */
  dg_flux_loc wave_speed_loc;
  double ldg_beta;
};

/* Check the statements of src for dimension dim (0: from the file) into
 * prog (whose arena must exist).  Errors in the text go to src->diags;
 * fails only when out of memory. */
dg_error dg_flux_check(dg_flux_source *src, const dg_flux_stmt *stmts, int dim,
                       dg_flux_program *prog);

#endif
