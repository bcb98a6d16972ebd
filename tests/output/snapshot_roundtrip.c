/* problems.snapshot_roundtrip: snapshots in 1D, 2D and 3D written, then read
 * back through the HDF5 API and compared with the values given (bitwise for
 * the fields, in float and double); attributes and error norms present; the
 * XDMF files well-formed with every referenced dataset present at the
 * declared size; the temporal collection lists every step in order (a
 * rewritten step replaced, not duplicated); no temp files remain. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "problems/io/snapshot.h"
#include "problems/io/subcells.h"
#include "testutil.h"

#if !defined(DGRUN_HAVE_HDF5)
int main(void) { return 77; }
#else
#include <hdf5.h>

static double urand(void) { return (double)(tu_rand() >> 11) / 9007199254740992.0 * 2.0 - 1.0; }

static void *read_all(hid_t f, const char *name, hid_t mt, size_t elem, size_t want_n,
                      int want_rank, int want_cols) {
  hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
  EXPECT(d >= 0, "dataset %s missing", name);
  if (d < 0)
    return NULL;
  hid_t s = H5Dget_space(d);
  hsize_t dims[3] = {0, 0, 0};
  int rank = H5Sget_simple_extent_dims(s, dims, NULL);
  H5Sclose(s);
  size_t n = rank == 2 ? dims[0] * dims[1] : dims[0];
  EXPECT(rank == want_rank && n == want_n && (rank == 1 || dims[1] == (hsize_t)want_cols),
         "%s: rank %d dims %llu x %llu", name, rank, (unsigned long long)dims[0],
         (unsigned long long)dims[1]);
  void *buf = NULL;
  if (rank == want_rank && n == want_n) {
    buf = malloc(elem * n);
    EXPECT(H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0, "read %s", name);
  }
  H5Dclose(d);
  return buf;
}

/* A scalar attribute read as mtype into v (left as is when missing). */
static void attr_read(hid_t obj, const char *name, hid_t mtype, void *v) {
  hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
  EXPECT(a >= 0, "attribute %s missing", name);
  if (a >= 0) {
    H5Aread(a, mtype, v);
    H5Aclose(a);
  }
}

static double attr_f64(hid_t obj, const char *name) {
  double v = NAN;
  attr_read(obj, name, H5T_NATIVE_DOUBLE, &v);
  return v;
}

static long long attr_i64(hid_t obj, const char *name) {
  long long v = -999;
  attr_read(obj, name, H5T_NATIVE_LLONG, &v);
  return v;
}

enum { K = 5, NSTEPS = 3 };

typedef struct {
  double *u;        /* scalar, double */
  float *rho;       /* scalar, float */
  double *E[3];     /* vector, double */
  double l2, max;   /* norms of u */
  double time;
  long long step;
} frame;

