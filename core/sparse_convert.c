/* Sparse matrices, host side: CSR built from coordinates, checked, and
 * converted to and from ELL and BSR (the layouts are described in
 * core/sparse.h). */
#include <limits.h>
#include <stdlib.h>

#include "core/sparse.h"
#include "core/sparse_private.h"

dg_error dg_sparse_csr_create(int64_t nrows, int64_t ncols, int64_t nnz,
                              dg_csr **out) {
  DG_CHECK(out != NULL, DG_ERR_ARG, "dg_sparse_csr_create: out is NULL");
  *out = NULL;
  DG_CHECK(nrows >= 0 && ncols >= 0 && nnz >= 0, DG_ERR_ARG,
           "CSR size %lld x %lld with %lld entries: negative", (long long)nrows,
           (long long)ncols, (long long)nnz);
  DG_CHECK(nrows == 0 || ncols == 0 || nnz / nrows <= ncols, DG_ERR_ARG,
           "%lld entries do not fit a %lld x %lld matrix", (long long)nnz,
           (long long)nrows, (long long)ncols);
  dg_csr *A = calloc(1, sizeof *A);
  if (A) {
    A->rowptr = calloc((size_t)nrows + 1, sizeof *A->rowptr);
    A->colind = dg_sparse_alloc(nnz, sizeof *A->colind);
    A->values = dg_sparse_alloc(nnz, sizeof *A->values);
  }
  if (!A || !A->rowptr || !A->colind || !A->values) {
    dg_sparse_csr_destroy(&A);
    DG_RAISE(DG_ERR_MEMORY, "out of host memory for a CSR matrix with %lld "
             "rows and %lld entries", (long long)nrows, (long long)nnz);
  }
  A->nrows = nrows;
  A->ncols = ncols;
  A->nnz = nnz;
  *out = A;
  return DG_OK;
}

void dg_sparse_csr_destroy(dg_csr **A) {
  if (!A || !*A)
    return;
  free((*A)->rowptr);
  free((*A)->colind);
  free((*A)->values);
  free(*A);
  *A = NULL;
}

typedef struct {
  int64_t col;
  double value;
} entry;

static int entry_cmp(const void *a, const void *b) {
  int64_t x = ((const entry *)a)->col, y = ((const entry *)b)->col;
  return (x > y) - (x < y);
}

dg_error dg_sparse_csr_from_coo(int64_t nrows, int64_t ncols, int64_t nnz,
                                const int64_t *rows, const int64_t *cols,
                                const double *values, dg_csr **out) {
  DG_CHECK(out != NULL, DG_ERR_ARG, "dg_sparse_csr_from_coo: out is NULL");
  *out = NULL;
  DG_CHECK(nrows >= 0 && ncols >= 0 && nnz >= 0, DG_ERR_ARG,
           "COO size %lld x %lld with %lld entries: negative",
           (long long)nrows, (long long)ncols, (long long)nnz);
  DG_CHECK(nnz == 0 || (rows && cols && values), DG_ERR_ARG,
           "COO with %lld entries: NULL array", (long long)nnz);
  for (int64_t k = 0; k < nnz; k++)
    DG_CHECK(rows[k] >= 0 && rows[k] < nrows && cols[k] >= 0 &&
                 cols[k] < ncols,
             DG_ERR_ARG, "COO entry %lld at (%lld, %lld) is outside the "
             "%lld x %lld matrix", (long long)k, (long long)rows[k],
             (long long)cols[k], (long long)nrows, (long long)ncols);
  /* Bucket by row (counting sort), sort each row by column, sum repeats. */
  int64_t *start = calloc((size_t)nrows + 1, sizeof *start);
  entry *e = dg_sparse_alloc(nnz, sizeof *e);
  if (!start || !e) {
    free(start);
    free(e);
    DG_RAISE(DG_ERR_MEMORY, "out of host memory for %lld COO entries",
             (long long)nnz);
  }
  for (int64_t k = 0; k < nnz; k++)
    start[rows[k] + 1]++;
  for (int64_t r = 0; r < nrows; r++)
    start[r + 1] += start[r];
  for (int64_t k = 0; k < nnz; k++) {
    int64_t at = start[rows[k]]++;
    e[at] = (entry){cols[k], values[k]};
  }
  for (int64_t r = nrows; r > 0; r--) /* start[r] is now the end of row r */
    start[r] = start[r - 1];
  start[0] = 0;
  int64_t unique = 0;
  for (int64_t r = 0; r < nrows; r++) {
    qsort(e + start[r], (size_t)(start[r + 1] - start[r]), sizeof *e,
          entry_cmp);
    for (int64_t k = start[r]; k < start[r + 1]; k++)
      unique += k == start[r] || e[k].col != e[k - 1].col;
  }
  dg_csr *A;
  dg_error err = dg_sparse_csr_create(nrows, ncols, unique, &A);
  if (err != DG_OK) {
    free(start);
    free(e);
    DG_CALL(err);
  }
  int64_t at = 0;
  for (int64_t r = 0; r < nrows; r++) {
    for (int64_t k = start[r]; k < start[r + 1]; k++) {
      if (k > start[r] && e[k].col == e[k - 1].col) {
        A->values[at - 1] += e[k].value;
      } else {
        A->colind[at] = e[k].col;
        A->values[at++] = e[k].value;
      }
    }
    A->rowptr[r + 1] = at;
  }
  free(start);
  free(e);
  *out = A;
  return DG_OK;
}

