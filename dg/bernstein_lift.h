/* The Bernstein-Bezier lift, factored (Chan & Warburton, "GPU-accelerated
 * Bernstein-Bezier discontinuous Galerkin methods for wave problems", SIAM
 * J. Sci. Comput. 39 (2017), section 4).
 *
 * Why: the dense BB LIFT (dg/bernstein.h) costs Np * Nfaces * Nfp
 * multiply-adds per component and element, now the largest share of the
 * Maxwell right-hand side at N = 6, 7 (tuning/RESULTS.md, session 10).  Its
 * face-f block has the structure
 *
 *   LIFT_f = E_L L0_f,   layer j of E_L = ell_j (E^{N-j}_N)^T,
 *
 * where layer j holds the volume coefficients whose barycentric component
 * vanishing on face f equals j, L0_f (Nfp x Nfp) is the block's layer-0
 * rows, (E^{N-j}_N)^T the transpose of the face's degree elevation from
 * N-j to N, applied as j one-degree steps of three terms each, and
 * ell_j = (-1)^j binom(N, j) / (j + 1).  L0_f itself is sparse:
 *
 *   L0_f = (N + dim/2) I + (N^2 / 2) E E^T,   E = E^{N-1}_N on the face,
 *
 * a stencil of 1 + dim (dim - 1) points (7 on a triangle).  That form was
 * found by fitting the dense block; it matches it to round-off in 1D, 2D
 * and 3D for N = 1..10 (dg.bernstein_lift compares the factored lift with
 * the dense one).  So one face costs about 2 Nfp dim for L0 and dim Np for
 * the chain, against Np Nfp dense: at N = 7, 4 faces, 2.5k instead of
 * 17.3k multiply-adds per component and element.
 *
 * In volume-node terms the one-degree step of layer j reads, for node a in
 * layer j and the face's zero component z,
 *   t[a] = sum over v != z of (a_v + 1) / (N - j + 1) * t[a - e_z + e_v]
 * (dg_bernstein.nb gives a - e_z + e_v, a node of layer j - 1); E^T g is
 * that step from the face data on layer 0, and E its transpose back. */
#ifndef DG_DG_BERNSTEIN_LIFT_H
#define DG_DG_BERNSTEIN_LIFT_H

#include "core/error.h"

struct dg_refelem;
struct dg_bernstein;

typedef struct dg_bernstein_lift {
  int dim, N, Np, Nfp, Nfaces;
  int *zero;   /* Nfaces: the barycentric component that vanishes on face f */
  double l0_diag, l0_ee; /* L0_f = l0_diag I + l0_ee E E^T: N + dim/2 and N^2/2 */
  double *ell; /* N + 1: ell[j] = (-1)^j binom(N, j) / (j + 1) */
} dg_bernstein_lift;

/* Factor bb's LIFT (re: its reference element, for Fmask).  Errors:
 * DG_ERR_ARG for NULL or mismatched arguments, DG_ERR_MEMORY. */
dg_error dg_bernstein_lift_create(const struct dg_refelem *re, const struct dg_bernstein *bb,
                                  dg_bernstein_lift **out);
void dg_bernstein_lift_destroy(dg_bernstein_lift **l);

/* out (Np) += LIFT_f g, g the Nfp face coefficients of face f in Fmask
 * order; work holds Np reals.  The reference form of what a kernel emits. */
void dg_bernstein_lift_apply(const dg_bernstein_lift *l, const struct dg_bernstein *bb,
                             const int *Fmask, int f, const double *g, double *work,
                             double *out);

#endif
