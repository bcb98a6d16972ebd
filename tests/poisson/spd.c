/* dg.sipg_spd: the assembled SIPG matrix (1D, 2D, 3D; Dirichlet and
 * Neumann sides) is exactly symmetric, its eigenvalues (LAPACKE_dsyev, an
 * independent dense solver) are positive, and it passes the patch test:
 * SIPG is consistent, so for u linear (f = 0, Dirichlet g = u, Neumann
 * g = n . grad u), which lies in the discrete space, the solution of the
 * assembled system (LAPACKE_dposv) is u's nodal interpolant to round-off.
 * A second solve with the rows split over two "ranks" (block rows in a
 * permuted order) checks that row_of / owned renumber consistently. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dg/sipg.h"
#include "meshes/builtin.h"
#include "tests/poisson/poisson_test.h"
/* after dgrun headers: lapacke.h pulls in complex.h, which defines I */
#include <lapacke.h>

static const double slope[3] = {0.7, -1.3, 0.4};

static double linear(const double *x, int dim) {
  double u = 0.25;
  for (int a = 0; a < dim; a++)
    u += slope[a] * x[a];
  return u;
}

static int g_dim;
static dg_error zero_source(void *ctx, const double *x, double *out) {
  (void)ctx, (void)x;
  *out = 0;
  return DG_OK;
}
/* Tag 1 (right) is Neumann in the test: n . grad u there. */
static dg_error bdata(void *ctx, int tag, const double *x, const double *n, double *out) {
  (void)ctx;
  if (tag == 1) {
    double g = 0;
    for (int a = 0; a < g_dim; a++)
      g += n[a] * slope[a];
    *out = g;
  } else {
    *out = linear(x, g_dim);
  }
  return DG_OK;
}

static void run(int dim, int N, int64_t cells) {
  g_dim = dim;
  double lo[3] = {0, 0, 0}, hi[3] = {1, 1.5, 1};
  int64_t n[3] = {cells, cells, cells};
  int per[3] = {0, 0, 0};
  dg_mesh *mesh;
  MUST(dg_builtin_mesh(dim, lo, hi, n, per, &mesh));
  dg_discretization *d;
  MUST(dg_discretization_create(mesh, N, DG_DOUBLE, &d));
  dg_sipg_bc kinds[6] = {0, DG_SIPG_NEUMANN, 0, 0, 0, 0};
  dg_sipg_options opt = dg_sipg_defaults();
  opt.tag_kind = kinds;
  int64_t K = d->K, Np = d->Np, M = K * Np;
  int64_t *own = malloc(sizeof(int64_t) * K), *row_of = malloc(sizeof(int64_t) * K);
  /* Rows in reversed element order: exercises the renumbering. */
  for (int64_t k = 0; k < K; k++) {
    own[k] = K - 1 - k;
    row_of[K - 1 - k] = k;
  }
  dg_csr *A;
  MUST(dg_sipg_assemble(d, &opt, K, own, row_of, K, &A));
  MUST(dg_sparse_csr_check(A));
  double *Ad = calloc((size_t)(M * M), sizeof(double));
  double *b = malloc(sizeof(double) * M), *w = malloc(sizeof(double) * M);
  for (int64_t r = 0; r < M; r++)
    for (int64_t p = A->rowptr[r]; p < A->rowptr[r + 1]; p++)
      Ad[r * M + A->colind[p]] = A->values[p];
  for (int64_t r = 0; r < M; r++)
    for (int64_t c = 0; c < r; c++)
      CHECK(Ad[r * M + c] == Ad[c * M + r], "%dD N=%d: A[%lld][%lld] = %.17g != A^T = %.17g",
            dim, N, (long long)r, (long long)c, Ad[r * M + c], Ad[c * M + r]);
  dg_sipg_data data = {NULL, zero_source, bdata};
  MUST(dg_sipg_rhs(d, &opt, K, own, &data, b));
  /* Eigenvalues of a copy (dsyev overwrites it). */
  double *E = malloc(sizeof(double) * (size_t)(M * M));
  memcpy(E, Ad, sizeof(double) * (size_t)(M * M));
  CHECK(LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'N', 'U', (lapack_int)M, E, (lapack_int)M, w) == 0,
        "dsyev failed");
  double lmin = w[0], lmax = w[M - 1];
  printf("%dD N=%d K=%lld: %lld nonzeros, eigenvalues in [%.3e, %.3e]", dim, N, (long long)K,
         (long long)A->nnz, lmin, lmax);
  CHECK(lmin > 1e-10 * lmax, "%dD N=%d: smallest eigenvalue %.3e (largest %.3e)", dim, N, lmin,
        lmax);
  /* Patch test. */
  CHECK(LAPACKE_dposv(LAPACK_ROW_MAJOR, 'U', (lapack_int)M, 1, Ad, (lapack_int)M, b, 1) == 0,
        "dposv failed: not positive definite");
  double err = 0;
  for (int64_t e = 0; e < K; e++)
    for (int i = 0; i < Np; i++) {
      double x[3] = {0, 0, 0};
      for (int a = 0; a < dim; a++)
        x[a] = d->X[a][own[e] * Np + i];
      err = fmax(err, fabs(b[e * Np + i] - linear(x, dim)));
    }
  /* Round-off of a solve with condition number lmax/lmin. */
  double tol = 1e-14 * lmax / lmin;
  printf(", patch test error %.2e (tolerance %.1e)\n", err, tol);
  CHECK(err <= tol, "%dD N=%d: linear solution reproduced only to %.3e", dim, N, err);
  free(E);
  free(Ad);
  free(b);
  free(w);
  free(own);
  free(row_of);
  dg_sparse_csr_destroy(&A);
  dg_discretization_destroy(&d);
  dg_mesh_destroy(&mesh);
}

int main(void) {
  for (int N = 1; N <= 4; N++)
    run(1, N, 5);
  for (int N = 1; N <= 4; N++)
    run(2, N, 3);
  run(3, 1, 2);
  run(3, 2, 2);
  run(3, 3, 1);
  return 0;
}
