/* VTKHDF mesh, snapshot and series files (see vtkhdf.h). */
#include "problems/io/vtkhdf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/fsutil.h"
#include "problems/io/h5io.h"
#include "problems/io/vtk_lagrange.h"

#ifndef DGRUN_VERSION
#define DGRUN_VERSION "unknown"
#endif

#if defined(DGRUN_HAVE_HDF5)

/* The mesh datasets a snapshot links to. */
static const char *const mesh_sets[] = {"NumberOfPoints", "NumberOfCells",
                                        "NumberOfConnectivityIds", "Points", "Connectivity",
                                        "Offsets", "Types"};
static const char *const cell_sets[] = {"element_id", "rank", "region"};

static int64_t elem_of(const dg_vtkhdf_layout *l, int64_t j) { return l->elem ? l->elem[j] : j; }
static int64_t gid_of(const dg_vtkhdf_layout *l, int64_t j) { return l->gid ? l->gid[j] : j; }

/* A dataset of rows values per element (ncols columns; 0: rank 1), this
 * process's elements: all, or collectively its part. */
static dg_error put_rows(const dg_vtkhdf_layout *l, const dg_h5io_out *o, hid_t loc,
                         const char *name, hid_t mt, int rows, int ncols, const void *data,
                         const char *path) {
  if (l->part) {
    DG_CALL(dg_h5part_write(l->part, loc, name, mt, rows, ncols, data, o->dxpl, path));
    return DG_OK;
  }
  uint64_t dims[2] = {(uint64_t)(l->K * rows), (uint64_t)ncols};
  DG_CALL(dg_h5io_write(loc, name, mt, ncols > 0 ? 2 : 1, dims, data, path));
  return DG_OK;
}

/* A rank-1 dataset of n values that rank 0 holds (a collective file: the
 * others take part in the collective write with nothing selected). */
static dg_error put_root(const dg_vtkhdf_layout *l, const dg_h5io_out *o, hid_t loc,
                         const char *name, hid_t mt, int64_t n, const void *data,
                         const char *path) {
  if (!l->part) {
    uint64_t dims[1] = {(uint64_t)n};
    DG_CALL(dg_h5io_write(loc, name, mt, 1, dims, data, path));
    return DG_OK;
  }
  hsize_t d = (hsize_t)n, m = l->rank == 0 ? d : 0;
  hid_t fs = H5Screate_simple(1, &d, NULL), ms = H5Screate_simple(1, &m, NULL);
  herr_t rc = fs >= 0 && ms >= 0 ? 0 : -1;
  if (rc >= 0 && l->rank != 0)
    rc = H5Sselect_none(fs);
  hid_t set = rc >= 0 ? H5Dcreate2(loc, name, mt, fs, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)
                      : H5I_INVALID_HID;
  rc = set >= 0 ? H5Dwrite(set, mt, ms, fs, o->dxpl, data) : -1;
  dg_error err =
      rc < 0 ? DG_H5_RAISE(DG_ERR_IO, "cannot write dataset '%s' to '%s'", name, path) : DG_OK;
  if (set >= 0)
    H5Dclose(set);
  if (ms >= 0)
    H5Sclose(ms);
  if (fs >= 0)
    H5Sclose(fs);
  return err;
}

static dg_error create_file(const dg_vtkhdf_layout *l, const char *path, dg_h5io_out *o) {
#if defined(DGRUN_HAVE_PARALLEL_HDF5)
  if (l->part) {
    DG_CALL(dg_h5io_create_coll(path, l->comm, NULL, o));
    return DG_OK;
  }
#endif
  DG_CALL(dg_h5io_create(path, NULL, o));
  return DG_OK;
}

/* Close group g and the file: committed when err is DG_OK, else removed. */
static dg_error close_file(dg_h5io_out *o, hid_t g, dg_error err) {
  if (g >= 0)
    H5Gclose(g);
  if (err != DG_OK) {
    dg_h5io_abandon(o);
    return err;
  }
  DG_CALL(dg_h5io_finish(o));
  return DG_OK;
}

/* The /VTKHDF group with its Version and Type attributes.  Type is a
 * fixed-length string of exactly its length, null-padded, as the VTKHDF
 * specification's examples store it. */
