/* problems.run_coefficients: a Maxwell TM run (cpu, N = 2, 2 x 2 cells)
 * whose cfg gives coefficient eps = 1 + x[0] by default and 5 in the
 * predicate region right (centroid x > 0.5): the VTKHDF mesh file holds
 * CellData/region (0 right of x = 0.5 by the centroid of each cell's
 * points, -1 left), the snapshot PointData/coef_eps with those values at
 * the VTK points, the XDMF snapshot /fields/coef_eps at the nodes and
 * /mesh/region per sub-cell, the
 * checkpoint /coefficients/eps; a restart whose cfg gives eps.right = 6 is
 * refused naming eps.right, one with the same cfg runs; eps.right = -1 is
 * refused before the output directory exists.
 * usage: test_problems_run_coefficients maxwell2d_tm.cfg
 * (tests/output/coef_tm: the cavity with `coefficients eps > 0`). */
#include <glob.h>
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "operators/flux.h"
#include "problems/driver/run.h"
#include "testutil.h"

static const char *cfg_path;
static char dir[4096];

static dg_error run_in(const char *out, const char *restart, const char *right) {
  char od[4200], rv[64];
  snprintf(od, sizeof od, "output.directory=%s", out);
  snprintf(rv, sizeof rv, "coefficients.eps.right=%s", right);
  const char *ov[] = {od, "backend.device=cpu", "time.final=0.02", "output.interval=0.01",
                      "output.checkpoint_interval=0.01", "output.format=both",
                      "discretization.order=2", "mesh.cells=2 2", "regions.right=x[0] > 0.5",
                      "coefficients.eps=1 + x[0]", rv, "time.dt=0.005"};
  dg_run_options opt = {.cfg_path = cfg_path, .overrides = ov, .noverrides = 12, .quiet = 1,
                        .restart = restart};
  return dg_run(&opt, NULL);
}

static dg_error run(const char *restart, const char *right) { return run_in(dir, restart, right); }