static void check_file(const char *dir, int dim, int N, int Np, int ncomp, const double *x[3],
                       const frame *fr) {
  char path[4096];
  snprintf(path, sizeof path, "%s/run_%06lld.h5", dir, fr->step);
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  EXPECT(f >= 0, "cannot open %s", path);
  if (f < 0)
    return;
  EXPECT(attr_f64(f, "time") == fr->time, "time attribute");
  EXPECT(attr_i64(f, "step") == fr->step, "step attribute");
  EXPECT(attr_i64(f, "order") == N, "order attribute");
  EXPECT(attr_i64(f, "dim") == dim, "dim attribute");
  EXPECT(attr_i64(f, "num_elements") == K, "num_elements attribute");
  EXPECT(attr_i64(f, "nodes_per_element") == Np, "nodes_per_element attribute");
  EXPECT(H5Aexists(f, "dgrun_version") > 0, "dgrun_version attribute");
  size_t nn = (size_t)K * (size_t)Np;

  double *xyz = read_all(f, "/mesh/coordinates", H5T_NATIVE_DOUBLE, 8, nn * 3, 2, 3);
  for (size_t n = 0; xyz && n < nn; ++n)
    for (int d = 0; d < 3; ++d)
      EXPECT(xyz[3 * n + d] == (d < dim ? x[d][n] : 0.0), "coordinate %zu.%d", n, d);
  free(xyz);

  int nsub = dg_subcells_count(dim, N), nv = dim + 1;
  int64_t *conn = read_all(f, "/mesh/connectivity", H5T_NATIVE_INT64, 8,
                           (size_t)(K * nsub * nv), 2, nv);
  int local[512 * 4];
  dg_subcells_build(dim, N, local);
  for (int k = 0; conn && k < K; ++k)
    for (int c = 0; c < nsub * nv; ++c)
      EXPECT(conn[k * nsub * nv + c] == (int64_t)k * Np + local[c],
             "connectivity of element %d entry %d", k, c);
  free(conn);

  double *u = read_all(f, "/fields/u", H5T_NATIVE_DOUBLE, 8, nn, 1, 1);
  EXPECT(u && !memcmp(u, fr->u, nn * 8), "field u differs");
  free(u);
  float *rho = read_all(f, "/fields/rho", H5T_NATIVE_FLOAT, 4, nn, 1, 1);
  EXPECT(rho && !memcmp(rho, fr->rho, nn * 4), "field rho differs");
  free(rho);
  double *E = read_all(f, "/fields/E", H5T_NATIVE_DOUBLE, 8, nn * 3, 2, 3);
  for (size_t n = 0; E && n < nn; ++n)
    for (int c = 0; c < 3; ++c)
      EXPECT(E[3 * n + c] == (c < ncomp ? fr->E[c][n] : 0.0), "E %zu.%d", n, c);
  free(E);

  hid_t g = H5Gopen2(f, "errors", H5P_DEFAULT);
  EXPECT(g >= 0, "group /errors missing");
  if (g >= 0) {
    EXPECT(attr_f64(g, "l2_u") == fr->l2, "l2_u");
    EXPECT(attr_f64(g, "max_u") == fr->max, "max_u");
    H5Gclose(g);
  }
  H5Fclose(f);

  snprintf(path, sizeof path, "%s/run_%06lld.xdmf", dir, fr->step);
  tu_xdmf xd = tu_xdmf_check(path);
  static const char *topo[] = {"", "Polyline", "Triangle", "Tetrahedron"};
  EXPECT(xd.grids == 1 && xd.collections == 0, "%s: %d grids", path, xd.grids);
  EXPECT(xd.times[0] == fr->time, "%s: time %g", path, xd.times[0]);
  EXPECT(!strcmp(xd.topology, topo[dim]), "%s: topology %s", path, xd.topology);
  EXPECT(xd.data_items == 5, "%s: %d data items", path, xd.data_items);
}

