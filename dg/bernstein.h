/* Bernstein-Bezier (BB) basis on the reference simplices of dg/refelem.h.
 *
 * Why: on tetrahedra at high order the nodal D and LIFT are dense (18 Np^2
 * multiply-adds per element for Maxwell), which makes the right-hand side
 * compute-bound on an H100 from N = 5 on.  In the BB basis the derivative
 * matrices are sparse, at most 2*dim+1 nonzeros per row independent of N
 * (Chan & Warburton, "GPU-accelerated Bernstein-Bezier discontinuous
 * Galerkin methods for wave problems", SIAM J. Sci. Comput. 39 (2017)).
 * For linear constant-coefficient PDEs the whole DG right-hand side can act
 * on BB coefficients instead of nodal values: same polynomial space, same
 * solution, related by u = V c.
 *
 * Barycentric coordinates on the reference simplex (vertex 0 = (-1,..,-1),
 * vertex d+1 has coordinate d = +1):
 *   1D  l0 = (1-r)/2,        l1 = (1+r)/2
 *   2D  l0 = -(r+s)/2,       l1 = (1+r)/2, l2 = (1+s)/2
 *   3D  l0 = -(1+r+s+t)/2,   l1 = (1+r)/2, l2 = (1+s)/2, l3 = (1+t)/2
 * and B_alpha = N!/prod(alpha_v!) prod l_v^alpha_v, |alpha| = N.
 * Basis function a belongs to the domain point of node a: node (i, j, k) of
 * the lattice order of dg/refelem.h has alpha = (N-i-j-k, i, j, k).
 *
 * The face of refelem face f is where one barycentric coordinate vanishes:
 *   1D  face 0: l1, face 1: l0
 *   2D  face 0: l2, face 1: l0, face 2: l1
 *   3D  face 0: l3, face 1: l2, face 2: l0, face 3: l1
 * B_alpha restricted to a face is the face Bernstein polynomial when alpha
 * vanishes in that component and zero otherwise, so the Fmask nodes of face
 * f are exactly its domain points and V[Fmask_f][Fmask_f] maps face BB
 * coefficients to face nodal values.
 *
 * Conditioning: V is the Bernstein basis at the warp & blend nodes, with
 * ||V||_inf = 1 (nonnegative, partition of unity) and ||invV||_inf growing
 * about 2.5x per order in 3D (640 at N = 7, 1.1e6 at N = 15; cond2(V) 243
 * and 3.8e5).  invV and LIFT carry that rounding; Dr, Ds, Dt do not (exact
 * half-integer entries).  LIFT is dense, and its norm grows faster than the
 * nodal one (3D: 1.9e3 vs 4.4e2 at N = 7, 7.4e5 vs 6.7e3 at N = 15), which
 * matters when it is applied in single precision. */
#ifndef DG_DG_BERNSTEIN_H
#define DG_DG_BERNSTEIN_H

#include "core/error.h"

struct dg_refelem;

typedef struct dg_bernstein {
  int dim, N, Np, Nfaces, Nfp;
  /* Np x (dim+1): barycentric multi-index of node p's domain point, in the
   * node (lattice) order of dg/refelem.h: alpha[p*(dim+1)+0] = N-i-j-k
   * (vertex 0 = (-1,..,-1)), then i, j, k (vertex d+1 has coordinate
   * d = +1). */
  int *alpha;
  /* Np x Np row-major: V[p*Np + a] = B_a(node p): nodal values u = V c from
   * BB coefficients c. */
  double *V;
  double *invV; /* Np x Np: c = invV u */
  /* Np x Np row-major: d/dr, d/ds, d/dt acting on BB coefficients (result in
   * degree-N BB coefficients), built from the exact formula with exact
   * zeros, NULL beyond dim. */
  double *Dr, *Ds, *Dt;
  /* Np x (Nfaces*Nfp): lifts BB coefficients of a face polynomial (face f's
   * columns f*Nfp..f*Nfp+Nfp-1, in the Fmask order of the refelem: column
   * f*Nfp+n is the face BB coefficient of volume multi-index
   * alpha[Fmask[f*Nfp+n]]) to volume BB coefficients; equals
   * invV * re->LIFT * blockdiag_f( V[Fmask_f][Fmask_f] ). */
  double *LIFT;
  /* Np x (dim+1) x (dim+1): nb[(p*(dim+1)+v)*(dim+1)+w] = node index of
   * alpha_p - e_v + e_w, or -1 when alpha_p[v] == 0. */
  int *nb;
} dg_bernstein;

/* Build the BB basis and operators of the reference element re.  Errors:
 * DG_ERR_ARG for NULL arguments or an inconsistent re, DG_ERR_MEMORY,
 * DG_ERR_NUMERIC when V cannot be inverted. */
dg_error dg_bernstein_create(const struct dg_refelem *re, dg_bernstein **out);
void dg_bernstein_destroy(dg_bernstein **b);

#endif
