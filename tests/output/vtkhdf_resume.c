/* problems.vtkhdf_resume: the VTKHDF series of the snapshot writer (1D, two
 * N = 2 elements, format vtkhdf only).  After a restart from step S it keeps the
 * listed snapshots of steps <= S whose .hdf files still exist, drops the later
 * ones and grows with the new writes; a rewritten step is listed once.  The mesh
 * file is written with the first snapshot only; a bad field writes no snapshot
 * file and leaves the series as it was; no temp file remains.  The 1D cell (68,
 * VTK_LAGRANGE_CURVE) holds x at its points v0, v1, midpoint, and u = x^2 there
 * (the interpolant of a degree-2 polynomial is exact). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "problems/io/snapshot.h"
#include "testutil.h"

#if !defined(DGRUN_HAVE_HDF5)
int main(void) { return 77; }
#else
#include <hdf5.h>

enum { K = 2, N = 2, NP = 3 };
/* H&W 1D nodes of N = 2 are -1, 0, 1: elements [0, 1] and [1, 3] */
static double x[K * NP] = {0, 0.5, 1, 1, 2, 3}, u[K * NP];

static void write_steps(dg_snapshot_writer *w, const long long *steps, int n) {
  EXPECT(tu_snapshot_steps(w, u, steps, n) == DG_OK, "write: %s", dg_error_message());
}

/* The series lists exactly these steps, in order, with time 0.1 * step. */
static void expect_series(const char *dir, const long long *steps, int n) {
  char path[4200];
  snprintf(path, sizeof path, "%s/run.hdf.series", dir);
  char *text = tu_slurp(path, NULL);
  EXPECT(text, "no series");
  int listed = 0;
  for (char *p = text; p && (p = strstr(p, "\"name\"")); ++p, ++listed) {
    long long s = -1;
    double t = -1;
    EXPECT(sscanf(p, "\"name\" : \"run_%lld.hdf\", \"time\" : %lg", &s, &t) == 2, "entry");
    EXPECT(listed < n && s == steps[listed] && fabs(t - 0.1 * (double)s) < 1e-15,
           "entry %d: step %lld time %g", listed, s, t);
  }
  EXPECT(listed == n, "%d entries, want %d", listed, n);
  free(text);
}

static void check_values(const char *dir) {
  char path[4200];
  snprintf(path, sizeof path, "%s/run_000000.hdf", dir);
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  EXPECT(f >= 0, "open %s", path);
  if (f < 0)
    return;
  double pts[K * NP * 3], v[K * NP];
  unsigned char types[K];
  hid_t d = H5Dopen2(f, "/VTKHDF/Points", H5P_DEFAULT); /* through the external link */
  EXPECT(d >= 0 && H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, pts) >= 0);
  H5Dclose(d);
  d = H5Dopen2(f, "/VTKHDF/PointData/u", H5P_DEFAULT);
  EXPECT(d >= 0 && H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
  H5Dclose(d);
  d = H5Dopen2(f, "/VTKHDF/Types", H5P_DEFAULT);
  EXPECT(d >= 0 && H5Dread(d, H5T_NATIVE_UCHAR, H5S_ALL, H5S_ALL, H5P_DEFAULT, types) >= 0);
  H5Dclose(d);
  H5Fclose(f);
  /* VTK order per element: x0, x2, x1 (vertices, then the edge's interior) */
  static const double want_x[K * NP] = {0, 1, 0.5, 1, 3, 2};
  for (int p = 0; p < K * NP; ++p) {
    EXPECT(fabs(pts[3 * p] - want_x[p]) < 1e-14 && pts[3 * p + 1] == 0 && pts[3 * p + 2] == 0,
           "point %d at %g", p, pts[3 * p]);
    EXPECT(fabs(v[p] - want_x[p] * want_x[p]) < 1e-13, "u at point %d: %g", p, v[p]);
  }
  EXPECT(types[0] == 68 && types[1] == 68, "types %d %d", types[0], types[1]);
}

int main(void) {
  char dir[4096], mesh_path[4200], h5[4200];
  tu_mkdtemp(dir, sizeof dir);
  snprintf(mesh_path, sizeof mesh_path, "%s/run_mesh.hdf", dir);
  for (int i = 0; i < K * NP; ++i)
    u[i] = x[i] * x[i];
  dg_snapshot_mesh mesh = {1, N, NP, K, x, NULL, NULL};
  dg_snapshot_writer *w = NULL;
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);

  MUST(dg_snapshot_writer_create(dir, "run", &mesh, &w));
  MUST(dg_snapshot_writer_set_formats(w, DG_SNAPSHOT_VTKHDF, NULL));
  EXPECT(dg_snapshot_writer_resume(w, 5) == DG_OK, "resume without a series: %s",
         dg_error_message());
  EXPECT(!tu_exists(mesh_path), "mesh file before the first snapshot");
  const long long first[] = {0, 10, 20, 30, 20};
  write_steps(w, first, 5);
  const long long listed[] = {0, 10, 20, 30};
  expect_series(dir, listed, 4);
  EXPECT(tu_count(dir, ".xdmf") == 0 && tu_count(dir, ".h5") == 0, "XDMF files written");
  EXPECT(strstr(dg_snapshot_writer_last_path(w), "run_000020.hdf"), "last path %s",
         dg_snapshot_writer_last_path(w));
  check_values(dir);
  /* a bad field: no snapshot file, the series unchanged */
  dg_snapshot_field bad = {"u", 1, 8, {NULL, NULL, NULL}};
  EXPECT(dg_snapshot_writer_write(w, 4.0, 40, &bad, 1, NULL, 0) == DG_ERR_ARG, "bad field");
  snprintf(h5, sizeof h5, "%s/run_000040.hdf", dir);
  EXPECT(!tu_exists(h5), "snapshot of a bad field written");
  expect_series(dir, listed, 4);
  EXPECT(dg_snapshot_writer_set_formats(w, DG_SNAPSHOT_XDMF, NULL) == DG_ERR_ARG,
         "formats changed after the first snapshot");
  dg_snapshot_writer_destroy(&w);

  /* restart from step 20, with the file of step 10 gone */
  snprintf(h5, sizeof h5, "%s/run_000010.hdf", dir);
  unlink(h5);
  MUST(dg_snapshot_writer_create(dir, "run", &mesh, &w));
  MUST(dg_snapshot_writer_set_formats(w, DG_SNAPSHOT_VTKHDF, NULL));
  EXPECT(dg_snapshot_writer_resume(w, 20) == DG_OK, "resume 20: %s", dg_error_message());
  const long long kept[] = {0, 20};
  expect_series(dir, kept, 2);
  const long long more[] = {25};
  write_steps(w, more, 1);
  const long long now[] = {0, 20, 25};
  expect_series(dir, now, 3);
  dg_snapshot_writer_destroy(&w);
  return tu_finish(dir, failures);
}
#endif
