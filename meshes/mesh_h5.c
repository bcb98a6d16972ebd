/* The HDF5 mesh format (meshes/MESH_FORMAT.md): import, and reading of the
 * whole mesh or of one rank's part; writing is in mesh_h5_write.c. */
#include "meshes/mesh_h5.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fsutil.h"
#include "core/log.h"
#include "meshes/gmsh_reader.h"
#include "meshes/mesh_curved.h"
#include "meshes/mesh_h5_check.h"
#include "meshes/mesh_order.h"
#include "meshes/mesh_validate.h"

dg_error dg_mesh_import(const char *in, const char *out, int parts) {
  DG_CALL(dg_mesh_import_order(in, out, parts, 1));
  return DG_OK;
}

dg_error dg_mesh_import_order(const char *in, const char *out, int parts, int geo_order) {
  DG_CHECK(in && out, DG_ERR_ARG, "dg_mesh_import: NULL path");
  DG_CHECK(parts >= 1, DG_ERR_INPUT, "import: --parts %d must be at least 1", parts);
  DG_CALL(dg_fsutil_check_output(out, "import output"));
  dg_mesh *m = NULL;
  dg_partition *p = NULL;
  dg_error err = DG_OK;
  DG_CALL_GOTO(err, done, dg_mesh_read_gmsh_order(in, 0, geo_order, &m));
  DG_CALL_GOTO(err, done, dg_mesh_validate(m, NULL, NULL));
  /* each part's elements stay in increasing global order: near in memory */
  DG_CALL_GOTO(err, done, dg_mesh_order_hilbert(m, NULL));
  /* the curved elements first, as a run orders the mesh it reads whole
   * (problems/driver/problem.c): the parts' global ids are then the serial
   * run's element numbers (a part read alone keeps the file's numbering) */
  DG_CALL_GOTO(err, done, dg_mesh_order_curved_first(m, NULL));
  if (parts > 1)
    DG_CALL_GOTO(err, done, dg_partition_create(m, NULL, NULL, parts, NULL, &p));
  DG_CALL_GOTO(err, done, dg_mesh_h5_write(out, m, p, NULL, NULL));
  dg_info("import: wrote '%s' (%" PRId64 " elements%s)", out, m->K,
          p ? ", partitioned" : "");
done:
  dg_partition_destroy(&p);
  dg_mesh_destroy(&m);
  return err;
}

#ifndef DGRUN_HAVE_HDF5

int dg_mesh_h5_available(void) { return 0; }

#define NO_HDF5(path)                                                                         \
  DG_RAISE(DG_ERR_UNSUPPORTED,                                                                \
           "cannot use HDF5 mesh file '%s': dgrun was built without HDF5 (libhdf5-dev)",      \
           (path) ? (path) : "(null)")

dg_error dg_mesh_h5_write(const char *path, const dg_mesh *mesh, const dg_partition *part,
                          const int64_t *EToE, const int *EToF) {
  (void)mesh, (void)part, (void)EToE, (void)EToF;
  NO_HDF5(path);
}
dg_error dg_mesh_h5_read(const char *path, dg_mesh **mesh, dg_partition **part) {
  (void)mesh, (void)part;
  NO_HDF5(path);
}
dg_error dg_mesh_h5_read_part(const char *path, int rank, dg_partition_local **out) {
  (void)rank, (void)out;
  NO_HDF5(path);
}
dg_error dg_mesh_h5_nparts(const char *path, int *nparts) {
  (void)nparts;
  NO_HDF5(path);
}

#else

#include <hdf5.h>

#include "core/hash.h"
#include "core/seal.h"
#include "meshes/mesh_h5_private.h"

int dg_mesh_h5_available(void) { return 1; }

/* ---- the seal: core/seal.h (no byte reaches libhdf5 unverified) ------- */
static dg_error check_seal(const char *path) {
  DG_CALL(dg_seal_check(path, DG_MESH_H5_SEAL, "mesh file", "a dgrun HDF5 mesh file", 1));
  return DG_OK;
}

/* ---- reading ------------------------------------------------------------- */

typedef struct {
  const char *path;
  hid_t f;
  int dim, nf, ntags, nparts, nregions;
  int64_t Nv, K, npairs;
  int geom_order, nho; /* 1 and 0 for a straight-sided file */
} h5in;

#define BAD(r, ...) dg_error_raise(DG_ERR_INPUT, __FILE__, __LINE__, __func__, __VA_ARGS__)

static dg_error get_i64_attr(const h5in *r, hid_t loc, const char *name, int64_t *v) {
  hid_t at = H5Aopen(loc, name, H5P_DEFAULT);
  hid_t sp = at < 0 ? -1 : H5Aget_space(at);
  int ok = sp >= 0 && H5Sget_simple_extent_npoints(sp) == 1 &&
           H5Aread(at, H5T_NATIVE_INT64, v) >= 0;
  if (sp >= 0)
    H5Sclose(sp);
  if (at >= 0)
    H5Aclose(at);
  return ok ? DG_OK
            : BAD(r, "mesh file '%s': attribute '%s' is missing or unreadable (not a dgrun "
                     "mesh file, or a corrupt one)",
                  r->path, name);
}

static dg_error get_attr(const h5in *r, const char *name, hid_t mtype, hsize_t n, void *out) {
  hid_t at = H5Aopen(r->f, name, H5P_DEFAULT);
  hid_t sp = at < 0 ? -1 : H5Aget_space(at);
  int ok = sp >= 0 && H5Sget_simple_extent_npoints(sp) == (hssize_t)n &&
           H5Aread(at, mtype, out) >= 0;
  if (sp >= 0)
    H5Sclose(sp);
  if (at >= 0)
    H5Aclose(at);
  return ok ? DG_OK
            : BAD(r, "mesh file '%s': attribute '%s' is missing or has the wrong size",
                  r->path, name);
}

