/* core.sparse_spmv (cpu) / core.sparse_spmv_cuda (gpu): y = A x and
 * y += A x in every format and both precisions against a long double host
 * product, on fresh random matrices with empty rows, one dense row, square
 * and rectangular shapes, BSR block sizes 1..7 and an empty matrix.  y is
 * poisoned with NaN before y = A x (every row must be written, empty rows
 * with 0) and random before y += A x. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "core/array.h"
#include "sptest.h"

static int checked;

/* Compare one product with the reference; the rounding error of a row's
 * sum of len products in precision eps is at most about len * eps *
 * sum |a_ij x_j| (Higham 2002, eq. 3.5); 2 (len + 2) eps leaves room for
 * the order of summation. */
static void check_one(dg_device *dev, const dg_csr *A, dg_sparse_format f,
                      int b, dg_dtype dtype, uint64_t *rng) {
  const dg_csr *R = A;
  dg_csr *Af = NULL;
  if (dtype == DG_FLOAT)
    R = Af = st_round_to_float(A); /* the values the device holds */
  double *x = st_random_vector(A->ncols, dtype, rng);
  double *y0 = st_random_vector(A->nrows, dtype, rng);
  double *ref = malloc((size_t)(A->nrows + 1) * sizeof *ref);
  double *bound = malloc((size_t)(A->nrows + 1) * sizeof *bound);
  double *got = malloc((size_t)(A->nrows + 1) * sizeof *got);
  CHECK(ref && bound && got, "out of memory");
  st_reference(R, x, ref, bound);
  dg_sparse *M;
  MUST(dg_sparse_create(dev, A, f, b, dtype, &M));
  CHECK(dg_sparse_get_format(M) == f, "format %s became %s",
        dg_sparse_format_name(f), dg_sparse_format_name(dg_sparse_get_format(M)));
  dg_array *dx, *dy;
  MUST(dg_array_create(dev, dtype, A->ncols, &dx));
  MUST(dg_array_create(dev, dtype, A->nrows, &dy));
  MUST(dg_array_upload_double(dx, x));
  double eps = dtype == DG_FLOAT ? FLT_EPSILON : DBL_EPSILON;
  for (int acc = 0; acc < 2; acc++) {
    for (int64_t i = 0; i < A->nrows; i++)
      got[i] = acc ? y0[i] : NAN;
    MUST(dg_array_upload_double(dy, got));
    MUST(dg_sparse_spmv(M, dx, dy, acc, NULL));
    MUST(dg_device_synchronize(dev));
    MUST(dg_array_download_double(dy, got));
    for (int64_t i = 0; i < A->nrows; i++) {
      double len = (double)(R->rowptr[i + 1] - R->rowptr[i]);
      double want = acc ? ref[i] + y0[i] : ref[i];
      double tol = 2 * (len + 2) * eps * (bound[i] + (acc ? fabs(y0[i]) : 0));
      CHECK(fabs(got[i] - want) <= tol,
            "%s %s b=%d %lldx%lld nnz %lld, %s: row %lld (%lld entries): got "
            "%.17g, want %.17g (tol %.3g)", dg_sparse_format_name(f),
            dg_dtype_name(dtype), b, (long long)A->nrows, (long long)A->ncols,
            (long long)A->nnz, acc ? "y += A x" : "y = A x", (long long)i,
            (long long)len, got[i], want, tol);
    }
    checked++;
  }
  dg_array_destroy(&dx);
  dg_array_destroy(&dy);
  dg_sparse_destroy(&M);
  dg_sparse_csr_destroy(&Af);
  free(x);
  free(y0);
  free(ref);
  free(bound);
  free(got);
}

static void check_all_formats(dg_device *dev, const dg_csr *A, int b,
                              uint64_t *rng) {
  for (int d = 0; d < 2; d++)
    for (int f = 0; f < DG_SPARSE_NFORMATS; f++) {
      if (f == DG_SPARSE_BSR && (A->nrows % b || A->ncols % b))
        continue;
      check_one(dev, A, (dg_sparse_format)f, b, d ? DG_DOUBLE : DG_FLOAT, rng);
    }
}

