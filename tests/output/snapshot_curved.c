/* problems.snapshot_curved: snapshots of a curved mesh place their cells on
 * the curved geometry.  A 2D and a 3D box bent by a quadratic map, at
 * geometry order 2 and N = 3: the XDMF sub-cell coordinates (/mesh/
 * coordinates of the snapshot file) and the VTK Lagrange points (Points of
 * the VTKHDF mesh file), read back with HDF5, are the map applied to each
 * node's straight-sided position, to round-off (a degree-2 map is exact in
 * the order-2 geometry and in its order-3 interpolant); the straight-sided
 * positions differ from them by the bend. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dg/discretization.h"
#include "meshes/builtin.h"
#include "meshes/mesh_curved.h"
#include "problems/io/snapshot.h"
#include "problems/io/vtk_lagrange.h"
#include "testutil.h"

#if !defined(DGRUN_HAVE_HDF5)
int main(void) { return 77; }
#else
#include <hdf5.h>

static void bend(void *ctx, const double *x, double *y) {
  const int dim = *(const int *)ctx;
  for (int a = 0; a < dim; a++)
    y[a] = x[a];
  y[dim - 1] += 0.2 * x[0] * (1 - x[0]); /* a quadratic bulge */
  y[0] += 0.1 * x[dim - 1] * x[dim - 1];
}

static double *read_points(const char *path, const char *name, size_t n) {
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  EXPECT(f >= 0, "open %s", path);
  hid_t d = f >= 0 ? H5Dopen2(f, name, H5P_DEFAULT) : -1;
  EXPECT(d >= 0, "%s: no %s", path, name);
  double *buf = malloc(sizeof(double) * n * 3);
  int ok = d >= 0 && H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0;
  EXPECT(ok, "read %s:%s", path, name);
  if (d >= 0)
    H5Dclose(d);
  if (f >= 0)
    H5Fclose(f);
  return buf;
}

/* Max distance of pts (K x np x 3, element j's point p at reference
 * lattice point lat[p] of order N) from bend(straight position); in
 * *bulge the largest distance of the straight position itself. */
static double map_error(const dg_mesh *s, int dim, int N, int np, const int *lat,
                        const double *pts, double *bulge) {
  double err = 0;
  *bulge = 0;
  for (int64_t e = 0; e < s->K; e++)
    for (int p = 0; p < np; p++) {
      double lam[4] = {1, 0, 0, 0}, x[3] = {0, 0, 0}, y[3];
      for (int a = 0; a < dim; a++) {
        lam[a + 1] = (double)lat[3 * p + a] / N;
        lam[0] -= lam[a + 1];
      }
      for (int v = 0; v <= dim; v++)
        for (int c = 0; c < dim; c++)
          x[c] += lam[v] * s->VX[s->EToV[e * (dim + 1) + v] * dim + c];
      bend((void *)&dim, x, y);
      for (int c = 0; c < dim; c++) {
        err = fmax(err, fabs(pts[3 * (e * np + p) + c] - y[c]));
        *bulge = fmax(*bulge, fabs(x[c] - y[c]));
      }
    }
  return err;
}

static void check(int dim) {
  const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
  const int64_t n[3] = {3, 2, 2};
  const int N = 3;
  dg_mesh *s = NULL, *m = NULL;
  MUST(dg_builtin_mesh(dim, lo, hi, n, NULL, &s));
  MUST(dg_mesh_copy(s, &m));
  MUST(dg_mesh_curve(m, 2, bend, &dim));
  dg_discretization *d = NULL;
  MUST(dg_discretization_create(m, N, DG_DOUBLE, &d));
  EXPECT(d->ncurved > 0);
  char dir[4096];
  tu_mkdtemp(dir, sizeof dir);
  dg_snapshot_mesh sm = {dim, N, d->Np, d->K, d->x, d->y, d->z};
  dg_snapshot_writer *w = NULL;
  MUST(dg_snapshot_writer_create(dir, "c", &sm, &w));
  MUST(dg_snapshot_writer_set_formats(w, DG_SNAPSHOT_XDMF | DG_SNAPSHOT_VTKHDF, NULL));
  dg_snapshot_field f = {"u", 1, 8, {d->J, NULL, NULL}};
  MUST(dg_snapshot_writer_write(w, 0.0, 0, &f, 1, NULL, 0));
  dg_snapshot_writer_destroy(&w);

  /* XDMF: the nodes (warp & blend, dgrun's order). */
  char path[4200];
  snprintf(path, sizeof path, "%s/c_000000.h5", dir);
  double *xyz = read_points(path, "mesh/coordinates", (size_t)(d->K * d->Np));
  const double *rst[3] = {d->re->r, d->re->s, d->re->t};
  double err = 0, bulge = 0;
  for (int64_t e = 0; e < d->K; e++)
    for (int i = 0; i < d->Np; i++) {
      double lam[4] = {1, 0, 0, 0}, x[3] = {0, 0, 0}, y[3];
      for (int a = 0; a < dim; a++) {
        lam[a + 1] = 0.5 * (1 + rst[a][i]);
        lam[0] -= lam[a + 1];
      }
      for (int v = 0; v <= dim; v++)
        for (int c = 0; c < dim; c++)
          x[c] += lam[v] * s->VX[s->EToV[e * (dim + 1) + v] * dim + c];
      bend(&dim, x, y);
      for (int c = 0; c < dim; c++) {
        err = fmax(err, fabs(xyz[3 * (e * d->Np + i) + c] - y[c]));
        bulge = fmax(bulge, fabs(x[c] - y[c]));
      }
    }
  printf("%dD XDMF nodes: error vs the map %.2e (straight-sided positions off by %.2e)\n", dim,
         err, bulge);
  EXPECT(err < 1e-13 && bulge > 1e-2, "%dD XDMF coordinates", dim);
  free(xyz);

  /* VTKHDF: the Lagrange points (equispaced, VTK's order). */
  snprintf(path, sizeof path, "%s/c_mesh.hdf", dir);
  double *pts = read_points(path, "VTKHDF/Points", (size_t)(d->K * d->Np));
  int *lat = malloc(sizeof(int) * 3 * (size_t)d->Np);
  MUST(dg_vtk_lagrange_points(dim, N, lat));
  err = map_error(s, dim, N, d->Np, lat, pts, &bulge);
  printf("%dD VTKHDF points: error vs the map %.2e (straight-sided off by %.2e)\n", dim, err,
         bulge);
  EXPECT(err < 1e-12 && bulge > 1e-2, "%dD VTKHDF points", dim);
  free(lat);
  free(pts);
  tu_rmtree(dir);
  dg_discretization_destroy(&d);
  dg_mesh_destroy(&m);
  dg_mesh_destroy(&s);
}

int main(void) {
  check(2);
  check(3);
  return expect_finish();
}
#endif
