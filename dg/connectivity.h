/* Element-to-element face connectivity of a simplex mesh (Hesthaven &
 * Warburton 2008, tiConnect2D/3D and BuildPeriodicMaps2D):
 *
 *  - interior faces are matched by their sorted vertex ids; a face shared by
 *    more than two elements is DG_ERR_INPUT (non-conforming mesh);
 *  - explicit periodic face pairs of the mesh are connected as listed;
 *  - on each periodic axis a, the remaining untagged faces whose centroid
 *    lies on x_a = lo[a] are paired with those whose centroid, shifted by the
 *    period hi[a] - lo[a], coincides with theirs (tolerance 1e-8 times the
 *    element's longest edge);
 *  - a face with a boundary tag (>= 0) and no neighbour is a boundary face
 *    and is connected to itself (EToE = k, EToF = f, as in the book);
 *  - a face left with tag -1 and no partner is DG_ERR_INPUT naming it.
 *
 * Arrays are K x Nfaces (Nfaces = dim + 1), row-major; shift is
 * K x Nfaces x 3: a point x on face (k, f) is the point x + shift on the
 * neighbour's face (zero except across periodic sides). */
#ifndef DG_DG_CONNECTIVITY_H
#define DG_DG_CONNECTIVITY_H

#include <stdint.h>

#include "core/error.h"
#include "meshes/mesh.h"

dg_error dg_connectivity_build(const dg_mesh *mesh, int64_t *EToE, int *EToF, double *shift);

/* Centroid of face f of element k (dim coordinates). */
void dg_connectivity_face_centroid(const dg_mesh *mesh, int64_t k, int f, double c[3]);

#endif