/* A string attribute into buf (size bytes). */
static dg_error get_string_attr(const h5in *r, const char *name, char *buf, size_t size) {
  hid_t at = H5Aopen(r->f, name, H5P_DEFAULT);
  hid_t t = at < 0 ? -1 : H5Aget_type(at);
  size_t len = t < 0 ? 0 : H5Tget_size(t);
  int ok = t >= 0 && H5Tget_class(t) == H5T_STRING && len > 0 && len < size;
  hid_t mt = ok ? dg_mesh_h5_string_type(len) : -1;
  ok = ok && mt >= 0 && H5Aread(at, mt, buf) >= 0;
  if (ok)
    buf[len] = 0;
  if (mt >= 0)
    H5Tclose(mt);
  if (t >= 0)
    H5Tclose(t);
  if (at >= 0)
    H5Aclose(at);
  return ok ? DG_OK
            : BAD(r, "mesh file '%s': attribute '%s' is missing or not a string (not a "
                     "dgrun mesh file?)",
                  r->path, name);
}

/* Open dataset `name` under loc and check its class and shape (d1 = 0: 1D). */
static dg_error open_ds(const h5in *r, hid_t loc, const char *name, H5T_class_t cls, hsize_t d0,
                        hsize_t d1, hid_t *out) {
  *out = H5Dopen2(loc, name, H5P_DEFAULT);
  if (*out < 0)
    return BAD(r, "mesh file '%s': dataset '%s' is missing or unreadable", r->path, name);
  hid_t sp = H5Dget_space(*out), t = H5Dget_type(*out);
  hsize_t dims[2] = {0, 0};
  int rank = sp < 0 ? -1 : H5Sget_simple_extent_ndims(sp);
  if (rank >= 1 && rank <= 2)
    H5Sget_simple_extent_dims(sp, dims, NULL);
  int ok = t >= 0 && H5Tget_class(t) == cls && rank == (d1 ? 2 : 1) && dims[0] == d0 &&
           (!d1 || dims[1] == d1);
  if (sp >= 0)
    H5Sclose(sp);
  if (t >= 0)
    H5Tclose(t);
  if (ok)
    return DG_OK;
  H5Dclose(*out);
  *out = -1;
  return BAD(r,
             "mesh file '%s': dataset '%s' has shape %llu x %llu (rank %d), expected %llu x "
             "%llu of %s",
             r->path, name, (unsigned long long)dims[0], (unsigned long long)dims[1], rank,
             (unsigned long long)d0, (unsigned long long)d1,
             cls == H5T_INTEGER ? "integers" : cls == H5T_FLOAT ? "floats" : "strings");
}

/* Read a whole dataset after checking its shape. */
static dg_error get(const h5in *r, hid_t loc, const char *name, H5T_class_t cls, hid_t mtype,
                    hsize_t d0, hsize_t d1, void *out) {
  hid_t ds;
  DG_CALL(open_ds(r, loc, name, cls, d0, d1, &ds));
  herr_t st = H5Dread(ds, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, out);
  H5Dclose(ds);
  return st >= 0 ? DG_OK
                 : BAD(r, "mesh file '%s': dataset '%s' cannot be read (truncated or corrupt "
                          "file)",
                       r->path, name);
}

/* Read rows[0..n) (increasing) of a d0 x d1 dataset (d1 = 0: 1D) by point
 * selection: a rank reads only what it needs. */
static dg_error get_rows(const h5in *r, hid_t loc, const char *name, H5T_class_t cls,
                         hid_t mtype, hsize_t d0, hsize_t d1, int64_t n, const int64_t *rows,
                         void *out) {
  if (n == 0)
    return DG_OK;
  hid_t ds;
  DG_CALL(open_ds(r, loc, name, cls, d0, d1, &ds));
  hsize_t w = d1 ? d1 : 1, np = (hsize_t)n * w;
  hsize_t *coord = malloc((size_t)np * 2 * sizeof *coord);
  hid_t fs = H5Dget_space(ds), ms = H5Screate_simple(1, &np, NULL);
  int ok = coord != NULL;
  for (int64_t i = 0; ok && i < n; i++) {
    ok = rows[i] >= 0 && (hsize_t)rows[i] < d0;
    for (hsize_t j = 0; j < w; j++) {
      hsize_t *c = coord + (i * w + j) * (d1 ? 2 : 1);
      c[0] = (hsize_t)rows[i];
      if (d1)
        c[1] = j;
    }
  }
  ok = ok && fs >= 0 && ms >= 0 && H5Sselect_elements(fs, H5S_SELECT_SET, np, coord) >= 0 &&
       H5Dread(ds, mtype, ms, fs, H5P_DEFAULT, out) >= 0;
  if (ms >= 0)
    H5Sclose(ms);
  if (fs >= 0)
    H5Sclose(fs);
  H5Dclose(ds);
  free(coord);
  return ok ? DG_OK
            : BAD(r, "mesh file '%s': rows of dataset '%s' cannot be read (truncated or "
                     "corrupt file)",
                  r->path, name);
}

