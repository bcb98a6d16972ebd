/* Range checks of the fields of an HDF5 mesh file (meshes/MESH_FORMAT.md)
 * beyond its shapes and index ranges (mesh_h5.c): what a sealed file may
 * still hold wrong, refused as DG_ERR_INPUT naming the file and field. */
#ifndef DG_MESHES_MESH_H5_CHECK_H
#define DG_MESHES_MESH_H5_CHECK_H

#include <stdint.h>

#include "core/error.h"
#include "meshes/mesh.h"

/* periodic 0 or 1 per axis (0 past dim); lo, hi finite, lo < hi on a
 * periodic axis; face pairs not of a face with itself, shifts finite; tag
 * names unique. */
dg_error dg_mesh_h5_check_fields(const char *path, int dim, const int periodic[3],
                                 const double lo[3], const double hi[3],
                                 const dg_mesh_face_pair *pairs, int64_t npairs,
                                 char *const *names, int ntags);

/* Region names unique; region ids of n elements (global ids gk, NULL:
 * 0..n-1, for messages) in -1 .. nregions-1. */
dg_error dg_mesh_h5_check_regions(const char *path, const int *region, int64_t n,
                                  const int64_t *gk, char *const *names, int nregions);

/* n vertices of dim finite coordinates. */
dg_error dg_mesh_h5_check_coords(const char *path, const double *X, int64_t n, int dim);

#endif
