/* core.sparse_convert: host formats.  COO -> CSR sums duplicates and sorts
 * (checked against a dense accumulation); ELL and BSR hold exactly the
 * entries of the CSR (checked entry by entry against the dense matrix,
 * including the column-major block layout) and convert back to the same
 * CSR; malformed input is refused with the offending value named. */
#include <math.h>
#include <string.h>

#include "sptest.h"

/* Dense copy of A (row-major). */
static double *dense_of(const dg_csr *A) {
  double *D = calloc((size_t)(A->nrows * A->ncols + 1), sizeof *D);
  CHECK(D != NULL, "out of memory");
  for (int64_t i = 0; i < A->nrows; i++)
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
      D[i * A->ncols + A->colind[k]] = A->values[k];
  return D;
}

static void expect_same_csr(const dg_csr *A, const dg_csr *B, const char *what) {
  CHECK(A->nrows == B->nrows && A->ncols == B->ncols && A->nnz == B->nnz,
        "%s: %lldx%lld/%lld became %lldx%lld/%lld", what, (long long)A->nrows,
        (long long)A->ncols, (long long)A->nnz, (long long)B->nrows,
        (long long)B->ncols, (long long)B->nnz);
  CHECK(memcmp(A->rowptr, B->rowptr, (size_t)(A->nrows + 1) * 8) == 0,
        "%s: row pointers differ", what);
  for (int64_t k = 0; k < A->nnz; k++)
    CHECK(A->colind[k] == B->colind[k] && A->values[k] == B->values[k],
          "%s: entry %lld (%lld, %.17g) became (%lld, %.17g)", what,
          (long long)k, (long long)A->colind[k], A->values[k],
          (long long)B->colind[k], B->values[k]);
}

static void check_coo(uint64_t *rng) {
  const int64_t m = 17, n = 23, nnz = 400; /* many repeats */
  int64_t rows[400], cols[400];
  double vals[400];
  double *D = calloc(m * n, sizeof *D);
  CHECK(D != NULL, "out of memory");
  for (int k = 0; k < nnz; k++) {
    rows[k] = (int64_t)((dt_uniform(rng) + 1) * 0.5 * m) % m;
    cols[k] = (int64_t)((dt_uniform(rng) + 1) * 0.5 * n) % n;
    vals[k] = dt_uniform(rng);
    D[rows[k] * n + cols[k]] += vals[k];
  }
  dg_csr *A;
  MUST(dg_sparse_csr_from_coo(m, n, nnz, rows, cols, vals, &A));
  MUST(dg_sparse_csr_check(A));
  int64_t present = 0;
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++) {
      int found = 0;
      for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
        if (A->colind[k] == j) {
          found = 1;
          /* Sums of the same terms in another order: a few ulps apart. */
          CHECK(fabs(A->values[k] - D[i * n + j]) <= 1e-14,
                "(%lld, %lld): %.17g, dense sum %.17g", (long long)i,
                (long long)j, A->values[k], D[i * n + j]);
        }
      present += found;
      if (!found)
        CHECK(D[i * n + j] == 0, "(%lld, %lld) missing", (long long)i,
              (long long)j);
    }
  CHECK(present == A->nnz, "%lld distinct positions, nnz %lld",
        (long long)present, (long long)A->nnz);
  dg_sparse_csr_destroy(&A);
  free(D);
  /* An index out of range names the entry. */
  int64_t r1[] = {0, 3}, c1[] = {0, 1};
  double v1[] = {1, 2};
  CHECK(dg_sparse_csr_from_coo(3, 3, 2, r1, c1, v1, &A) == DG_ERR_ARG &&
            strstr(dg_error_message(), "entry 1 at (3, 1)"),
        "out-of-range row: %s", dg_error_message());
  dg_error_clear();
}