static dg_error open_file(const char *path, h5in *r) {
  memset(r, 0, sizeof *r);
  r->path = path;
  r->f = -1;
  DG_CALL(check_seal(path));
  DG_CHECK(H5Fis_hdf5(path) > 0, DG_ERR_INPUT,
           "mesh file '%s' is not an HDF5 file (or is truncated or corrupt)", path);
  /* Strong close: closing the file closes whatever a failed read left open. */
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  if (fapl >= 0 && H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG) >= 0)
    r->f = H5Fopen(path, H5F_ACC_RDONLY, fapl);
  if (fapl >= 0)
    H5Pclose(fapl);
  DG_CHECK(r->f >= 0, DG_ERR_INPUT, "mesh file '%s' cannot be opened by HDF5 (truncated or "
           "corrupt)", path);
  char fmt[64];
  int64_t version, dim, ntags;
  DG_CALL(get_string_attr(r, "format", fmt, sizeof fmt));
  DG_CHECK(strcmp(fmt, DG_MESH_H5_FORMAT) == 0, DG_ERR_INPUT,
           "mesh file '%s' has format '%s', not '%s'", path, fmt, DG_MESH_H5_FORMAT);
  DG_CALL(get_i64_attr(r, r->f, "version", &version));
  DG_CHECK(version == DG_MESH_H5_VERSION, DG_ERR_INPUT,
           "mesh file '%s' has format version %" PRId64 "; this dgrun reads version %d", path,
           version, DG_MESH_H5_VERSION);
  DG_CALL(get_i64_attr(r, r->f, "dim", &dim));
  DG_CALL(get_i64_attr(r, r->f, "Nv", &r->Nv));
  DG_CALL(get_i64_attr(r, r->f, "K", &r->K));
  DG_CALL(get_i64_attr(r, r->f, "ntags", &ntags));
  DG_CALL(get_i64_attr(r, r->f, "nface_pairs", &r->npairs));
  DG_CHECK(dim >= 1 && dim <= 3 && r->Nv > 0 && r->K > 0 && ntags >= 0 && ntags < 1 << 20 &&
               r->npairs >= 0,
           DG_ERR_INPUT,
           "mesh file '%s': bad sizes (dim %" PRId64 ", Nv %" PRId64 ", K %" PRId64
           ", ntags %" PRId64 ", nface_pairs %" PRId64 ")",
           path, dim, r->Nv, r->K, ntags, r->npairs);
  r->dim = (int)dim;
  r->nf = r->dim + 1;
  r->ntags = (int)ntags;
  if (H5Aexists(r->f, "nregions") > 0) { /* absent: a file without regions */
    int64_t nregions;
    DG_CALL(get_i64_attr(r, r->f, "nregions", &nregions));
    DG_CHECK(nregions > 0 && nregions < 1 << 20, DG_ERR_INPUT,
             "mesh file '%s': bad region count %" PRId64 " (corrupt file)", path, nregions);
    r->nregions = (int)nregions;
  }
  r->geom_order = 1;
  r->nho = 0;
  if (H5Aexists(r->f, "geom_order") > 0) { /* absent: straight-sided */
    int64_t k;
    DG_CALL(get_i64_attr(r, r->f, "geom_order", &k));
    DG_CHECK(k >= 2 && k <= DG_MESH_MAX_GEOM_ORDER, DG_ERR_INPUT,
             "mesh file '%s': bad geometry order %" PRId64 " (corrupt file)", path, k);
    r->geom_order = (int)k;
    r->nho = dg_mesh_ho_count(r->dim, r->geom_order);
  }
  if (H5Lexists(r->f, "partition", H5P_DEFAULT) > 0) {
    hid_t g = H5Gopen2(r->f, "partition", H5P_DEFAULT);
    int64_t np = 0;
    dg_error err = g < 0 ? BAD(r, "mesh file '%s': group 'partition' unreadable", path)
                         : get_i64_attr(r, g, "nparts", &np);
    if (g >= 0)
      H5Gclose(g);
    DG_CALL(err);
    DG_CHECK(np >= 1 && np <= r->K, DG_ERR_INPUT,
             "mesh file '%s': %" PRId64 " parts for %" PRId64 " elements", path, np, r->K);
    r->nparts = (int)np;
  }
  return DG_OK;
}

static void close_file(h5in *r) {
  if (r->f >= 0)
    H5Fclose(r->f);
  r->f = -1;
}

static void free_names(char **names, int n) {
  for (int i = 0; names && i < n; i++)
    free(names[i]);
  free(names);
}