static void *read_set(const char *path, const char *set, hid_t mt, size_t elem, size_t *n) {
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  hid_t d = f >= 0 ? H5Dopen2(f, set, H5P_DEFAULT) : -1;
  void *buf = NULL;
  *n = 0;
  if (d >= 0) {
    hid_t s = H5Dget_space(d);
    *n = (size_t)H5Sget_simple_extent_npoints(s);
    H5Sclose(s);
    buf = malloc(elem * *n + 1);
    if (H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
      *n = 0;
    H5Dclose(d);
  }
  if (f >= 0)
    H5Fclose(f);
  EXPECT(buf && *n, "%s: no dataset %s", path, set);
  return buf;
}

static void check_vtkhdf(void) {
  char mesh[4400], snap[4400];
  snprintf(mesh, sizeof mesh, "%s/maxwell2d_tm_mesh.hdf", dir);
  snprintf(snap, sizeof snap, "%s/maxwell2d_tm_000002.hdf", dir);
  size_t nreg, npts, nval;
  int *reg = read_set(mesh, "/VTKHDF/CellData/region", H5T_NATIVE_INT, sizeof(int), &nreg);
  double *pts = read_set(mesh, "/VTKHDF/Points", H5T_NATIVE_DOUBLE, sizeof(double), &npts);
  /* through the snapshot's external link to the mesh file, and its own point data */
  int *reg2 = read_set(snap, "/VTKHDF/CellData/region", H5T_NATIVE_INT, sizeof(int), &nval);
  double *eps = read_set(snap, "/VTKHDF/PointData/coef_eps", H5T_NATIVE_DOUBLE, sizeof(double),
                         &nval);
  const int Np = 6, K = 8;
  CHECK(nreg == K && npts == 3 * K * Np && nval == K * Np, "sizes %zu %zu %zu", nreg, npts,
        nval);
  for (int k = 0; k < K; k++) {
    double xc = 0;
    for (int p = 0; p < Np; p++)
      xc += pts[3 * (k * Np + p)] / Np; /* (the equispaced points' mean is the centroid) */
    int right = xc > 0.5;
    EXPECT(reg[k] == (right ? 0 : -1) && reg2[k] == reg[k], "cell %d: region %d", k, reg[k]);
    for (int p = 0; p < Np; p++) {
      double x = pts[3 * (k * Np + p)], want = right ? 5.0 : 1.0 + x;
      /* 1 + x is in the element's space: its interpolant is exact to rounding */
      EXPECT(fabs(eps[k * Np + p] - want) < 1e-13, "cell %d point %d: eps %.17g, want %.17g",
             k, p, eps[k * Np + p], want);
    }
  }
  free(reg);
  free(reg2);
  free(pts);
  free(eps);
}

static void check_xdmf_and_checkpoint(void) {
  char h5[4400], ck[4400];
  snprintf(h5, sizeof h5, "%s/maxwell2d_tm_000002.h5", dir);
  snprintf(ck, sizeof ck, "%s/maxwell2d_tm_checkpoint_000002.h5", dir);
  size_t n1, n2, nx;
  double *a = read_set(h5, "/fields/coef_eps", H5T_NATIVE_DOUBLE, sizeof(double), &n1);
  double *xyz = read_set(h5, "/mesh/coordinates", H5T_NATIVE_DOUBLE, sizeof(double), &nx);
  double *b = read_set(ck, "/coefficients/eps", H5T_NATIVE_DOUBLE, sizeof(double), &n2);
  CHECK(n1 == 48 && n2 == 48 && nx == 3 * 48, "sizes %zu %zu %zu", n1, n2, nx);
  for (size_t j = 0; j < n1; j++) {
    double x = xyz[3 * j];
    EXPECT(a[j] == b[j] && (a[j] == 5.0 || fabs(a[j] - (1 + x)) < 1e-15),
           "node %zu: %.17g / %.17g at x = %g", j, a[j], b[j], x);
  }
  /* the XDMF cell data: each of an element's 4 sub-cells has its region
   * (the mean of the symmetric node set is the centroid) */
  size_t nr;
  int *reg = read_set(h5, "/mesh/region", H5T_NATIVE_INT, sizeof(int), &nr);
  CHECK(nr == 8 * 4, "%zu sub-cell regions", nr);
  for (int k = 0; k < 8; k++) {
    double xc = 0;
    for (int i = 0; i < 6; i++)
      xc += xyz[3 * (k * 6 + i)] / 6;
    for (int c = 0; c < 4; c++)
      EXPECT(reg[k * 4 + c] == (xc > 0.5 ? 0 : -1), "element %d sub-cell %d: region %d", k, c,
             reg[k * 4 + c]);
  }
  free(reg);
  free(a);
  free(b);
  free(xyz);
}

int main(int argc, char **argv) {
  if (argc < 2)
    return 2;
  cfg_path = argv[1];
  tu_mkdtemp(dir, sizeof dir);
  if (run(NULL, "5") != DG_OK) {
    dg_error_print(stderr);
    return 1;
  }
  check_vtkhdf();
  check_xdmf_and_checkpoint();
  char ck[4400];
  snprintf(ck, sizeof ck, "%s/maxwell2d_tm_checkpoint_000002.h5", dir);
  dg_error err = run(ck, "6");
  /* (the cfg check of restart_inputs.c refuses it first, naming the key;
   * the value check of checkpoint.c is tested in checkpoint_coefficients) */
  EXPECT(err == DG_ERR_INPUT && strstr(dg_error_message(), "eps.right"),
         "restart with another eps: %d %s", (int)err, err ? dg_error_message() : "");
  dg_error_clear();
  err = run(ck, "5");
  EXPECT(err == DG_OK, "restart with the same eps: %s", dg_error_message());
  /* a value outside the bound: refused in set-up, before the output
   * directory is made */
  char bad[4200];
  snprintf(bad, sizeof bad, "%s/bad", dir);
  err = run_in(bad, NULL, "-1");
  EXPECT(err == DG_ERR_INPUT && strstr(dg_error_message(), "outside the bound eps > 0") &&
             !tu_exists(bad),
         "eps.right = -1: %d %s", (int)err, err ? dg_error_message() : "");
  dg_error_clear();
  return tu_finish(dir, failures);
}
