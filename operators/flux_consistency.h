/* The consistency check of the numerical fluxes (issue 38 item 4): with
 * both traces equal, a numerical flux must reduce to the surface form of
 * its field's volume term (Hesthaven & Warburton 2008, Sec. 2.2: flux(u, u, n)
 * = n . F(u) for a conservation law).  An inconsistent flux runs, converges
 * to a wrong solution, and tells nobody; this finds it before anything runs.
 *
 * The surface form is what the language builds from every volume term
 * (operators/FLUX_LANGUAGE.md, "Volume terms and the surface form"): each
 * D(g) replaced by its normal form (div: dot(n, g), grad: n*g, curl:
 * cross(n, g), dx/dy/dz: n[k]*g) on the interior trace, field-free factors
 * kept, pointwise terms dropped.  A field whose volume term has no
 * derivative has surface form 0, so its flux must vanish at equal traces.
 *
 * States: the flux file's initial condition (and exact solution, where the
 * file gives one) at the sample points, each also scaled component-wise by
 * 1 +- 5 % (physical by construction where the physics needs it: Euler's
 * density and pressure stay positive); normals: random unit vectors;
 * coefficients (`coefficients eps > 0`): drawn inside their declared
 * bounds per state, the same on both sides (flux_consistency.c); lifted
 * gradients of second-order terms: random in [-1, 1], the same on both
 * sides, with a random LDG switch beta_n in [-0.5, 0.5]. */
#ifndef DG_OPERATORS_FLUX_CONSISTENCY_H
#define DG_OPERATORS_FLUX_CONSISTENCY_H

#include <stddef.h>

#include "operators/flux.h"

/* [problem] check_flux_consistency: what a mismatch does. */
typedef enum dg_flux_consistency_mode {
  DG_FLUX_CONSISTENCY_ERROR = 0, /* refuse the problem (the default) */
  DG_FLUX_CONSISTENCY_WARN = 1,  /* warn and run (fluxes consistent only on a subset) */
  DG_FLUX_CONSISTENCY_OFF = 2    /* do not check */
} dg_flux_consistency_mode;

/* What the check found for one field. */
typedef enum dg_flux_consistency_result {
  DG_FLUX_CONSISTENT = 0,
  DG_FLUX_INCONSISTENT = 1, /* why: field, normal, state, the two values */
  DG_FLUX_SKIPPED = 2       /* why: the reason (no sample where both are finite) */
} dg_flux_consistency_result;

/* Check field f at the npoints points (dim coordinates each, row-major),
 * into *result with the message or reason in why[0..why_size) (empty when
 * consistent).  Fails only on a bad argument or an evaluator error. */
dg_error dg_flux_consistency_field(const dg_flux_program *prog, int f, const double *points,
                                   int npoints, dg_flux_consistency_result *result, char *why,
                                   size_t why_size);

#endif