/* The n names of dataset `ds_name` ("tag" / "region" names in messages). */
static dg_error read_names(const h5in *r, const char *ds_name, int n, const char *what,
                           char ***out) {
  char **names = NULL, *buf = NULL;
  hid_t ds = -1, t = -1, mt = -1;
  dg_error err = DG_OK;
  *out = NULL;
  DG_CALL(open_ds(r, r->f, ds_name, H5T_STRING, (hsize_t)n, 0, &ds));
  t = H5Dget_type(ds);
  size_t len = t < 0 ? 0 : H5Tget_size(t);
  DG_CHECK_GOTO(err, done, len > 0 && len < 4096, DG_ERR_INPUT,
                "mesh file '%s': %s names of %zu bytes", r->path, what, len);
  buf = calloc((size_t)n, len + 1);
  names = calloc((size_t)n, sizeof *names);
  mt = dg_mesh_h5_string_type(len);
  DG_CHECK_GOTO(err, done, buf && names && mt >= 0, DG_ERR_MEMORY, "%s names: out of memory",
                what);
  DG_CHECK_GOTO(err, done, H5Dread(ds, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0,
                DG_ERR_INPUT, "mesh file '%s': %s names cannot be read", r->path, what);
  for (int i = 0; i < n; i++) {
    char *nm = buf + (size_t)i * len;
    DG_CHECK_GOTO(err, done, memchr(nm, 0, len) && nm[0], DG_ERR_INPUT,
                  "mesh file '%s': %s name %d is empty or unterminated", r->path, what, i);
    names[i] = strdup(nm);
    DG_CHECK_GOTO(err, done, names[i] != NULL, DG_ERR_MEMORY, "%s names: out of memory", what);
  }
  *out = names;
  names = NULL;
done:
  free_names(names, n);
  free(buf);
  if (mt >= 0)
    H5Tclose(mt);
  if (t >= 0)
    H5Tclose(t);
  H5Dclose(ds);
  return err;
}

/* Tag and region names, axis periodicity and face pairs: small, every rank
 * reads all. */
static dg_error read_common(const h5in *r, char ***names_out, char ***rnames_out,
                            int periodic[3], double lo[3], double hi[3],
                            dg_mesh_face_pair **pairs_out) {
  char **names = NULL, **rnames = NULL;
  dg_mesh_face_pair *pairs = NULL;
  int64_t *k = NULL;
  int *fc = NULL;
  double *s = NULL;
  hid_t g = -1;
  dg_error err = DG_OK;
  DG_CALL(get_attr(r, "periodic", H5T_NATIVE_INT, 3, periodic));
  DG_CALL(get_attr(r, "lo", H5T_NATIVE_DOUBLE, 3, lo));
  DG_CALL(get_attr(r, "hi", H5T_NATIVE_DOUBLE, 3, hi));
  if (r->ntags)
    DG_CALL_GOTO(err, done, read_names(r, "tag_names", r->ntags, "tag", &names));
  if (r->nregions)
    DG_CALL_GOTO(err, done, read_names(r, "region_names", r->nregions, "region", &rnames));
  if (r->npairs) {
    int64_t n = r->npairs;
    g = H5Gopen2(r->f, "face_pairs", H5P_DEFAULT);
    DG_CHECK_GOTO(err, done, g >= 0, DG_ERR_INPUT,
                  "mesh file '%s': %" PRId64 " face pairs announced, group 'face_pairs' missing",
                  r->path, n);
    k = malloc((size_t)n * 2 * sizeof *k);
    fc = malloc((size_t)n * 2 * sizeof *fc);
    s = malloc((size_t)n * 3 * sizeof *s);
    pairs = calloc((size_t)n, sizeof *pairs);
    DG_CHECK_GOTO(err, done, k && fc && s && pairs, DG_ERR_MEMORY, "face pairs: out of memory");
    DG_CALL_GOTO(err, done,
                 get(r, g, "elements", H5T_INTEGER, H5T_NATIVE_INT64, (hsize_t)n, 2, k));
    DG_CALL_GOTO(err, done, get(r, g, "faces", H5T_INTEGER, H5T_NATIVE_INT, (hsize_t)n, 2, fc));
    DG_CALL_GOTO(err, done, get(r, g, "shift", H5T_FLOAT, H5T_NATIVE_DOUBLE, (hsize_t)n, 3, s));
    for (int64_t i = 0; i < n; i++) {
      dg_mesh_face_pair *p = &pairs[i];
      p->k1 = k[2 * i];
      p->k2 = k[2 * i + 1];
      p->f1 = fc[2 * i];
      p->f2 = fc[2 * i + 1];
      memcpy(p->shift, s + 3 * i, sizeof p->shift);
      DG_CHECK_GOTO(err, done,
                    p->k1 >= 0 && p->k1 < r->K && p->k2 >= 0 && p->k2 < r->K && p->f1 >= 0 &&
                        p->f1 < r->nf && p->f2 >= 0 && p->f2 < r->nf,
                    DG_ERR_INPUT,
                    "mesh file '%s': face pair %" PRId64 " names element %" PRId64
                    " face %d and element %" PRId64 " face %d (mesh: %" PRId64
                    " elements of %d faces)",
                    r->path, i, p->k1, p->f1, p->k2, p->f2, r->K, r->nf);
    }
  }
  DG_CALL_GOTO(err, done, dg_mesh_h5_check_fields(r->path, r->dim, periodic, lo, hi, pairs,
                                                  r->npairs, names, r->ntags));
done:
  if (err != DG_OK) {
    free_names(names, r->ntags);
    free_names(rnames, r->nregions);
    free(pairs);
    names = rnames = NULL;
    pairs = NULL;
  }
  *names_out = names;
  *rnames_out = rnames;
  *pairs_out = pairs;
  free(k);
  free(fc);
  free(s);
  if (g >= 0)
    H5Gclose(g);
  return err;
}

static dg_error check_ranges(const h5in *r, int64_t n, const int64_t *EToV, const int *tag) {
  for (int64_t i = 0; i < n * r->nf; i++) {
    DG_CHECK(EToV[i] >= 0 && EToV[i] < r->Nv, DG_ERR_INPUT,
             "mesh file '%s': element %" PRId64 " has vertex %" PRId64 " (mesh has %" PRId64
             " vertices)",
             r->path, i / r->nf, EToV[i], r->Nv);
    DG_CHECK(tag[i] >= -1 && tag[i] < r->ntags, DG_ERR_INPUT,
             "mesh file '%s': element %" PRId64 " face %d has tag %d (mesh has %d tags)", r->path,
             i / r->nf, (int)(i % r->nf), tag[i], r->ntags);
  }
  return DG_OK;
}

/* Row i / nf is element gk[i / nf] (gk NULL: i / nf); with all rows (gk
 * NULL, n = K) also each neighbour's neighbour is the face itself. */
static dg_error check_connectivity(const h5in *r, int64_t n, const int64_t *gk,
                                   const int64_t *EToE, const int *EToF) {
  for (int64_t i = 0; i < n * r->nf; i++) {
    int64_t k = gk ? gk[i / r->nf] : i / r->nf;
    int f = (int)(i % r->nf);
    DG_CHECK((EToE[i] == -1 && EToF[i] == -1) ||
                 (EToE[i] >= 0 && EToE[i] < r->K && EToF[i] >= 0 && EToF[i] < r->nf),
             DG_ERR_INPUT,
             "mesh file '%s': face %d of element %" PRId64 " has neighbour %" PRId64
             " face %d (mesh: %" PRId64 " elements)",
             r->path, f, k, EToE[i], EToF[i], r->K);
    DG_CHECK(EToE[i] != k || EToF[i] != f, DG_ERR_INPUT,
             "mesh file '%s': face %d of element %" PRId64 " is its own neighbour", r->path, f,
             k);
    int64_t j = EToE[i] * r->nf + EToF[i];
    DG_CHECK(gk || EToE[i] < 0 || (EToE[j] == k && EToF[j] == f), DG_ERR_INPUT,
             "mesh file '%s': face %d of element %" PRId64 " has neighbour %" PRId64
             " face %d, whose neighbour is element %" PRId64 " face %d",
             r->path, f, k, EToE[i], EToF[i], gk || EToE[i] < 0 ? -1 : EToE[j],
             gk || EToE[i] < 0 ? -1 : EToF[j]);
  }
  return DG_OK;
}

static dg_error read_partition(const h5in *r, const dg_mesh *m, char *hex, dg_partition **out) {
  const int nf = r->nf;
  const int64_t K = r->K;
  int *part = malloc((size_t)K * sizeof *part), *EToF = malloc((size_t)(K * nf) * sizeof *EToF);
  int64_t *EToE = malloc((size_t)(K * nf) * sizeof *EToE);
  int64_t *off = malloc((size_t)(r->nparts + 1) * sizeof *off);
  int64_t *el = malloc((size_t)K * sizeof *el), *loc = malloc((size_t)K * sizeof *loc);
  int64_t cut = 0;
  dg_partition *p = NULL;
  dg_error err = DG_OK;
  hid_t g = H5Gopen2(r->f, "partition", H5P_DEFAULT);
  DG_CHECK_GOTO(err, done, part && EToF && EToE && off && el && loc && g >= 0, DG_ERR_MEMORY,
                "mesh file '%s': partition: out of memory", r->path);
  DG_CALL_GOTO(err, done, get(r, g, "part", H5T_INTEGER, H5T_NATIVE_INT, (hsize_t)K, 0, part));
  DG_CALL_GOTO(err, done, get(r, g, "offsets", H5T_INTEGER, H5T_NATIVE_INT64,
                              (hsize_t)r->nparts + 1, 0, off));
  DG_CALL_GOTO(err, done, get(r, g, "elements", H5T_INTEGER, H5T_NATIVE_INT64, (hsize_t)K, 0, el));
  DG_CALL_GOTO(err, done, get(r, g, "local", H5T_INTEGER, H5T_NATIVE_INT64, (hsize_t)K, 0, loc));
  DG_CALL_GOTO(err, done, get(r, g, "EToE", H5T_INTEGER, H5T_NATIVE_INT64, (hsize_t)K,
                              (hsize_t)nf, EToE));
  DG_CALL_GOTO(err, done, get(r, g, "EToF", H5T_INTEGER, H5T_NATIVE_INT, (hsize_t)K,
                              (hsize_t)nf, EToF));
  DG_CALL_GOTO(err, done, get_i64_attr(r, g, "edge_cut", &cut));
  DG_CALL_GOTO(err, done, check_connectivity(r, K, NULL, EToE, EToF));
  for (int64_t k = 0; k < K; k++)
    DG_CHECK_GOTO(err, done, part[k] >= 0 && part[k] < r->nparts, DG_ERR_INPUT,
                  "mesh file '%s': element %" PRId64 " is in part %d of %d", r->path, k,
                  part[k], r->nparts);
  /* Rebuilt from the owners, the element lists must be those stored. */
  DG_CALL_GOTO(err, done, dg_partition_from_parts(K, r->nparts, part, r->dim, EToE, &p));
  DG_CHECK_GOTO(err, done,
                !memcmp(off, p->offsets, (size_t)(r->nparts + 1) * sizeof *off) &&
                    !memcmp(el, p->elements, (size_t)K * sizeof *el) &&
                    !memcmp(loc, p->local, (size_t)K * sizeof *loc) && cut == p->edge_cut,
                DG_ERR_INPUT,
                "mesh file '%s': the partition's element lists disagree with its owners "
                "(corrupt file)",
                r->path);
  int64_t method = 0;
  DG_CALL_GOTO(err, done, get_i64_attr(r, g, "method", &method));
  p->method = (dg_partition_method)method;
  dg_mesh_h5_checksum(m, p, EToE, EToF, hex);
  *out = p;
  p = NULL;
done:
  if (g >= 0)
    H5Gclose(g);
  dg_partition_destroy(&p);
  free(part);
  free(EToF);
  free(EToE);
  free(off);
  free(el);
  free(loc);
  return err;
}

dg_error dg_mesh_h5_read(const char *path, dg_mesh **out, dg_partition **part_out) {
  DG_CHECK(path && out, DG_ERR_ARG, "dg_mesh_h5_read: NULL argument");
  *out = NULL;
  if (part_out)
    *part_out = NULL;
  dg_mesh_h5_quiet q;
  dg_mesh_h5_quiet_on(&q);
  h5in r;
  dg_mesh *m = NULL;
  dg_partition *p = NULL;
  char **names = NULL, **rnames = NULL;
  dg_mesh_face_pair *pairs = NULL;
  dg_error err = DG_OK;
  DG_CALL_GOTO(err, done, open_file(path, &r));
  hid_t ds;
  DG_CALL_GOTO(err, done, open_ds(&r, r.f, "nodes", H5T_FLOAT, (hsize_t)r.Nv, (hsize_t)r.dim, &ds));
  H5Dclose(ds);
  DG_CALL_GOTO(err, done,
               open_ds(&r, r.f, "elements", H5T_INTEGER, (hsize_t)r.K, (hsize_t)r.nf, &ds));
  H5Dclose(ds);
  DG_CALL_GOTO(err, done, dg_mesh_create(r.dim, r.Nv, r.K, &m));
  DG_CALL_GOTO(err, done, get(&r, r.f, "nodes", H5T_FLOAT, H5T_NATIVE_DOUBLE, (hsize_t)r.Nv,
                              (hsize_t)r.dim, m->VX));
  DG_CALL_GOTO(err, done, dg_mesh_h5_check_coords(path, m->VX, r.Nv, r.dim));
  DG_CALL_GOTO(err, done, get(&r, r.f, "elements", H5T_INTEGER, H5T_NATIVE_INT64, (hsize_t)r.K,
                              (hsize_t)r.nf, m->EToV));
  DG_CALL_GOTO(err, done, get(&r, r.f, "face_tags", H5T_INTEGER, H5T_NATIVE_INT, (hsize_t)r.K,
                              (hsize_t)r.nf, m->face_tag));
  DG_CALL_GOTO(err, done,
               read_common(&r, &names, &rnames, m->periodic, m->lo, m->hi, &pairs));
  m->tag_names = names;
  m->ntags = r.ntags;
  names = NULL;
  m->face_pairs = pairs;
  m->nface_pairs = r.npairs;
  pairs = NULL;
  DG_CALL_GOTO(err, done, check_ranges(&r, r.K, m->EToV, m->face_tag));
  if (r.nregions) { /* (names checked below, with the ids, naming the file) */
    m->region = malloc((size_t)r.K * sizeof *m->region);
    DG_CHECK_GOTO(err, done, m->region != NULL, DG_ERR_MEMORY,
                  "mesh file '%s': regions: out of memory", path);
    m->region_names = rnames;
    m->nregions = r.nregions;
    rnames = NULL;
    DG_CALL_GOTO(err, done, get(&r, r.f, "regions", H5T_INTEGER, H5T_NATIVE_INT, (hsize_t)r.K,
                                0, m->region));
    DG_CALL_GOTO(err, done, dg_mesh_h5_check_regions(path, m->region, r.K, NULL,
                                                     m->region_names, m->nregions));
  }
  if (r.geom_order > 1) {
    DG_CALL_GOTO(err, done, dg_mesh_ho_set_order(m, r.geom_order));
    DG_CALL_GOTO(err, done, get(&r, r.f, "ho_nodes", H5T_FLOAT, H5T_NATIVE_DOUBLE, (hsize_t)r.K,
                                (hsize_t)(r.nho * r.dim), m->XH));
    DG_CALL_GOTO(err, done, dg_mesh_h5_check_coords(path, m->XH, r.K * r.nho, r.dim));
  }
  char want[2 * DG_HASH_HEX_SIZE], got[DG_HASH_HEX_SIZE];
  DG_CALL_GOTO(err, done, get_string_attr(&r, "sha256", want, sizeof want));
  if (r.nparts)
    DG_CALL_GOTO(err, done, read_partition(&r, m, got, &p));
  else
    dg_mesh_h5_checksum(m, NULL, NULL, NULL, got);
  DG_CHECK_GOTO(err, done, strcmp(want, got) == 0, DG_ERR_INPUT,
                "mesh file '%s' is corrupt: its contents do not match its checksum", path);
  *out = m;
  m = NULL;
  if (part_out) {
    *part_out = p;
    p = NULL;
  }
done:
  free_names(rnames, r.nregions);
  close_file(&r);
  dg_mesh_h5_quiet_off(&q);
  dg_mesh_destroy(&m);
  dg_partition_destroy(&p);
  return err;
}

dg_error dg_mesh_h5_nparts(const char *path, int *nparts) {
  dg_mesh_h5_quiet q;
  dg_mesh_h5_quiet_on(&q);
  h5in r;
  dg_error err = open_file(path, &r);
  if (err != DG_OK)
    dg_error_push(err, __FILE__, __LINE__, __func__);
  *nparts = r.nparts;
  close_file(&r);
  dg_mesh_h5_quiet_off(&q);
  return err;
}

/* ---- one rank's part ------------------------------------------------------ */

static int compare_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

static int64_t unique_i64(int64_t *v, int64_t n) {
  qsort(v, (size_t)n, sizeof *v, compare_i64);
  int64_t u = 0;
  for (int64_t i = 0; i < n; i++)
    if (i == 0 || v[i] != v[u - 1])
      v[u++] = v[i];
  return u;
}

static int64_t find_i64(const int64_t *v, int64_t n, int64_t x) {
  const int64_t *p = bsearch(&x, v, (size_t)n, sizeof x, compare_i64);
  return p ? p - v : -1;
}

static dg_error file_coords(void *ctx, int64_t n, const int64_t *gids, double *out) {
  const h5in *r = ctx;
  return get_rows(r, r->f, "nodes", H5T_FLOAT, H5T_NATIVE_DOUBLE, (hsize_t)r->Nv,
                  (hsize_t)r->dim, n, gids, out);
}

/* What reading one part holds (freed by part_free): the part's rows in R,
 * then its face neighbours on other parts (halo: global ids, hp: their
 * part, hl: their index there, hrows: their vertices) and the coordinates
 * X of the nvid vertices vid that both touch. */
typedef struct {
  const char *path;
  int rank, nf;
  h5in r;
  hid_t g; /* the "partition" group */
  int64_t n, *off;
  dg_partition_rows R;
  int64_t nremote, nvid, *halo, *hl, *hrows, *vid;
  int *hp;
  double *X;
} part_reader;

static void part_free(part_reader *p) {
  if (p->g >= 0)
    H5Gclose(p->g);
  free(p->off);
  dg_partition_rows_free(&p->R);
  free(p->halo);
  free(p->hp);
  free(p->hl);
  free(p->hrows);
  free(p->vid);
  free(p->X);
}

/* This part's element ids: a hyperslab of the grouped element list. */
static dg_error part_ids(part_reader *p) {
  hid_t ds;
  DG_CALL(open_ds(&p->r, p->g, "elements", H5T_INTEGER, (hsize_t)p->r.K, 0, &ds));
  hsize_t start = (hsize_t)p->off[p->rank], count = (hsize_t)p->n;
  hid_t fs = H5Dget_space(ds), ms = H5Screate_simple(1, &count, NULL);
  int ok = fs >= 0 && ms >= 0 &&
           H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &count, NULL) >= 0 &&
           H5Dread(ds, H5T_NATIVE_INT64, ms, fs, H5P_DEFAULT, p->R.gk) >= 0;
  H5Sclose(ms);
  H5Sclose(fs);
  H5Dclose(ds);
  DG_CHECK(ok, DG_ERR_INPUT, "mesh file '%s': part %d's elements unreadable", p->path, p->rank);
  return DG_OK;
}

