/* HDF5 + XDMF snapshots (see snapshot.h). */
#include "problems/io/snapshot.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/fsutil.h"
#include "problems/io/h5io.h"
#include "problems/io/subcells.h"
#include "problems/io/vtk_lagrange.h"
#include "problems/io/vtkhdf.h"

#ifndef DGRUN_VERSION
#define DGRUN_VERSION "unknown"
#endif

/* One snapshot listed in the temporal collection: its XDMF grid text. */
typedef struct entry {
  int64_t step;
  char *grid;
} entry;

struct dg_snapshot_writer {
  char *dir, *prefix;
  int dim, N, Np, nsub;
  int64_t K;      /* elements in the files (all ranks') */
  int64_t Kloc;   /* elements this writer writes (K, or its part's) */
  const dg_h5part *part; /* partitioned (collective) writer, else NULL */
  dg_comm *comm;  /* with part */
  int rank;       /* in comm: rank 0 writes the XDMF files */
  double *xyz;    /* Kloc*Np x 3, in increasing global element id */
  int64_t *conn;  /* Kloc*nsub x (dim+1), global node ids */
  entry *entries; /* sorted by step */
  int nentries;
  char *last_path;
  int formats;    /* DG_SNAPSHOT_XDMF | DG_SNAPSHOT_VTKHDF */
  /* VTKHDF: interpolation to the VTK points, owner rank per written
   * element (NULL: rank), whether the mesh file exists, the series */
  double *I;
  int *erank;
  int *eregion; /* Kloc, for the VTKHDF CellData/region (NULL: none) */
  int mesh_done;
  int64_t *vsteps; /* sorted */
  double *vtimes;
  int nv;
};

static void entries_free(entry *e, int n) {
  for (int i = 0; i < n; ++i)
    free(e[i].grid);
  free(e);
}

void dg_snapshot_writer_destroy(dg_snapshot_writer **wp) {
  if (!wp || !*wp)
    return;
  dg_snapshot_writer *w = *wp;
  free(w->dir);
  free(w->prefix);
  free(w->xyz);
  free(w->conn);
  entries_free(w->entries, w->nentries);
  free(w->last_path);
  free(w->I);
  free(w->erank);
  free(w->eregion);
  free(w->vsteps);
  free(w->vtimes);
  free(w);
  *wp = NULL;
}

const char *dg_snapshot_writer_last_path(const dg_snapshot_writer *w) {
  return w && w->last_path ? w->last_path : "";
}

#if defined(DGRUN_HAVE_HDF5)

/* "<dir>/<prefix><middle><ext>" (malloc'd). */
static dg_error join(const dg_snapshot_writer *w, const char *middle, const char *ext,
                     char **out) {
  size_t n = strlen(w->dir) + strlen(w->prefix) + strlen(middle) + strlen(ext) + 3;
  char *s = malloc(n);
  DG_CHECK(s != NULL, DG_ERR_MEMORY, "out of memory for a file name");
  snprintf(s, n, "%s/%s%s%s", w->dir, w->prefix, middle, ext);
  *out = s;
  return DG_OK;
}

/* File name of a snapshot without directory: "<prefix>_<step:06>". */
static void snap_stem(const dg_snapshot_writer *w, int64_t step, char *buf, size_t cap) {
  snprintf(buf, cap, "%s_%06lld", w->prefix, (long long)step);
}

static char *dup_str(const char *s) {
  char *d = malloc(strlen(s) + 1);
  if (d)
    strcpy(d, s);
  return d;
}

static int np_of(int dim, int N) {
  return dim == 1 ? N + 1 : dim == 2 ? (N + 1) * (N + 2) / 2 : (N + 1) * (N + 2) * (N + 3) / 6;
}

/* Every rank learns of an error on any rank of a collective writer. */
static dg_error agree(const dg_snapshot_writer *w, dg_error err) {
  return w->comm ? dg_comm_agree(w->comm, err) : err;
}

/* Local element of the j-th element this writer writes. */
static int64_t local_elem(const dg_snapshot_writer *w, int64_t j) {
  return w->part ? w->part->order[j] : j;
}