static void check_ell_bsr(const dg_csr *A, int b) {
  double *D = dense_of(A);
  dg_ell *E;
  MUST(dg_sparse_csr_to_ell(A, &E));
  int64_t longest = 0;
  for (int64_t i = 0; i < A->nrows; i++) {
    int64_t len = A->rowptr[i + 1] - A->rowptr[i];
    longest = len > longest ? len : longest;
    for (int64_t k = 0; k < E->width; k++) {
      int64_t c = E->colind[k * A->nrows + i];
      double v = E->values[k * A->nrows + i];
      if (k >= len)
        CHECK(c == -1 && v == 0, "ell row %lld slab %lld: padding (%lld, %g)",
              (long long)i, (long long)k, (long long)c, v);
      else
        CHECK(c >= 0 && D[i * A->ncols + c] == v,
              "ell row %lld slab %lld: (%lld, %g)", (long long)i,
              (long long)k, (long long)c, v);
    }
  }
  CHECK(E->width == longest, "ell width %lld, longest row %lld",
        (long long)E->width, (long long)longest);
  dg_csr *back;
  MUST(dg_sparse_ell_to_csr(E, &back));
  expect_same_csr(A, back, "csr -> ell -> csr");
  dg_sparse_csr_destroy(&back);
  dg_sparse_ell_destroy(&E);

  dg_bsr *B;
  MUST(dg_sparse_csr_to_bsr(A, b, &B));
  int64_t nbc = A->ncols / b, blocks = 0;
  for (int64_t I = 0; I < B->nbrows; I++) {
    for (int64_t J = 0; J < nbc; J++) {
      int any = 0;
      for (int t = 0; t < b; t++)
        for (int c = 0; c < b; c++)
          any |= D[(I * b + t) * A->ncols + J * b + c] != 0;
      blocks += any;
    }
    for (int64_t k = B->browptr[I]; k < B->browptr[I + 1]; k++) {
      CHECK(k == B->browptr[I] || B->bcolind[k] > B->bcolind[k - 1],
            "bsr block row %lld: block columns not increasing", (long long)I);
      int64_t J = B->bcolind[k];
      for (int t = 0; t < b; t++)
        for (int c = 0; c < b; c++)
          CHECK(B->values[k * b * b + c * b + t] ==
                    D[(I * b + t) * A->ncols + J * b + c],
                "bsr block (%lld, %lld) entry (%d, %d)", (long long)I,
                (long long)J, t, c);
    }
  }
  /* Random values are never exactly 0, so stored blocks = touched blocks. */
  CHECK(B->nblocks == blocks, "bsr stores %lld blocks, %lld are touched",
        (long long)B->nblocks, (long long)blocks);
  MUST(dg_sparse_bsr_to_csr(B, &back));
  expect_same_csr(A, back, "csr -> bsr -> csr");
  dg_sparse_csr_destroy(&back);
  dg_sparse_bsr_destroy(&B);
  free(D);
}

int main(void) {
  uint64_t rng = dt_seed();
  check_coo(&rng);
  const struct {
    int64_t m, n;
    double per_row;
    int flags, b;
  } cases[] = {{0, 0, 0, 0, 1},       {6, 9, 0, 0, 3},
               {30, 30, 3, ST_EMPTY_ROWS, 1},
               {30, 45, 4, ST_EMPTY_ROWS | ST_DENSE_ROW, 5},
               {64, 64, 10, ST_DENSE_ROW, 8}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    dg_csr *A = st_random_csr(cases[c].m, cases[c].n, cases[c].per_row,
                              cases[c].flags, &rng);
    check_ell_bsr(A, cases[c].b);
    dg_sparse_csr_destroy(&A);
  }
  dg_csr *A = st_block_matrix(10, 4, 1.0, &rng);
  check_ell_bsr(A, 4);
  /* Malformed CSR and bad block sizes are refused, naming the value. */
  dg_bsr *B;
  CHECK(dg_sparse_csr_to_bsr(A, 3, &B) == DG_ERR_ARG &&
            strstr(dg_error_message(), "block size 3"),
        "block 3 of 40 rows: %s", dg_error_message());
  int64_t save = A->colind[5];
  A->colind[5] = A->colind[4];
  CHECK(dg_sparse_csr_check(A) == DG_ERR_ARG &&
            strstr(dg_error_message(), "not strictly increasing"),
        "repeated column: %s", dg_error_message());
  A->colind[5] = A->ncols;
  CHECK(dg_sparse_csr_check(A) == DG_ERR_ARG &&
            strstr(dg_error_message(), "outside"),
        "column past the end: %s", dg_error_message());
  A->colind[5] = save;
  dg_error_clear();
  /* Format names round trip; a bad one lists the valid ones. */
  for (int f = 0; f <= DG_SPARSE_AUTO; f++) {
    dg_sparse_format g;
    MUST(dg_sparse_format_parse(dg_sparse_format_name((dg_sparse_format)f), &g));
    CHECK(g == (dg_sparse_format)f, "format %d parsed as %d", f, (int)g);
  }
  dg_sparse_format g;
  CHECK(dg_sparse_format_parse("coo", &g) == DG_ERR_INPUT &&
            strstr(dg_error_message(), "'coo'") &&
            strstr(dg_error_message(), "bsr"),
        "bad format name: %s", dg_error_message());
  dg_error_clear();
  dg_sparse_csr_destroy(&A);
  return 0;
}
