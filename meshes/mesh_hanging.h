/* Hanging nodes: a non-conforming mesh (a vertex inside another element's
 * face or edge) leaves faces without a partner inside the domain, which
 * would become a boundary there (a crack that a default boundary tag turns
 * into a wall).  Found among the faces without a neighbour by a grid of
 * their vertices: O(F log F) for F such faces. */
#ifndef DG_MESHES_MESH_HANGING_H
#define DG_MESHES_MESH_HANGING_H

#include <stdint.h>

#include "core/error.h"
#include "meshes/mesh.h"

/* open[0..nopen): the faces (k * (dim + 1) + f) without a neighbour; the
 * ones with check[i] set are tested: DG_ERR_INPUT naming the element, face
 * and vertex when a vertex of an open face lies in it (within tol, absolute)
 * without being one of its corners.  1D meshes have none. */
dg_error dg_mesh_hanging_check(const dg_mesh *m, const int64_t *open, int64_t nopen,
                               const unsigned char *check, double tol);

#endif
