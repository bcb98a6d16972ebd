/* core.krylov_fail: CG never hands back a wrong answer silently.
 *   - a singular, inconsistent system (Neumann Laplacian, b not orthogonal
 *     to the constants): DG_ERR_NUMERIC, not converged;
 *   - an indefinite matrix with b^T A b < 0: breakdown at the first step;
 *   - too few iterations on an SPD system: the message has the count and
 *     the residual history;
 *   - a zero diagonal (jacobi) or singular diagonal block (block-jacobi)
 *     is refused at setup, naming the row / block;
 *   - b = 0 gives x = 0 at once; a converged x0 needs no iteration;
 *   - NaN in b and tolerances of 0 are refused. */
#include <math.h>
#include <string.h>

#include "core/comm.h"
#include "core/krylov.h"
#include "tests/sparse/sptest.h"

static dg_comm *comm;
static dg_device *dev;

typedef struct {
  dg_sparse_dist *D;
  dg_krylov *k;
  dg_array *b, *x;
} system_t;

static dg_error setup(const dg_csr *A, dg_krylov_options opt, system_t *s) {
  *s = (system_t){0};
  MUST(dg_sparse_dist_create(comm, dev, A, 0, DG_SPARSE_CSR_SCALAR, 1,
                            DG_DOUBLE, &s->D));
  dg_error err = dg_krylov_create(s->D, A, &opt, &s->k);
  if (err != DG_OK)
    return err;
  MUST(dg_array_create(dev, DG_DOUBLE, A->nrows, &s->b));
  MUST(dg_array_create(dev, DG_DOUBLE, A->nrows, &s->x));
  return DG_OK;
}

static void teardown(system_t *s) {
  dg_array_destroy(&s->b);
  dg_array_destroy(&s->x);
  dg_krylov_destroy(&s->k);
  dg_sparse_dist_destroy(&s->D);
}

static dg_csr *from_triplets(int64_t n, int64_t nnz, const int64_t *r,
                             const int64_t *c, const double *v) {
  dg_csr *A;
  MUST(dg_sparse_csr_from_coo(n, n, nnz, r, c, v, &A));
  return A;
}

/* Tridiagonal (-1, 2, -1) with A[0][0] = A[n-1][n-1] = 1: singular, null
 * space the constants. */
static dg_csr *neumann_laplacian(int64_t n) {
  int64_t *r = malloc(3 * n * sizeof *r), *c = malloc(3 * n * sizeof *c);
  double *v = malloc(3 * n * sizeof *v);
  int64_t k = 0;
  for (int64_t i = 0; i < n; i++) {
    r[k] = i, c[k] = i, v[k++] = (i == 0 || i == n - 1) ? 1.0 : 2.0;
    if (i > 0)
      r[k] = i, c[k] = i - 1, v[k++] = -1.0;
    if (i < n - 1)
      r[k] = i, c[k] = i + 1, v[k++] = -1.0;
  }
  dg_csr *A = from_triplets(n, k, r, c, v);
  free(r);
  free(c);
  free(v);
  return A;
}

