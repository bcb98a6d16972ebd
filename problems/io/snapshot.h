/* Snapshots of a run for ParaView: one HDF5 file per output time plus XDMF
 * (linear sub-cells, below), and/or the high-order VTKHDF files of
 * problems/io/vtkhdf.h (dg_snapshot_writer_set_formats).
 *
 * For output step S the writer makes, in its directory,
 *   <prefix>_<S:06>.h5    /mesh/coordinates   (K*Np x 3, double; z = 0 in 2D, ...)
 *                         /mesh/connectivity  (K*N^dim x (dim+1), int64: linear sub-cells
 *                                              of every element, global node id k*Np + i)
 *                         /mesh/region        (K*N^dim x 1, int32, runs with regions: each
 *                                              sub-cell's element's region id)
 *                         /fields/<name>      (K*Np, or K*Np x 3 for a vector; float or
 *                                              double as computed)
 *                         /errors             (group; attributes l2_<name>, max_<name>)
 *                         root attributes: time, step, dgrun_version, order, dim,
 *                         num_elements, nodes_per_element
 *   <prefix>_<S:06>.xdmf  the same snapshot as one XDMF grid
 *   <prefix>.xdmf         a temporal collection of every snapshot written
 * XDMF points at the HDF5 datasets by relative paths, so the output folder can
 * be moved.  Every file is written atomically (see h5io.h); if any part of
 * a snapshot fails, none of its files is left under a final name.
 *
 * Nodes are shown as points, so values are discontinuous across elements as
 * DG computes them; the sub-cells come from problems/io/subcells.h.
 *
 * Partitioned runs with parallel HDF5 (dg_snapshot_writer_create_part):
 * every rank holds a writer for its part of the mesh; each snapshot is one
 * file written by all ranks together (problems/io/h5part.h), with the same
 * content as the file written from the gathered mesh and fields; rank 0
 * writes the XDMF files.  Every call is then collective. */
#ifndef DG_PROBLEMS_SNAPSHOT_H
#define DG_PROBLEMS_SNAPSHOT_H

#include <stdint.h>

#include "core/comm.h"
#include "core/error.h"
#include "problems/io/h5part.h"

/* The nodes of the (local) mesh: node i of element k is k*Np + i. */
typedef struct dg_snapshot_mesh {
  int dim;                  /* 1..3 */
  int N;                    /* order; Np must match dim and N */
  int Np;
  int64_t K;                /* elements */
  const double *x, *y, *z;  /* K*Np each; y (z) NULL below 2D (3D): written as 0 */
} dg_snapshot_mesh;

/* One field to write: a scalar (ncomp 1) or a vector of 2 or 3 components
 * (written as K*Np x 3, missing components 0).  Each component is K*Np
 * contiguous values of real_size bytes (4: float, 8: double). */
typedef struct dg_snapshot_field {
  const char *name;  /* [A-Za-z0-9_.-]+, unique in one snapshot */
  int ncomp;
  int real_size;
  const void *comp[3];
} dg_snapshot_field;

/* Error norms of one field against the exact solution. */
typedef struct dg_snapshot_norm {
  const char *name;  /* [A-Za-z0-9_.-]+ */
  double l2, max;
} dg_snapshot_norm;

typedef struct dg_snapshot_writer dg_snapshot_writer;

/* A writer for snapshots of mesh into dir (created if missing) named
 * <prefix>_...; the mesh is copied.  Errors: DG_ERR_ARG (bad mesh, prefix),
 * DG_ERR_IO (dir cannot be created), DG_ERR_UNSUPPORTED (built without HDF5). */
dg_error dg_snapshot_writer_create(const char *dir, const char *prefix,
                                   const dg_snapshot_mesh *mesh, dg_snapshot_writer **out);

/* Collective over comm (parallel HDF5 builds): a writer for this rank's
 * part of a partitioned mesh: mesh holds its part->K elements in local
 * order, part (borrowed; it must outlive the writer) says where they go in
 * the global order.  Fields given to dg_snapshot_writer_write are then
 * this rank's part->K*Np values per component.  Errors as above, agreed on
 * by every rank; DG_ERR_UNSUPPORTED without parallel HDF5. */
dg_error dg_snapshot_writer_create_part(const char *dir, const char *prefix,
                                        const dg_snapshot_mesh *mesh, dg_comm *comm,
                                        const dg_h5part *part, dg_snapshot_writer **out);

/* After a restart from step `step`: take over the snapshots of steps <= step
 * listed in an existing <prefix>.xdmf (whose .h5 files still exist) so the
 * collection stays complete; later ones are dropped from it.  No collection
 * file is not an error.  Errors: DG_ERR_IO (unreadable collection). */
dg_error dg_snapshot_writer_resume(dg_snapshot_writer *w, int64_t step);

/* Write the snapshot of step `step` at `time` (norms may be NULL with
 * nnorms 0).  Writing a step again replaces it.  Errors: DG_ERR_ARG (bad
 * field), DG_ERR_IO (with the file name); on error no file of this snapshot
 * exists under its final name and the collections are unchanged (with both
 * formats: the VTKHDF file and series; the XDMF files of a step whose VTKHDF
 * series alone failed to be rewritten stay). */
dg_error dg_snapshot_writer_write(dg_snapshot_writer *w, double time, int64_t step,
                                  const dg_snapshot_field *fields, int nfields,
                                  const dg_snapshot_norm *norms, int nnorms);

/* Which files a snapshot is: the linear sub-cell HDF5 + XDMF above, the
 * high-order VTKHDF files of problems/io/vtkhdf.h, or both. */
enum { DG_SNAPSHOT_XDMF = 1, DG_SNAPSHOT_VTKHDF = 2 };

/* Before the first write: the formats to write (default DG_SNAPSHOT_XDMF)
 * and, for the VTKHDF CellData "rank", the rank owning each of the
 * writer's elements (its mesh's K, in the mesh's element order; copied;
 * NULL: the writer's own rank, 0 without a communicator).  The VTKHDF mesh
 * file is written with the first snapshot.  Errors: DG_ERR_ARG. */
dg_error dg_snapshot_writer_set_formats(dg_snapshot_writer *w, int formats,
                                        const int *elem_rank);

/* Before the first write, in a run with regions (problems/solver/
 * coefficients.h): each of the writer's elements' region id (its mesh's K,
 * in the mesh's element order; copied), written as the VTKHDF CellData
 * "region" and, in the XDMF snapshots, as /mesh/region (int32, one per
 * linear sub-cell: cell data "region").  Errors: DG_ERR_ARG. */
dg_error dg_snapshot_writer_set_regions(dg_snapshot_writer *w, const int *region);

/* dg_snapshot_writer_write with pf[0..npf) besides: fields whose values are
 * at the VTKHDF points already (K*Np per component, each element's in VTK
 * point order; e.g. the error against the exact solution there), written
 * to the VTKHDF file only (ignored without DG_SNAPSHOT_VTKHDF).  Names are
 * unique over both lists. */
dg_error dg_snapshot_writer_write_with(dg_snapshot_writer *w, double time, int64_t step,
                                       const dg_snapshot_field *f, int nf,
                                       const dg_snapshot_field *pf, int npf,
                                       const dg_snapshot_norm *norms, int nnorms);

/* Path of the last HDF5 file written ("" before the first), for log lines. */
const char *dg_snapshot_writer_last_path(const dg_snapshot_writer *w);

void dg_snapshot_writer_destroy(dg_snapshot_writer **w);

#endif