static dg_error vtkhdf_group(hid_t file, const char *path, hid_t *out) {
  static const char type[] = "UnstructuredGrid";
  *out = H5Gcreate2(file, "VTKHDF", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (*out < 0)
    return DG_H5_RAISE(DG_ERR_IO, "cannot create group /VTKHDF in '%s'", path);
  int64_t version[2] = {1, 0};
  hsize_t two = 2;
  hid_t s2 = H5Screate_simple(1, &two, NULL), s1 = H5Screate(H5S_SCALAR);
  hid_t t = H5Tcopy(H5T_C_S1);
  herr_t rc = s2 >= 0 && s1 >= 0 && t >= 0 ? 0 : -1;
  if (rc >= 0)
    rc = H5Tset_size(t, sizeof type - 1);
  if (rc >= 0)
    rc = H5Tset_strpad(t, H5T_STR_NULLPAD);
  hid_t a = rc >= 0 ? H5Acreate2(*out, "Version", H5T_STD_I64LE, s2, H5P_DEFAULT, H5P_DEFAULT)
                    : H5I_INVALID_HID;
  rc = a >= 0 ? H5Awrite(a, H5T_NATIVE_INT64, version) : -1;
  if (a >= 0)
    H5Aclose(a);
  a = rc >= 0 ? H5Acreate2(*out, "Type", t, s1, H5P_DEFAULT, H5P_DEFAULT) : H5I_INVALID_HID;
  rc = a >= 0 ? H5Awrite(a, t, type) : -1;
  dg_error err = rc < 0 ? DG_H5_RAISE(DG_ERR_IO, "cannot write the VTKHDF attributes of '%s'",
                                      path)
                        : DG_OK;
  if (a >= 0)
    H5Aclose(a);
  if (t >= 0)
    H5Tclose(t);
  if (s1 >= 0)
    H5Sclose(s1);
  if (s2 >= 0)
    H5Sclose(s2);
  return err;
}

/* Values at the points of the j-th element, in VTK order: out = I u_e. */
static void to_points(const dg_vtkhdf_layout *l, const double *u, int64_t e, double *out) {
  int np = l->Np;
  for (int p = 0; p < np; ++p) {
    double v = 0;
    for (int i = 0; i < np; ++i)
      v += l->I[p * np + i] * u[e * np + i];
    out[p] = v;
  }
}

/* The mesh datasets, this process's rows, in the open group g. */
static dg_error mesh_sets_write(const dg_vtkhdf_layout *l, const dg_h5io_out *o, hid_t g,
                                const double *xyz, const int *erank, const char *path) {
  int np = l->Np;
  size_t nn = (size_t)(l->Kloc * np);
  double *pts = malloc(sizeof(double) * (3 * nn + 1));
  double *c = malloc(sizeof(double) * ((size_t)np * 2 + 1));
  int64_t *conn = malloc(sizeof(int64_t) * (nn + 1));
  int64_t *ids = malloc(sizeof(int64_t) * ((size_t)l->Kloc + 1));
  int32_t *rk = malloc(sizeof(int32_t) * ((size_t)l->Kloc + 1));
  unsigned char *types = malloc((size_t)l->Kloc + 1);
  int64_t *offs = l->rank == 0 ? malloc(sizeof(int64_t) * (size_t)(l->K + 1)) : NULL;
  dg_error err = DG_OK;
  DG_CHECK_GOTO(err, done, pts && c && conn && ids && rk && types && (offs || l->rank != 0),
                DG_ERR_MEMORY, "out of memory for the VTKHDF mesh (%lld points)",
                (long long)nn);
  for (int64_t j = 0; j < l->Kloc; ++j) {
    /* the coordinates are in the written order already */
    for (int a = 0; a < 3; ++a) {
      for (int i = 0; i < np; ++i)
        c[np + i] = xyz[3 * ((size_t)j * np + i) + a];
      for (int p = 0; p < np; ++p) {
        double v = 0;
        for (int i = 0; i < np; ++i)
          v += l->I[p * np + i] * c[np + i];
        pts[3 * ((size_t)j * np + p) + a] = v;
      }
    }
    int64_t g = gid_of(l, j);
    for (int p = 0; p < np; ++p)
      conn[j * np + p] = g * np + p;
    ids[j] = g;
    rk[j] = erank ? erank[j] : l->rank;
    types[j] = (unsigned char)dg_vtk_lagrange_type(l->dim);
  }
  for (int64_t k = 0; offs && k <= l->K; ++k)
    offs[k] = k * np;
  int64_t counts[3] = {l->K * np, l->K, l->K * np};
  DG_CALL_GOTO(err, done, dg_h5io_agree(o, err));
  for (int s = 0; s < 3; ++s)
    DG_CALL_GOTO(err, done,
                 dg_h5io_agree(o, put_root(l, o, g, mesh_sets[s], H5T_NATIVE_INT64, 1,
                                           &counts[s], path)));
  DG_CALL_GOTO(err, done,
               dg_h5io_agree(o, put_rows(l, o, g, "Points", H5T_NATIVE_DOUBLE, np, 3, pts, path)));
  DG_CALL_GOTO(err, done, dg_h5io_agree(o, put_rows(l, o, g, "Connectivity", H5T_NATIVE_INT64,
                                                    np, 0, conn, path)));
  DG_CALL_GOTO(err, done, dg_h5io_agree(o, put_root(l, o, g, "Offsets", H5T_NATIVE_INT64,
                                                    l->K + 1, offs, path)));
  DG_CALL_GOTO(err, done, dg_h5io_agree(o, put_rows(l, o, g, "Types", H5T_NATIVE_UCHAR, 1, 0,
                                                    types, path)));
  hid_t cd = H5Gcreate2(g, "CellData", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (cd < 0)
    err = DG_H5_RAISE(DG_ERR_IO, "cannot create group CellData in '%s'", path);
  DG_CALL_GOTO(err, done, dg_h5io_agree(o, err));
  err = dg_h5io_agree(o, put_rows(l, o, cd, cell_sets[0], H5T_NATIVE_INT64, 1, 0, ids, path));
  if (err == DG_OK)
    err = dg_h5io_agree(o, put_rows(l, o, cd, cell_sets[1], H5T_NATIVE_INT32, 1, 0, rk, path));
  for (int64_t j = 0; l->region && j < l->Kloc; ++j)
    rk[j] = l->region[j];
  if (err == DG_OK && l->region)
    err = dg_h5io_agree(o, put_rows(l, o, cd, cell_sets[2], H5T_NATIVE_INT32, 1, 0, rk, path));
  H5Gclose(cd);
done:
  free(pts);
  free(c);
  free(conn);
  free(ids);
  free(rk);
  free(types);
  free(offs);
  return err;
}

dg_error dg_vtkhdf_write_mesh(const char *path, const dg_vtkhdf_layout *l, const double *xyz,
                              const int *erank) {
  dg_h5io_out o;
  DG_CALL(create_file(l, path, &o));
  hid_t g = -1;
  dg_error err = dg_h5io_agree(&o, vtkhdf_group(o.file, path, &g));
  if (err == DG_OK)
    err = mesh_sets_write(l, &o, g, xyz, erank, path);
  DG_CALL(close_file(&o, g, err));
  return DG_OK;
}

/* External links g/<name> -> mesh_name:/<where>/<name> for the listed sets. */
static dg_error links(hid_t g, const char *mesh_name, const char *where,
                      const char *const *names, int n, const char *path) {
  for (int i = 0; i < n; ++i) {
    char target[128];
    snprintf(target, sizeof target, "%s/%s", where, names[i]);
    if (H5Lcreate_external(mesh_name, target, g, names[i], H5P_DEFAULT, H5P_DEFAULT) < 0)
      return DG_H5_RAISE(DG_ERR_IO, "cannot link '%s' to '%s' in '%s'", names[i], mesh_name,
                         path);
  }
  return DG_OK;
}

/* One PointData array: this process's values at the points, interleaved
 * x, y, z for a vector (the missing components 0). */
static dg_error point_field(const dg_vtkhdf_layout *l, const dg_h5io_out *o, hid_t pd,
                            const dg_snapshot_field *f, int at_points, const char *path) {
  int np = l->Np, stride = f->ncomp > 1 ? 3 : 1;
  size_t nn = (size_t)(l->Kloc * np), rs = (size_t)f->real_size;
  unsigned char *buf = calloc(nn * (size_t)stride + 1, rs);
  double *u = malloc(sizeof(double) * ((size_t)np + 1) * 2);
  dg_error err = buf && u ? DG_OK
                          : dg_error_raise(DG_ERR_MEMORY, __FILE__, __LINE__, __func__,
                                           "out of memory for field '%s'", f->name);
  for (int c = 0; err == DG_OK && c < f->ncomp; ++c) {
    const unsigned char *src = f->comp[c];
    for (int64_t j = 0; j < l->Kloc; ++j) {
      int64_t e = elem_of(l, j);
      double *in = u + np, *out = u;
      for (int i = 0; i < np; ++i) {
        size_t s = (size_t)(e * np + i) * rs;
        if (rs == 4) {
          float v;
          memcpy(&v, src + s, 4);
          in[i] = v;
        } else {
          memcpy(&in[i], src + s, 8);
        }
      }
      if (at_points)
        memcpy(out, in, sizeof(double) * (size_t)np);
      else
        to_points(l, in, 0, out);
      for (int p = 0; p < np; ++p) {
        size_t d = ((size_t)(j * np + p) * (size_t)stride + (size_t)c) * rs;
        if (rs == 4) {
          float v = (float)out[p];
          memcpy(buf + d, &v, 4);
        } else {
          memcpy(buf + d, &out[p], 8);
        }
      }
    }
  }
  err = dg_h5io_agree(o, err);
  if (err == DG_OK)
    err = put_rows(l, o, pd, f->name, rs == 4 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE, np,
                   stride > 1 ? 3 : 0, buf, path);
  free(buf);
  free(u);
  if (err != DG_OK)
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  return DG_OK;
}

/* Groups of the snapshot: links, PointData, FieldData. */
static dg_error snapshot_sets(const dg_vtkhdf_layout *l, const dg_h5io_out *o, hid_t g,
                              const char *mesh_name, double time, int64_t step,
                              const dg_snapshot_field *f, int nf,
                              const dg_snapshot_field *pf, int npf, const char *path) {
  DG_CALL(dg_h5io_agree(o, links(g, mesh_name, "/VTKHDF", mesh_sets, 7, path)));
  hid_t cd = H5Gcreate2(g, "CellData", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  hid_t pd = cd >= 0 ? H5Gcreate2(g, "PointData", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1;
  hid_t fd = pd >= 0 ? H5Gcreate2(g, "FieldData", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1;
  dg_error err =
      fd < 0 ? DG_H5_RAISE(DG_ERR_IO, "cannot create the VTKHDF groups in '%s'", path) : DG_OK;
  DG_CALL_GOTO(err, done, dg_h5io_agree(o, err));
  DG_CALL_GOTO(err, done,
               dg_h5io_agree(o, links(cd, mesh_name, "/VTKHDF/CellData", cell_sets,
                                         l->region ? 3 : 2, path)));
  for (int i = 0; i < nf + npf; ++i)
    DG_CALL_GOTO(err, done, dg_h5io_agree(o, point_field(l, o, pd, i < nf ? &f[i] : &pf[i - nf],
                                                         i >= nf, path)));
  DG_CALL_GOTO(err, done,
               dg_h5io_agree(o, put_root(l, o, fd, "time", H5T_NATIVE_DOUBLE, 1, &time, path)));
  DG_CALL_GOTO(err, done,
               dg_h5io_agree(o, put_root(l, o, fd, "step", H5T_NATIVE_INT64, 1, &step, path)));
done:
  if (fd >= 0)
    H5Gclose(fd);
  if (pd >= 0)
    H5Gclose(pd);
  if (cd >= 0)
    H5Gclose(cd);
  return err;
}

dg_error dg_vtkhdf_write_snapshot(const char *path, const char *mesh_name,
                                  const dg_vtkhdf_layout *l, double time, int64_t step,
                                  const dg_snapshot_field *f, int nf,
                                  const dg_snapshot_field *pf, int npf) {
  dg_h5io_out o;
  DG_CALL(create_file(l, path, &o));
  hid_t g = -1;
  dg_error err = DG_OK;
  DG_CALL_GOTO(err, attrs, dg_h5io_attr_put_f64(o.file, "time", time, path));
  DG_CALL_GOTO(err, attrs, dg_h5io_attr_put_i64(o.file, "step", step, path));
  DG_CALL_GOTO(err, attrs, dg_h5io_attr_put_i64(o.file, "order", l->N, path));
  DG_CALL_GOTO(err, attrs, dg_h5io_attr_put_i64(o.file, "dim", l->dim, path));
  DG_CALL_GOTO(err, attrs, dg_h5io_attr_put_str(o.file, "dgrun_version", DGRUN_VERSION, path));
  DG_CALL_GOTO(err, attrs, dg_h5io_attr_put_str(o.file, "mesh_file", mesh_name, path));
  err = vtkhdf_group(o.file, path, &g);
attrs:
  err = dg_h5io_agree(&o, err);
  if (err == DG_OK)
    err = snapshot_sets(l, &o, g, mesh_name, time, step, f, nf, pf, npf, path);
  DG_CALL(close_file(&o, g, err));
  return DG_OK;
}

#else

dg_error dg_vtkhdf_write_mesh(const char *path, const dg_vtkhdf_layout *l, const double *xyz,
                              const int *erank) {
  (void)l, (void)xyz, (void)erank;
  DG_RAISE(DG_ERR_UNSUPPORTED, "cannot write '%s': VTKHDF output needs HDF5", path);
}

dg_error dg_vtkhdf_write_snapshot(const char *path, const char *mesh_name,
                                  const dg_vtkhdf_layout *l, double time, int64_t step,
                                  const dg_snapshot_field *f, int nf,
                                  const dg_snapshot_field *pf, int npf) {
  (void)mesh_name, (void)l, (void)time, (void)step, (void)f, (void)nf, (void)pf, (void)npf;
  DG_RAISE(DG_ERR_UNSUPPORTED, "cannot write '%s': VTKHDF output needs HDF5", path);
}

#endif

/* One entry per line, so that dg_vtkhdf_read_series can find them again. */
dg_error dg_vtkhdf_write_series(const char *path, char *const *names, const double *times,
                                int n) {
  char *text = NULL;
  size_t len = 0;
  FILE *s = open_memstream(&text, &len);
  DG_CHECK(s != NULL, DG_ERR_MEMORY, "out of memory for the series file");
  fputs("{\n  \"file-series-version\" : \"1.0\",\n  \"files\" : [\n", s);
  for (int i = 0; i < n; ++i)
    fprintf(s, "    { \"name\" : \"%s\", \"time\" : %.17g }%s\n", names[i], times[i],
            i + 1 < n ? "," : "");
  fputs("  ]\n}\n", s);
  int bad = ferror(s);
  fclose(s);
  if (bad || !text) {
    free(text);
    DG_RAISE(DG_ERR_MEMORY, "out of memory for the series file");
  }
  dg_error err = dg_h5io_write_text(path, text, len);
  free(text);
  DG_CALL(err);
  return DG_OK;
}

dg_error dg_vtkhdf_read_series(const char *path,
                               dg_error (*keep)(void *ctx, const char *name, double time),
                               void *ctx) {
  struct stat st;
  if (lstat(path, &st) != 0 && errno == ENOENT)
    return DG_OK;
  void *data;
  size_t n;
  DG_CALL(dg_fsutil_read_file(path, &data, &n));
  dg_error err = DG_OK;
  for (char *line = data; line && err == DG_OK;) {
    char *next = strchr(line, '\n');
    if (next)
      *next++ = '\0';
    char name[512];
    double t;
    if (sscanf(line, " { \"name\" : \"%511[^\"]\", \"time\" : %lg", name, &t) == 2)
      err = keep(ctx, name, t);
    line = next;
  }
  free(data);
  DG_CALL(err);
  return DG_OK;
}
