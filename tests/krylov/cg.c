/* core.krylov_cg (cpu) / core.krylov_cg_cuda (gpu): CG with each
 * preconditioner on fresh SPD DG-structured systems reaches the tolerance
 * (true residual recomputed here in long double) and agrees with a dense
 * Cholesky solve (LAPACKE dposv) to the accuracy the tolerance allows;
 * block-jacobi needs fewer iterations than none on these block-dominated
 * matrices (b > 1); the log starts at ||b - A x0|| and has one entry per
 * iteration; a float solve reaches a float tolerance. */
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "core/comm.h"
#include "core/krylov.h"
#include "tests/sparse/sptest.h"

static double norm(const double *v, int64_t n) {
  long double s = 0;
  for (int64_t i = 0; i < n; i++)
    s += (long double)v[i] * v[i];
  return (double)sqrtl(s);
}

static int solve(dg_comm *comm, dg_device *dev, const dg_csr *A,
                 dg_sparse_format f, int b, dg_krylov_pc pc, dg_dtype dtype,
                 double rtol, const double *rhs, const double *x0,
                 const double *xdense, double cond_bound) {
  int64_t n = A->nrows;
  dg_sparse_dist *D;
  MUST(dg_sparse_dist_create(comm, dev, A, 0, f, b, dtype, &D));
  dg_krylov_options opt = dg_krylov_defaults();
  opt.rtol = rtol;
  opt.pc = pc;
  opt.block = b;
  opt.max_iterations = 2000;
  dg_krylov *k;
  MUST(dg_krylov_create(D, A, &opt, &k));
  dg_array *db, *dx;
  MUST(dg_array_create(dev, dtype, n, &db));
  MUST(dg_array_create(dev, dtype, n, &dx));
  MUST(dg_array_upload_double(db, rhs));
  MUST(dg_array_upload_double(dx, x0));
  dg_krylov_result res;
  MUST(dg_krylov_solve(k, db, dx, &res));
  double *x = malloc((size_t)n * sizeof *x), *r = malloc((size_t)n * sizeof *r);
  CHECK(x && r, "out of memory");
  MUST(dg_array_download_double(dx, x));
  /* True residual, independently. */
  st_reference(A, x, r, NULL);
  for (int64_t i = 0; i < n; i++)
    r[i] = rhs[i] - r[i];
  double bn = norm(rhs, n), rn = norm(r, n);
  const char *what = dg_krylov_pc_name(pc);
  /* The solver's own figure is a float/double computation of the same
   * residual: the two agree up to rounding in the residual itself. */
  double slack = dtype == DG_FLOAT ? 2.0 : 1.0 + 1e-6;
  CHECK(res.converged && rn <= slack * rtol * bn,
        "%s %s: ||b - A x|| = %.3e > rtol ||b|| = %.3e (solver says %.3e)",
        what, dg_dtype_name(dtype), rn, rtol * bn, res.residual);
  CHECK(fabs(res.b_norm - bn) <= 1e-6 * bn, "%s: ||b|| %g vs %g", what,
        res.b_norm, bn);
  /* Forward error <= cond(A) * relative residual (plus rounding). */
  double en = 0, xn = norm(xdense, n);
  for (int64_t i = 0; i < n; i++)
    en += (x[i] - xdense[i]) * (x[i] - xdense[i]);
  en = sqrt(en);
  double eps = dtype == DG_FLOAT ? FLT_EPSILON : DBL_EPSILON;
  CHECK(en <= cond_bound * (rtol + 100 * eps) * xn,
        "%s %s: ||x - x_dense|| / ||x|| = %.3e, bound %.3e", what,
        dg_dtype_name(dtype), en / xn, cond_bound * (rtol + 100 * eps));
  int count;
  const double *h = dg_krylov_history(k, &count);
  CHECK(count >= res.iterations + 1, "%s: %d log entries for %d iterations",
        what, count, res.iterations);
  for (int64_t i = 0; i < n; i++)
    r[i] = x0[i];
  st_reference(A, x0, r, NULL);
  for (int64_t i = 0; i < n; i++)
    r[i] = rhs[i] - r[i];
  double r0 = norm(r, n);
  CHECK(fabs(h[0] - r0) <= 1e-5 * r0, "%s: log starts at %.6e, ||b - A x0|| "
        "= %.6e", what, h[0], r0);
  printf("%-12s %-6s %-10s: %3d iterations, ||r||/||b|| = %.2e, error %.2e\n",
         what, dg_dtype_name(dtype), dg_sparse_format_name(f), res.iterations,
         rn / bn, en / xn);
  dg_array_destroy(&db);
  dg_array_destroy(&dx);
  dg_krylov_destroy(&k);
  dg_sparse_dist_destroy(&D);
  free(x);
  free(r);
  return res.iterations;
}