static dg_error writer_init(const char *dir, const char *prefix, const dg_snapshot_mesh *m,
                            const dg_h5part *part, dg_snapshot_writer **out) {
  DG_CHECK(out != NULL && m != NULL && dir != NULL, DG_ERR_ARG, "snapshot writer: NULL argument");
  *out = NULL;
  DG_CHECK(dg_h5io_plain_name(prefix), DG_ERR_ARG,
           "snapshot prefix '%s' must be letters, digits, '_', '-' or '.'", prefix ? prefix : "");
  DG_CHECK(m->dim >= 1 && m->dim <= 3, DG_ERR_ARG, "snapshot mesh: dimension %d", m->dim);
  DG_CHECK(m->N >= 1 && m->Np == np_of(m->dim, m->N), DG_ERR_ARG,
           "snapshot mesh: Np %d does not match dim %d, order %d", m->Np, m->dim, m->N);
  DG_CHECK(m->K >= 1, DG_ERR_ARG, "snapshot mesh: %lld elements", (long long)m->K);
  DG_CHECK(!part || part->K == m->K, DG_ERR_ARG, "snapshot mesh: %lld elements, its part %lld",
           (long long)m->K, (long long)part->K);
  DG_CHECK(m->x && (m->dim < 2 || m->y) && (m->dim < 3 || m->z), DG_ERR_ARG,
           "snapshot mesh: missing coordinates for dimension %d", m->dim);
  DG_CALL(dg_h5io_mkdirs(dir));

  dg_snapshot_writer *w = calloc(1, sizeof *w);
  DG_CHECK(w != NULL, DG_ERR_MEMORY, "out of memory for a snapshot writer");
  w->dim = m->dim;
  w->N = m->N;
  w->Np = m->Np;
  w->formats = DG_SNAPSHOT_XDMF;
  w->K = part ? part->K_global : m->K;
  w->Kloc = m->K;
  w->part = part;
  w->nsub = dg_subcells_count(m->dim, m->N);
  int nv = m->dim + 1;
  int64_t nn = m->K * m->Np;
  w->dir = dup_str(dir);
  w->prefix = dup_str(prefix);
  w->xyz = malloc(sizeof(double) * (size_t)nn * 3);
  w->conn = malloc(sizeof(int64_t) * (size_t)(m->K * w->nsub * nv));
  int *local = malloc(sizeof(int) * (size_t)(w->nsub * nv));
  dg_error err = DG_OK;
  if (!w->dir || !w->prefix || !w->xyz || !w->conn || !local) {
    err = dg_error_raise(DG_ERR_MEMORY, __FILE__, __LINE__, __func__,
                         "out of memory for the snapshot mesh (%lld nodes)", (long long)nn);
    goto fail;
  }
  for (int64_t j = 0; j < m->K; ++j)
    for (int i = 0; i < m->Np; ++i) {
      int64_t n = j * m->Np + i, s = local_elem(w, j) * m->Np + i;
      w->xyz[3 * n] = m->x[s];
      w->xyz[3 * n + 1] = m->dim >= 2 ? m->y[s] : 0.0;
      w->xyz[3 * n + 2] = m->dim >= 3 ? m->z[s] : 0.0;
    }
  DG_CALL_GOTO(err, fail, dg_subcells_build(m->dim, m->N, local));
  for (int64_t j = 0; j < m->K; ++j) {
    int64_t g = part ? part->gid[j] : j;
    for (int c = 0; c < w->nsub * nv; ++c)
      w->conn[j * w->nsub * nv + c] = g * m->Np + local[c];
  }
  free(local);
  *out = w;
  return DG_OK;
fail:
  free(local);
  dg_snapshot_writer_destroy(&w);
  return err;
}

dg_error dg_snapshot_writer_create(const char *dir, const char *prefix,
                                   const dg_snapshot_mesh *m, dg_snapshot_writer **out) {
  DG_CALL(writer_init(dir, prefix, m, NULL, out));
  return DG_OK;
}

#if defined(DGRUN_HAVE_PARALLEL_HDF5)
dg_error dg_snapshot_writer_create_part(const char *dir, const char *prefix,
                                        const dg_snapshot_mesh *m, dg_comm *comm,
                                        const dg_h5part *part, dg_snapshot_writer **out) {
  dg_error err = comm && part ? writer_init(dir, prefix, m, part, out)
                              : dg_error_raise(DG_ERR_ARG, __FILE__, __LINE__, __func__,
                                               "snapshot writer: NULL communicator or part");
  err = dg_comm_agree(comm, err);
  if (err != DG_OK) {
    if (out)
      dg_snapshot_writer_destroy(out);
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  }
  (*out)->comm = comm;
  (*out)->rank = dg_comm_rank(comm);
  return DG_OK;
}
#else
dg_error dg_snapshot_writer_create_part(const char *dir, const char *prefix,
                                        const dg_snapshot_mesh *m, dg_comm *comm,
                                        const dg_h5part *part, dg_snapshot_writer **out) {
  (void)prefix, (void)m, (void)comm, (void)part;
  if (out)
    *out = NULL;
  DG_RAISE(DG_ERR_UNSUPPORTED,
           "cannot write snapshots to '%s' collectively: this dgrun was built with serial HDF5",
           dir ? dir : "");
}
#endif

static dg_error check_fields(const dg_snapshot_field *f, int nf, const dg_snapshot_norm *nm,
                             int nn) {
  DG_CHECK(nf >= 0 && (nf == 0 || f) && nn >= 0 && (nn == 0 || nm), DG_ERR_ARG,
           "snapshot: bad field list (%d fields, %d norms)", nf, nn);
  for (int i = 0; i < nf; ++i) {
    DG_CHECK(dg_h5io_plain_name(f[i].name), DG_ERR_ARG,
             "snapshot field name '%s' must be letters, digits, '_', '-' or '.'",
             f[i].name ? f[i].name : "");
    DG_CHECK(f[i].ncomp >= 1 && f[i].ncomp <= 3, DG_ERR_ARG,
             "snapshot field '%s': %d components (1, 2 or 3)", f[i].name, f[i].ncomp);
    DG_CHECK(f[i].real_size == 4 || f[i].real_size == 8, DG_ERR_ARG,
             "snapshot field '%s': value size %d (4 or 8)", f[i].name, f[i].real_size);
    for (int c = 0; c < f[i].ncomp; ++c)
      DG_CHECK(f[i].comp[c] != NULL, DG_ERR_ARG, "snapshot field '%s': component %d is NULL",
               f[i].name, c);
    for (int j = 0; j < i; ++j)
      DG_CHECK(strcmp(f[i].name, f[j].name) != 0, DG_ERR_ARG,
               "snapshot field '%s' is given twice", f[i].name);
  }
  for (int i = 0; i < nn; ++i) {
    DG_CHECK(dg_h5io_plain_name(nm[i].name), DG_ERR_ARG,
             "error-norm name '%s' must be letters, digits, '_', '-' or '.'",
             nm[i].name ? nm[i].name : "");
    for (int j = 0; j < i; ++j)
      DG_CHECK(strcmp(nm[i].name, nm[j].name) != 0, DG_ERR_ARG,
               "error norms of '%s' are given twice", nm[i].name);
  }
  return DG_OK;
}

