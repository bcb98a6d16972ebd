/* High-order (curved) element geometry of a mesh: the Lagrange nodes of the
 * geometry map of each element (issue 40).
 *
 * A mesh of geometry order k (mesh->geom_order; 1 = straight-sided, XH NULL)
 * holds per element the nho = dg_mesh_ho_count(dim, k) nodes of its order-k
 * Lagrange geometry map, XH[(e * nho + j) * dim + c].  Node j sits at the
 * equispaced lattice point j of the reference simplex of dg/refelem.h, in
 * dgrun's own lattice order (dg/nodes.h, without the warping):
 *   1D  i = 0..k                                   r = -1 + 2i/k
 *   2D  for j = 0..k: for i = 0..k-j               (r, s) = -1 + 2(i, j)/k
 *   3D  for l = 0..k: for j = 0..k-l: for i = 0..k-j-l
 * i.e. barycentric coordinates (lambda_0, lambda_1, lambda_2, lambda_3) =
 * (k-i-j-l, i, j, l)/k of the element's vertices v0..vd.  The vertices are
 * the lattice points with one barycentric coordinate k (node 0 is v0) and
 * coincide with VX of EToV (dg_mesh_validate checks it); a face's nodes are
 * those with lambda of the opposite vertex 0.  The map of element e is
 * x(r) = sum_j XH_j l_j(r) with l_j the equispaced Lagrange basis
 * (dg_mesh_ho_basis).
 *
 * Every operation that makes a mesh from a mesh carries XH: copy, permute
 * (Hilbert order), orient (a flipped element permutes its nodes), sub-meshes,
 * partition parts, the HDF5 format. */
#ifndef DG_MESHES_MESH_CURVED_H
#define DG_MESHES_MESH_CURVED_H

#include <stdint.h>

#include "core/error.h"
#include "meshes/mesh.h"

/* Highest geometry order supported (Gmsh's simplices go to 10; 4 in 2D
 * and 3 in 3D is what high-order mesh optimisation handles well). */
enum { DG_MESH_MAX_GEOM_ORDER = 6 };

/* Nodes per element of the order-k lattice: k+1, (k+1)(k+2)/2,
 * (k+1)(k+2)(k+3)/6; 0 for a bad dim or k. */
int dg_mesh_ho_count(int dim, int k);

/* Barycentric integer coordinates of lattice node j (b[0..dim], summing to
 * k), and the node of given ones (-1 when they do not sum to k). */
void dg_mesh_ho_bary(int dim, int k, int j, int b[DG_MESH_MAX_VERTS]);
int dg_mesh_ho_index(int dim, int k, const int b[DG_MESH_MAX_VERTS]);

/* Reference coordinates of the lattice nodes, nho x dim row-major. */
void dg_mesh_ho_reference(int dim, int k, double *rst);

/* The order-k equispaced Lagrange basis at reference point r (dim entries):
 * phi[j] = l_j(r) and, when dphi is not NULL, dphi[j * dim + a] =
 * d l_j / d r_a.  Silvester's product form: for node j with barycentric
 * b, l_j = prod_v prod_{m < b_v} (k lambda_v - m) / (m + 1). */
void dg_mesh_ho_basis(int dim, int k, const double *r, double *phi, double *dphi);

/* Set the geometry order of the mesh to k >= 1 and its nodes to the affine
 * images of its vertices (k = 1 frees XH). */
dg_error dg_mesh_ho_set_order(dg_mesh *mesh, int k);

/* Whether element e is affine: its nodes are the affine image of its
 * vertices to within 1e-10 of its size plus 1e-14 of its coordinates'
 * magnitude (Gmsh places the nodes of straight edges through the CAD
 * parametrisation, ~1e-12 relative; a deviation below 1e-10 h changes no
 * result that a discretization error does not swamp).  Always 1 for a mesh
 * of geometry order 1. */
int dg_mesh_element_affine(const dg_mesh *mesh, int64_t e);

/* Curve a mesh: give it geometry order k and place every node (vertices
 * included) at phi of its affine position, phi(ctx, x, y) writing dim
 * coordinates y.  For tests and built-in curved meshes (a warped box). */
typedef void (*dg_mesh_map_fn)(void *ctx, const double *x, double *y);
dg_error dg_mesh_curve(dg_mesh *mesh, int k, dg_mesh_map_fn phi, void *ctx);

/* Node permutation of an element whose last two vertices are swapped
 * (dg_mesh_orient): new node j is old node perm[j]. */
void dg_mesh_ho_flip_permutation(int dim, int k, int *perm);

/* dx/dr of element e at reference point r: A[c][b] = d x_c / d r_b; returns
 * det A (the Jacobian J). */
double dg_mesh_ho_jacobian(const dg_mesh *mesh, int64_t e, const double *r, double A[3][3]);

/* Refuse tangled or inverted curved elements: J of every curved element at
 * the order-2k lattice (vertices, faces, interior; J of an order-k map has
 * degree dim (k-1)) must be positive, else DG_ERR_INPUT naming the element,
 * the reference and physical position and the value.  Also checks that
 * the vertex nodes coincide with VX. */
dg_error dg_mesh_curved_check(const dg_mesh *mesh);

/* Number of curved (non-affine) elements. */
int64_t dg_mesh_curved_count(const dg_mesh *mesh);

#endif