dg_error dg_sparse_csr_check(const dg_csr *A) {
  DG_CHECK(A && A->rowptr && A->colind && A->values, DG_ERR_ARG,
           "CSR matrix or one of its arrays is NULL");
  DG_CHECK(A->nrows >= 0 && A->ncols >= 0 && A->nnz >= 0, DG_ERR_ARG,
           "CSR size %lld x %lld with %lld entries: negative",
           (long long)A->nrows, (long long)A->ncols, (long long)A->nnz);
  DG_CHECK(A->rowptr[0] == 0 && A->rowptr[A->nrows] == A->nnz, DG_ERR_ARG,
           "CSR row pointers run from %lld to %lld, expected 0 to nnz = %lld",
           (long long)A->rowptr[0], (long long)A->rowptr[A->nrows],
           (long long)A->nnz);
  for (int64_t r = 0; r < A->nrows; r++) {
    DG_CHECK(A->rowptr[r] <= A->rowptr[r + 1], DG_ERR_ARG,
             "CSR row %lld: row pointer decreases (%lld > %lld)", (long long)r,
             (long long)A->rowptr[r], (long long)A->rowptr[r + 1]);
    for (int64_t k = A->rowptr[r]; k < A->rowptr[r + 1]; k++) {
      DG_CHECK(A->colind[k] >= 0 && A->colind[k] < A->ncols, DG_ERR_ARG,
               "CSR row %lld: column %lld outside [0, %lld)", (long long)r,
               (long long)A->colind[k], (long long)A->ncols);
      DG_CHECK(k == A->rowptr[r] || A->colind[k] > A->colind[k - 1],
               DG_ERR_ARG, "CSR row %lld: columns not strictly increasing "
               "(%lld after %lld)", (long long)r, (long long)A->colind[k],
               (long long)A->colind[k - 1]);
    }
  }
  return DG_OK;
}

dg_error dg_sparse_csr_to_ell(const dg_csr *A, dg_ell **out) {
  DG_CHECK(out != NULL, DG_ERR_ARG, "dg_sparse_csr_to_ell: out is NULL");
  *out = NULL;
  DG_CALL(dg_sparse_csr_check(A));
  int64_t w = dg_sparse_longest_row(A);
  DG_CHECK(A->nrows == 0 || w <= INT64_MAX / 16 / A->nrows, DG_ERR_MEMORY,
           "ELL of %lld rows padded to %lld entries is too large",
           (long long)A->nrows, (long long)w);
  dg_ell *E = calloc(1, sizeof *E);
  if (E) {
    E->colind = dg_sparse_alloc(w * A->nrows, sizeof *E->colind);
    E->values = dg_sparse_alloc(w * A->nrows, sizeof *E->values);
  }
  if (!E || !E->colind || !E->values) {
    dg_sparse_ell_destroy(&E);
    DG_RAISE(DG_ERR_MEMORY, "out of host memory for an ELL matrix of %lld "
             "rows x width %lld", (long long)A->nrows, (long long)w);
  }
  E->nrows = A->nrows;
  E->ncols = A->ncols;
  E->width = w;
  for (int64_t r = 0; r < A->nrows; r++) {
    int64_t len = A->rowptr[r + 1] - A->rowptr[r];
    for (int64_t k = 0; k < w; k++) {
      int64_t at = k * A->nrows + r;
      E->colind[at] = k < len ? A->colind[A->rowptr[r] + k] : -1;
      E->values[at] = k < len ? A->values[A->rowptr[r] + k] : 0.0;
    }
  }
  *out = E;
  return DG_OK;
}