/* Write one field: a scalar straight from the caller's array, a vector
 * interleaved into K*Np x 3 (ParaView's layout for Vector attributes). */
static dg_error write_field(dg_snapshot_writer *w, const dg_h5io_out *o, hid_t group,
                            const dg_snapshot_field *f, const char *path) {
  hid_t mt = f->real_size == 4 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
  uint64_t nn = (uint64_t)(w->K * w->Np);
  if (f->ncomp == 1 && !w->part) {
    uint64_t dims[1] = {nn};
    DG_CALL(dg_h5io_write(group, f->name, mt, 1, dims, f->comp[0], path));
    return DG_OK;
  }
  /* a partitioned writer's values in increasing global element id */
  size_t rs = (size_t)f->real_size, stride = f->ncomp > 1 ? 3 : 1;
  unsigned char *buf = calloc((size_t)(w->Kloc * w->Np) * stride + 1, rs);
  dg_error err = buf ? DG_OK
                     : dg_error_raise(DG_ERR_MEMORY, __FILE__, __LINE__, __func__,
                                      "out of memory for field '%s'", f->name);
  for (int c = 0; buf && c < f->ncomp; ++c) {
    const unsigned char *src = f->comp[c];
    for (int64_t j = 0; j < w->Kloc; ++j)
      for (int i = 0; i < w->Np; ++i) {
        size_t n = (size_t)(j * w->Np + i), s = (size_t)(local_elem(w, j) * w->Np + i);
        memcpy(buf + (stride * n + (size_t)c) * rs, src + s * rs, rs);
      }
  }
  err = agree(w, err);
  if (err == DG_OK && w->part) {
    err = dg_h5part_write(w->part, group, f->name, mt, w->Np, stride > 1 ? 3 : 0, buf, o->dxpl,
                          path);
  } else if (err == DG_OK) {
    uint64_t dims[2] = {nn, 3};
    err = dg_h5io_write(group, f->name, mt, 2, dims, buf, path);
  }
  free(buf);
  if (err != DG_OK)
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  return DG_OK;
}