/* The part's elements: ids, vertices, tags and face connectivity. */
static dg_error part_elements(part_reader *p) {
  const h5in *r = &p->r;
  const char *path = p->path;
  int rank = p->rank, nf = p->nf;
  p->g = H5Gopen2(r->f, "partition", H5P_DEFAULT);
  p->off = malloc((size_t)(r->nparts + 1) * sizeof *p->off);
  DG_CHECK(p->g >= 0 && p->off, DG_ERR_INPUT, "mesh file '%s': partition unreadable", path);
  const int64_t *off = p->off;
  DG_CALL(get(r, p->g, "offsets", H5T_INTEGER, H5T_NATIVE_INT64, (hsize_t)r->nparts + 1, 0,
              p->off));
  int64_t n = p->n = off[rank + 1] - off[rank];
  DG_CHECK(off[rank] >= 0 && n > 0 && off[rank + 1] <= r->K, DG_ERR_INPUT,
           "mesh file '%s': part %d spans elements [%" PRId64 ", %" PRId64 ") of %" PRId64,
           path, rank, off[rank], off[rank + 1], r->K);
  DG_CALL(dg_partition_rows_alloc(&p->R, r->dim, n));
  dg_partition_rows *R = &p->R;
  DG_CALL(part_ids(p));
  for (int64_t i = 0; i < n; i++)
    DG_CHECK(R->gk[i] >= 0 && R->gk[i] < r->K && (i == 0 || R->gk[i] > R->gk[i - 1]),
             DG_ERR_INPUT, "mesh file '%s': part %d's element list is corrupt", path, rank);
  DG_CALL(get_rows(r, r->f, "elements", H5T_INTEGER, H5T_NATIVE_INT64, (hsize_t)r->K,
                   (hsize_t)nf, n, R->gk, R->EToV));
  DG_CALL(get_rows(r, r->f, "face_tags", H5T_INTEGER, H5T_NATIVE_INT, (hsize_t)r->K,
                   (hsize_t)nf, n, R->gk, R->face_tag));
  DG_CALL(check_ranges(r, n, R->EToV, R->face_tag));
  DG_CALL(get_rows(r, p->g, "EToE", H5T_INTEGER, H5T_NATIVE_INT64, (hsize_t)r->K, (hsize_t)nf,
                   n, R->gk, R->nbr_k));
  DG_CALL(get_rows(r, p->g, "EToF", H5T_INTEGER, H5T_NATIVE_INT, (hsize_t)r->K, (hsize_t)nf, n,
                   R->gk, R->nbr_f));
  DG_CALL(check_connectivity(r, n, R->gk, R->nbr_k, R->nbr_f));
  if (r->nregions)
    DG_CALL(get_rows(r, r->f, "regions", H5T_INTEGER, H5T_NATIVE_INT, (hsize_t)r->K, 0, n,
                     R->gk, R->region));
  if (r->geom_order > 1) {
    const int64_t w = (int64_t)r->nho * r->dim;
    R->XH = malloc((size_t)(n * w) * sizeof *R->XH);
    DG_CHECK(R->XH != NULL, DG_ERR_MEMORY, "part %d: out of memory", rank);
    R->geom_order = r->geom_order;
    DG_CALL(get_rows(r, r->f, "ho_nodes", H5T_FLOAT, H5T_NATIVE_DOUBLE, (hsize_t)r->K,
                     (hsize_t)w, n, R->gk, R->XH));
    DG_CALL(dg_mesh_h5_check_coords(path, R->XH, n * r->nho, r->dim));
  }
  return DG_OK;
}

