/* The dgrun HDF5 mesh format (meshes/MESH_FORMAT.md): a mesh read once
 * through Gmsh on a machine that has it, stored for machines that do not
 * (GPU nodes), optionally with a partition so that each MPI rank reads only
 * its own elements (hyperslab / point selections).
 *
 * Writes are atomic: the file is built in memory (HDF5 core driver) and
 * written with dg_fsutil_write_atomic (temp file in the same directory,
 * fsync, rename), so a reader never sees a half-written mesh.  Reads check
 * the format tag, version, every dataset's shape and every index's range,
 * and (for whole-mesh reads) a SHA-256 checksum of the contents; a
 * truncated or corrupt file is DG_ERR_INPUT naming the file and what is
 * wrong.  Built without HDF5, every function is DG_ERR_UNSUPPORTED. */
#ifndef DG_MESHES_MESH_H5_H
#define DG_MESHES_MESH_H5_H

#include "core/error.h"
#include "meshes/mesh.h"
#include "meshes/partition.h"

enum { DG_MESH_H5_VERSION = 1 };

/* Write mesh (and, if part != NULL, the partition plus the face
 * connectivity EToE/EToF that per-rank reads need; NULL EToE/EToF: computed
 * by dg_mesh_validate_neighbors) to path, atomically. */
dg_error dg_mesh_h5_write(const char *path, const dg_mesh *mesh, const dg_partition *part,
                          const int64_t *EToE, const int *EToF);

/* Read the whole mesh; *part (if part != NULL) gets the stored partition,
 * or NULL when the file has none. */
dg_error dg_mesh_h5_read(const char *path, dg_mesh **mesh, dg_partition **part);

/* Read only part `rank` of a partitioned file: the same local mesh and halo
 * as dg_partition_extract on the whole mesh gives. */
dg_error dg_mesh_h5_read_part(const char *path, int rank, dg_partition_local **out);

/* Number of parts stored in path (0: not partitioned). */
dg_error dg_mesh_h5_nparts(const char *path, int *nparts);

/* `dgrun import in out [--parts P]`: read a Gmsh mesh (a .geo is meshed at
 * its own sizes), validate it (untagged boundary faces are an error),
 * partition it for parts > 1 (METIS, or coordinate bisection without it;
 * edge cut and imbalance are logged), and write the HDF5 file. */
dg_error dg_mesh_import(const char *in, const char *out, int parts);
/* The same with a .geo meshed at geometry order geo_order (curved elements,
 * dg_mesh_read_gmsh_order; `dgrun import ... --geometry-order K`). */
dg_error dg_mesh_import_order(const char *in, const char *out, int parts, int geo_order);

/* 1 when this build has HDF5. */
int dg_mesh_h5_available(void);

#endif
