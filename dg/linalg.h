/* Dense linear algebra for reference-element construction: thin wrappers
 * over LAPACKE and CBLAS.  Every matrix is row-major (A[i*ncols + j]), the
 * convention of dg/refelem.h.  Failures (singular matrix, no convergence)
 * come back as DG_ERR_NUMERIC; bad sizes or NULL pointers as DG_ERR_ARG. */
#ifndef DG_DG_LINALG_H
#define DG_DG_LINALG_H

#include "core/error.h"

/* Invert the n x n matrix A in place (LU with partial pivoting, dgetrf +
 * dgetri). */
dg_error dg_linalg_inverse(int n, double *A);

/* Solve A X = B for X, overwriting B (n x nrhs) with X; A (n x n) is
 * overwritten by its LU factors (dgesv). */
dg_error dg_linalg_solve(int n, int nrhs, double *A, double *B);

/* C = op(A) op(B) with op(X) = X or X^T (transa/transb nonzero = transpose);
 * op(A) is m x k, op(B) is k x n, C is m x n (dgemm).  C must not alias A or
 * B. */
dg_error dg_linalg_matmul(int transa, int transb, int m, int n, int k,
                          const double *A, const double *B, double *C);

/* Eigen-decomposition of the symmetric tridiagonal matrix with diagonal
 * d[0..n-1] and off-diagonal e[0..n-2] (dstev).  On return d holds the
 * eigenvalues in ascending order and, when Z is not NULL, Z (n x n) holds the
 * orthonormal eigenvectors as columns: Z[i*n + j] is component i of vector j.
 * e is destroyed. */
dg_error dg_linalg_tridiag_eig(int n, double *d, double *e, double *Z);

/* 2-norm condition number sigma_max / sigma_min of the n x n matrix A (SVD,
 * dgesvd); A is left unchanged.  Infinity when A is singular. */
dg_error dg_linalg_cond2(int n, const double *A, double *cond);

#endif
