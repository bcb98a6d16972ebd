/* The sub-mesh of selected elements: e.g. a rank's elements plus the layer
 * of face neighbours its DG operators read (problems/driver/poisson_run.c builds
 * the discretization of that instead of the whole mesh's).
 *
 * Sub element i is element sel[i] of the mesh.  Faces between selected
 * elements stay connected: through shared vertices, or, for faces joined
 * periodically in the mesh, through explicit face pairs with the mesh's
 * shift (the sub-mesh has no axis periodicity).  A selected element's face
 * whose neighbour is not selected is tagged `cut_tag`, a tag added after
 * the mesh's own, whose ids are kept; regions are the mesh's, each
 * element keeping its own, and so are the high-order nodes.  Vertices are those used, in
 * increasing order of their mesh id. */
#ifndef DG_MESHES_SUBMESH_H
#define DG_MESHES_SUBMESH_H

#include <stdint.h>

#include "core/error.h"
#include "meshes/mesh.h"

/* EToE / EToF / shift: the mesh's face connectivity (K x Nfaces, and
 * K x Nfaces x 3), as dg/connectivity.h builds it (a boundary face is its
 * own neighbour).  sel: n distinct element ids. */
dg_error dg_mesh_submesh(const dg_mesh *mesh, const int64_t *EToE, const int *EToF,
                         const double *shift, int64_t n, const int64_t *sel,
                         const char *cut_tag, dg_mesh **out);

#endif
