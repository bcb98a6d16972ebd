/* SIPG (dg/sipg.h) on curved elements (issue 40): the volume and face
 * integrals of elements whose geometry is a high-order map
 * (dg/geometry_curved.h, d->curved[k]), for dg/sipg.c, which calls these for
 * curved elements and for faces with a curved side and keeps its own
 * element-constant code for the rest.
 *
 * The discrete space on a curved element is that of the affine path, the
 * order-N nodal polynomials of the reference element composed with the
 * element's map, phi_j(r(x)); only the integrals change.  As in Hesthaven &
 * Warburton (2008) section 9.1 (curvilinear elements: cubature volume
 * integrals and Gauss face integrals with the metric at the quadrature
 * points, as their curved IPDG Poisson code does), the metric is evaluated
 * at the quadrature points, here exactly from the element's order-k
 * geometry map (mesh->XH), x(r) = sum_j XH_j l_j(r), dx/dr likewise,
 * inverted per point:
 *
 *   int_K grad u . grad v  = sum_q w_q J(r_q) (G^T Dr u)(r_q) . (G^T Dr v)(r_q)
 *   int_F w               = sum_q w_q sJ(r_q) w(r_q)
 *   n(r_q) sJ(r_q)        = J(r_q) sum_a c_f[a] grad r_a(r_q)
 *
 * with G = dr/dx, c_f the reference normal of face f
 * (dg_discretization_normal_coef) and w_q the collapsed Gauss-Jacobi rules
 * of dg/cubature.h on the simplex and on the face (Gauss-Legendre in 2D).
 * Per-node factors (the discretization's) are not interpolated: the map's
 * own values are exact at every point, also for a geometry order k > N.
 *
 * Quadrature degree, volume and face: 2N + 2k.  The integrands are rational
 * (J G G^T = adj(A) adj(A)^T / J, n sJ = adj(A)^T c_f with A = dx/dr, whose
 * entries have degree k - 1): 2N + 2k integrates the polynomial parts,
 * degree 2(N - 1) + 2(k - 1) in 2D, with room for 1/J, which varies little
 * over one element.  Measured on the annulus (size 0.25, N = 1, 2, 4):
 * degrees 2N + 2 and 2N + 2k + 4 change the L2 errors by under 1e-4 of
 * themselves, degree 2N alone by up to 15% (the error norm's own rule
 * then under-resolves).
 *
 * The neighbour's side of an interior face: the face's quadrature points
 * in the neighbour's reference coordinates are the same barycentric
 * combination of the face's vertices, which the face-node map (vmapP)
 * locates in the neighbour (periodic faces included), and its basis and
 * metric are evaluated there directly.  The face's normal and sJ are those
 * of the side it is integrated from (the canonical side of dg/sipg.c: both
 * sides' blocks come from the one computation, which keeps the matrix
 * exactly symmetric). */
#ifndef DG_DG_SIPG_CURVED_H
#define DG_DG_SIPG_CURVED_H

#include <stdint.h>

#include "core/error.h"
#include "dg/discretization.h"

/* One face's quadrature, either path: nq points; wq = weights times sJ;
 * Tm, Gm = phi_j and n . grad phi_j of the element integrated from, Tp, Gp
 * those of its neighbour (interior faces), all nq x Np; x, n the physical
 * points and unit outward normals, nq x 3 (filled for the right-hand
 * side). */
typedef struct dg_sipg_face {
  int nq;
  double *wq, *Tm, *Gm, *Tp, *Gp, *x, *n;
} dg_sipg_face;

/* One element's volume quadrature: wJ = weights times J, x (nq x 3) the
 * physical points, T (nq x Np) phi_j there. */
typedef struct dg_sipg_volume {
  int nq;
  double *wJ, *x;
  const double *T;
} dg_sipg_volume;

/* Free the arrays of either (the structs themselves are the caller's). */
void dg_sipg_face_free(dg_sipg_face *F);
void dg_sipg_volume_free(dg_sipg_volume *V);

typedef struct dg_sipg_curved dg_sipg_curved;

/* The rules and tables for d (which has curved elements and XH). */
dg_error dg_sipg_curved_create(const dg_discretization *d, dg_sipg_curved **out);
void dg_sipg_curved_destroy(dg_sipg_curved **c);

/* B += int_K grad phi_i . grad phi_j over element k. */
void dg_sipg_curved_stiffness(dg_sipg_curved *c, int64_t k, double *B);

/* Face f of element k (the neighbour's side too when `neighbour`); the
 * result lives in c until the next call. */
dg_error dg_sipg_curved_face(dg_sipg_curved *c, int64_t k, int f, int neighbour,
                             const dg_sipg_face **out);

/* Element k's volume quadrature; lives in c until the next call. */
const dg_sipg_volume *dg_sipg_curved_volume(dg_sipg_curved *c, int64_t k);

#endif