static dg_error write_norms(hid_t file, const dg_snapshot_norm *nm, int nn, const char *path) {
  hid_t g = H5Gcreate2(file, "errors", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (g < 0)
    return DG_H5_RAISE(DG_ERR_IO, "cannot create group /errors in '%s'", path);
  dg_error err = DG_OK;
  for (int i = 0; i < nn && err == DG_OK; ++i) {
    char an[256];
    snprintf(an, sizeof an, "l2_%s", nm[i].name);
    err = dg_h5io_attr_put_f64(g, an, nm[i].l2, path);
    snprintf(an, sizeof an, "max_%s", nm[i].name);
    if (err == DG_OK)
      err = dg_h5io_attr_put_f64(g, an, nm[i].max, path);
  }
  H5Gclose(g);
  if (err != DG_OK)
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  return DG_OK;
}

/* A mesh dataset (rows per element, ncols columns) of the writer's
 * elements: all of them, or collectively this rank's part. */
static dg_error write_mesh_set(const dg_snapshot_writer *w, const dg_h5io_out *o, hid_t loc,
                               const char *name, hid_t mt, int rows, int ncols,
                               const void *data, const char *path) {
  if (w->part) {
    DG_CALL(dg_h5part_write(w->part, loc, name, mt, rows, ncols, data, o->dxpl, path));
    return DG_OK;
  }
  uint64_t dims[2] = {(uint64_t)(w->K * rows), (uint64_t)ncols};
  DG_CALL(dg_h5io_write(loc, name, mt, 2, dims, data, path));
  return DG_OK;
}

/* /mesh/region: each linear sub-cell's element's region id (XDMF cell data). */
static dg_error write_cell_regions(const dg_snapshot_writer *w, const dg_h5io_out *o, hid_t loc,
                                   const char *path) {
  int32_t *r = malloc(sizeof(int32_t) * (size_t)(w->Kloc * w->nsub + 1));
  DG_CHECK(r, DG_ERR_MEMORY, "out of memory");
  for (int64_t j = 0; j < w->Kloc; ++j)
    for (int c = 0; c < w->nsub; ++c)
      r[j * w->nsub + c] = w->eregion[j];
  dg_error err = write_mesh_set(w, o, loc, "region", H5T_NATIVE_INT32, w->nsub, 1, r, path);
  free(r);
  DG_CALL(err);
  return DG_OK;
}

/* The snapshot file; with a partitioned writer every step is collective
 * and ends in an agreement on errors (h5io.h). */
static dg_error write_h5(dg_snapshot_writer *w, const char *path, double time, int64_t step,
                         const dg_snapshot_field *f, int nf, const dg_snapshot_norm *nm,
                         int nn) {
  dg_h5io_out o;
#if defined(DGRUN_HAVE_PARALLEL_HDF5)
  if (w->part)
    DG_CALL(dg_h5io_create_coll(path, w->comm, NULL, &o));
  else
#endif
    DG_CALL(dg_h5io_create(path, NULL, &o));
  dg_error err = DG_OK;
  hid_t mesh = -1, fields = -1;
  DG_CALL_GOTO(err, attrs, dg_h5io_attr_put_f64(o.file, "time", time, path));
  DG_CALL_GOTO(err, attrs, dg_h5io_attr_put_i64(o.file, "step", step, path));
  DG_CALL_GOTO(err, attrs, dg_h5io_attr_put_str(o.file, "dgrun_version", DGRUN_VERSION, path));
  DG_CALL_GOTO(err, attrs, dg_h5io_attr_put_i64(o.file, "order", w->N, path));
  DG_CALL_GOTO(err, attrs, dg_h5io_attr_put_i64(o.file, "dim", w->dim, path));
  DG_CALL_GOTO(err, attrs, dg_h5io_attr_put_i64(o.file, "num_elements", w->K, path));
  DG_CALL_GOTO(err, attrs, dg_h5io_attr_put_i64(o.file, "nodes_per_element", w->Np, path));
attrs:
  DG_CALL_GOTO(err, fail, dg_h5io_agree(&o, err));
  mesh = H5Gcreate2(o.file, "mesh", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (mesh >= 0)
    fields = H5Gcreate2(o.file, "fields", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (mesh < 0 || fields < 0)
    err = DG_H5_RAISE(DG_ERR_IO, "cannot create groups in '%s'", path);
  DG_CALL_GOTO(err, fail, dg_h5io_agree(&o, err));
  DG_CALL_GOTO(err, fail,
               dg_h5io_agree(&o, write_mesh_set(w, &o, mesh, "coordinates", H5T_NATIVE_DOUBLE,
                                                w->Np, 3, w->xyz, path)));
  DG_CALL_GOTO(err, fail,
               dg_h5io_agree(&o, write_mesh_set(w, &o, mesh, "connectivity", H5T_NATIVE_INT64,
                                                w->nsub, w->dim + 1, w->conn, path)));
  if (w->eregion)
    DG_CALL_GOTO(err, fail, dg_h5io_agree(&o, write_cell_regions(w, &o, mesh, path)));
  for (int i = 0; i < nf; ++i)
    DG_CALL_GOTO(err, fail, dg_h5io_agree(&o, write_field(w, &o, fields, &f[i], path)));
  if (nn > 0)
    DG_CALL_GOTO(err, fail, dg_h5io_agree(&o, write_norms(o.file, nm, nn, path)));
  H5Gclose(mesh);
  H5Gclose(fields);
  DG_CALL(dg_h5io_finish(&o));
  return DG_OK;
fail:
  if (mesh >= 0)
    H5Gclose(mesh);
  if (fields >= 0)
    H5Gclose(fields);
  dg_h5io_abandon(&o);
  return err;
}

/* The XDMF <Grid> of one snapshot, indented for the collection.  Markers
 * around it let dg_snapshot_writer_resume find it again. */
static dg_error grid_text(const dg_snapshot_writer *w, double time, int64_t step,
                          const dg_snapshot_field *f, int nf, char **out) {
  static const char *topo[] = {"", "Polyline", "Triangle", "Tetrahedron"};
  char stem[512];
  snap_stem(w, step, stem, sizeof stem);
  char *text = NULL;
  size_t len = 0;
  FILE *s = open_memstream(&text, &len);
  DG_CHECK(s != NULL, DG_ERR_MEMORY, "out of memory for XDMF text");
  long long nn = (long long)(w->K * w->Np), nc = (long long)(w->K * w->nsub);
  fprintf(s, "    <!-- dgrun step=%lld -->\n", (long long)step);
  fprintf(s, "    <Grid Name=\"%s\" GridType=\"Uniform\">\n", stem);
  fprintf(s, "      <Time Value=\"%.17g\"/>\n", time);
  fprintf(s,
          "      <Topology TopologyType=\"%s\" NumberOfElements=\"%lld\" "
          "NodesPerElement=\"%d\">\n",
          topo[w->dim], nc, w->dim + 1);
  fprintf(s,
          "        <DataItem Dimensions=\"%lld %d\" NumberType=\"Int\" Precision=\"8\" "
          "Format=\"HDF\">%s.h5:/mesh/connectivity</DataItem>\n",
          nc, w->dim + 1, stem);
  fprintf(s, "      </Topology>\n");
  fprintf(s, "      <Geometry GeometryType=\"XYZ\">\n");
  fprintf(s,
          "        <DataItem Dimensions=\"%lld 3\" NumberType=\"Float\" Precision=\"8\" "
          "Format=\"HDF\">%s.h5:/mesh/coordinates</DataItem>\n",
          nn, stem);
  fprintf(s, "      </Geometry>\n");
  if (w->eregion) {
    fprintf(s, "      <Attribute Name=\"region\" AttributeType=\"Scalar\" Center=\"Cell\">\n");
    fprintf(s,
            "        <DataItem Dimensions=\"%lld 1\" NumberType=\"Int\" Precision=\"4\" "
            "Format=\"HDF\">%s.h5:/mesh/region</DataItem>\n",
            nc, stem);
    fprintf(s, "      </Attribute>\n");
  }
  for (int i = 0; i < nf; ++i) {
    int vec = f[i].ncomp > 1;
    fprintf(s, "      <Attribute Name=\"%s\" AttributeType=\"%s\" Center=\"Node\">\n",
            f[i].name, vec ? "Vector" : "Scalar");
    fprintf(s,
            "        <DataItem Dimensions=\"%lld%s\" NumberType=\"Float\" Precision=\"%d\" "
            "Format=\"HDF\">%s.h5:/fields/%s</DataItem>\n",
            nn, vec ? " 3" : "", f[i].real_size, stem, f[i].name);
    fprintf(s, "      </Attribute>\n");
  }
  fprintf(s, "    </Grid>\n");
  fprintf(s, "    <!-- dgrun end -->\n");
  int bad = ferror(s);
  fclose(s);
  if (bad || !text) {
    free(text);
    DG_RAISE(DG_ERR_MEMORY, "out of memory for XDMF text");
  }
  *out = text;
  return DG_OK;
}

static const char xdmf_head[] = "<?xml version=\"1.0\" ?>\n"
                                "<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
                                "<Xdmf Version=\"2.0\">\n"
                                "  <Domain>\n";
static const char xdmf_tail[] = "  </Domain>\n"
                                "</Xdmf>\n";

/* Write an XDMF document: head, the given grids (inside a temporal
 * collection when collection is set), tail. */
static dg_error write_xdmf(const char *path, const entry *e, int n, int collection) {
  char *text = NULL;
  size_t len = 0;
  FILE *s = open_memstream(&text, &len);
  DG_CHECK(s != NULL, DG_ERR_MEMORY, "out of memory for XDMF text");
  fputs(xdmf_head, s);
  if (collection)
    fputs("    <Grid Name=\"TimeSeries\" GridType=\"Collection\" "
          "CollectionType=\"Temporal\">\n",
          s);
  for (int i = 0; i < n; ++i)
    fputs(e[i].grid, s);
  if (collection)
    fputs("    </Grid>\n", s);
  fputs(xdmf_tail, s);
  int bad = ferror(s);
  fclose(s);
  if (bad || !text) {
    free(text);
    DG_RAISE(DG_ERR_MEMORY, "out of memory for XDMF text");
  }
  dg_error err = dg_h5io_write_text(path, text, len);
  free(text);
  if (err != DG_OK)
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  return DG_OK;
}

/* The entry list with `add` put in step order (replacing one of equal step);
 * the old list is not changed.  Takes ownership of add.grid. */
static dg_error entries_with(const dg_snapshot_writer *w, entry add, entry **out, int *nout) {
  entry *e = malloc(sizeof(entry) * (size_t)(w->nentries + 1));
  if (!e) {
    free(add.grid);
    DG_RAISE(DG_ERR_MEMORY, "out of memory for the snapshot list");
  }
  int n = 0, placed = 0;
  for (int i = 0; i < w->nentries; ++i) {
    if (!placed && add.step <= w->entries[i].step) {
      e[n++] = add;
      placed = 1;
    }
    if (w->entries[i].step != add.step)
      e[n++] = w->entries[i];
  }
  if (!placed)
    e[n++] = add;
  *out = e;
  *nout = n;
  return DG_OK;
}

/* The HDF5 + XDMF files of one snapshot and the XDMF collection. */
static dg_error write_xdmf_step(dg_snapshot_writer *w, double time, int64_t step,
                                const dg_snapshot_field *f, int nf, const dg_snapshot_norm *nm,
                                int nn) {
  char mid[64];
  snprintf(mid, sizeof mid, "_%06lld", (long long)step);
  char *h5 = NULL, *xd = NULL, *coll = NULL, *grid = NULL;
  entry *list = NULL;
  int nlist = 0, h5_done = 0, xd_done = 0;
  dg_error err = DG_OK;
  DG_CALL_GOTO(err, names, join(w, mid, ".h5", &h5));
  DG_CALL_GOTO(err, names, join(w, mid, ".xdmf", &xd));
  DG_CALL_GOTO(err, names, join(w, "", ".xdmf", &coll));
names:
  DG_CALL_GOTO(err, fail, agree(w, err));
  DG_CALL_GOTO(err, fail, write_h5(w, h5, time, step, f, nf, nm, nn));
  h5_done = 1;
  /* Every rank of a collective writer keeps the collection list; rank 0
   * writes the XDMF files. */
  DG_CALL_GOTO(err, fail, agree(w, grid_text(w, time, step, f, nf, &grid)));
  entry one = {step, grid};
  DG_CALL_GOTO(err, fail, agree(w, w->rank == 0 ? write_xdmf(xd, &one, 1, 0) : DG_OK));
  xd_done = 1;
  grid = NULL; /* entries_with owns it from here, even when it fails */
  DG_CALL_GOTO(err, fail, agree(w, entries_with(w, one, &list, &nlist)));
  DG_CALL_GOTO(err, fail, agree(w, w->rank == 0 ? write_xdmf(coll, list, nlist, 1) : DG_OK));
  /* committed: free the grid this step replaced, if any */
  for (int i = 0; i < w->nentries; ++i)
    if (w->entries[i].step == step)
      free(w->entries[i].grid);
  free(w->entries);
  w->entries = list;
  w->nentries = nlist;
  free(w->last_path);
  w->last_path = h5;
  free(xd);
  free(coll);
  return DG_OK;
fail:
  /* no half snapshot: remove what this call already committed */
  if (xd_done && w->rank == 0)
    unlink(xd);
  if (h5_done && w->rank == 0)
    unlink(h5);
  if (list)
    for (int i = 0; i < nlist; ++i)
      if (list[i].step == step)
        free(list[i].grid);
  free(list);
  free(grid);
  free(h5);
  free(xd);
  free(coll);
  return err;
}

dg_error dg_snapshot_writer_set_formats(dg_snapshot_writer *w, int formats,
                                        const int *elem_rank) {
  DG_CHECK(w && formats >= 1 && formats <= (DG_SNAPSHOT_XDMF | DG_SNAPSHOT_VTKHDF) &&
               w->nv == 0 && !w->mesh_done,
           DG_ERR_ARG, "snapshot: bad formats %d, or set after the first snapshot", formats);
  w->formats = formats;
  if (!(formats & DG_SNAPSHOT_VTKHDF))
    return DG_OK;
  free(w->I);
  free(w->erank);
  w->I = malloc(sizeof(double) * (size_t)(w->Np * w->Np));
  w->erank = elem_rank ? malloc(sizeof(int) * (size_t)(w->Kloc + 1)) : NULL;
  DG_CHECK(w->I && (w->erank || !elem_rank), DG_ERR_MEMORY, "out of memory");
  for (int64_t j = 0; elem_rank && j < w->Kloc; ++j)
    w->erank[j] = elem_rank[local_elem(w, j)];
  dg_refelem *re = NULL;
  DG_CALL(dg_refelem_create(w->dim, w->N, &re));
  dg_error err = dg_vtk_lagrange_interp(re, w->I);
  dg_refelem_destroy(&re);
  DG_CALL(err);
  return DG_OK;
}

dg_error dg_snapshot_writer_set_regions(dg_snapshot_writer *w, const int *region) {
  DG_CHECK(w && region && w->nv == 0 && !w->mesh_done, DG_ERR_ARG,
           "snapshot: regions set after the first snapshot");
  free(w->eregion);
  w->eregion = malloc(sizeof(int) * (size_t)(w->Kloc + 1));
  DG_CHECK(w->eregion, DG_ERR_MEMORY, "out of memory");
  for (int64_t j = 0; j < w->Kloc; ++j)
    w->eregion[j] = region[local_elem(w, j)];
  return DG_OK;
}

static dg_vtkhdf_layout vtk_layout(const dg_snapshot_writer *w) {
  dg_vtkhdf_layout l = {w->dim, w->N, w->Np, w->K, w->Kloc, w->part, w->comm, w->rank,
                        w->part ? w->part->order : NULL, w->part ? w->part->gid : NULL, w->I,
                        w->eregion};
  return l;
}

/* The series file: every listed step's "<prefix>_<step>.hdf". */
static dg_error vtk_series(const dg_snapshot_writer *w, const int64_t *steps,
                           const double *times, int n) {
  char *path = NULL, **names = calloc((size_t)n + 1, sizeof(char *));
  dg_error err = names ? join(w, "", ".hdf.series", &path)
                       : dg_error_raise(DG_ERR_MEMORY, __FILE__, __LINE__, __func__,
                                        "out of memory");
  for (int i = 0; err == DG_OK && i < n; ++i) {
    char stem[512];
    snap_stem(w, steps[i], stem, sizeof stem);
    names[i] = malloc(strlen(stem) + 8);
    if (!names[i])
      err = dg_error_raise(DG_ERR_MEMORY, __FILE__, __LINE__, __func__, "out of memory");
    else
      snprintf(names[i], strlen(stem) + 8, "%s.hdf", stem);
  }
  if (err == DG_OK)
    err = dg_vtkhdf_write_series(path, names, times, n);
  for (int i = 0; names && i < n; ++i)
    free(names[i]);
  free(names);
  free(path);
  DG_CALL(err);
  return DG_OK;
}

/* Insert (step, time) into the series lists (replacing an equal step). */
static dg_error vtk_add(dg_snapshot_writer *w, int64_t step, double time) {
  int64_t *s = realloc(w->vsteps, sizeof(int64_t) * (size_t)(w->nv + 1));
  if (s)
    w->vsteps = s;
  double *t = s ? realloc(w->vtimes, sizeof(double) * (size_t)(w->nv + 1)) : NULL;
  DG_CHECK(s && t, DG_ERR_MEMORY, "out of memory for the snapshot list");
  w->vtimes = t;
  int i = 0;
  while (i < w->nv && w->vsteps[i] < step)
    i++;
  if (i == w->nv || w->vsteps[i] != step) {
    memmove(s + i + 1, s + i, sizeof(int64_t) * (size_t)(w->nv - i));
    memmove(t + i + 1, t + i, sizeof(double) * (size_t)(w->nv - i));
    w->nv++;
  }
  s[i] = step;
  t[i] = time;
  return DG_OK;
}

/* The VTKHDF snapshot of one step (and the mesh file with the first). */
static dg_error write_vtkhdf_step(dg_snapshot_writer *w, double time, int64_t step,
                                  const dg_snapshot_field *f, int nf,
                                  const dg_snapshot_field *pf, int npf, char **done_path) {
  dg_vtkhdf_layout l = vtk_layout(w);
  char mid[64], mesh_name[512];
  snprintf(mid, sizeof mid, "_%06lld", (long long)step);
  snprintf(mesh_name, sizeof mesh_name, "%s_mesh.hdf", w->prefix);
  char *path = NULL, *mesh = NULL;
  dg_error err = join(w, mid, ".hdf", &path);
  if (err == DG_OK)
    err = join(w, "_mesh", ".hdf", &mesh);
  DG_CALL_GOTO(err, fail, agree(w, err));
  if (!w->mesh_done)
    DG_CALL_GOTO(err, fail, agree(w, dg_vtkhdf_write_mesh(mesh, &l, w->xyz, w->erank)));
  w->mesh_done = 1;
  DG_CALL_GOTO(err, fail, agree(w, dg_vtkhdf_write_snapshot(path, mesh_name, &l, time, step,
                                                             f, nf, pf, npf)));
  free(mesh);
  *done_path = path;
  return DG_OK;
fail:
  free(path);
  free(mesh);
  return err;
}

dg_error dg_snapshot_writer_write(dg_snapshot_writer *w, double time, int64_t step,
                                  const dg_snapshot_field *f, int nf,
                                  const dg_snapshot_norm *nm, int nn) {
  DG_CALL(dg_snapshot_writer_write_with(w, time, step, f, nf, NULL, 0, nm, nn));
  return DG_OK;
}

/* The point fields: as check_fields, names unique over both lists. */
static dg_error check_point_fields(const dg_snapshot_field *f, int nf,
                                   const dg_snapshot_field *pf, int npf) {
  DG_CALL(check_fields(pf, npf, NULL, 0));
  for (int i = 0; i < npf; ++i)
    for (int j = 0; j < nf; ++j)
      DG_CHECK(strcmp(pf[i].name, f[j].name) != 0, DG_ERR_ARG,
               "snapshot field '%s' is given twice", pf[i].name);
  return DG_OK;
}

dg_error dg_snapshot_writer_write_with(dg_snapshot_writer *w, double time, int64_t step,
                                       const dg_snapshot_field *f, int nf,
                                       const dg_snapshot_field *pf, int npf,
                                       const dg_snapshot_norm *nm, int nn) {
  DG_CHECK(w != NULL, DG_ERR_ARG, "snapshot: NULL writer");
  DG_CHECK(isfinite(time) && step >= 0, DG_ERR_ARG, "snapshot: bad time %g or step %lld", time,
           (long long)step);
  DG_CALL(agree(w, check_fields(f, nf, nm, nn)));
  DG_CALL(agree(w, check_point_fields(f, nf, pf, npf)));
  if (!(w->formats & DG_SNAPSHOT_VTKHDF)) {
    DG_CALL(write_xdmf_step(w, time, step, f, nf, nm, nn));
    return DG_OK;
  }
  /* VTKHDF file, then the XDMF files, then the series: a failure on the
   * way removes this step's VTKHDF file (the XDMF writer cleans its own) */
  char *vpath = NULL;
  DG_CALL(write_vtkhdf_step(w, time, step, f, nf, pf, npf, &vpath));
  dg_error err = DG_OK;
  if (w->formats & DG_SNAPSHOT_XDMF)
    err = write_xdmf_step(w, time, step, f, nf, nm, nn);
  int64_t *s0 = NULL;
  double *t0 = NULL;
  int n0 = w->nv;
  if (err == DG_OK && n0 > 0) {
    s0 = malloc(sizeof(int64_t) * (size_t)n0);
    t0 = malloc(sizeof(double) * (size_t)n0);
    if (!s0 || !t0)
      err = dg_error_raise(DG_ERR_MEMORY, __FILE__, __LINE__, __func__, "out of memory");
    else {
      memcpy(s0, w->vsteps, sizeof(int64_t) * (size_t)n0);
      memcpy(t0, w->vtimes, sizeof(double) * (size_t)n0);
    }
  }
  if (err == DG_OK)
    err = vtk_add(w, step, time);
  if (err == DG_OK)
    err = agree(w, w->rank == 0 ? vtk_series(w, w->vsteps, w->vtimes, w->nv) : DG_OK);
  if (err != DG_OK) {
    if (s0) { /* the series as it was */
      memcpy(w->vsteps, s0, sizeof(int64_t) * (size_t)n0);
      memcpy(w->vtimes, t0, sizeof(double) * (size_t)n0);
    }
    w->nv = n0;
    if (w->rank == 0)
      unlink(vpath);
    free(vpath);
  } else if (!(w->formats & DG_SNAPSHOT_XDMF)) {
    free(w->last_path);
    w->last_path = vpath;
  } else {
    free(vpath);
  }
  free(s0);
  free(t0);
  DG_CALL(err);
  return DG_OK;
}

/* dg_snapshot_writer_resume for the VTKHDF series: keep a listed step <= the
 * restart's whose file still exists. */
typedef struct vtk_keep_ctx {
  dg_snapshot_writer *w;
  int64_t step;
} vtk_keep_ctx;

static dg_error vtk_keep(void *ctx, const char *name, double time) {
  vtk_keep_ctx *c = ctx;
  size_t np = strlen(c->w->prefix);
  long long s = -1;
  if (strncmp(name, c->w->prefix, np) != 0 || sscanf(name + np, "_%lld.hdf", &s) != 1 ||
      s < 0 || s > c->step)
    return DG_OK;
  char *path = NULL;
  char mid[64];
  snprintf(mid, sizeof mid, "_%06lld", s);
  DG_CALL(join(c->w, mid, ".hdf", &path));
  struct stat st;
  int exists = stat(path, &st) == 0;
  free(path);
  if (exists)
    DG_CALL(vtk_add(c->w, s, time));
  return DG_OK;
}

static dg_error vtk_resume(dg_snapshot_writer *w, int64_t step) {
  char *path = NULL;
  DG_CALL(join(w, "", ".hdf.series", &path));
  w->nv = 0;
  vtk_keep_ctx c = {w, step};
  dg_error err = dg_vtkhdf_read_series(path, vtk_keep, &c);
  free(path);
  if (err == DG_OK && w->rank == 0)
    err = vtk_series(w, w->vsteps, w->vtimes, w->nv);
  DG_CALL(err);
  return DG_OK;
}

/* Read a whole text file (NUL-terminated, malloc'd); *out NULL if missing. */
static dg_error slurp(const char *path, char **out) {
  *out = NULL;
  struct stat st;
  if (lstat(path, &st) != 0 && errno == ENOENT)
    return DG_OK;
  FILE *fp;
  DG_CALL(dg_fsutil_fopen_input(path, "XDMF file", &fp));
  char *buf = NULL;
  size_t len = 0, cap = 0;
  for (;;) {
    if (len + 4096 + 1 > cap) {
      cap = 2 * cap + 4096 + 1;
      char *nb = realloc(buf, cap);
      if (!nb) {
        free(buf);
        fclose(fp);
        DG_RAISE(DG_ERR_MEMORY, "out of memory reading '%s'", path);
      }
      buf = nb;
    }
    size_t r = fread(buf + len, 1, 4096, fp);
    len += r;
    if (r < 4096)
      break;
  }
  int bad = ferror(fp);
  fclose(fp);
  if (bad) {
    free(buf);
    DG_RAISE(DG_ERR_IO, "cannot read '%s'", path);
  }
  buf[len] = '\0';
  *out = buf;
  return DG_OK;
}

dg_error dg_snapshot_writer_resume(dg_snapshot_writer *w, int64_t step) {
  DG_CHECK(w != NULL, DG_ERR_ARG, "snapshot: NULL writer");
  char *coll = NULL, *text = NULL;
  DG_CALL(join(w, "", ".xdmf", &coll));
  dg_error err = DG_OK;
  DG_CALL_GOTO(err, done, slurp(coll, &text));
  entries_free(w->entries, w->nentries);
  w->entries = NULL;
  w->nentries = 0;
  static const char begin[] = "    <!-- dgrun step=", end[] = "    <!-- dgrun end -->\n";
  for (const char *p = text ? strstr(text, begin) : NULL; p; p = strstr(p, begin)) {
    long long s = -1;
    const char *stop = strstr(p, end);
    if (sscanf(p + sizeof begin - 1, "%lld", &s) != 1 || !stop)
      break; /* a damaged tail: keep what was read so far */
    stop += sizeof end - 1;
    char stem[512], *h5 = NULL;
    snap_stem(w, s, stem, sizeof stem);
    struct stat st;
    DG_CALL_GOTO(err, done, join(w, stem + strlen(w->prefix), ".h5", &h5));
    int exists = stat(h5, &st) == 0;
    free(h5);
    if (s >= 0 && s <= step && exists) {
      entry e = {s, malloc((size_t)(stop - p) + 1)};
      if (!e.grid) {
        err = dg_error_raise(DG_ERR_MEMORY, __FILE__, __LINE__, __func__, "out of memory");
        goto done;
      }
      memcpy(e.grid, p, (size_t)(stop - p));
      e.grid[stop - p] = '\0';
      entry *list;
      int n;
      DG_CALL_GOTO(err, done, entries_with(w, e, &list, &n));
      free(w->entries); /* the grids moved to list */
      w->entries = list;
      w->nentries = n;
    }
    p = stop;
  }
  if (text && w->rank == 0)
    DG_CALL_GOTO(err, done, write_xdmf(coll, w->entries, w->nentries, 1));
  if (w->formats & DG_SNAPSHOT_VTKHDF)
    DG_CALL_GOTO(err, done, vtk_resume(w, step));
done:
  free(text);
  free(coll);
  /* (a collective writer: every rank read the collection; rank 0 wrote it) */
  return agree(w, err);
}

#else /* no HDF5 */

dg_error dg_snapshot_writer_create(const char *dir, const char *prefix,
                                   const dg_snapshot_mesh *mesh, dg_snapshot_writer **out) {
  (void)prefix;
  (void)mesh;
  if (out)
    *out = NULL;
  DG_RAISE(DG_ERR_UNSUPPORTED,
           "cannot write snapshots to '%s': this dgrun was built without HDF5 "
           "(install libhdf5-dev and rebuild)",
           dir ? dir : "");
}

dg_error dg_snapshot_writer_create_part(const char *dir, const char *prefix,
                                        const dg_snapshot_mesh *mesh, dg_comm *comm,
                                        const dg_h5part *part, dg_snapshot_writer **out) {
  (void)comm, (void)part;
  DG_CALL(dg_snapshot_writer_create(dir, prefix, mesh, out));
  return DG_OK;
}

dg_error dg_snapshot_writer_resume(dg_snapshot_writer *w, int64_t step) {
  (void)w;
  (void)step;
  DG_RAISE(DG_ERR_UNSUPPORTED, "snapshots need HDF5");
}

dg_error dg_snapshot_writer_write(dg_snapshot_writer *w, double time, int64_t step,
                                  const dg_snapshot_field *f, int nf,
                                  const dg_snapshot_norm *nm, int nn) {
  (void)w, (void)time, (void)step, (void)f, (void)nf, (void)nm, (void)nn;
  DG_RAISE(DG_ERR_UNSUPPORTED, "snapshots need HDF5");
}

#endif