static void run(const char *root, int dim, int N) {
  char sub[4200];
  snprintf(sub, sizeof sub, "%s/d%dn%d/deeper", root, dim, N); /* created by the writer */
  int Np = dim == 1 ? N + 1 : dim == 2 ? (N + 1) * (N + 2) / 2 : (N + 1) * (N + 2) * (N + 3) / 6;
  size_t nn = (size_t)K * (size_t)Np;
  int ncomp = dim == 3 ? 3 : 2;
  double *x[3];
  for (int d = 0; d < 3; ++d) {
    x[d] = malloc(nn * 8);
    for (size_t n = 0; n < nn; ++n)
      x[d][n] = urand();
  }
  dg_snapshot_mesh mesh = {dim, N, Np, K, x[0], dim > 1 ? x[1] : NULL, dim > 2 ? x[2] : NULL};
  dg_snapshot_writer *w = NULL;
  dg_error err = dg_snapshot_writer_create(sub, "run", &mesh, &w);
  EXPECT(err == DG_OK, "create: %s", dg_error_message());
  for (int d = 0; d < 3; ++d) /* the writer must have copied the mesh */
    for (size_t n = 0; n < nn; ++n)
      x[d][n] = -x[d][n];

  frame fr[NSTEPS + 1];
  for (int s = 0; s <= NSTEPS; ++s) {
    /* the last frame rewrites step 14 with new data and time */
    fr[s].step = s < NSTEPS ? 7 * s : 14;
    fr[s].time = s < NSTEPS ? 0.25 * s : 0.75;
    fr[s].u = malloc(nn * 8);
    fr[s].rho = malloc(nn * 4);
    for (size_t n = 0; n < nn; ++n) {
      fr[s].u[n] = urand();
      fr[s].rho[n] = (float)urand();
    }
    for (int c = 0; c < 3; ++c) {
      fr[s].E[c] = malloc(nn * 8);
      for (size_t n = 0; n < nn; ++n)
        fr[s].E[c][n] = urand();
    }
    fr[s].l2 = fabs(urand());
    fr[s].max = fabs(urand());
    dg_snapshot_field f[3] = {
        {"u", 1, 8, {fr[s].u, NULL, NULL}},
        {"rho", 1, 4, {fr[s].rho, NULL, NULL}},
        {"E", ncomp, 8, {fr[s].E[0], fr[s].E[1], fr[s].E[2]}},
    };
    dg_snapshot_norm nm = {"u", fr[s].l2, fr[s].max};
    err = dg_snapshot_writer_write(w, fr[s].time, fr[s].step, f, 3, &nm, 1);
    EXPECT(err == DG_OK, "write step %lld: %s", fr[s].step, dg_error_message());
  }
  EXPECT(strstr(dg_snapshot_writer_last_path(w), "/run_000014.h5") != NULL, "last path %s",
         dg_snapshot_writer_last_path(w));
  dg_snapshot_writer_destroy(&w);
  EXPECT(w == NULL, "destroy did not clear the pointer");
  for (int d = 0; d < 3; ++d)
    for (size_t n = 0; n < nn; ++n)
      x[d][n] = -x[d][n];
  const double *cx[3] = {x[0], x[1], x[2]};
  check_file(sub, dim, N, Np, ncomp, cx, &fr[0]);
  check_file(sub, dim, N, Np, ncomp, cx, &fr[1]);
  check_file(sub, dim, N, Np, ncomp, cx, &fr[3]);

  char coll[4300];
  snprintf(coll, sizeof coll, "%s/run.xdmf", sub);
  tu_xdmf xd = tu_xdmf_check(coll);
  EXPECT(xd.collections == 1, "collection: %d temporal collections", xd.collections);
  EXPECT(xd.grids == 3, "collection: %d grids, want 3", xd.grids);
  EXPECT(xd.times[0] == 0.0 && xd.times[1] == 0.25 && xd.times[2] == 0.75,
         "collection times %g %g %g", xd.times[0], xd.times[1], xd.times[2]);
  EXPECT(xd.data_items == 15, "collection: %d data items", xd.data_items);
  EXPECT(tu_count(sub, ".tmp.") == 0, "temp files left in %s", sub);
  EXPECT(tu_count(sub, ".h5") == 3 && tu_count(sub, ".xdmf") == 4, "files: %d h5, %d xdmf",
         tu_count(sub, ".h5"), tu_count(sub, ".xdmf"));

  for (int s = 0; s <= NSTEPS; ++s) {
    free(fr[s].u);
    free(fr[s].rho);
    for (int c = 0; c < 3; ++c)
      free(fr[s].E[c]);
  }
  for (int d = 0; d < 3; ++d)
    free(x[d]);
}

int main(void) {
  char root[4096];
  tu_mkdtemp(root, sizeof root);
  run(root, 1, 3);
  run(root, 2, 1);
  run(root, 2, 4);
  run(root, 3, 2);
  run(root, 3, 3);
  return tu_finish(root, failures);
}
#endif
