/* Element order for memory locality.
 *
 * Why: a right-hand side reads, for every face, the traces of the
 * neighbour across it.  The GPU runs blocks of consecutive elements, a few
 * hundred at a time, and what they read stays in the L2 cache only for
 * about as long as the next few thousand elements take.  Built-in boxes
 * number their cells x fastest, so a cell's neighbour along z is nx*ny*6
 * elements away (3,456 for 24^3): its traces come from DRAM, in partly
 * used sectors, twice.  Gmsh numbers elements in the order it made them,
 * with no such promise either.  Measured on the H100 (session 11, Maxwell
 * 3D, the same 82,944 tets as 24x24x24 or 4x4x864 cells): N = 6 0.979 ->
 * 0.880 ms, N = 7 1.513 -> 1.412 ms, Euler N = 3 0.650 -> 0.624 ms.  On
 * 24 x 24 x 24 cells numbered along the curve: N = 6 0.973 -> 0.909 ms, N = 7
 * 1.512 -> 1.445 ms, Euler N = 3 0.651 -> 0.638 ms (tuning/RESULTS.md).
 *
 * dg_mesh_order_hilbert renumbers the elements along a Hilbert curve
 * through their centroids (Skilling, "Programming the Hilbert curve", AIP
 * Conf. Proc. 707, 2004), so elements near in space are near in number
 * from every direction alike.  The curve's cube spans the centroids'
 * largest extent (one scale for all axes: a long thin domain stays
 * geometric), cut into 2^21 (3D) or 2^31 (1D, 2D) steps a side;
 * ties (centroids in one cell of that grid) keep their input order, so the
 * result is deterministic.  Element rows (EToV, face_tag, region) move together
 * and the explicit periodic pairs are renumbered; vertices are untouched. */
#ifndef DG_MESHES_MESH_ORDER_H
#define DG_MESHES_MESH_ORDER_H

#include <stdint.h>

#include "core/error.h"
#include "meshes/mesh.h"

/* Renumber mesh's elements along the Hilbert curve.  If new_of_old is not
 * NULL it receives K entries: the new number of each input element.
 * Errors: DG_ERR_ARG (NULL mesh), DG_ERR_MEMORY. */
dg_error dg_mesh_order_hilbert(dg_mesh *mesh, int64_t *new_of_old);

/* Renumber the elements so that the curved ones (not the affine image of
 * their vertices, dg_mesh_element_affine) come first, each kind keeping its
 * order: the curved kernels run over one range [0, ncurved) and the affine
 * ones over the rest (dg/opdata.h).  A mesh of geometry order 1 is left
 * alone.  new_of_old as above. */
dg_error dg_mesh_order_curved_first(dg_mesh *mesh, int64_t *new_of_old);

/* The Hilbert index of grid point x (dim coordinates of `bits` bits each,
 * dim * bits <= 63): exposed for the tests. */
uint64_t dg_hilbert_index(int dim, int bits, const uint32_t *x);

#endif
