/* This rank's part of a global per-element array in a collectively written
 * HDF5 file (parallel HDF5; see h5io.h).
 *
 * The datasets of snapshots and checkpoints hold all elements in global
 * element order (what rank 0 gathers in a serial-HDF5 build), so a file
 * does not depend on the number of ranks that wrote it.  A rank owns an
 * arbitrary set of global elements (a METIS part), so its part of a dataset
 * is a union of row blocks: the runs of consecutive global ids among its
 * elements.  The rank packs its values in increasing global id (the order
 * HDF5 walks a hyperslab union) and writes them with one collective call;
 * a restart reads its part back through the same selection (any HDF5
 * build; see checkpoint.h) and unpacks it to its local order. */
#ifndef DG_PROBLEMS_H5PART_H
#define DG_PROBLEMS_H5PART_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

typedef struct dg_h5part {
  int64_t K, K_global;
  int64_t *order;      /* K local element indices, by increasing global id */
  int64_t *gid;        /* their global ids (increasing) */
  int64_t nruns;
  int64_t *run_first;  /* first global id of each run */
  int64_t *run_count;  /* elements in each run */
} dg_h5part;

/* The part of the K elements with global ids gk[0..K) (distinct, in
 * [0, K_global)); memory O(K), nothing of size K_global.  Errors:
 * DG_ERR_ARG (an id out of range or twice), DG_ERR_MEMORY. */
dg_error dg_h5part_create(const int64_t *gk, int64_t K, int64_t K_global, dg_h5part **out);
void dg_h5part_destroy(dg_h5part **part);

/* Element block j of out = element order[j] of in; bytes per element each. */
void dg_h5part_pack(const dg_h5part *part, size_t bytes, const void *in, void *out);
/* The inverse: element order[j] of out = element block j of in. */
void dg_h5part_unpack(const dg_h5part *part, size_t bytes, const void *in, void *out);

#if defined(DGRUN_HAVE_HDF5)
#include <hdf5.h>

/* Collective: create dataset `name` under loc of memory type mtype with
 * K_global*rows rows (and ncols columns; 0: a rank-1 dataset) and write
 * this rank's rows from data (packed: K*rows*max(ncols,1) values in
 * increasing global id) with transfer list dxpl.  Errors: DG_ERR_IO naming
 * path. */
dg_error dg_h5part_write(const dg_h5part *part, hid_t loc, const char *name, hid_t mtype,
                         int rows, int ncols, const void *data, hid_t dxpl, const char *path);

/* Read this rank's rows of the rank-1 dataset set (K_global*rows values,
 * its shape checked by the caller) into data, packed in increasing global
 * id (K*rows values of mtype), with transfer list dxpl (H5P_DEFAULT:
 * independent; works on a file opened by this rank alone).  Errors:
 * DG_ERR_INPUT naming dataset name and path. */
dg_error dg_h5part_read(const dg_h5part *part, hid_t set, hid_t mtype, int rows, void *data,
                        hid_t dxpl, const char *name, const char *path);
#endif

#endif