int main(int argc, char **argv) {
  const char *cache;
  dg_device *dev = st_open_device(argc, argv, &cache);
  uint64_t rng = dt_seed();
  /* Shapes: square, wide, tall; short and long rows; block sizes that do
   * and do not fill a warp evenly. */
  const struct {
    int64_t rows, cols;
    double per_row;
    int flags, b;
  } cases[] = {
      {0, 0, 0, 0, 1},
      {1, 1, 1, 0, 1},
      {12, 12, 0, 0, 3}, /* no entries at all */
      {60, 60, 3, ST_EMPTY_ROWS, 3},
      {70, 35, 4, ST_EMPTY_ROWS | ST_DENSE_ROW, 7},
      {40, 200, 20, ST_DENSE_ROW, 5},
      {333, 333, 6, ST_EMPTY_ROWS | ST_DENSE_ROW, 1},
      {1000, 1000, 40, ST_EMPTY_ROWS, 4},
      {2000, 2000, 2, ST_EMPTY_ROWS | ST_DENSE_ROW, 2},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    dg_csr *A = st_random_csr(cases[c].rows, cases[c].cols, cases[c].per_row,
                              cases[c].flags, &rng);
    check_all_formats(dev, A, cases[c].b, &rng);
    dg_sparse_csr_destroy(&A);
  }
  /* DG-structured block matrices, where bsr is meant to shine. */
  const int sizes[] = {1, 4, 10, 20, 35};
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    dg_csr *A = st_block_matrix(37, sizes[k], 1.0, &rng);
    check_all_formats(dev, A, sizes[k], &rng);
    dg_sparse_csr_destroy(&A);
  }
  /* Mismatched vectors are refused with the sizes in the message. */
  dg_csr *A = st_random_csr(10, 8, 2, 0, &rng);
  dg_sparse *M;
  MUST(dg_sparse_create(dev, A, DG_SPARSE_CSR_SCALAR, 1, DG_DOUBLE, &M));
  dg_array *x, *y, *xf;
  MUST(dg_array_create(dev, DG_DOUBLE, 7, &x));
  MUST(dg_array_create(dev, DG_DOUBLE, 10, &y));
  MUST(dg_array_create(dev, DG_FLOAT, 8, &xf));
  CHECK(dg_sparse_spmv(M, x, y, 0, NULL) == DG_ERR_ARG &&
            strstr(dg_error_message(), "x of 7"),
        "short x accepted: %s", dg_error_message());
  CHECK(dg_sparse_spmv(M, xf, y, 0, NULL) == DG_ERR_ARG,
        "float x with a double matrix accepted");
  dg_sparse *bad = NULL;
  CHECK(dg_sparse_create(dev, A, DG_SPARSE_BSR, 3, DG_DOUBLE, &bad) ==
            DG_ERR_ARG && bad == NULL,
        "bsr block 3 of a 10 x 8 matrix accepted");
  dg_error_clear();
  /* The generated source is readable and names its specialisation. */
  dg_sparse *B;
  dg_csr *D = st_block_matrix(9, 6, 1.0, &rng);
  MUST(dg_sparse_create(dev, D, DG_SPARSE_BSR, 6, DG_DOUBLE, &B));
  CHECK(strstr(dg_sparse_source(B), "#define DG_B 6") &&
            strstr(dg_sparse_source(B), "y = A x"),
        "bsr source lacks its constants:\n%s", dg_sparse_source(B));
  dg_sparse_destroy(&B);
  dg_sparse_csr_destroy(&D);
  dg_array_destroy(&x);
  dg_array_destroy(&y);
  dg_array_destroy(&xf);
  dg_sparse_destroy(&M);
  dg_sparse_csr_destroy(&A);
  dg_device_destroy(&dev);
  dt_remove_dir(cache);
  printf("%d products checked\n", checked);
  return 0;
}
