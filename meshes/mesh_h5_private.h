/* Private: what the reading (mesh_h5.c) and the writing (mesh_h5_write.c)
 * halves of the HDF5 mesh format share.  Nothing else includes it. */
#ifndef DG_MESHES_MESH_H5_PRIVATE_H
#define DG_MESHES_MESH_H5_PRIVATE_H

#include <stddef.h>
#include <stdint.h>

#include <hdf5.h>

#include "core/hash.h"
#include "meshes/mesh.h"
#include "meshes/partition.h"

/* The file's "format" attribute, and its seal's magic (core/seal.h: no
 * byte reaches libhdf5 unverified). */
#define DG_MESH_H5_FORMAT "dgrun-mesh"
#define DG_MESH_H5_SEAL "dgrun-mesh-h5 sealed"

/* HDF5's own error printing is off while dgrun works on a file: dgrun
 * reports the failure itself, naming the file. */
typedef struct {
  H5E_auto2_t func;
  void *data;
} dg_mesh_h5_quiet;

static inline void dg_mesh_h5_quiet_on(dg_mesh_h5_quiet *q) {
  H5Eget_auto2(H5E_DEFAULT, &q->func, &q->data);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

static inline void dg_mesh_h5_quiet_off(const dg_mesh_h5_quiet *q) {
  H5Eset_auto2(H5E_DEFAULT, q->func, q->data);
}

/* A fixed-size, NUL-terminated string type of size bytes (-1 on failure;
 * the caller closes it). */
static inline hid_t dg_mesh_h5_string_type(size_t size) {
  hid_t t = H5Tcopy(H5T_C_S1);
  if (t >= 0 && (H5Tset_size(t, size) < 0 || H5Tset_strpad(t, H5T_STR_NULLTERM) < 0)) {
    H5Tclose(t);
    return -1;
  }
  return t;
}

/* SHA-256 over everything the file holds, in a fixed order, as stored in
 * memory (little-endian on every machine dgrun runs on): written with the
 * file, recomputed by the reader (p, EToE, EToF NULL for a file without a
 * partition). */
void dg_mesh_h5_checksum(const dg_mesh *m, const dg_partition *p, const int64_t *EToE,
                         const int *EToF, char hex[DG_HASH_HEX_SIZE]);

#endif
