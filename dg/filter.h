/* The exponential modal filter of nodal DG (Hesthaven & Warburton 2008,
 * §5.3, eq. 5.16, and their Filter1D/Filter2D): in the orthonormal basis of
 * the reference element (dg/refelem.h) the mode of total degree d is scaled by
 *   sigma(d) = 1                                      for d <= Nc,
 *   sigma(d) = exp(-alpha ((d - Nc) / (N - Nc))^s)    for Nc < d <= N,
 * so that F = V diag(sigma) V^{-1} acts on an element's nodal values.
 * Applied to every component after each time step it drains the highest
 * modes, where the aliasing of nodal (collocation) DG feeds an instability
 * in under-resolved nonlinear flows (H&W §5.3, §6.6; the Taylor-Green vortex
 * at transition).  Every polynomial of degree <= Nc passes unchanged: the
 * element mean (mode 0) is kept, so mass, momentum and energy are conserved.
 * alpha = -log(machine epsilon) = 36 removes the top mode at every step;
 * smaller alpha filter more gently. */
#ifndef DG_DG_FILTER_H
#define DG_DG_FILTER_H

#include "core/error.h"
#include "dg/refelem.h"

typedef struct dg_filter_params {
  int cutoff;   /* Nc, 0 <= Nc < N */
  int order;    /* s >= 1 (even values are the usual) */
  double alpha; /* > 0 */
} dg_filter_params;

/* DG_ERR_INPUT naming the bad value (N the element order). */
dg_error dg_filter_check(const dg_filter_params *p, int N);

/* sigma of each mode of re (re->Np values, the basis order of refelem.h). */
dg_error dg_filter_sigma(const dg_refelem *re, const dg_filter_params *p, double *sigma);

/* F (re->Np x re->Np, row-major) = V diag(sigma) V^{-1}. */
dg_error dg_filter_matrix(const dg_refelem *re, const dg_filter_params *p, double *F);

#endif