/* The neighbours' owners and local indices (point reads); those on other
 * parts are kept in halo / hp / hl (nremote of them). */
static dg_error part_neighbours(part_reader *p) {
  const h5in *r = &p->r;
  const char *path = p->path;
  int rank = p->rank, nf = p->nf;
  int64_t n = p->n, *gk = p->R.gk, *nk = p->R.nbr_k;
  int *nfc = p->R.nbr_f;
  size_t nfl = (size_t)(n * nf);
  int64_t *halo = p->halo = malloc(nfl * sizeof *halo);
  DG_CHECK(halo != NULL, DG_ERR_MEMORY, "part %d of '%s': out of memory", rank, path);
  int64_t nn = 0;
  for (size_t i = 0; i < nfl; i++) {
    if (nk[i] == gk[i / nf])
      nk[i] = -1, nfc[i] = -1; /* a boundary face stored as its own neighbour */
    if (nk[i] >= 0)
      halo[nn++] = nk[i];
  }
  nn = unique_i64(halo, nn);
  int *hp = p->hp = malloc((size_t)(nn ? nn : 1) * sizeof *hp);
  int64_t *hl = p->hl = malloc((size_t)(nn ? nn : 1) * sizeof *hl);
  DG_CHECK(hp && hl, DG_ERR_MEMORY, "part %d: out of memory", rank);
  DG_CALL(get_rows(r, p->g, "part", H5T_INTEGER, H5T_NATIVE_INT, (hsize_t)r->K, 0, nn, halo, hp));
  DG_CALL(get_rows(r, p->g, "local", H5T_INTEGER, H5T_NATIVE_INT64, (hsize_t)r->K, 0, nn, halo,
                   hl));
  for (int64_t i = 0; i < nn; i++)
    DG_CHECK(hp[i] >= 0 && hp[i] < r->nparts && hl[i] >= 0 && hl[i] < r->K, DG_ERR_INPUT,
             "mesh file '%s': element %" PRId64 " has part %d, index %" PRId64, path, halo[i],
             hp[i], hl[i]);
  int64_t nremote = 0;
  for (int64_t i = 0; i < nn; i++)
    if (hp[i] != rank)
      halo[nremote] = halo[i], hp[nremote] = hp[i], hl[nremote++] = hl[i];
  p->nremote = nremote;
  for (size_t i = 0; i < nfl; i++) {
    int64_t j = nk[i] >= 0 ? find_i64(halo, nremote, nk[i]) : -1;
    p->R.nbr_rank[i] = nk[i] < 0 ? -1 : j >= 0 ? hp[j] : rank;
    p->R.nbr_local[i] = nk[i] < 0 ? -1 : j >= 0 ? hl[j] : find_i64(gk, n, nk[i]);
    DG_CHECK(nk[i] < 0 || p->R.nbr_local[i] >= 0, DG_ERR_INPUT,
             "mesh file '%s': element %" PRId64 " of part %d is not in the part's list", path,
             nk[i], rank);
  }
  return DG_OK;
}

