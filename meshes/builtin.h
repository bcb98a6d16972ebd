/* Built-in structured simplex meshes of intervals, rectangles and boxes.
 *
 * The box [lo, hi] is cut into n[0] x ... x n[dim-1] equal cells, and every
 * cell into dim! simplices by the Kuhn (Freudenthal) split along its main
 * diagonal from the lowest to the highest corner, the same in every cell: in
 * 2D two triangles per rectangle, in 3D six tetrahedra per hexahedron.  Since
 * every cell face is then cut along the same diagonal direction from both
 * sides, the mesh is conforming.  Elements are positively oriented.
 *
 * Sides are tagged "left" "right" (x = lo, hi), "bottom" "top" (y) and
 * "front" "back" (z), only those that exist in the dimension.  A periodic
 * axis gets no side tags: its faces keep tag -1 and the mesh records the
 * period (mesh->periodic, lo, hi) for dg/discretization to pair them. */
#ifndef DG_MESHES_BUILTIN_H
#define DG_MESHES_BUILTIN_H

#include <stdint.h>

#include "meshes/mesh.h"

/* General form: dim 1..3, extents lo[a] < hi[a], n[a] >= 1 cells and
 * periodic[a] (0/1; NULL = none) per axis a < dim. */
dg_error dg_builtin_mesh(int dim, const double *lo, const double *hi, const int64_t *n,
                         const int *periodic, dg_mesh **out);

/* [a, b] in K elements. */
dg_error dg_builtin_interval(double a, double b, int64_t K, int periodic, dg_mesh **out);

/* [x0, x1] x [y0, y1] in nx x ny rectangles, 2 triangles each. */
dg_error dg_builtin_rectangle(double x0, double x1, double y0, double y1, int64_t nx,
                              int64_t ny, const int periodic[2], dg_mesh **out);

/* [lo, hi] in n[0] x n[1] x n[2] hexahedra, 6 tetrahedra each. */
dg_error dg_builtin_box(const double lo[3], const double hi[3], const int64_t n[3],
                        const int periodic[3], dg_mesh **out);

#endif
