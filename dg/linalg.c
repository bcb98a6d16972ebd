/* Thin LAPACKE/CBLAS wrappers, see linalg.h. */
#include "dg/linalg.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

dg_error dg_linalg_inverse(int n, double *A) {
  DG_CHECK(n > 0 && A, DG_ERR_ARG, "inverse: bad matrix (n = %d, A = %p)", n,
           (void *)A);
  lapack_int *ipiv = malloc((size_t)n * sizeof *ipiv);
  DG_CHECK(ipiv, DG_ERR_MEMORY, "inverse: cannot allocate %d pivots", n);
  lapack_int info = LAPACKE_dgetrf(LAPACK_ROW_MAJOR, n, n, A, n, ipiv);
  if (info == 0)
    info = LAPACKE_dgetri(LAPACK_ROW_MAJOR, n, A, n, ipiv);
  free(ipiv);
  DG_CHECK(info == 0, DG_ERR_NUMERIC,
           "inverse of a %d x %d matrix failed (LAPACK info %d%s)", n, n,
           (int)info, info > 0 ? ": matrix is singular" : "");
  return DG_OK;
}

dg_error dg_linalg_solve(int n, int nrhs, double *A, double *B) {
  DG_CHECK(n > 0 && nrhs > 0 && A && B, DG_ERR_ARG,
           "solve: bad arguments (n = %d, nrhs = %d)", n, nrhs);
  lapack_int *ipiv = malloc((size_t)n * sizeof *ipiv);
  DG_CHECK(ipiv, DG_ERR_MEMORY, "solve: cannot allocate %d pivots", n);
  lapack_int info = LAPACKE_dgesv(LAPACK_ROW_MAJOR, n, nrhs, A, n, ipiv, B,
                                  nrhs);
  free(ipiv);
  DG_CHECK(info == 0, DG_ERR_NUMERIC,
           "solve with a %d x %d matrix failed (LAPACK info %d%s)", n, n,
           (int)info, info > 0 ? ": matrix is singular" : "");
  return DG_OK;
}

dg_error dg_linalg_matmul(int transa, int transb, int m, int n, int k,
                          const double *A, const double *B, double *C) {
  DG_CHECK(m > 0 && n > 0 && k > 0 && A && B && C, DG_ERR_ARG,
           "matmul: bad arguments (m = %d, n = %d, k = %d)", m, n, k);
  DG_CHECK(C != A && C != B, DG_ERR_ARG, "matmul: output aliases an input");
  /* Leading dimensions of the stored (untransposed) row-major arrays. */
  int lda = transa ? m : k, ldb = transb ? k : n;
  cblas_dgemm(CblasRowMajor, transa ? CblasTrans : CblasNoTrans,
              transb ? CblasTrans : CblasNoTrans, m, n, k, 1.0, A, lda, B, ldb,
              0.0, C, n);
  return DG_OK;
}

dg_error dg_linalg_tridiag_eig(int n, double *d, double *e, double *Z) {
  DG_CHECK(n > 0 && d && (n == 1 || e), DG_ERR_ARG,
           "tridiag_eig: bad arguments (n = %d)", n);
  double dummy = 0.0;
  lapack_int info = LAPACKE_dstev(LAPACK_ROW_MAJOR, Z ? 'V' : 'N', n, d,
                                  n > 1 ? e : &dummy, Z ? Z : &dummy,
                                  Z ? n : 1);
  DG_CHECK(info == 0, DG_ERR_NUMERIC,
           "tridiagonal eigenproblem of size %d did not converge (LAPACK "
           "info %d)", n, (int)info);
  return DG_OK;
}

dg_error dg_linalg_cond2(int n, const double *A, double *cond) {
  DG_CHECK(n > 0 && A && cond, DG_ERR_ARG, "cond2: bad arguments (n = %d)", n);
  double *work = malloc((size_t)n * (size_t)n * sizeof *work);
  double *sv = malloc((size_t)n * sizeof *sv);
  double *superb = malloc((size_t)(n > 1 ? n - 1 : 1) * sizeof *superb);
  dg_error err = DG_OK;
  DG_CHECK_GOTO(err, done, work && sv && superb, DG_ERR_MEMORY,
                "cond2: cannot allocate work space for n = %d", n);
  memcpy(work, A, (size_t)n * (size_t)n * sizeof *work);
  double dummy = 0.0;
  lapack_int info = LAPACKE_dgesvd(LAPACK_ROW_MAJOR, 'N', 'N', n, n, work, n,
                                   sv, &dummy, 1, &dummy, 1, superb);
  DG_CHECK_GOTO(err, done, info == 0, DG_ERR_NUMERIC,
                "SVD of a %d x %d matrix did not converge (LAPACK info %d)", n,
                n, (int)info);
  *cond = sv[n - 1] > 0.0 ? sv[0] / sv[n - 1] : INFINITY;
done:
  free(work);
  free(sv);
  free(superb);
  return err;
}
