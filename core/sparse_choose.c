/* Sparse matrices: the choice of a device format, from the matrix
 * structure (dg_sparse_choose) or by timing every candidate on the device
 * (dg_sparse_tune). */
#include <math.h>
#include <stdlib.h>

#include "core/sparse.h"
#include "core/sparse_private.h"

dg_error dg_sparse_choose(const dg_device *dev, const dg_csr *A, int block,
                          dg_sparse_format *out) {
  DG_CHECK(dev && A && out, DG_ERR_ARG, "dg_sparse_choose: NULL argument");
  DG_CALL(dg_sparse_csr_check(A));
  if (block > 1 && dg_sparse_check_block(A, block) == DG_OK) {
    int64_t *browptr, *bcol, nblocks;
    DG_CALL(dg_sparse_block_pattern(A, block, &browptr, &bcol, &nblocks));
    free(browptr);
    free(bcol);
    /* At least 3/4 of the stored block entries are real entries. */
    if (4 * A->nnz >= 3 * nblocks * block * block) {
      *out = DG_SPARSE_BSR;
      return DG_OK;
    }
  } else if (block > 1) {
    dg_error_clear();
  }
  int64_t w = dg_sparse_longest_row(A);
  if (A->nrows > 0 && 8 * w * A->nrows <= 9 * A->nnz) {
    *out = DG_SPARSE_ELL;
    return DG_OK;
  }
  *out = A->nrows > 0 && A->nnz >= 8 * A->nrows ? DG_SPARSE_CSR_VECTOR
                                                : DG_SPARSE_CSR_SCALAR;
  return DG_OK;
}

dg_error dg_sparse_tune(dg_device *dev, const dg_csr *A, int block,
                        dg_dtype dtype, int repeats, dg_sparse_format *out,
                        double ms[DG_SPARSE_NFORMATS]) {
  DG_CHECK(dev && A && out && ms, DG_ERR_ARG, "dg_sparse_tune: NULL argument");
  DG_CHECK(repeats >= 1, DG_ERR_ARG, "repeats = %d must be >= 1", repeats);
  DG_CALL(dg_sparse_csr_check(A));
  dg_error err = DG_OK;
  dg_array *x = NULL, *y = NULL;
  dg_event *start = NULL, *stop = NULL;
  dg_sparse *M = NULL;
  double *ones = NULL;
  DG_CALL_GOTO(err, done, dg_array_create(dev, dtype, A->ncols, &x));
  DG_CALL_GOTO(err, done, dg_array_create(dev, dtype, A->nrows, &y));
  ones = dg_sparse_alloc(A->ncols, sizeof *ones);
  DG_CHECK_GOTO(err, done, ones != NULL, DG_ERR_MEMORY, "out of host memory");
  for (int64_t k = 0; k < A->ncols; k++)
    ones[k] = 1.0;
  DG_CALL_GOTO(err, done, dg_array_upload_double(x, ones));
  DG_CALL_GOTO(err, done, dg_event_create(dev, &start));
  DG_CALL_GOTO(err, done, dg_event_create(dev, &stop));
  int64_t w = dg_sparse_longest_row(A);
  double best = INFINITY;
  *out = DG_SPARSE_CSR_SCALAR;
  for (int f = 0; f < DG_SPARSE_NFORMATS; f++) {
    ms[f] = -1.0;
    if (f == DG_SPARSE_BSR &&
        (block <= 1 || A->nrows % block || A->ncols % block))
      continue;
    /* ELL whose padding would more than double the storage is not a
     * contender (one long row makes it quadratic). */
    if (f == DG_SPARSE_ELL && w * A->nrows > 2 * A->nnz + A->nrows)
      continue;
    DG_CALL_GOTO(err, done, dg_sparse_create(dev, A, (dg_sparse_format)f,
                                             block, dtype, &M));
    DG_CALL_GOTO(err, done, dg_sparse_spmv(M, x, y, 0, NULL)); /* warm-up */
    double t = INFINITY;
    for (int r = 0; r < repeats; r++) {
      float e = 0;
      DG_CALL_GOTO(err, done, dg_event_record(start, NULL));
      DG_CALL_GOTO(err, done, dg_sparse_spmv(M, x, y, 0, NULL));
      DG_CALL_GOTO(err, done, dg_event_record(stop, NULL));
      DG_CALL_GOTO(err, done, dg_event_synchronize(stop));
      DG_CALL_GOTO(err, done, dg_event_elapsed_ms(start, stop, &e));
      if (e < t)
        t = e;
    }
    ms[f] = t;
    if (t < best) {
      best = t;
      *out = (dg_sparse_format)f;
    }
    dg_sparse_destroy(&M);
  }
done:
  dg_sparse_destroy(&M);
  dg_event_destroy(&start);
  dg_event_destroy(&stop);
  dg_array_destroy(&x);
  dg_array_destroy(&y);
  free(ones);
  return err;
}