void dg_sparse_ell_destroy(dg_ell **E) {
  if (!E || !*E)
    return;
  free((*E)->colind);
  free((*E)->values);
  free(*E);
  *E = NULL;
}

/* Build a CSR from the (row, col, value) triplets a visitor lists: shared by
 * the ELL and BSR conversions back to CSR.  count first sizes the arrays. */
typedef struct {
  int64_t n, cap;
  int64_t *rows, *cols;
  double *values;
} triplets;

static dg_error triplets_init(triplets *t, int64_t cap) {
  *t = (triplets){.cap = cap};
  t->rows = dg_sparse_alloc(cap, sizeof *t->rows);
  t->cols = dg_sparse_alloc(cap, sizeof *t->cols);
  t->values = dg_sparse_alloc(cap, sizeof *t->values);
  if (!t->rows || !t->cols || !t->values) {
    free(t->rows);
    free(t->cols);
    free(t->values);
    DG_RAISE(DG_ERR_MEMORY, "out of host memory for %lld entries",
             (long long)cap);
  }
  return DG_OK;
}

static void triplets_add(triplets *t, int64_t r, int64_t c, double v) {
  t->rows[t->n] = r;
  t->cols[t->n] = c;
  t->values[t->n++] = v;
}

static dg_error triplets_to_csr(triplets *t, int64_t nrows, int64_t ncols,
                                dg_csr **out) {
  dg_error err = dg_sparse_csr_from_coo(nrows, ncols, t->n, t->rows, t->cols,
                                        t->values, out);
  free(t->rows);
  free(t->cols);
  free(t->values);
  DG_CALL(err);
  return DG_OK;
}

dg_error dg_sparse_ell_to_csr(const dg_ell *E, dg_csr **out) {
  DG_CHECK(E && out && E->nrows >= 0 && E->width >= 0, DG_ERR_ARG,
           "dg_sparse_ell_to_csr: bad arguments");
  *out = NULL;
  triplets t;
  DG_CALL(triplets_init(&t, E->nrows * E->width));
  for (int64_t k = 0; k < E->width; k++)
    for (int64_t r = 0; r < E->nrows; r++) {
      int64_t at = k * E->nrows + r;
      if (E->colind[at] >= 0)
        triplets_add(&t, r, E->colind[at], E->values[at]);
    }
  DG_CALL(triplets_to_csr(&t, E->nrows, E->ncols, out));
  return DG_OK;
}

/* For every block row, the distinct block columns its rows touch, in
 * increasing order (bcol of length count, browptr of length nbrows + 1).
 * mark[J] remembers the last block row that touched J. */
dg_error dg_sparse_block_pattern(const dg_csr *A, int b,
                                 int64_t **browptr_out, int64_t **bcol_out,
                                 int64_t *nblocks_out) {
  int64_t nbrows = A->nrows / b, nbcols = A->ncols / b;
  int64_t *mark = malloc((size_t)(nbcols > 0 ? nbcols : 1) * sizeof *mark);
  int64_t *browptr = calloc((size_t)nbrows + 1, sizeof *browptr);
  if (!mark || !browptr) {
    free(mark);
    free(browptr);
    DG_RAISE(DG_ERR_MEMORY, "out of host memory for the block pattern");
  }
  for (int64_t J = 0; J < nbcols; J++)
    mark[J] = -1;
  for (int64_t I = 0; I < nbrows; I++) {
    int64_t count = 0;
    for (int64_t r = I * b; r < (I + 1) * b; r++)
      for (int64_t k = A->rowptr[r]; k < A->rowptr[r + 1]; k++) {
        int64_t J = A->colind[k] / b;
        if (mark[J] != I) {
          mark[J] = I;
          count++;
        }
      }
    browptr[I + 1] = browptr[I] + count;
  }
  int64_t nblocks = browptr[nbrows];
  int64_t *bcol = dg_sparse_alloc(nblocks, sizeof *bcol);
  if (!bcol) {
    free(mark);
    free(browptr);
    DG_RAISE(DG_ERR_MEMORY, "out of host memory for %lld blocks",
             (long long)nblocks);
  }
  for (int64_t J = 0; J < nbcols; J++)
    mark[J] = -1;
  for (int64_t I = 0; I < nbrows; I++) {
    int64_t at = browptr[I];
    for (int64_t r = I * b; r < (I + 1) * b; r++)
      for (int64_t k = A->rowptr[r]; k < A->rowptr[r + 1]; k++) {
        int64_t J = A->colind[k] / b;
        if (mark[J] != I) {
          mark[J] = I;
          bcol[at++] = J;
        }
      }
    /* Few blocks per row: insertion sort. */
    for (int64_t i = browptr[I] + 1; i < at; i++)
      for (int64_t j = i; j > browptr[I] && bcol[j - 1] > bcol[j]; j--) {
        int64_t tmp = bcol[j];
        bcol[j] = bcol[j - 1];
        bcol[j - 1] = tmp;
      }
  }
  free(mark);
  *browptr_out = browptr;
  *bcol_out = bcol;
  *nblocks_out = nblocks;
  return DG_OK;
}

