/* The checker of problems.vtkhdf_maxwell2d/3d and problems.mpi_vtkhdf_*: reads the
 * VTKHDF output of a Maxwell run (maxwell2d_tm or maxwell3d, a snapshot at t = 0)
 * through the HDF5 C API and checks, against values known independently of the writer:
 *  - /VTKHDF: Version [1, 0], Type "UnstructuredGrid" (16 characters, as the VTKHDF
 *    specification stores it); NumberOfPoints = K*Np, NumberOfCells = K,
 *    NumberOfConnectivityIds = K*Np; Types all 69 (2D) / 71 (3D); Offsets k*Np;
 *    Connectivity 0..K*Np-1;
 *  - the mesh datasets and CellData of the snapshot are external links into
 *    <name>_mesh.hdf; element_id is a permutation of 0..K-1 (here: the identity, the
 *    files are in global element order); rank lies in 0..R-1 and every rank owns
 *    an element;
 *  - the points of each cell are the equispaced points of the affine element in VTK's
 *    order: point p = v0 + sum_a (ijk_a / N) (v_a - v0) with the cell's vertices
 *    (its points 0..dim) and ijk from dg_vtk_lagrange_points;
 *  - at t = 0 the fields equal the exact solution at the points to interpolation
 *    accuracy (Ez = sin(pi x) sin(pi y), E = (0, 0, Ez), H = 0: below 1e-2 for
 *    N = 3 on h = 1/4), and error_<field> = field - exact to 1e-12;
 *  - FieldData time 0, step 0; the series file lists the steps given.
 * usage: vtkhdf_check DIR NAME DIM N K RANKS STEP... */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "problems/io/vtk_lagrange.h"
#include "testutil.h"

#if !defined(DGRUN_HAVE_HDF5)
int main(void) { return 77; }
#else
#include <hdf5.h>

static const double PI = 3.14159265358979323846;

/* Dataset name under loc read as mt (n values, checked). */
static void *read_set(hid_t loc, const char *name, hid_t mt, size_t elem, size_t n) {
  hid_t d = H5Dopen2(loc, name, H5P_DEFAULT);
  EXPECT(d >= 0, "dataset %s missing", name);
  if (d < 0)
    return NULL;
  hid_t s = H5Dget_space(d);
  hssize_t have = H5Sget_simple_extent_npoints(s);
  H5Sclose(s);
  EXPECT(have == (hssize_t)n, "%s: %lld values, not %zu", name, (long long)have, n);
  void *buf = NULL;
  if (have == (hssize_t)n) {
    buf = malloc(elem * n + 1);
    EXPECT(H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0, "read %s", name);
  }
  H5Dclose(d);
  return buf;
}

static void expect_external(hid_t loc, const char *name, const char *file) {
  H5L_info_t li;
  EXPECT(H5Lget_info(loc, name, &li, H5P_DEFAULT) >= 0 && li.type == H5L_TYPE_EXTERNAL,
         "%s is not an external link", name);
  char val[512];
  const char *f = NULL, *obj = NULL;
  unsigned flags;
  if (li.type == H5L_TYPE_EXTERNAL && li.u.val_size <= sizeof val &&
      H5Lget_val(loc, name, val, sizeof val, H5P_DEFAULT) >= 0)
    H5Lunpack_elink_val(val, li.u.val_size, &flags, &f, &obj);
  EXPECT(f && strcmp(f, file) == 0, "%s links to '%s', not '%s'", name, f ? f : "", file);
}

