/* VTK Lagrange cells of order N for dgrun's simplices, for high-order
 * output (problems/io/vtkhdf.h).
 *
 * A VTK Lagrange simplex (VTK_LAGRANGE_CURVE 68, _TRIANGLE 69,
 * _TETRAHEDRON 71) of order N has the equispaced lattice points of order N
 * as its points, listed vertices first, then the interior points of each
 * edge (from its first vertex to its second), then of each face, then of
 * the volume, where a face or the volume interior is listed recursively as
 * a simplex of lower order by the same rule (VTK's vtkHigherOrderTriangle /
 * vtkHigherOrderTetra::BarycentricIndex; Schroeder et al., "Higher-order
 * cells in VTK", Kitware Source 2020):
 *   vertices  v0, v1, v2 (, v3): the reference vertices of dg/refelem.h in
 *             its order, (-1,-1,-1), (1,-1,-1), (-1,1,-1), (-1,-1,1)
 *   edges     triangle (0,1) (1,2) (2,0); tetrahedron (0,1) (1,2) (2,0)
 *             (0,3) (1,3) (2,3)
 *   faces     tetrahedron (0,1,3) (2,3,1) (0,3,2) (0,2,1), each interior
 *             a triangle of order N-3 whose vertices are those of the face
 *             moved one lattice step into it, in the face's vertex order
 *   interior  triangle of order N-3, tetrahedron of order N-4, the
 *             vertices moved one lattice step inwards (order 0: one point)
 * The curve is v0, v1, then its interior points from v0 to v1.
 *
 * dgrun's nodes are the lattice points warped to warp & blend positions
 * and listed in lattice order (dg/refelem.h), and its nodal values are the
 * coefficients of the Lagrange interpolant at those nodes; a VTK Lagrange
 * cell interpolates at the equispaced points.  So output evaluates each
 * element's polynomial at the equispaced points in VTK's order through
 * the interpolation matrix V(equispaced) V^{-1} (dg_vtk_lagrange_interp);
 * ParaView then draws the same polynomial of degree N. */
#ifndef DG_PROBLEMS_VTK_LAGRANGE_H
#define DG_PROBLEMS_VTK_LAGRANGE_H

#include "core/error.h"
#include "dg/refelem.h"

enum {
  DG_VTK_LAGRANGE_CURVE = 68,
  DG_VTK_LAGRANGE_TRIANGLE = 69,
  DG_VTK_LAGRANGE_TETRAHEDRON = 71
};

/* The VTK cell type of a dim-simplex (0 for a bad dim). */
int dg_vtk_lagrange_type(int dim);

/* The lattice coordinates (i, j, k) (i along r, j along s, k along t;
 * i + j + k <= N; zero beyond dim) of VTK point p of the order-N cell in
 * ijk[3p..3p+2], p = 0..Np-1.  Errors: DG_ERR_ARG for a bad dim, N < 1. */
dg_error dg_vtk_lagrange_points(int dim, int N, int *ijk);

/* The permutation: perm[p] = dgrun's node (lattice order, dg/refelem.h)
 * that sits at VTK point p.  Errors as above. */
dg_error dg_vtk_lagrange_order(int dim, int N, int *perm);

/* I (Np x Np, row-major): row p evaluates the nodal polynomial of re at
 * the equispaced reference point of VTK point p.  Errors as above. */
dg_error dg_vtk_lagrange_interp(const dg_refelem *re, double *I);

#endif
