/* Geometry of curved (high-order) elements at order N (issue 40): the part
 * of dg/discretization that differs from the affine path.
 *
 * An element whose mesh nodes are not the affine image of its vertices
 * (dg_mesh_element_affine) is curved.  Its node coordinates are the order-k
 * Lagrange geometry map of meshes/mesh_curved.h evaluated at the order-N
 * nodes, x(r_i) = sum_j XH_j l_j(r_i), and its metric terms come exactly
 * from that map, dx/dr(r_i) = sum_j XH_j grad l_j(r_i) (not from
 * differentiating the order-N interpolant of x, so k > N is exact too),
 * inverted per node (Hesthaven & Warburton 2008 section 6.1,
 * GeometricFactors2D/3D evaluated per node).  Normals, sJ and Fscale follow
 * per face node from those per-node factors (Normals2D/3D), as do h[k]
 * and the volume, in dg/discretization.c's own code.
 *
 * Affine elements never come here: their values are bitwise those of the
 * affine path. */
#ifndef DG_DG_GEOMETRY_CURVED_H
#define DG_DG_GEOMETRY_CURVED_H

#include "core/error.h"
#include "dg/discretization.h"

/* Invert the dim x dim matrix A (A[c][b] = dx_c/dr_b): returns det A and
 * B[b][c] = dr_b/dx_c (GeometricFactors2D/3D by cofactors). */
double dg_geometry_invert(int dim, double A[3][3], double B[3][3]);

/* Mark the curved elements (d->curved, d->ncurved) and overwrite their
 * node coordinates, dr/dx and J with the exact values of the geometry map.
 * A non-positive J at a node is DG_ERR_INPUT naming the element, the node,
 * its position and the value. */
dg_error dg_geometry_curved_apply(dg_discretization *d);

/* After the connectivity: across every face with a curved side the
 * high-order face nodes of both sides coincide (under the periodic shift),
 * else DG_ERR_INPUT naming both elements and faces and the node. */
dg_error dg_geometry_curved_check_faces(const dg_discretization *d);

#endif
