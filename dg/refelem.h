/* Reference elements for nodal DG on simplices (Hesthaven & Warburton 2008).
 *
 * Reference simplices (as in the book):
 *   1D  r in [-1, 1]; faces: 0 at r=-1, 1 at r=+1
 *   2D  vertices (-1,-1), (1,-1), (-1,1); faces: 0: s=-1, 1: r+s=0, 2: r=-1
 *   3D  vertices (-1,-1,-1), (1,-1,-1), (-1,1,-1), (-1,-1,1);
 *       faces: 0: t=-1, 1: s=-1, 2: r+s+t=-1, 3: r=-1
 * Every matrix is dense, row-major: A[i*ncols + j].  Fmask lists, per face,
 * the volume-node indices on that face (Nfaces x Nfp, row-major), in
 * ascending volume index (as the book's Fmask = find(...)).
 *
 * Node ordering (the book's; the output writer subdivides elements with it):
 * the nodes are a warped equispaced lattice of order N, listed in lattice
 * order (see dg/nodes.h)
 *   1D  i = 0..N                                        r increasing
 *   2D  for j = 0..N: for i = 0..N-j                    rows of increasing s,
 *                                                       r increasing in a row
 *   3D  for k = 0..N: for j = 0..N-k: for i = 0..N-j-k  layers of t, rows of
 *                                                       s, then r
 * Lattice point (i, j, k) lies on face r=-1 iff i = 0, s=-1 iff j = 0,
 * t=-1 iff k = 0, and on the slanted face iff i+j+k = N.  For N = 1 the nodes
 * are the vertices in the order listed above.
 *
 * Orthonormal basis (H&W eqs. 6.6, 10.4): mode order 1D i = 0..N; 2D
 * for i: for j <= N-i (Simplex2DP(i,j)); 3D for i: for j: for k
 * (Simplex3DP(i,j,k)); mode (i,j,k) has total degree i+j+k.
 *
 * Face-local coordinates (used for the face mass matrices in LIFT and for
 * the face quadrature, as in the book's Lift2D/Lift3D):
 *   2D  face 0: r, face 1: r, face 2: s
 *   3D  face 0: (r,s), face 1: (r,t), face 2: (s,t), face 3: (s,t)
 * A face's reference measure is that of the (dim-1)-simplex in these
 * coordinates (1 for a point, 2 for [-1,1] and for the reference triangle);
 * the surface Jacobian sJ of a physical face is relative to it. */
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

  double *invV;      /* Np x Np, V^{-1}: nodal -> modal coefficients */

  /* Face quadrature exact for degree 2N on each face (SIPG): the same
   * collapsed Gauss-Jacobi rule of dimension dim-1 on every face, in the
   * face-local coordinates above.  fq_w (Nfq) sums to the reference face
   * measure; fq_r/fq_s/fq_t (Nfaces*Nfq, face-major; s, t NULL below 2D/3D)
   * are the points in volume coordinates; fq_interp ((Nfaces*Nfq) x Np)
   * evaluates a volume polynomial there from its nodal values (combine with
   * Dr.. for gradients); fq_face_interp (Nfaces blocks of Nfq x Nfp)
   * evaluates the trace from the Nfp face-node values alone, in Fmask order
   * (so exterior values gathered through vmapP interpolate the same way). */
  int Nfq;
  double *fq_w;
  double *fq_r, *fq_s, *fq_t;
  double *fq_interp;
  double *fq_face_interp;
} dg_refelem;

/* Build every operator above for dimension dim (1..3) and order N
 * (1..DG_REFELEM_MAX_ORDER).  Errors: DG_ERR_INPUT for a bad dim or N. */
dg_error dg_refelem_create(int dim, int N, dg_refelem **out);
void dg_refelem_destroy(dg_refelem **re);

/* Orthonormal basis of order N (1..DG_REFELEM_MAX_ORDER) on the reference
 * simplex of dimension dim, and its gradient, at n points: V (n x Np,
 * V[p*Np + m] = mode m at point p) and Vr, Vs, Vt (any may be NULL; those
 * beyond dim must be).  Coordinates beyond dim may be NULL.  (Vandermonde1D/
 * 2D/3D, GradVandermonde*, with Simplex2DP/3DP, H&W eqs. 6.6, 10.4.) */
dg_error dg_refelem_vandermonde(int dim, int N, int n, const double *r,
                                const double *s, const double *t, double *V,
                                double *Vr, double *Vs, double *Vt);

/* The total degree of each orthonormal mode of order N in dimension dim, in
 * the basis order above (1D i; 2D for i, for j <= N-i; 3D for i, for j, for
 * k): Np entries into deg (modal filters, shock sensors). */
void dg_refelem_mode_degrees(int dim, int N, int *deg);

/* Interpolation from the nodes of re to n points: I (n x Np) = V(points)
 * V^{-1}, so that I u gives the values of the nodal polynomial u there. */
dg_error dg_refelem_interp(const dg_refelem *re, int n, const double *r,
                           const double *s, const double *t, double *I);

/* The volume coordinates (r, s, t) of the point of face f with face-local
 * coordinates (fa, fb) (the face-local coordinates above; fb unused in 2D,
 * both in 1D; t written 0 below 3D, s below 2D). */
void dg_refelem_face_point(int dim, int f, double fa, double fb, double *r,
                           double *s, double *t);

#endif
