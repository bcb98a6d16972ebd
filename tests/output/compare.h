/* Compare the snapshots (HDF5) of two runs of one problem: a partitioned
 * run and the serial one, say.  Tests only; needs HDF5 (DGRUN_HAVE_HDF5). */
#ifndef DG_TESTS_OUTPUT_COMPARE_H
#define DG_TESTS_OUTPUT_COMPARE_H

#if defined(DGRUN_HAVE_HDF5)
#include <glob.h>
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The last snapshot (not checkpoint) file of a directory, or "" . */
static void last_snapshot(const char *dir, char *out, size_t cap) {
  char pat[700];
  snprintf(pat, sizeof pat, "%s/*_[0-9]*.h5", dir);
  glob_t g;
  out[0] = '\0';
  if (glob(pat, 0, NULL, &g) != 0)
    return;
  for (size_t i = 0; i < g.gl_pathc; i++)
    if (!strstr(g.gl_pathv[i], "checkpoint"))
      snprintf(out, cap, "%s", g.gl_pathv[i]);
  globfree(&g);
}

/* Largest difference of a double dataset between two files (-1: unreadable
 * or shapes differ); *scale gets the largest magnitude. */
static double dataset_diff(hid_t a, hid_t b, const char *name, double *scale) {
  hid_t da = H5Dopen2(a, name, H5P_DEFAULT), db = H5Dopen2(b, name, H5P_DEFAULT);
  double d = -1;
  if (da >= 0 && db >= 0) {
    hid_t sa = H5Dget_space(da), sb = H5Dget_space(db);
    hssize_t na = H5Sget_simple_extent_npoints(sa), nb = H5Sget_simple_extent_npoints(sb);
    double *x = malloc(sizeof(double) * (size_t)(na + 1)), *y = malloc(sizeof(double) * (size_t)(nb + 1));
    if (na == nb && na > 0 && x && y &&
        H5Dread(da, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, x) >= 0 &&
        H5Dread(db, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, y) >= 0) {
      d = 0;
      for (hssize_t i = 0; i < na; i++) {
        d = fmax(d, fabs(x[i] - y[i]));
        *scale = fmax(*scale, fabs(y[i]));
      }
    }
    free(x);
    free(y);
    H5Sclose(sa);
    H5Sclose(sb);
  }
  if (da >= 0)
    H5Dclose(da);
  if (db >= 0)
    H5Dclose(db);
  return d;
}

/* The last snapshots of two runs hold the same coordinates (exactly) and
 * fields (to tol of their size); 1 (after saying why) when not. */
static int compare_snapshots(const char *dir_par, const char *dir_ser, double tol) {
  char fa[800], fb[800];
  last_snapshot(dir_par, fa, sizeof fa);
  last_snapshot(dir_ser, fb, sizeof fb);
  if (!fa[0] || !fb[0]) {
    printf("FAIL: no snapshot in %s or %s\n", dir_par, dir_ser);
    return 1;
  }
  hid_t a = H5Fopen(fa, H5F_ACC_RDONLY, H5P_DEFAULT), b = H5Fopen(fb, H5F_ACC_RDONLY, H5P_DEFAULT);
  int bad = a < 0 || b < 0;
  hid_t g = bad ? -1 : H5Gopen2(b, "fields", H5P_DEFAULT);
  H5G_info_t info;
  int n = 0;
  if (g >= 0 && H5Gget_info(g, &info) >= 0)
    for (hsize_t i = 0; i < info.nlinks && !bad; i++) {
      char name[256], path[300];
      if (H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, i, name, sizeof name,
                             H5P_DEFAULT) < 0)
        break;
      snprintf(path, sizeof path, "fields/%s", name);
      double scale = 0, d = dataset_diff(a, b, path, &scale);
      n++;
      if (d < 0 || d > tol * scale) {
        printf("FAIL: snapshot dataset %s differs (%.3e)\n", path, d);
        bad = 1;
      }
    }
  double scale = 0, d = bad ? 0 : dataset_diff(a, b, "mesh/coordinates", &scale);
  if (!bad && (d != 0 || n == 0)) {
    printf("FAIL: snapshot coordinates differ (%.3e) or no fields (%d)\n", d, n);
    bad = 1;
  }
  if (!bad)
    printf("snapshots %s and %s: same coordinates and %d fields\n", fa, fb, n);
  if (g >= 0)
    H5Gclose(g);
  if (a >= 0)
    H5Fclose(a);
  if (b >= 0)
    H5Fclose(b);
  return bad;
}

#endif
#endif