int main(int argc, char **argv) {
  const char *cache;
  dg_device *dev = st_open_device(argc, argv, &cache);
  dg_comm *comm;
  MUST(dg_comm_create_world(&comm));
  uint64_t rng = dt_seed();
  const int bs[] = {1, 3, 6};
  for (size_t t = 0; t < sizeof bs / sizeof bs[0]; t++) {
    int b = bs[t];
    /* dominance 1: the diagonal barely dominates, a few dozen iterations. */
    dg_csr *A = st_block_matrix(64, b, 1.0, &rng);
    int64_t n = A->nrows;
    double *rhs = st_random_vector(n, DG_DOUBLE, &rng);
    double *x0 = st_random_vector(n, DG_DOUBLE, &rng);
    double *zero = calloc((size_t)n, sizeof *zero);
    /* Dense reference: Cholesky (dposv) and the 1-norm condition number
     * estimate (dpocon) for the forward-error bound. */
    double *M = calloc((size_t)(n * n), sizeof *M), *xd = malloc((size_t)n * 8);
    CHECK(M && xd && zero, "out of memory");
    double anorm = 0;
    for (int64_t i = 0; i < n; i++) {
      double rowsum = 0;
      for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
        M[i * n + A->colind[k]] = A->values[k];
        rowsum += fabs(A->values[k]);
      }
      anorm = fmax(anorm, rowsum);
      xd[i] = rhs[i];
    }
    CHECK(LAPACKE_dposv(LAPACK_ROW_MAJOR, 'L', (lapack_int)n, 1, M,
                        (lapack_int)n, xd, 1) == 0,
          "the test matrix is not SPD (dposv failed)");
    double rcond = 0;
    CHECK(LAPACKE_dpocon(LAPACK_ROW_MAJOR, 'L', (lapack_int)n, M,
                         (lapack_int)n, anorm, &rcond) == 0, "dpocon failed");
    /* 2-norm condition <= sqrt(n) * 1-norm condition; 10x for the estimate. */
    double cond = 10 * sqrt((double)n) / rcond;
    int it_none = solve(comm, dev, A, DG_SPARSE_CSR_SCALAR, b,
                        DG_KRYLOV_PC_NONE, DG_DOUBLE, 1e-10, rhs, x0, xd, cond);
    solve(comm, dev, A, DG_SPARSE_ELL, b, DG_KRYLOV_PC_JACOBI, DG_DOUBLE,
          1e-10, rhs, zero, xd, cond);
    int it_bj = solve(comm, dev, A, b > 1 ? DG_SPARSE_BSR : DG_SPARSE_CSR_VECTOR,
                      b, DG_KRYLOV_PC_BLOCK_JACOBI, DG_DOUBLE, 1e-10, rhs, x0,
                      xd, cond);
    /* With real blocks (b > 1) inverting them must pay off; for b = 1
     * block-jacobi is jacobi, whose gain on these matrices is a few
     * iterations at most, too close to call. */
    if (b > 1)
      CHECK(it_bj < it_none, "b = %d: block-jacobi took %d iterations, none "
            "%d", b, it_bj, it_none);
    /* float: tolerance a few hundred float epsilons. */
    double *rf = st_random_vector(n, DG_FLOAT, &rng);
    for (int64_t i = 0; i < n; i++)
      rhs[i] = rf[i];
    memcpy(xd, rhs, (size_t)n * sizeof *xd);
    /* Recompute the dense solution for the new right-hand side from the
     * Cholesky factor dposv left in M. */
    CHECK(LAPACKE_dpotrs(LAPACK_ROW_MAJOR, 'L', (lapack_int)n, 1, M,
                         (lapack_int)n, xd, 1) == 0, "dpotrs failed");
    solve(comm, dev, A, DG_SPARSE_AUTO, b, DG_KRYLOV_PC_JACOBI, DG_FLOAT, 1e-5,
          rhs, zero, xd, cond);
    free(rf);
    free(M);
    free(xd);
    free(rhs);
    free(x0);
    free(zero);
    dg_sparse_csr_destroy(&A);
  }
  dg_comm_destroy(&comm);
  dg_device_destroy(&dev);
  dt_remove_dir(cache);
  return 0;
}
