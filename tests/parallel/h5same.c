/* test_h5same A.h5 B.h5 TOL: do two dgrun output files (snapshots or
 * checkpoints) hold the same objects, datasets and attributes?
 *
 * Every group, dataset and attribute of either file must exist in the
 * other with the same shape and type class.  Integers and strings must be
 * equal; floating-point values equal to TOL relative (|a - b| <= TOL *
 * max(1, |b|)); TOL 0 asks for equal values.  With TOL > 0 (files of runs
 * whose fields may differ by rounding) checksum attributes (names with
 * "fnv") are not compared, since they hash the exact bits.  A checkpoint's
 * inputs/config (the cfg text with the run's own overrides) is only
 * required to exist.
 * Exit 0: same; 1: different (the first difference is printed); 2: usage
 * or unreadable file. */
#include <hdf5.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct cmp {
  hid_t other;
  double tol;
  int bad;
  int full; /* compare contents (A against B); 0: existence only (B against A) */
} cmp;

static void differ(cmp *c, const char *what, const char *name) {
  if (!c->bad)
    fprintf(stderr, "%s '%s'\n", what, name);
  c->bad = 1;
}

/* Compare n values of two buffers read as the class cls (integer: int64). */
static int same_values(const void *a, const void *b, size_t n, H5T_class_t cls, double tol) {
  for (size_t i = 0; i < n; i++) {
    if (cls == H5T_INTEGER) {
      if (((const int64_t *)a)[i] != ((const int64_t *)b)[i])
        return 0;
    } else {
      double x = ((const double *)a)[i], y = ((const double *)b)[i];
      if (!(fabs(x - y) <= tol * fmax(1.0, fabs(y))) && !(x == y))
        return 0;
    }
  }
  return 1;
}

static herr_t attr_cb(hid_t loc, const char *name, const H5A_info_t *info, void *data) {
  (void)info;
  cmp *c = data;
  hid_t obj_b = c->other; /* set by the caller to the matching object */
  if (H5Aexists(obj_b, name) <= 0) {
    differ(c, "attribute is missing in the other file", name);
    return 0;
  }
  if (!c->full || (c->tol > 0 && strstr(name, "fnv")))
    return 0;
  hid_t a = H5Aopen(loc, name, H5P_DEFAULT), b = H5Aopen(obj_b, name, H5P_DEFAULT);
  hid_t ta = H5Aget_type(a), tb = H5Aget_type(b);
  H5T_class_t cls = H5Tget_class(ta);
  hid_t sa = H5Aget_space(a);
  size_t n = (size_t)H5Sget_simple_extent_npoints(sa);
  if (cls != H5Tget_class(tb)) {
    differ(c, "attribute has different types", name);
  } else if (cls == H5T_STRING) {
    size_t la = H5Tget_size(ta), lb = H5Tget_size(tb);
    char *x = calloc(la + 1, 1), *y = calloc(lb + 1, 1);
    H5Aread(a, ta, x);
    H5Aread(b, tb, y);
    if (strcmp(x, y) != 0)
      differ(c, "attribute differs", name);
    free(x);
    free(y);
  } else {
    hid_t mt = cls == H5T_INTEGER ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE;
    double *x = calloc(n + 1, 8), *y = calloc(n + 1, 8);
    H5Aread(a, mt, x);
    H5Aread(b, mt, y);
    if (!same_values(x, y, n, cls, c->tol))
      differ(c, "attribute differs", name);
    free(x);
    free(y);
  }
  H5Sclose(sa);
  H5Tclose(ta);
  H5Tclose(tb);
  H5Aclose(a);
  H5Aclose(b);
  return 0;
}

static void compare_dataset(cmp *c, hid_t da, hid_t db, const char *name) {
  hid_t sa = H5Dget_space(da), sb = H5Dget_space(db);
  hid_t ta = H5Dget_type(da), tb = H5Dget_type(db);
  hsize_t dA[4] = {0}, dB[4] = {0};
  int ra = H5Sget_simple_extent_dims(sa, dA, NULL), rb = H5Sget_simple_extent_dims(sb, dB, NULL);
  H5T_class_t cls = H5Tget_class(ta);
  if (ra != rb || memcmp(dA, dB, sizeof dA) != 0 || cls != H5Tget_class(tb) ||
      H5Tget_size(ta) != H5Tget_size(tb)) {
    differ(c, "dataset has a different shape or type", name);
  } else {
    size_t n = (size_t)H5Sget_simple_extent_npoints(sa);
    hid_t mt = cls == H5T_INTEGER ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE;
    double *x = malloc(8 * n + 8), *y = malloc(8 * n + 8);
    if (H5Dread(da, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, x) < 0 ||
        H5Dread(db, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, y) < 0)
      differ(c, "dataset cannot be read", name);
    else if (!same_values(x, y, n, cls, c->tol))
      differ(c, "dataset differs", name);
    free(x);
    free(y);
  }
  H5Sclose(sa);
  H5Sclose(sb);
  H5Tclose(ta);
  H5Tclose(tb);
}

static herr_t obj_cb(hid_t file, const char *name, const H5O_info_t *info, void *data) {
  cmp *c = data;
  hid_t other_file = c->other;
  if (strcmp(name, ".") != 0 && H5Oexists_by_name(other_file, name, H5P_DEFAULT) <= 0) {
    H5Eclear2(H5E_DEFAULT);
    differ(c, "object is missing in the other file", name);
    return 0;
  }
  hid_t a = H5Oopen(file, name, H5P_DEFAULT), b = H5Oopen(other_file, name, H5P_DEFAULT);
  /* a checkpoint's resolved configuration names the run's own output
   * directory and parallel_io: it must exist in both, its text may differ */
  if (c->full && info->type == H5O_TYPE_DATASET && strcmp(name, "inputs/config") != 0)
    compare_dataset(c, a, b, name);
  c->other = b;
  H5Aiterate2(a, H5_INDEX_NAME, H5_ITER_INC, NULL, attr_cb, c);
  c->other = other_file;
  H5Oclose(a);
  H5Oclose(b);
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: test_h5same A.h5 B.h5 TOL\n");
    return 2;
  }
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  hid_t fa = H5Fopen(argv[1], H5F_ACC_RDONLY, H5P_DEFAULT);
  hid_t fb = H5Fopen(argv[2], H5F_ACC_RDONLY, H5P_DEFAULT);
  if (fa < 0 || fb < 0) {
    fprintf(stderr, "cannot open %s\n", fa < 0 ? argv[1] : argv[2]);
    return 2;
  }
  cmp c = {fb, atof(argv[3]), 0, 1};
  H5Ovisit(fa, H5_INDEX_NAME, H5_ITER_INC, obj_cb, &c);
  cmp back = {fa, 0, 0, 0};
  H5Ovisit(fb, H5_INDEX_NAME, H5_ITER_INC, obj_cb, &back);
  H5Fclose(fa);
  H5Fclose(fb);
  if (c.bad || back.bad) {
    fprintf(stderr, "%s and %s differ\n", argv[1], argv[2]);
    return 1;
  }
  printf("same: %s %s\n", argv[1], argv[2]);
  return 0;
}
