/* Interpolation nodes on the reference simplices (Hesthaven & Warburton
 * 2008, sections 3.2, 6.1 and 10.1): Legendre-Gauss-Lobatto points on
 * [-1, 1], warp & blend nodes on the triangle and the tetrahedron.
 *
 * Reference simplices and node ordering are those of dg/refelem.h: every
 * node set is a warped equispaced lattice, listed in lattice order
 *   1D  i = 0..N                       (r increasing)
 *   2D  for j = 0..N: for i = 0..N-j   (rows of increasing s, r increasing)
 *   3D  for k = 0..N: for j = 0..N-k: for i = 0..N-j-k
 *                                      (layers of t, rows of s, then r)
 * where lattice point (i, j, k) starts at r = -1 + 2i/N, s = -1 + 2j/N,
 * t = -1 + 2k/N before warping, and nodes on a face of the simplex stay on
 * it.  Output arrays hold Np values each (see dg_nodes_count). */
#ifndef DG_DG_NODES_H
#define DG_DG_NODES_H

#include "core/error.h"

/* Np for dimension dim (1..3) and order N >= 0: N+1, (N+1)(N+2)/2,
 * (N+1)(N+2)(N+3)/6; 0 for a bad dim or N. */
int dg_nodes_count(int dim, int N);

/* Legendre-Gauss-Lobatto points, N >= 1 (JacobiGL(0,0,N)). */
dg_error dg_nodes_lgl(int N, double *r);

/* Warp & blend nodes on the reference triangle, N >= 1 (Nodes2D with the
 * optimised blend parameter alpopt, then xytors; H&W section 6.1). */
dg_error dg_nodes_triangle(int N, double *r, double *s);

/* Warp & blend nodes on the reference tetrahedron, N >= 1 (Nodes3D with
 * its alpha table, then xyztorst; H&W section 10.1). */
dg_error dg_nodes_tetrahedron(int N, double *r, double *s, double *t);

#endif