static void check_header(hid_t g) {
  int64_t version[2] = {0, 0};
  hid_t a = H5Aopen(g, "Version", H5P_DEFAULT);
  EXPECT(a >= 0 && H5Aread(a, H5T_NATIVE_INT64, version) >= 0 && version[0] == 1 &&
             version[1] == 0,
         "Version %lld.%lld", (long long)version[0], (long long)version[1]);
  if (a >= 0)
    H5Aclose(a);
  a = H5Aopen(g, "Type", H5P_DEFAULT);
  hid_t t = a >= 0 ? H5Aget_type(a) : -1;
  char buf[64] = "";
  EXPECT(t >= 0 && H5Tget_class(t) == H5T_STRING && H5Tget_size(t) == 16 &&
             H5Aread(a, t, buf) >= 0 && memcmp(buf, "UnstructuredGrid", 16) == 0,
         "Type attribute");
  if (t >= 0)
    H5Tclose(t);
  if (a >= 0)
    H5Aclose(a);
}

/* The exact solution of the run at t = 0 (3 components per field). */
static void exact(int dim, const char *field, const double *x, double *v) {
  double ez = sin(PI * x[0]) * sin(PI * x[1]);
  v[0] = v[1] = v[2] = 0;
  if (strcmp(field, "Ez") == 0)
    v[0] = ez;
  if (dim == 3 && strcmp(field, "E") == 0)
    v[2] = ez;
}