/* The vertices of the neighbours on other parts, the coordinates of all
 * the vertices the part touches, and from them the periodic shifts. */
static dg_error part_shifts(part_reader *p) {
  const h5in *r = &p->r;
  const char *path = p->path;
  int rank = p->rank, nf = p->nf;
  int64_t nremote = p->nremote, *halo = p->halo, *EToV = p->R.EToV, *nk = p->R.nbr_k;
  size_t nfl = (size_t)(p->n * nf);
  int64_t *hrows = p->hrows = malloc((size_t)(nremote ? nremote : 1) * nf * sizeof *hrows);
  int64_t *vid = p->vid = malloc(((size_t)nremote + (size_t)p->n) * nf * sizeof *vid + 1);
  DG_CHECK(hrows && vid, DG_ERR_MEMORY, "part %d: out of memory", rank);
  DG_CALL(get_rows(r, r->f, "elements", H5T_INTEGER, H5T_NATIVE_INT64, (hsize_t)r->K,
                   (hsize_t)nf, nremote, halo, hrows));
  for (int64_t i = 0; i < nremote * nf; i++)
    DG_CHECK(hrows[i] >= 0 && hrows[i] < r->Nv, DG_ERR_INPUT,
             "mesh file '%s': element %" PRId64 " has vertex %" PRId64, path, halo[i / nf],
             hrows[i]);
  memcpy(vid, EToV, nfl * sizeof *vid);
  memcpy(vid + nfl, hrows, (size_t)(nremote * nf) * sizeof *vid);
  int64_t nvid = p->nvid = unique_i64(vid, (int64_t)nfl + nremote * nf);
  double *X = p->X = malloc((size_t)(nvid * r->dim) * sizeof *X);
  DG_CHECK(X != NULL, DG_ERR_MEMORY, "part %d: out of memory", rank);
  DG_CALL(file_coords(&p->r, nvid, vid, X));
  DG_CALL(dg_mesh_h5_check_coords(path, X, nvid, r->dim));
  for (size_t i = 0; i < nfl; i++) {
    if (nk[i] < 0 || p->R.nbr_rank[i] == rank)
      continue;
    double a[3], b[3];
    /* As dg_partition_extract does, from the same coordinates: bitwise equal. */
    dg_mesh_validate_face_centroid(r->dim, EToV + (i / nf) * nf, (int)(i % nf), X, vid, nvid, a);
    dg_mesh_validate_face_centroid(r->dim, hrows + find_i64(halo, nremote, nk[i]) * nf,
                                   p->R.nbr_f[i], X, vid, nvid, b);
    for (int c = 0; c < 3; c++)
      p->R.shift[i * 3 + c] = b[c] - a[c];
  }
  return DG_OK;
}

