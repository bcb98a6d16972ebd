/* High-order snapshots in the VTKHDF format (UnstructuredGrid, Version
 * 1.0: what ParaView >= 5.11's vtkHDFReader reads), written by the
 * snapshot writer (problems/io/snapshot.h) for [output] format = vtkhdf.
 *
 * Every element is one VTK Lagrange cell of order N (problems/io/
 * vtk_lagrange.h) with its own Np points, so values stay discontinuous
 * across elements as DG computes them.  Point values are the element's
 * polynomial evaluated at VTK's equispaced points (nodal values times
 * V(equispaced) V^{-1}), not the nodal values themselves.
 *
 * Files, for a run with prefix P (all in one directory):
 *   P_mesh.hdf       written once per run (at its first snapshot):
 *                    /VTKHDF  attributes Version = [1, 0], Type = "UnstructuredGrid"
 *                      NumberOfPoints, NumberOfCells, NumberOfConnectivityIds  [1] int64
 *                      Points [K*Np x 3] double, Connectivity [K*Np] int64,
 *                      Offsets [K+1] int64, Types [K] uint8
 *                      CellData/element_id [K] int64 (the global element id)
 *                      CellData/rank [K] int32 (the MPI rank that owned it)
 *                      CellData/region [K] int32 (runs with regions: the element's
 *                        region id, -1 none; the attribute region_names of /VTKHDF
 *                        is not written: ids index the run's regions, mesh first,
 *                        then [regions] in cfg order, see problems/PROBLEM_CFG.md)
 *   P_<S:06>.hdf     one per snapshot: the same /VTKHDF layout, whose mesh
 *                    datasets and CellData are HDF5 external links into
 *                    P_mesh.hdf (found next to the snapshot, whatever the
 *                    reader's working directory), plus
 *                      PointData/<field> [K*Np] or [K*Np x 3] (float or double)
 *                      PointData/error_<field>: the value minus the exact
 *                        solution at the points, when the caller gives it
 *                      FieldData/time [1] double, FieldData/step [1] int64
 *                    and root attributes time, step, order, dim, dgrun_version.
 *   P.hdf.series     the time series as ParaView's file-series JSON
 *                    ("file-series-version" 1.0): open it to get every
 *                    snapshot as one data set over time.
 * The extension is .hdf, which the specification allows beside .vtkhdf:
 * ParaView 5.11 opens .hdf and .hdf.series with its VTKHDF reader but knows
 * no .vtkhdf (5.12 added it). 
 * The element order of the files is the global one, whatever the number of
 * ranks that wrote them. */
#ifndef DG_PROBLEMS_VTKHDF_H
#define DG_PROBLEMS_VTKHDF_H

#include <stdint.h>

#include "core/comm.h"
#include "core/error.h"
#include "problems/io/h5part.h"
#include "problems/io/snapshot.h"

/* The elements a snapshot writer writes and how. */
typedef struct dg_vtkhdf_layout {
  int dim, N, Np;
  int64_t K;             /* elements in the files */
  int64_t Kloc;          /* elements this process writes, in increasing global id */
  const dg_h5part *part; /* a collective file (with comm), else NULL */
  dg_comm *comm;
  int rank;              /* in comm (0 without) */
  const int64_t *elem;   /* Kloc: the caller's element of the j-th (NULL: j) */
  const int64_t *gid;    /* Kloc: its global id (NULL: j) */
  const double *I;       /* Np x Np: nodal values -> VTK points (vtk_lagrange.h) */
  const int *region;     /* Kloc: the j-th element's region id, for CellData/region
                            (NULL: the run has no regions, no such set) */
} dg_vtkhdf_layout;

/* The mesh file at path: xyz (Kloc*Np x 3 node coordinates, the j-th
 * element's at j*Np) and elem_rank (Kloc, j-th element's owner; NULL:
 * l->rank).  Collective for a collective layout.  Errors: DG_ERR_IO. */
dg_error dg_vtkhdf_write_mesh(const char *path, const dg_vtkhdf_layout *l, const double *xyz,
                              const int *elem_rank);

/* The snapshot file at path, linking to the mesh file mesh_name (a name in
 * the same directory): the nodal fields f interpolated to the points, the
 * fields pf (values at the points already) as given; the caller checked
 * the fields.
 * Collective for a collective layout.  Errors: DG_ERR_IO, DG_ERR_MEMORY. */
dg_error dg_vtkhdf_write_snapshot(const char *path, const char *mesh_name,
                                  const dg_vtkhdf_layout *l, double time, int64_t step,
                                  const dg_snapshot_field *f, int nf,
                                  const dg_snapshot_field *pf, int npf);

/* The series file at path listing the n snapshots (file names in the same
 * directory, their times), atomically.  Errors: DG_ERR_IO, DG_ERR_MEMORY. */
dg_error dg_vtkhdf_write_series(const char *path, char *const *names, const double *times,
                                int n);

/* Read a series file written by dg_vtkhdf_write_series: calls keep(ctx,
 * name, time) per listed snapshot in order.  A missing file lists none.
 * Errors: DG_ERR_IO (unreadable). */
dg_error dg_vtkhdf_read_series(const char *path,
                               dg_error (*keep)(void *ctx, const char *name, double time),
                               void *ctx);

#endif
