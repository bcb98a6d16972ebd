/* The DG discretization of a mesh at order N (Hesthaven & Warburton 2008,
 * ch. 3-6: Globals, GeometricFactors, Normals, tiConnect, BuildMaps,
 * BuildPeriodicMaps).
 *
 * Index conventions (all row-major):
 *   volume node   (k, i)    -> k*Np + i                   arrays K x Np
 *   face node     (k, f, i) -> (k*Nfaces + f)*Nfp + i     arrays K x Nfaces x Nfp
 *   face          (k, f)    -> k*Nfaces + f               arrays K x Nfaces
 * Face node i of face f is volume node Fmask[f][i] of the reference element.
 *
 * Geometric factors are stored per volume node.  On straight-sided
 * (affine) elements they are computed from the node coordinates with D_r,
 * D_s, D_t as in GeometricFactors2D/3D and are constant within each
 * element; on curved elements (a mesh of geometry order k > 1 whose element
 * nodes are not the affine image of its vertices) coordinates and factors
 * come exactly from the order-k geometry map at each node
 * (dg/geometry_curved.h), and curved[k] says which kind an element is.
 *
 * The mesh is borrowed: it must outlive the discretization and be
 * positively oriented (dg_mesh_orient); a non-positive Jacobian at any node
 * is DG_ERR_INPUT naming the element. */
#ifndef DG_DG_DISCRETIZATION_H
#define DG_DG_DISCRETIZATION_H

#include <stddef.h>
#include <stdint.h>

#include "core/dtype.h"
#include "core/error.h"
#include "dg/refelem.h"
#include "meshes/mesh.h"

typedef struct dg_discretization {
  const dg_mesh *mesh; /* borrowed */
  dg_refelem *re;      /* owned */
  dg_dtype precision; /* of what goes to the device (host geometry is double) */
  int dim, N, Np, Nfp, Nfaces;
  int64_t K;

  /* Physical node coordinates, K x Np (y, z NULL below 2D, 3D). */
  union {
    struct { double *x, *y, *z; };
    double *X[3];
  };
  /* Geometric factors dr_a/dx_b = G[a][b] per node, K x Np (entries with a
   * or b >= dim are NULL), and the Jacobian J = det(dx/dr) per node. */
  union {
    struct { double *rx, *ry, *rz, *sx, *sy, *sz, *tx, *ty, *tz; };
    double *G[3][3];
  };
  double *J;

  /* Per face node, K x Nfaces x Nfp: outward unit normal, surface Jacobian
   * (physical face measure / reference face measure, the reference face
   * measured in the face's own coordinates as LIFT does), and
   * Fscale = sJ / J, the face-to-volume scaling of the lift term
   * (Hesthaven & Warburton 2008, StartUp2D/3D: Fscale = sJ./J(Fmask,:)). */
  union {
    struct { double *nx, *ny, *nz; };
    double *n[3];
  };
  double *sJ, *Fscale;

  /* Connectivity, K x Nfaces (see dg/connectivity.h): a boundary face is
   * its own neighbour.  face_shift: K x Nfaces x 3, x on the neighbour's
   * face = x here + shift (non-zero only across periodic sides). */
  int64_t *EToE;
  int *EToF;
  double *face_shift;

  /* Node maps over face nodes, K x Nfaces x Nfp (BuildMaps3D): vmapM is the
   * interior volume node, vmapP the exterior one (= vmapM on the boundary),
   * mapP the exterior face node (= own index on the boundary). */
  int64_t *vmapM, *vmapP, *mapP;

  /* Boundary face nodes (face-node indices) and their volume nodes, and per
   * mesh tag t the face-node indices tag_map[tag_offset[t] .. tag_offset[t+1]). */
  int64_t nmapB;
  int64_t *mapB, *vmapB;
  int ntags;
  int64_t *tag_offset, *tag_map;

  /* Element size for the CFL condition: h[k] = min over face nodes of
   * J / sJ = 1 / max Fscale.  For a straight-sided simplex this is half its
   * smallest altitude in every dimension (1D: half the length): with the
   * reference measures above, J = vol / vol_ref and sJ = area_f / area_ref
   * give J/sJ = d * vol / area_f / 2 = altitude_f / 2.  h_min = min_k h[k]. */
  double *h;
  double h_min;

  /* Per element 1 when it is curved (geometry from its high-order map,
   * dg/geometry_curved.h), 0 when affine (always allocated); ncurved of
   * them. */
  uint8_t *curved;
  int64_t ncurved;

  /* Domain volume sum_k sum_i J_ki w_i with w = row sums of the mass matrix. */
  double volume;
} dg_discretization;

/* Build the reference element of order N (dim from the mesh) and everything
 * above.  Errors: DG_ERR_INPUT for a bad N, inverted or degenerate elements,
 * holes, non-conforming faces, unmatched periodic faces or face nodes. */
dg_error dg_discretization_create(const dg_mesh *mesh, int N, dg_dtype precision,
                                  dg_discretization **out);
void dg_discretization_destroy(dg_discretization **d);

/* Face-node indices of the boundary faces tagged `tag` (DG_ERR_INPUT naming
 * the known tags if the mesh has no such tag). */
dg_error dg_discretization_boundary_nodes(const dg_discretization *d, const char *tag,
                                          const int64_t **map, int64_t *count);

/* The unnormalised reference outward normal of face f (dim entries): the
 * physical one at a point is J sum_a c[a] grad r_a (Normals2D/3D), its
 * length sJ there. */
const double *dg_discretization_normal_coef(int dim, int f);

/* The device-ready packing of these arrays, in the layout the generated
 * kernels read, is dg/opdata.h. */

#endif
