/* The HDF5 mesh format (meshes/MESH_FORMAT.md), writing: the file is built
 * in memory, sealed (core/seal.h) and written atomically.  Reading is in
 * mesh_h5.c; what the two share is in mesh_h5_private.h. */
#include "meshes/mesh_h5.h"

#if defined(DGRUN_HAVE_HDF5)
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "core/fsutil.h"
#include "core/hash.h"
#include "core/seal.h"
#include "meshes/mesh_curved.h"
#include "meshes/mesh_h5_private.h"
#include "meshes/mesh_validate.h"

/* ---- writing ------------------------------------------------------------- */

static int put(hid_t loc, const char *name, hid_t ftype, hid_t mtype, int rank, hsize_t d0,
               hsize_t d1, const void *data) {
  hsize_t dims[2] = {d0, d1};
  hid_t sp = H5Screate_simple(rank, dims, NULL);
  hid_t ds = sp < 0 ? -1 : H5Dcreate2(loc, name, ftype, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  herr_t st = ds < 0 ? -1 : H5Dwrite(ds, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
  if (ds >= 0)
    H5Dclose(ds);
  if (sp >= 0)
    H5Sclose(sp);
  return st >= 0;
}

static int put_attr(hid_t loc, const char *name, hid_t ftype, hid_t mtype, hsize_t n,
                    const void *data) {
  hid_t sp = H5Screate_simple(1, &n, NULL);
  hid_t at = sp < 0 ? -1 : H5Acreate2(loc, name, ftype, sp, H5P_DEFAULT, H5P_DEFAULT);
  herr_t st = at < 0 ? -1 : H5Awrite(at, mtype, data);
  if (at >= 0)
    H5Aclose(at);
  if (sp >= 0)
    H5Sclose(sp);
  return st >= 0;
}

static int put_i64(hid_t loc, const char *name, int64_t v) {
  return put_attr(loc, name, H5T_STD_I64LE, H5T_NATIVE_INT64, 1, &v);
}

static int put_string_attr(hid_t loc, const char *name, const char *s) {
  hid_t t = dg_mesh_h5_string_type(strlen(s) + 1);
  int ok = t >= 0 && put_attr(loc, name, t, t, 1, s);
  if (t >= 0)
    H5Tclose(t);
  return ok;
}

/* Names as one fixed-length string array (padded to the longest + 1). */
static int put_names(hid_t loc, const char *name, int n, char *const *names) {
  size_t len = 1;
  for (int i = 0; i < n; i++)
    len = strlen(names[i]) + 1 > len ? strlen(names[i]) + 1 : len;
  char *buf = calloc((size_t)n, len);
  hid_t t = dg_mesh_h5_string_type(len);
  int ok = buf && t >= 0;
  for (int i = 0; ok && i < n; i++)
    memcpy(buf + (size_t)i * len, names[i], strlen(names[i]));
  ok = ok && put(loc, name, t, t, 1, (hsize_t)n, 0, buf);
  if (t >= 0)
    H5Tclose(t);
  free(buf);
  return ok;
}

/* (mesh_h5_private.h) */
void dg_mesh_h5_checksum(const dg_mesh *m, const dg_partition *p, const int64_t *EToE,
                         const int *EToF, char hex[DG_HASH_HEX_SIZE]) {
  const int nf = m->dim + 1;
  dg_hash h;
  dg_hash_init(&h);
  int64_t head[3] = {m->dim, m->Nv, m->K};
  dg_hash_update(&h, head, sizeof head);
  dg_hash_update(&h, m->VX, (size_t)(m->Nv * m->dim) * sizeof *m->VX);
  dg_hash_update(&h, m->EToV, (size_t)(m->K * nf) * sizeof *m->EToV);
  dg_hash_update(&h, m->face_tag, (size_t)(m->K * nf) * sizeof *m->face_tag);
  for (int t = 0; t < m->ntags; t++)
    dg_hash_update_field(&h, m->tag_names[t]);
  dg_hash_update(&h, m->periodic, sizeof m->periodic);
  dg_hash_update(&h, m->lo, sizeof m->lo);
  dg_hash_update(&h, m->hi, sizeof m->hi);
  for (int64_t i = 0; i < m->nface_pairs; i++) {
    const dg_mesh_face_pair *fp = &m->face_pairs[i];
    int64_t k[2] = {fp->k1, fp->k2};
    int f[2] = {fp->f1, fp->f2};
    dg_hash_update(&h, k, sizeof k);
    dg_hash_update(&h, f, sizeof f);
    dg_hash_update(&h, fp->shift, sizeof fp->shift);
  }
  if (m->nregions > 0) { /* (files without regions keep their hash) */
    for (int r = 0; r < m->nregions; r++)
      dg_hash_update_field(&h, m->region_names[r]);
    dg_hash_update(&h, m->region, (size_t)m->K * sizeof *m->region);
  }
  if (m->geom_order > 1) { /* (straight-sided files keep their hash) */
    int64_t k = m->geom_order;
    dg_hash_update(&h, &k, sizeof k);
    dg_hash_update(&h, m->XH,
                   (size_t)(m->K * dg_mesh_ho_count(m->dim, m->geom_order) * m->dim) *
                       sizeof *m->XH);
  }
  if (p) {
    dg_hash_update(&h, &p->nparts, sizeof p->nparts);
    dg_hash_update(&h, p->part, (size_t)p->K * sizeof *p->part);
    dg_hash_update(&h, EToE, (size_t)(m->K * nf) * sizeof *EToE);
    dg_hash_update(&h, EToF, (size_t)(m->K * nf) * sizeof *EToF);
  }
  unsigned char d[DG_HASH_SIZE];
  dg_hash_final(&h, d);
  dg_hash_hex(d, DG_HASH_SIZE, hex);
}

static int write_contents(hid_t f, const dg_mesh *m, const dg_partition *p, const int64_t *EToE,
                          const int *EToF) {
  const int nf = m->dim + 1;
  char hex[DG_HASH_HEX_SIZE];
  dg_mesh_h5_checksum(m, p, EToE, EToF, hex);
  int ok = put_string_attr(f, "format", DG_MESH_H5_FORMAT) &&
           put_i64(f, "version", DG_MESH_H5_VERSION) && put_i64(f, "dim", m->dim) &&
           put_i64(f, "Nv", m->Nv) && put_i64(f, "K", m->K) &&
           put_i64(f, "ntags", m->ntags) && put_i64(f, "nface_pairs", m->nface_pairs) &&
           put_attr(f, "periodic", H5T_STD_I32LE, H5T_NATIVE_INT, 3, m->periodic) &&
           put_attr(f, "lo", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 3, m->lo) &&
           put_attr(f, "hi", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 3, m->hi) &&
           put_string_attr(f, "sha256", hex) &&
           put(f, "nodes", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 2, (hsize_t)m->Nv,
               (hsize_t)m->dim, m->VX) &&
           put(f, "elements", H5T_STD_I64LE, H5T_NATIVE_INT64, 2, (hsize_t)m->K, (hsize_t)nf,
               m->EToV) &&
           put(f, "face_tags", H5T_STD_I32LE, H5T_NATIVE_INT, 2, (hsize_t)m->K, (hsize_t)nf,
               m->face_tag);
  if (ok && m->ntags)
    ok = put_names(f, "tag_names", m->ntags, m->tag_names);
  if (ok && m->nregions)
    ok = put_i64(f, "nregions", m->nregions) &&
         put_names(f, "region_names", m->nregions, m->region_names) &&
         put(f, "regions", H5T_STD_I32LE, H5T_NATIVE_INT, 1, (hsize_t)m->K, 0, m->region);
  if (ok && m->geom_order > 1)
    ok = put_i64(f, "geom_order", m->geom_order) &&
         put(f, "ho_nodes", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 2, (hsize_t)m->K,
             (hsize_t)(dg_mesh_ho_count(m->dim, m->geom_order) * m->dim), m->XH);
  if (ok && m->nface_pairs) {
    int64_t n = m->nface_pairs, *k = malloc((size_t)n * 2 * sizeof *k);
    int *fc = malloc((size_t)n * 2 * sizeof *fc);
    double *s = malloc((size_t)n * 3 * sizeof *s);
    ok = k && fc && s;
    for (int64_t i = 0; ok && i < n; i++) {
      const dg_mesh_face_pair *fp = &m->face_pairs[i];
      k[2 * i] = fp->k1;
      k[2 * i + 1] = fp->k2;
      fc[2 * i] = fp->f1;
      fc[2 * i + 1] = fp->f2;
      memcpy(s + 3 * i, fp->shift, sizeof fp->shift);
    }
    hid_t g = ok ? H5Gcreate2(f, "face_pairs", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1;
    ok = g >= 0 && put(g, "elements", H5T_STD_I64LE, H5T_NATIVE_INT64, 2, (hsize_t)n, 2, k) &&
         put(g, "faces", H5T_STD_I32LE, H5T_NATIVE_INT, 2, (hsize_t)n, 2, fc) &&
         put(g, "shift", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 2, (hsize_t)n, 3, s);
    if (g >= 0)
      H5Gclose(g);
    free(k);
    free(fc);
    free(s);
  }
  if (ok && p) {
    hid_t g = H5Gcreate2(f, "partition", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    ok = g >= 0 && put_i64(g, "nparts", p->nparts) && put_i64(g, "edge_cut", p->edge_cut) &&
         put_i64(g, "method", p->method) &&
         put(g, "part", H5T_STD_I32LE, H5T_NATIVE_INT, 1, (hsize_t)p->K, 0, p->part) &&
         put(g, "offsets", H5T_STD_I64LE, H5T_NATIVE_INT64, 1, (hsize_t)p->nparts + 1, 0,
             p->offsets) &&
         put(g, "elements", H5T_STD_I64LE, H5T_NATIVE_INT64, 1, (hsize_t)p->K, 0, p->elements) &&
         put(g, "local", H5T_STD_I64LE, H5T_NATIVE_INT64, 1, (hsize_t)p->K, 0, p->local) &&
         put(g, "EToE", H5T_STD_I64LE, H5T_NATIVE_INT64, 2, (hsize_t)m->K, (hsize_t)nf, EToE) &&
         put(g, "EToF", H5T_STD_I32LE, H5T_NATIVE_INT, 2, (hsize_t)m->K, (hsize_t)nf, EToF);
    if (g >= 0)
      H5Gclose(g);
  }
  return ok;
}

dg_error dg_mesh_h5_write(const char *path, const dg_mesh *m, const dg_partition *p,
                          const int64_t *EToE, const int *EToF) {
  DG_CHECK(path && m && !EToE == !EToF, DG_ERR_ARG, "dg_mesh_h5_write: bad arguments");
  DG_CHECK(!p || p->K == m->K, DG_ERR_ARG, "partition of %" PRId64 " elements for %" PRId64,
           p ? p->K : 0, m->K);
  const int nf = m->dim + 1;
  dg_error err = DG_OK;
  int64_t *own = NULL;
  int *ownf = NULL;
  void *image = NULL;
  hid_t fapl = -1, fcpl = -1, f = -1;
  dg_mesh_h5_quiet q;
  dg_mesh_h5_quiet_on(&q);
  if (p && !EToE) {
    own = malloc((size_t)(m->K * nf) * sizeof *own);
    ownf = malloc((size_t)(m->K * nf) * sizeof *ownf);
    DG_CHECK_GOTO(err, done, own && ownf, DG_ERR_MEMORY, "mesh file: out of memory");
    DG_CALL_GOTO(err, done, dg_mesh_validate_neighbors(m, 1, own, ownf));
    EToE = own;
    EToF = ownf;
  }
  /* Built in memory (core driver, no backing file), then written
   * atomically.  The default (oldest) file format: newer superblocks carry
   * an "open for writing" flag and checksum that an image taken from an open
   * file gets wrong; the contents are covered by dgrun's own SHA-256. */
  fapl = H5Pcreate(H5P_FILE_ACCESS);
  fcpl = H5Pcreate(H5P_FILE_CREATE);
  DG_CHECK_GOTO(err, done,
                fapl >= 0 && H5Pset_fapl_core(fapl, 1 << 20, 0) >= 0 && fcpl >= 0 &&
                    H5Pset_userblock(fcpl, DG_SEAL_SIZE) >= 0,
                DG_ERR_INTERNAL, "HDF5: cannot set up an in-memory file for '%s'", path);
  f = H5Fcreate("dgrun-mesh-image.h5", H5F_ACC_TRUNC, fcpl, fapl);
  DG_CHECK_GOTO(err, done, f >= 0, DG_ERR_INTERNAL, "HDF5: cannot create the image of '%s'",
                path);
  DG_CHECK_GOTO(err, done, write_contents(f, m, p, EToE, EToF), DG_ERR_MEMORY,
                "HDF5: cannot build mesh file '%s' in memory", path);
  DG_CHECK_GOTO(err, done, H5Fflush(f, H5F_SCOPE_GLOBAL) >= 0, DG_ERR_INTERNAL,
                "HDF5: cannot flush the image of '%s'", path);
  /* The image leaves the user block out: the seal goes in front of it. */
  ssize_t n = H5Fget_file_image(f, NULL, 0);
  image = n > 0 ? malloc(DG_SEAL_SIZE + (size_t)n) : NULL;
  DG_CHECK_GOTO(err, done,
                image && H5Fget_file_image(f, (char *)image + DG_SEAL_SIZE, (size_t)n) == n,
                DG_ERR_MEMORY, "HDF5: cannot get the image of '%s' (%zd bytes)", path, n);
  dg_seal_image(image, DG_SEAL_SIZE + (size_t)n, DG_MESH_H5_SEAL);
  DG_CALL_GOTO(err, done, dg_fsutil_write_atomic(path, image, DG_SEAL_SIZE + (size_t)n, 0644));
done:
  if (f >= 0)
    H5Fclose(f);
  if (fapl >= 0)
    H5Pclose(fapl);
  if (fcpl >= 0)
    H5Pclose(fcpl);
  dg_mesh_h5_quiet_off(&q);
  free(image);
  free(own);
  free(ownf);
  return err;
}
#endif