int main(int argc, char **argv) {
  const char *cache;
  dev = st_open_device(argc, argv, &cache);
  MUST(dg_comm_create_world(&comm));
  uint64_t rng = dt_seed();
  system_t s;
  dg_krylov_result res;
  dg_krylov_options opt = dg_krylov_defaults();
  opt.rtol = 1e-10;
  opt.max_iterations = 400;

  /* Singular and inconsistent. */
  {
    const int64_t n = 50;
    dg_csr *A = neumann_laplacian(n);
    double *b = st_random_vector(n, DG_DOUBLE, &rng);
    b[0] += 1.0; /* a clear component along the constants */
    MUST(setup(A, opt, &s));
    MUST(dg_array_upload_double(s.b, b));
    MUST(dg_array_fill(s.x, 0.0));
    dg_error err = dg_krylov_solve(s.k, s.b, s.x, &res);
    CHECK(err == DG_ERR_NUMERIC && !res.converged,
          "singular system: %s, converged %d", dg_error_name(err),
          res.converged);
    CHECK(strstr(dg_error_message(), "iterations") &&
              strstr(dg_error_message(), "history"),
          "singular system message: %s", dg_error_message());
    printf("singular: %s\n", dg_error_message());
    dg_error_clear();
    teardown(&s);
    free(b);
    dg_sparse_csr_destroy(&A);
  }
  /* Indefinite: diag(1, ..., n/2, -(n/2 + 1), ..., -n), b weighted on the
   * negative half so that b^T A b < 0. */
  {
    const int64_t n = 20;
    int64_t idx[20];
    double v[20], b[20];
    for (int64_t i = 0; i < n; i++) {
      idx[i] = i;
      v[i] = i < n / 2 ? i + 1.0 : -(i + 1.0);
      b[i] = i < n / 2 ? 0.1 : 1.0;
    }
    dg_csr *A = from_triplets(n, n, idx, idx, v);
    MUST(setup(A, opt, &s));
    MUST(dg_array_upload_double(s.b, b));
    MUST(dg_array_fill(s.x, 0.0));
    dg_error err = dg_krylov_solve(s.k, s.b, s.x, &res);
    CHECK(err == DG_ERR_NUMERIC && !res.converged && res.iterations == 0 &&
              strstr(dg_error_message(), "not positive definite"),
          "indefinite: %s after %d iterations: %s", dg_error_name(err),
          res.iterations, dg_error_message());
    dg_error_clear();
    teardown(&s);
    dg_sparse_csr_destroy(&A);
  }
  /* Too few iterations, then plenty, then a converged start. */
  {
    dg_csr *A = st_block_matrix(40, 3, 1.0, &rng);
    double *b = st_random_vector(A->nrows, DG_DOUBLE, &rng);
    dg_krylov_options few = opt;
    few.max_iterations = 3;
    MUST(setup(A, few, &s));
    MUST(dg_array_upload_double(s.b, b));
    MUST(dg_array_fill(s.x, 0.0));
    dg_error err = dg_krylov_solve(s.k, s.b, s.x, &res);
    CHECK(err == DG_ERR_NUMERIC && res.iterations == 3 && !res.converged,
          "3 iterations: %s after %d", dg_error_name(err), res.iterations);
    const char *m = dg_error_message();
    CHECK(strstr(m, "did not converge after 3 iterations") &&
              strstr(m, "it 0: 1.00e+00") && strstr(m, "it 3:"),
          "message: %s", m);
    dg_error_clear();
    teardown(&s);
    MUST(setup(A, opt, &s));
    MUST(dg_array_upload_double(s.b, b));
    MUST(dg_array_fill(s.x, 0.0));
    MUST(dg_krylov_solve(s.k, s.b, s.x, &res));
    CHECK(res.converged && res.iterations > 3, "full solve: %d iterations",
          res.iterations);
    MUST(dg_krylov_solve(s.k, s.b, s.x, &res));
    CHECK(res.converged && res.iterations == 0,
          "restart from the solution took %d iterations", res.iterations);
    /* b = 0: x = 0 whatever x0 was. */
    double *x = malloc(A->nrows * sizeof *x);
    MUST(dg_array_fill(s.b, 0.0));
    MUST(dg_array_upload_double(s.x, b));
    MUST(dg_krylov_solve(s.k, s.b, s.x, &res));
    MUST(dg_array_download_double(s.x, x));
    for (int64_t i = 0; i < A->nrows; i++)
      CHECK(x[i] == 0.0, "b = 0 gave x[%lld] = %g", (long long)i, x[i]);
    CHECK(res.converged && res.iterations == 0, "b = 0: %d iterations",
          res.iterations);
    /* NaN in b. */
    b[7] = NAN;
    MUST(dg_array_upload_double(s.b, b));
    CHECK(dg_krylov_solve(s.k, s.b, s.x, &res) == DG_ERR_NUMERIC,
          "NaN in b accepted");
    dg_error_clear();
    teardown(&s);
    /* Tolerances of 0. */
    dg_krylov_options zero = opt;
    zero.rtol = 0;
    CHECK(setup(A, zero, &s) == DG_ERR_ARG, "rtol = atol = 0 accepted");
    dg_error_clear();
    teardown(&s);
    /* A zero diagonal entry (row 4) for jacobi; a singular block (block 1:
     * rows 3..5 made identical) for block-jacobi. */
    for (int64_t k = A->rowptr[4]; k < A->rowptr[5]; k++)
      if (A->colind[k] == 4)
        A->values[k] = 0.0;
    dg_krylov_options jac = opt;
    jac.pc = DG_KRYLOV_PC_JACOBI;
    CHECK(setup(A, jac, &s) == DG_ERR_NUMERIC &&
              strstr(dg_error_message(), "global row 4"),
          "zero diagonal: %s", dg_error_message());
    dg_error_clear();
    teardown(&s);
    dg_sparse_csr_destroy(&A);
    /* Block 1 of a block-diagonal matrix with a rank-1 block. */
    int64_t r[18], c[18];
    double v[18];
    int k = 0;
    for (int e = 0; e < 2; e++)
      for (int t = 0; t < 3; t++)
        for (int u = 0; u < 3; u++) {
          r[k] = e * 3 + t, c[k] = e * 3 + u;
          v[k++] = e == 1 ? 1.0 : (t == u ? 2.0 : 0.5);
        }
    A = from_triplets(6, 18, r, c, v);
    dg_krylov_options bj = opt;
    bj.pc = DG_KRYLOV_PC_BLOCK_JACOBI;
    bj.block = 3;
    CHECK(setup(A, bj, &s) == DG_ERR_NUMERIC &&
              strstr(dg_error_message(), "diagonal block 1"),
          "singular block: %s", dg_error_message());
    dg_error_clear();
    teardown(&s);
    dg_sparse_csr_destroy(&A);
    free(b);
    free(x);
  }
  dg_comm_destroy(&comm);
  dg_device_destroy(&dev);
  dt_remove_dir(cache);
  printf("all checks passed\n");
  return 0;
}