dg_error dg_mesh_h5_read_part(const char *path, int rank, dg_partition_local **out) {
  DG_CHECK(path && out, DG_ERR_ARG, "dg_mesh_h5_read_part: NULL argument");
  *out = NULL;
  dg_mesh_h5_quiet q;
  dg_mesh_h5_quiet_on(&q);
  part_reader p;
  memset(&p, 0, sizeof p);
  p.path = path;
  p.rank = rank;
  p.g = -1;
  h5in *r = &p.r;
  dg_error err = DG_OK;
  char **names = NULL, **rnames = NULL;
  dg_mesh_face_pair *pairs = NULL;
  int periodic[3];
  double lo[3], hi[3];
  DG_CALL_GOTO(err, done, open_file(path, r));
  DG_CHECK_GOTO(err, done, r->nparts > 0, DG_ERR_INPUT,
                "mesh file '%s' is not partitioned; import it with --parts P", path);
  DG_CHECK_GOTO(err, done, rank >= 0 && rank < r->nparts, DG_ERR_INPUT,
                "mesh file '%s' has %d parts; rank %d has none (run with -np %d, or re-import "
                "with --parts matching the ranks)",
                path, r->nparts, rank, r->nparts);
  p.nf = r->nf;
  DG_CALL_GOTO(err, done, part_elements(&p));
  DG_CALL_GOTO(err, done, part_neighbours(&p));
  DG_CALL_GOTO(err, done, part_shifts(&p));
  DG_CALL_GOTO(err, done, read_common(r, &names, &rnames, periodic, lo, hi, &pairs));
  dg_partition_rows *R = &p.R;
  DG_CALL_GOTO(err, done,
               dg_mesh_h5_check_regions(path, R->region, p.n, R->gk, rnames, r->nregions));
  R->nregions = r->nregions;
  R->region_names = rnames;
  R->rank = rank;
  R->nparts = r->nparts;
  R->ntags = r->ntags;
  R->tag_names = names;
  R->periodic = periodic;
  R->lo = lo;
  R->hi = hi;
  R->nface_pairs = r->npairs;
  R->face_pairs = pairs;
  R->coords = file_coords;
  R->ctx = r;
  DG_CALL_GOTO(err, done, dg_partition_build_local(R, out));
done:
  part_free(&p);
  close_file(r);
  dg_mesh_h5_quiet_off(&q);
  free_names(names, r->ntags);
  free_names(rnames, r->nregions);
  free(pairs);
  return err;
}

#endif
