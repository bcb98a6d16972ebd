/* Linear sub-cells of one high-order element, for display.
 *
 * A visualisation tool draws linear cells, so each order-N simplex is shown
 * as the cells of its equispaced node lattice: N segments (1D), N^2
 * triangles (2D), N^3 tetrahedra (3D).  The connectivity refers to the
 * element's local node indices in the lattice order of dg/refelem.h
 * (Hesthaven & Warburton 2008, Nodes1D/2D/3D: r fastest, then s, then t),
 * so it depends only on (dim, N) and is the same for every element.  Every
 * sub-cell is positively oriented in reference coordinates (the VTK/XDMF
 * convention: for a tetrahedron (p1-p0)x(p2-p0).(p3-p0) > 0). */
#ifndef DG_PROBLEMS_SUBCELLS_H
#define DG_PROBLEMS_SUBCELLS_H

#include "core/error.h"

/* Number of sub-cells of one element: N^dim (0 for a bad dim or N < 1). */
int dg_subcells_count(int dim, int N);

/* Local node index of lattice point (i, j, k) (i along r, j along s, k along
 * t; i + j + k <= N; j = k = 0 in 1D, k = 0 in 2D). */
int dg_subcells_node(int dim, int N, int i, int j, int k);

/* Write the sub-cells into conn (dg_subcells_count(dim, N) x (dim + 1),
 * row-major).  Errors: DG_ERR_ARG for dim outside 1..3, N < 1 or NULL conn. */
dg_error dg_subcells_build(int dim, int N, int *conn);

#endif
