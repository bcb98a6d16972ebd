/* Reference elements for nodal DG on simplices (Hesthaven & Warburton 2008).
 *
 * Reference simplices (as in the book):
 *   1D  r in [-1, 1]; faces: 0 at r=-1, 1 at r=+1
 *   2D  vertices (-1,-1), (1,-1), (-1,1); faces: 0: s=-1, 1: r+s=0, 2: r=-1
 *   3D  vertices (-1,-1,-1), (1,-1,-1), (-1,1,-1), (-1,-1,1);
 *       faces: 0: t=-1, 1: s=-1, 2: r+s+t=-1, 3: r=-1
 * Every matrix is dense, row-major: A[i*ncols + j].  Fmask lists, per face,
 * the volume-node indices on that face (Nfaces x Nfp, row-major). */
#ifndef DG_DG_REFELEM_H
#define DG_DG_REFELEM_H

#include "core/error.h"

enum { DG_REFELEM_MAX_ORDER = 15 };

typedef struct dg_refelem {
  int dim;     /* 1, 2 or 3 */
  int N;       /* polynomial order >= 1 */
  int Np;      /* nodes per element: N+1, (N+1)(N+2)/2, (N+1)(N+2)(N+3)/6 */
  int Nfp;     /* nodes per face: 1, N+1, (N+1)(N+2)/2 */
  int Nfaces;  /* dim + 1 */

  double *r, *s, *t; /* node coordinates (Np each; s, t NULL below 2D/3D) */
  double *V;         /* Np x Np Vandermonde of the orthonormal basis */
  double *Vr, *Vs, *Vt; /* its derivatives (NULL beyond dim) */
  double *Dr, *Ds, *Dt; /* differentiation matrices Np x Np (NULL beyond dim) */
  double *M;         /* mass matrix Np x Np, (V V^T)^{-1} */
  double *invM;      /* V V^T */
  int *Fmask;        /* Nfaces x Nfp */
  double *LIFT;      /* Np x (Nfaces*Nfp): M^{-1} E, E = surface mass */

  /* Volume quadrature exact for degree 2N (SIPG assembly, error norms):
   * points in reference coordinates, weights summing to the volume of the
   * reference simplex, and the Ncub x Np interpolation matrix from nodes. */
  int Ncub;
  double *cub_r, *cub_s, *cub_t, *cub_w;
  double *cub_interp;
} dg_refelem;

/* Build every operator above for dimension dim (1..3) and order N
 * (1..DG_REFELEM_MAX_ORDER).  Errors: DG_ERR_INPUT for a bad dim or N. */
dg_error dg_refelem_create(int dim, int N, dg_refelem **out);
void dg_refelem_destroy(dg_refelem **re);

#endif
