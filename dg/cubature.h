/* Quadrature on the reference simplices of dg/refelem.h.
 *
 * Collapsed-coordinate (conical product) Gauss-Jacobi rules (Karniadakis &
 * Sherwin 2005, section 4.1; H&W 2008 section 6.1 for the collapse
 * r = (1+a)(1-b)/2 - 1, s = b and its 3D analogue): with q Gauss points per
 * direction the rule integrates every polynomial of total degree <= 2q-1
 * exactly, all points are strictly inside the simplex and all weights are
 * positive.  Weights sum to the reference volume: 2, 2, 4/3 for dim 1, 2, 3
 * (and 1 for dim 0, a single point, so that a face rule of a 1D element
 * needs no special case). */
#ifndef DG_DG_CUBATURE_H
#define DG_DG_CUBATURE_H

#include "core/error.h"

/* Number of points of the rule of dimension dim (0..3) exact for total
 * degree `degree` >= 0: q^dim with q = degree/2 + 1; 0 for bad arguments. */
int dg_cubature_count(int dim, int degree);

/* Fill the rule: r, s, t (coordinates beyond dim may be NULL and are not
 * written; for dim 0 nothing but w is written) and positive weights w, each
 * of dg_cubature_count(dim, degree) entries. */
dg_error dg_cubature_simplex(int dim, int degree, double *r, double *s,
                             double *t, double *w);

#endif