int main(int argc, char **argv) {
  CHECK(argc >= 8, "usage: vtkhdf_check DIR NAME DIM N K RANKS STEP...");
  const char *dir = argv[1], *name = argv[2];
  int dim = atoi(argv[3]), N = atoi(argv[4]), ranks = atoi(argv[6]);
  int64_t K = atoll(argv[5]);
  int np = dim == 2 ? (N + 1) * (N + 2) / 2 : (N + 1) * (N + 2) * (N + 3) / 6;
  size_t nn = (size_t)(K * np);
  char path[1024], mesh_name[512];
  snprintf(mesh_name, sizeof mesh_name, "%s_mesh.hdf", name);
  snprintf(path, sizeof path, "%s/%s_000000.hdf", dir, name);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  CHECK(f >= 0, "cannot open %s", path);
  hid_t g = H5Gopen2(f, "VTKHDF", H5P_DEFAULT);
  CHECK(g >= 0, "no /VTKHDF in %s", path);
  check_header(g);
  static const char *links[] = {"NumberOfPoints", "NumberOfCells", "NumberOfConnectivityIds",
                                "Points", "Connectivity", "Offsets", "Types",
                                "CellData/element_id", "CellData/rank"};
  for (int i = 0; i < 9; ++i)
    expect_external(g, links[i], mesh_name);
  int64_t *counts[3];
  for (int i = 0; i < 3; ++i) {
    counts[i] = read_set(g, links[i], H5T_NATIVE_INT64, 8, 1);
    EXPECT(counts[i] && counts[i][0] == (i == 1 ? K : (int64_t)nn), "%s", links[i]);
    free(counts[i]);
  }
  double *pts = read_set(g, "Points", H5T_NATIVE_DOUBLE, 8, 3 * nn);
  int64_t *conn = read_set(g, "Connectivity", H5T_NATIVE_INT64, 8, nn);
  int64_t *offs = read_set(g, "Offsets", H5T_NATIVE_INT64, 8, (size_t)K + 1);
  unsigned char *types = read_set(g, "Types", H5T_NATIVE_UCHAR, 1, (size_t)K);
  int64_t *ids = read_set(g, "CellData/element_id", H5T_NATIVE_INT64, 8, (size_t)K);
  int32_t *rk = read_set(g, "CellData/rank", H5T_NATIVE_INT32, 4, (size_t)K);
  CHECK(pts && conn && offs && types && ids && rk);
  int *owned = calloc((size_t)ranks, sizeof(int)), ijk[3 * 84];
  MUST(dg_vtk_lagrange_points(dim, N, ijk));
  double worst_geo = 0;
  for (int64_t k = 0; k < K; ++k) {
    EXPECT(types[k] == (dim == 2 ? 69 : 71), "cell %lld type %d", (long long)k, types[k]);
    EXPECT(offs[k] == k * np, "offset %lld", (long long)k);
    EXPECT(ids[k] == k, "element id %lld at cell %lld", (long long)ids[k], (long long)k);
    EXPECT(rk[k] >= 0 && rk[k] < ranks, "rank %d", rk[k]);
    if (rk[k] >= 0 && rk[k] < ranks)
      owned[rk[k]]++;
    const double *c = pts + 3 * k * np;
    for (int p = 0; p < np; ++p) {
      EXPECT(conn[k * np + p] == k * np + p, "connectivity");
      for (int a = 0; a < 3; ++a) {
        double want = c[a];
        for (int v = 1; v <= dim; ++v)
          want += (double)ijk[3 * p + v - 1] / N * (c[3 * v + a] - c[a]);
        worst_geo = fmax(worst_geo, fabs(c[3 * p + a] - want));
      }
    }
  }
  EXPECT(offs[K] == (int64_t)nn, "last offset");
  EXPECT(worst_geo < 1e-12, "points off the equispaced lattice by %.3e", worst_geo);
  for (int q = 0; q < ranks; ++q)
    EXPECT(owned[q] > 0, "rank %d owns no element", q);
  /* fields against the exact solution at the points */
  const char *fields[2] = {dim == 2 ? "Ez" : "E", "H"};
  int ncomp[2] = {dim == 2 ? 1 : 3, 3};
  double worst = 0, worst_e = 0;
  for (int i = 0; i < 2; ++i) {
    char fn[64], en[64];
    snprintf(fn, sizeof fn, "PointData/%s", fields[i]);
    snprintf(en, sizeof en, "PointData/error_%s", fields[i]);
    double *u = read_set(g, fn, H5T_NATIVE_DOUBLE, 8, nn * (size_t)ncomp[i]);
    double *e = read_set(g, en, H5T_NATIVE_DOUBLE, 8, nn * (size_t)ncomp[i]);
    for (size_t p = 0; u && e && p < nn; ++p) {
      double v[3];
      exact(dim, fields[i], pts + 3 * p, v);
      for (int c = 0; c < ncomp[i]; ++c) {
        double d = u[p * ncomp[i] + c] - v[c];
        worst = fmax(worst, fabs(d));
        worst_e = fmax(worst_e, fabs(e[p * ncomp[i] + c] - d));
      }
    }
    free(u);
    free(e);
  }
  printf("max |u - exact| %.3e, error field off by %.3e\n", worst, worst_e);
  EXPECT(worst < 1e-2, "fields differ from the exact solution by %.3e", worst);
  EXPECT(worst_e < 1e-12, "error fields off by %.3e", worst_e);
  double *t = read_set(g, "FieldData/time", H5T_NATIVE_DOUBLE, 8, 1);
  int64_t *s = read_set(g, "FieldData/step", H5T_NATIVE_INT64, 8, 1);
  EXPECT(t && s && t[0] == 0.0 && s[0] == 0, "FieldData time / step");
  free(t);
  free(s);
  free(pts), free(conn), free(offs), free(types), free(ids), free(rk), free(owned);
  H5Gclose(g);
  H5Fclose(f);
  /* the series lists the steps given, in order */
  snprintf(path, sizeof path, "%s/%s.hdf.series", dir, name);
  char *text = tu_slurp(path, NULL), *at = text;
  CHECK(text, "no series file %s", path);
  for (int i = 7; i < argc; ++i) {
    char want[600];
    snprintf(want, sizeof want, "\"name\" : \"%s_%06d.hdf\"", name, atoi(argv[i]));
    char *hit = strstr(at, want);
    EXPECT(hit, "series lacks %s after the previous entry", want);
    at = hit ? hit + 1 : at;
  }
  EXPECT(strstr(text, "\"file-series-version\" : \"1.0\""), "series version");
  free(text);
  if (failures == 0)
    printf("ok\n");
  return failures ? 1 : 0;
}
#endif