dg_error dg_sparse_check_block(const dg_csr *A, int b) {
  DG_CHECK(b >= 1 && b <= 1024, DG_ERR_ARG, "block size %d outside [1, 1024]",
           b);
  DG_CHECK(A->nrows % b == 0 && A->ncols % b == 0, DG_ERR_ARG,
           "block size %d does not divide the %lld x %lld matrix", b,
           (long long)A->nrows, (long long)A->ncols);
  return DG_OK;
}

dg_error dg_sparse_csr_to_bsr(const dg_csr *A, int b, dg_bsr **out) {
  DG_CHECK(out != NULL, DG_ERR_ARG, "dg_sparse_csr_to_bsr: out is NULL");
  *out = NULL;
  DG_CALL(dg_sparse_csr_check(A));
  DG_CALL(dg_sparse_check_block(A, b));
  dg_bsr *B = calloc(1, sizeof *B);
  DG_CHECK(B != NULL, DG_ERR_MEMORY, "out of host memory");
  B->nbrows = A->nrows / b;
  B->nbcols = A->ncols / b;
  B->b = b;
  dg_error err =
      dg_sparse_block_pattern(A, b, &B->browptr, &B->bcolind, &B->nblocks);
  if (err != DG_OK) {
    free(B);
    DG_CALL(err);
  }
  int64_t bb = (int64_t)b * b;
  DG_CHECK(B->nblocks <= INT64_MAX / 8 / bb, DG_ERR_MEMORY,
           "%lld blocks of %d x %d are too many", (long long)B->nblocks, b, b);
  B->values = calloc((size_t)(B->nblocks > 0 ? B->nblocks : 1) * (size_t)bb,
                     sizeof *B->values);
  if (!B->values) {
    dg_sparse_bsr_destroy(&B);
    DG_RAISE(DG_ERR_MEMORY, "out of host memory for %lld blocks of %d x %d",
             (long long)B->nblocks, b, b);
  }
  for (int64_t r = 0; r < A->nrows; r++) {
    int64_t I = r / b, t = r % b;
    int64_t k0 = B->browptr[I], k1 = B->browptr[I + 1];
    for (int64_t k = A->rowptr[r]; k < A->rowptr[r + 1]; k++) {
      int64_t J = A->colind[k] / b, c = A->colind[k] % b;
      /* Binary search of J among the block row's sorted block columns. */
      int64_t lo = k0, hi = k1 - 1;
      while (lo < hi) {
        int64_t mid = (lo + hi) / 2;
        if (B->bcolind[mid] < J)
          lo = mid + 1;
        else
          hi = mid;
      }
      B->values[lo * bb + c * b + t] = A->values[k];
    }
  }
  *out = B;
  return DG_OK;
}

dg_error dg_sparse_bsr_to_csr(const dg_bsr *B, dg_csr **out) {
  DG_CHECK(B && out && B->b >= 1 && B->nblocks >= 0, DG_ERR_ARG,
           "dg_sparse_bsr_to_csr: bad arguments");
  *out = NULL;
  int b = B->b;
  triplets t;
  DG_CALL(triplets_init(&t, B->nblocks * b * b));
  for (int64_t I = 0; I < B->nbrows; I++)
    for (int64_t k = B->browptr[I]; k < B->browptr[I + 1]; k++)
      for (int c = 0; c < b; c++)
        for (int r = 0; r < b; r++) {
          double v = B->values[k * b * b + c * b + r];
          if (v != 0.0)
            triplets_add(&t, I * b + r, B->bcolind[k] * b + c, v);
        }
  DG_CALL(triplets_to_csr(&t, B->nbrows * b, B->nbcols * b, out));
  return DG_OK;
}

void dg_sparse_bsr_destroy(dg_bsr **B) {
  if (!B || !*B)
    return;
  free((*B)->browptr);
  free((*B)->bcolind);
  free((*B)->values);
  free(*B);
  *B = NULL;
}
