#include "core/sparse.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/elementwise.h"
#include "core/jit_source.h"
#include "core/strbuf.h"

/* Threads per CUDA block for every SpMV kernel: one thread (or one group of
 * lanes) per row, 8 warps per block, enough blocks to cover the rows. */
enum { CUDA_BLOCK = 256 };

/* ==== host formats ========================================================= */

static void *alloc_array(int64_t n, size_t size) {
  /* At least one element, so that an empty matrix still has valid pointers
   * and malloc(0) cannot be confused with failure. */
  return malloc((size_t)(n > 0 ? n : 1) * size);
}

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
    A->colind = alloc_array(nnz, sizeof *A->colind);
    A->values = alloc_array(nnz, sizeof *A->values);
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
  entry *e = alloc_array(nnz, sizeof *e);
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

static int64_t longest_row(const dg_csr *A) {
  int64_t w = 0;
  for (int64_t r = 0; r < A->nrows; r++)
    if (A->rowptr[r + 1] - A->rowptr[r] > w)
      w = A->rowptr[r + 1] - A->rowptr[r];
  return w;
}

dg_error dg_sparse_csr_to_ell(const dg_csr *A, dg_ell **out) {
  DG_CHECK(out != NULL, DG_ERR_ARG, "dg_sparse_csr_to_ell: out is NULL");
  *out = NULL;
  DG_CALL(dg_sparse_csr_check(A));
  int64_t w = longest_row(A);
  DG_CHECK(A->nrows == 0 || w <= INT64_MAX / 16 / A->nrows, DG_ERR_MEMORY,
           "ELL of %lld rows padded to %lld entries is too large",
           (long long)A->nrows, (long long)w);
  dg_ell *E = calloc(1, sizeof *E);
  if (E) {
    E->colind = alloc_array(w * A->nrows, sizeof *E->colind);
    E->values = alloc_array(w * A->nrows, sizeof *E->values);
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
  t->rows = alloc_array(cap, sizeof *t->rows);
  t->cols = alloc_array(cap, sizeof *t->cols);
  t->values = alloc_array(cap, sizeof *t->values);
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
static dg_error block_pattern(const dg_csr *A, int b, int64_t **browptr_out,
                              int64_t **bcol_out, int64_t *nblocks_out) {
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
  int64_t *bcol = alloc_array(nblocks, sizeof *bcol);
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

static dg_error check_block(const dg_csr *A, int b) {
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
  DG_CALL(check_block(A, b));
  dg_bsr *B = calloc(1, sizeof *B);
  DG_CHECK(B != NULL, DG_ERR_MEMORY, "out of host memory");
  B->nbrows = A->nrows / b;
  B->nbcols = A->ncols / b;
  B->b = b;
  dg_error err = block_pattern(A, b, &B->browptr, &B->bcolind, &B->nblocks);
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

/* ==== device matrices ====================================================== */

static const char *const format_names[] = {"csr-scalar", "csr-vector", "ell",
                                           "bsr", "auto"};

const char *dg_sparse_format_name(dg_sparse_format f) {
  return (unsigned)f <= DG_SPARSE_AUTO ? format_names[f] : "?";
}

dg_error dg_sparse_format_parse(const char *name, dg_sparse_format *out) {
  DG_CHECK(name && out, DG_ERR_ARG, "dg_sparse_format_parse: NULL argument");
  for (int f = 0; f <= DG_SPARSE_AUTO; f++)
    if (strcmp(name, format_names[f]) == 0) {
      *out = (dg_sparse_format)f;
      return DG_OK;
    }
  DG_RAISE(DG_ERR_INPUT, "unknown sparse format '%s' (expected csr-scalar, "
           "csr-vector, ell, bsr or auto)", name);
}

struct dg_sparse {
  dg_device *dev;
  dg_sparse_format format;
  dg_dtype dtype;
  int cuda;
  int64_t nrows, ncols, nnz;
  int b;            /* bsr block size (1 otherwise) */
  int64_t width;    /* ell width */
  int lanes;        /* csr-vector lanes per row */
  int64_t stored;   /* stored values (with padding / explicit zeros) */
  int64_t index_bytes;
  void *rowptr, *colind, *values; /* device arrays */
  char *source;
  dg_module *module;
  dg_kernel *kernel[2]; /* [accumulate] */
};

/* Upload n int64 host indices as int32 (they were range-checked). */
static dg_error upload_int32(dg_device *dev, const int64_t *src, int64_t n,
                             void **dst) {
  *dst = NULL;
  if (n == 0)
    return DG_OK;
  int32_t *tmp = malloc((size_t)n * sizeof *tmp);
  DG_CHECK(tmp != NULL, DG_ERR_MEMORY, "out of host memory");
  for (int64_t k = 0; k < n; k++)
    tmp[k] = (int32_t)src[k];
  dg_error err = dg_device_malloc(dev, (size_t)n * sizeof *tmp, dst);
  if (err == DG_OK)
    err = dg_device_upload(dev, *dst, tmp, (size_t)n * sizeof *tmp);
  free(tmp);
  DG_CALL(err);
  return DG_OK;
}

static dg_error upload_int64(dg_device *dev, const int64_t *src, int64_t n,
                             void **dst) {
  *dst = NULL;
  if (n == 0)
    return DG_OK;
  DG_CALL(dg_device_malloc(dev, (size_t)n * sizeof *src, dst));
  DG_CALL(dg_device_upload(dev, *dst, src, (size_t)n * sizeof *src));
  return DG_OK;
}

/* Upload n host doubles as dtype. */
static dg_error upload_real(dg_device *dev, dg_dtype dtype, const double *src,
                            int64_t n, void **dst) {
  *dst = NULL;
  if (n == 0)
    return DG_OK;
  size_t bytes = (size_t)n * dg_dtype_size(dtype);
  DG_CALL(dg_device_malloc(dev, bytes, dst));
  if (dtype == DG_DOUBLE) {
    DG_CALL(dg_device_upload(dev, *dst, src, bytes));
    return DG_OK;
  }
  float *tmp = malloc(bytes);
  DG_CHECK(tmp != NULL, DG_ERR_MEMORY, "out of host memory");
  for (int64_t k = 0; k < n; k++)
    tmp[k] = (float)src[k];
  dg_error err = dg_device_upload(dev, *dst, tmp, bytes);
  free(tmp);
  DG_CALL(err);
  return DG_OK;
}

/* ---- kernel generation -----------------------------------------------------
 * Every format has the same argument list, in this order:
 *   rowptr (int64: CSR row / BSR block-row pointers; unused by ell),
 *   colind (int32: columns, ell slabs or block columns), values, x, y,
 *   nrows (int64: rows of y; the ell slab stride).
 * Two entries per module: <name>_set (y = A x) and <name>_add (y += A x). */

static const char *real_name(dg_dtype d) { return dg_dtype_name(d); }

static void kernel_name(const dg_sparse *A, char *buf, size_t size) {
  static const char *const short_names[] = {"csr_scalar", "csr_vector", "ell",
                                            "bsr"};
  switch (A->format) {
  case DG_SPARSE_BSR:
    snprintf(buf, size, "spmv_bsr%d_%s", A->b, real_name(A->dtype));
    break;
  case DG_SPARSE_ELL:
    snprintf(buf, size, "spmv_ell%lld_%s", (long long)A->width,
             real_name(A->dtype));
    break;
  case DG_SPARSE_CSR_VECTOR:
    snprintf(buf, size, "spmv_csr_vector%d_%s", A->lanes, real_name(A->dtype));
    break;
  default:
    snprintf(buf, size, "spmv_%s_%s", short_names[A->format],
             real_name(A->dtype));
  }
}

static void emit_header(dg_strbuf *s, const dg_sparse *A, const char *name) {
  dg_strbuf_line(s, "/* dgrun SpMV kernels \"%s\" (generated for the %s "
                 "backend by core/sparse.c)", name, A->cuda ? "cuda" : "cpu");
  dg_strbuf_line(s, " *   format %s, %s values and vectors, accumulated in %s",
                 dg_sparse_format_name(A->format), real_name(A->dtype),
                 real_name(A->dtype));
  if (A->format == DG_SPARSE_BSR)
    dg_strbuf_line(s, " *   dense %d x %d blocks, each stored column-major",
                   A->b, A->b);
  if (A->format == DG_SPARSE_ELL)
    dg_strbuf_line(s, " *   %lld slabs (the longest row), column-major, "
                   "padding column -1", (long long)A->width);
  if (A->format == DG_SPARSE_CSR_VECTOR)
    dg_strbuf_line(s, " *   %d lanes per row", A->lanes);
  dg_strbuf_line(s, " *   %s_set: y = A x;  %s_add: y += A x */", name, name);
}

/* The SpMV kernels' fixed text is in core/jit/spmv_*.cuh (cuda) and
 * spmv_*.h (cpu): the argument list, and per format the body up to its
 * store (store and entry name are the parameters, printed here).
 *   csr-scalar: one thread per row;
 *   csr-vector: DG_LANES consecutive threads per row, combined with
 *     shuffles that every thread reaches (no early return: the full mask);
 *   ell: one thread per row over the slabs (stride nrows: coalesced);
 *   bsr: thread t of block row br reads column c of each block at
 *     c * DG_B + t (DG_B consecutive values per block row), x once per
 *     column (a broadcast);
 * on cpu, csr rows (simd over long rows for csr-vector), ell tiles of
 * DG_TILE rows slab by slab, bsr block rows as vector updates. */
static const char *const cuda_body[] = {
    "core/jit/spmv_csr_scalar.cuh", "core/jit/spmv_csr_vector.cuh", "core/jit/spmv_ell.cuh",
    "core/jit/spmv_bsr.cuh"};

/* The body of one CUDA kernel; store is "=" or "+=". */
static void emit_cuda_kernel(dg_strbuf *s, const dg_sparse *A,
                             const char *entry, const char *store) {
  dg_strbuf_line(s, "extern \"C\" __global__ void __launch_bounds__(%d)",
                 CUDA_BLOCK);
  dg_strbuf_line(s, "%s(const long long *__restrict__ rowptr,", entry);
  dg_core_jit(s, "core/jit/spmv_params.cuh");
  dg_core_jit(s, cuda_body[A->format]);
  dg_strbuf_line(s, "%sy[row] %s sum;",
                 A->format == DG_SPARSE_CSR_VECTOR ? "    " : "  ", store);
  dg_strbuf_lines(s, "}\n\n");
}

/* The body of one cpu kernel (a chunk of rows, or of block rows for bsr). */
static void emit_cpu_kernel(dg_strbuf *s, const dg_sparse *A,
                            const char *entry, const char *store) {
  dg_strbuf_line(s, "void %s(void **dg_args, int64_t first, int64_t count)",
                 entry);
  dg_core_jit(s, "core/jit/spmv_unpack.h");
  s->indent = 2;
  switch (A->format) {
  case DG_SPARSE_CSR_SCALAR:
  case DG_SPARSE_CSR_VECTOR:
    dg_strbuf_lines(s, "for (int64_t row = first; row < last; ++row) {\n"
                       "  real sum = 0;\n");
    if (A->format == DG_SPARSE_CSR_VECTOR)
      dg_strbuf_lines(s, "  /* Long rows: vectorised over the row's entries. */\n"
                         "#pragma omp simd reduction(+:sum)\n");
    dg_strbuf_lines(s, "  for (int64_t k = rowptr[row]; k < rowptr[row + 1]; ++k)\n"
                       "    sum += values[k] * x[colind[k]];\n");
    dg_strbuf_line(s, "  y[row] %s sum;", store);
    break;
  case DG_SPARSE_ELL:
    dg_core_jit(s, "core/jit/spmv_ell.h");
    dg_strbuf_line(s, "    y[r0 + j] %s sum[j];", store);
    break;
  case DG_SPARSE_BSR:
    dg_core_jit(s, "core/jit/spmv_bsr.h");
    dg_strbuf_line(s, "    y[br * DG_B + t] %s acc[t];", store);
    break;
  default:
    break;
  }
  s->indent = 0;
  dg_strbuf_lines(s, "  }\n}\n\n");
}

static void generate(const dg_sparse *A, const char *name, dg_strbuf *s) {
  emit_header(s, A, name);
  if (!A->cuda)
    dg_strbuf_line(s, "#include <stdint.h>");
  dg_strbuf_line(s, "typedef %s real;", real_name(A->dtype));
  if (A->format == DG_SPARSE_BSR)
    dg_strbuf_line(s, "#define DG_B %d", A->b);
  if (A->format == DG_SPARSE_ELL)
    dg_strbuf_line(s, "#define DG_WIDTH %lld", (long long)A->width);
  if (A->format == DG_SPARSE_ELL && !A->cuda)
    dg_strbuf_line(s, "#define DG_TILE 64");
  if (A->format == DG_SPARSE_CSR_VECTOR && A->cuda)
    dg_strbuf_line(s, "#define DG_LANES %d", A->lanes);
  dg_strbuf_line(s, "%s", "");
  char entry[96];
  for (int acc = 0; acc < 2; acc++) {
    snprintf(entry, sizeof entry, "%s_%s", name, acc ? "add" : "set");
    if (A->cuda)
      emit_cuda_kernel(s, A, entry, acc ? "+=" : "=");
    else
      emit_cpu_kernel(s, A, entry, acc ? "+=" : "=");
  }
}

/* Only the fields the text depends on; the device-free form the digest test
 * (tests/sparse/kernel_sources.c) hashes is thus the one dg_sparse_create
 * compiles. */
static dg_sparse shape(dg_sparse_format f, dg_dtype dtype, int cuda, int b,
                       int64_t width, int lanes) {
  return (dg_sparse){.format = f, .dtype = dtype, .cuda = cuda,
                     .b = f == DG_SPARSE_BSR ? b : 1, .width = width,
                     .lanes = lanes};
}

dg_error dg_sparse_emit_source(dg_sparse_format f, dg_dtype dtype, int cuda,
                               int b, int64_t width, int lanes,
                               char *name, size_t name_size, dg_strbuf *out) {
  DG_CHECK(out && name && (unsigned)f < DG_SPARSE_NFORMATS &&
               (dtype == DG_FLOAT || dtype == DG_DOUBLE),
           DG_ERR_ARG, "dg_sparse_emit_source: bad argument");
  dg_sparse A = shape(f, dtype, cuda, b, width, lanes);
  kernel_name(&A, name, name_size);
  generate(&A, name, out);
  return DG_OK;
}

/* CUSP's choice of lanes per row: the power of two (2..32) at or above the
 * mean row length, so that few lanes idle on typical rows. */
static int lanes_for(const dg_csr *A) {
  double mean = A->nrows ? (double)A->nnz / (double)A->nrows : 0.0;
  int lanes = 2;
  while (lanes < 32 && lanes < mean)
    lanes *= 2;
  return lanes;
}

static dg_error upload_format(dg_sparse *A, const dg_csr *src) {
  dg_device *dev = A->dev;
  switch (A->format) {
  case DG_SPARSE_CSR_SCALAR:
  case DG_SPARSE_CSR_VECTOR:
    A->stored = src->nnz;
    A->index_bytes = src->nnz * 4 + (src->nrows + 1) * 8;
    DG_CALL(upload_int64(dev, src->rowptr, src->nrows + 1, &A->rowptr));
    DG_CALL(upload_int32(dev, src->colind, src->nnz, &A->colind));
    DG_CALL(upload_real(dev, A->dtype, src->values, src->nnz, &A->values));
    return DG_OK;
  case DG_SPARSE_ELL: {
    dg_ell *E;
    DG_CALL(dg_sparse_csr_to_ell(src, &E));
    A->width = E->width;
    A->stored = E->width * E->nrows;
    A->index_bytes = A->stored * 4;
    dg_error err = upload_int32(dev, E->colind, A->stored, &A->colind);
    if (err == DG_OK)
      err = upload_real(dev, A->dtype, E->values, A->stored, &A->values);
    dg_sparse_ell_destroy(&E);
    DG_CALL(err);
    return DG_OK;
  }
  case DG_SPARSE_BSR: {
    dg_bsr *B;
    DG_CALL(dg_sparse_csr_to_bsr(src, A->b, &B));
    A->stored = B->nblocks * A->b * A->b;
    A->index_bytes = B->nblocks * 4 + (B->nbrows + 1) * 8;
    dg_error err = upload_int64(dev, B->browptr, B->nbrows + 1, &A->rowptr);
    if (err == DG_OK)
      err = upload_int32(dev, B->bcolind, B->nblocks, &A->colind);
    if (err == DG_OK)
      err = upload_real(dev, A->dtype, B->values, A->stored, &A->values);
    dg_sparse_bsr_destroy(&B);
    DG_CALL(err);
    return DG_OK;
  }
  default:
    DG_RAISE(DG_ERR_INTERNAL, "unknown sparse format %d", (int)A->format);
  }
}

dg_error dg_sparse_create(dg_device *dev, const dg_csr *src, dg_sparse_format f,
                          int block, dg_dtype dtype, dg_sparse **out) {
  DG_CHECK(dev && src && out, DG_ERR_ARG, "dg_sparse_create: NULL argument");
  *out = NULL;
  DG_CHECK(dtype == DG_FLOAT || dtype == DG_DOUBLE, DG_ERR_ARG,
           "dtype %d is neither DG_FLOAT nor DG_DOUBLE", (int)dtype);
  DG_CHECK((unsigned)f <= DG_SPARSE_AUTO, DG_ERR_ARG,
           "unknown sparse format %d", (int)f);
  DG_CALL(dg_sparse_csr_check(src));
  DG_CHECK(src->ncols <= INT32_MAX, DG_ERR_UNSUPPORTED,
           "%lld columns: column indices on the device are int32 (at most "
           "%d columns per matrix or per rank)", (long long)src->ncols,
           INT32_MAX);
  if (f == DG_SPARSE_AUTO)
    DG_CALL(dg_sparse_choose(dev, src, block, &f));
  if (f == DG_SPARSE_BSR)
    DG_CALL(check_block(src, block));
  dg_sparse *A = calloc(1, sizeof *A);
  DG_CHECK(A != NULL, DG_ERR_MEMORY, "out of host memory");
  A->dev = dev;
  A->format = f;
  A->dtype = dtype;
  A->cuda = dg_device_get_info(dev)->backend == DG_BACKEND_CUDA;
  A->nrows = src->nrows;
  A->ncols = src->ncols;
  A->nnz = src->nnz;
  A->b = f == DG_SPARSE_BSR ? block : 1;
  A->lanes = lanes_for(src);
  dg_error err;
  char name[64], entry[96];
  dg_strbuf text;
  dg_strbuf_init(&text);
  DG_CALL_GOTO(err, fail, upload_format(A, src));
  DG_CALL_GOTO(err, fail,
               dg_sparse_emit_source(A->format, A->dtype, A->cuda, A->b,
                                     A->width, A->lanes, name, sizeof name,
                                     &text));
  DG_CALL_GOTO(err, fail, dg_strbuf_finish(&text, &A->source));
  DG_CALL_GOTO(err, fail,
               dg_device_compile(dev, name, A->source, NULL, 0, &A->module));
  for (int acc = 0; acc < 2; acc++) {
    snprintf(entry, sizeof entry, "%s_%s", name, acc ? "add" : "set");
    DG_CALL_GOTO(err, fail, dg_module_get_kernel(A->module, entry,
                                                 &A->kernel[acc]));
  }
  *out = A;
  return DG_OK;
fail:
  dg_sparse_destroy(&A);
  return err;
}

void dg_sparse_destroy(dg_sparse **A) {
  if (!A || !*A)
    return;
  dg_sparse *M = *A;
  dg_device_free(M->dev, M->rowptr);
  dg_device_free(M->dev, M->colind);
  dg_device_free(M->dev, M->values);
  dg_module_destroy(&M->module);
  free(M->source);
  free(M);
  *A = NULL;
}

dg_error dg_sparse_spmv(dg_sparse *A, const dg_array *x, dg_array *y,
                        int accumulate, dg_stream *stream) {
  DG_CHECK(A && x && y, DG_ERR_ARG, "dg_sparse_spmv: NULL argument");
  DG_CHECK(dg_array_dtype(x) == A->dtype && dg_array_dtype(y) == A->dtype,
           DG_ERR_ARG, "SpMV of a %s matrix with x of %s and y of %s",
           real_name(A->dtype), real_name(dg_array_dtype(x)),
           real_name(dg_array_dtype(y)));
  DG_CHECK(dg_array_length(x) >= A->ncols && dg_array_length(y) >= A->nrows,
           DG_ERR_ARG, "SpMV of a %lld x %lld matrix with x of %lld and y of "
           "%lld entries", (long long)A->nrows, (long long)A->ncols,
           (long long)dg_array_length(x), (long long)dg_array_length(y));
  if (A->nrows == 0)
    return DG_OK;
  void *xp = dg_array_data(x), *yp = dg_array_data(y);
  long long nrows = A->nrows;
  void *args[] = {&A->rowptr, &A->colind, &A->values, &xp, &yp, &nrows};
  dg_launch launch = {.grid = {1, 1, 1}, .block = {1, 1, 1}};
  if (A->cuda) {
    int64_t threads = A->nrows;
    if (A->format == DG_SPARSE_CSR_VECTOR)
      threads *= A->lanes;
    int64_t blocks = (threads + CUDA_BLOCK - 1) / CUDA_BLOCK;
    DG_CHECK(blocks <= INT32_MAX, DG_ERR_UNSUPPORTED,
             "SpMV of %lld rows needs %lld thread blocks (at most %d)",
             (long long)A->nrows, (long long)blocks, INT32_MAX);
    launch.grid[0] = (unsigned)blocks;
    launch.block[0] = CUDA_BLOCK;
    launch.items = threads;
  } else {
    launch.items = A->format == DG_SPARSE_BSR ? A->nrows / A->b : A->nrows;
    launch.chunk = 0; /* the backend's default split */
  }
  DG_CALL(dg_kernel_launch(A->kernel[accumulate ? 1 : 0], &launch, args,
                           stream));
  return DG_OK;
}

int64_t dg_sparse_rows(const dg_sparse *A) { return A->nrows; }
int64_t dg_sparse_cols(const dg_sparse *A) { return A->ncols; }
int64_t dg_sparse_nnz(const dg_sparse *A) { return A->nnz; }
dg_sparse_format dg_sparse_get_format(const dg_sparse *A) { return A->format; }
dg_dtype dg_sparse_dtype(const dg_sparse *A) { return A->dtype; }
const char *dg_sparse_source(const dg_sparse *A) { return A->source; }

int64_t dg_sparse_bytes_moved(const dg_sparse *A) {
  int64_t real = (int64_t)dg_dtype_size(A->dtype);
  return A->stored * real + A->index_bytes + (A->ncols + A->nrows) * real;
}

/* ---- format choice -------------------------------------------------------- */

dg_error dg_sparse_choose(const dg_device *dev, const dg_csr *A, int block,
                          dg_sparse_format *out) {
  DG_CHECK(dev && A && out, DG_ERR_ARG, "dg_sparse_choose: NULL argument");
  DG_CALL(dg_sparse_csr_check(A));
  if (block > 1 && check_block(A, block) == DG_OK) {
    int64_t *browptr, *bcol, nblocks;
    DG_CALL(block_pattern(A, block, &browptr, &bcol, &nblocks));
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
  int64_t w = longest_row(A);
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
  ones = alloc_array(A->ncols, sizeof *ones);
  DG_CHECK_GOTO(err, done, ones != NULL, DG_ERR_MEMORY, "out of host memory");
  for (int64_t k = 0; k < A->ncols; k++)
    ones[k] = 1.0;
  DG_CALL_GOTO(err, done, dg_array_upload_double(x, ones));
  DG_CALL_GOTO(err, done, dg_event_create(dev, &start));
  DG_CALL_GOTO(err, done, dg_event_create(dev, &stop));
  int64_t w = longest_row(A);
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

/* ==== distributed matrices ================================================= */

struct dg_sparse_dist {
  dg_comm *comm;
  dg_device *dev;
  dg_dtype dtype;
  int64_t nloc, nglobal, row_start;
  dg_sparse *local, *ghost;
  int64_t nghost, nsend;
  int nneighbors;
  dg_comm_neighbor *neighbors; /* buffers point into send_host / recv_host */
  void *send_idx;              /* device int64: local entries to send */
  dg_array *send_buf, *x_ghost;
  void *send_host, *recv_host;
  dg_elementwise *gather;
};

enum { TAG_SETUP = 7101, TAG_SPMV = 7102 };

static int64_t find_sorted(const int64_t *v, int64_t n, int64_t key) {
  int64_t lo = 0, hi = n - 1;
  while (lo <= hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (v[mid] == key)
      return mid;
    if (v[mid] < key)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return -1;
}

static int int64_cmp(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* The owner of global column c: the last rank whose start is <= c. */
static int owner_of(const int64_t *starts, int size, int64_t c) {
  int lo = 0, hi = size - 1;
  while (lo < hi) {
    int mid = (lo + hi + 1) / 2;
    if (starts[mid] <= c)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

/* Everything a rank can check or compute without talking to the others:
 * the split of A_local into the local block and the ghost block, and the
 * sorted ghost columns (whole units of g columns). */
typedef struct {
  dg_csr *local, *ghost;
  int64_t *ghost_cols, nghost;
} split_result;

static void split_free(split_result *s) {
  dg_sparse_csr_destroy(&s->local);
  dg_sparse_csr_destroy(&s->ghost);
  free(s->ghost_cols);
  *s = (split_result){0};
}

static dg_error split_local(const dg_csr *A, int64_t row_start, int g,
                            split_result *out) {
  *out = (split_result){0};
  int64_t rs = row_start, re = row_start + A->nrows;
  /* Ghost units (column / g) in a sorted, unique list. */
  int64_t nunits = 0;
  int64_t *units = alloc_array(A->nnz, sizeof *units);
  DG_CHECK(units != NULL, DG_ERR_MEMORY, "out of host memory");
  for (int64_t k = 0; k < A->nnz; k++)
    if (A->colind[k] < rs || A->colind[k] >= re)
      units[nunits++] = A->colind[k] / g;
  qsort(units, (size_t)nunits, sizeof *units, int64_cmp);
  int64_t u = 0;
  for (int64_t k = 0; k < nunits; k++)
    if (k == 0 || units[k] != units[k - 1])
      units[u++] = units[k];
  nunits = u;
  out->nghost = nunits * g;
  out->ghost_cols = alloc_array(out->nghost, sizeof *out->ghost_cols);
  if (!out->ghost_cols) {
    free(units);
    DG_RAISE(DG_ERR_MEMORY, "out of host memory");
  }
  for (int64_t k = 0; k < nunits; k++)
    for (int j = 0; j < g; j++)
      out->ghost_cols[k * g + j] = units[k] * g + j;
  free(units);
  /* Count, then fill, both blocks row by row (columns stay sorted: the
   * renumberings are monotone). */
  int64_t nl = 0, ng = 0;
  for (int64_t k = 0; k < A->nnz; k++) {
    if (A->colind[k] >= rs && A->colind[k] < re)
      nl++;
    else
      ng++;
  }
  dg_error err;
  DG_CALL_GOTO(err, fail,
               dg_sparse_csr_create(A->nrows, A->nrows, nl, &out->local));
  DG_CALL_GOTO(err, fail,
               dg_sparse_csr_create(A->nrows, out->nghost, ng, &out->ghost));
  nl = ng = 0;
  for (int64_t r = 0; r < A->nrows; r++) {
    for (int64_t k = A->rowptr[r]; k < A->rowptr[r + 1]; k++) {
      int64_t c = A->colind[k];
      if (c >= rs && c < re) {
        out->local->colind[nl] = c - rs;
        out->local->values[nl++] = A->values[k];
      } else {
        out->ghost->colind[ng] = find_sorted(out->ghost_cols, out->nghost, c);
        out->ghost->values[ng++] = A->values[k];
      }
    }
    out->local->rowptr[r + 1] = nl;
    out->ghost->rowptr[r + 1] = ng;
  }
  return DG_OK;
fail:
  split_free(out);
  return err;
}

/* The row ranges of all ranks (starts[size] = global size), checked. */
static dg_error gather_ranges(dg_comm *comm, int64_t row_start, int64_t nloc,
                              int64_t ncols, int64_t *starts) {
  int size = dg_comm_size(comm), rank = dg_comm_rank(comm);
  double *v = calloc(2 * (size_t)size + 2, sizeof *v);
  DG_CHECK(v != NULL, DG_ERR_MEMORY, "out of host memory");
  v[rank] = (double)row_start;
  v[size + rank] = (double)nloc;
  dg_error err = dg_comm_allreduce_sum(comm, v, 2 * size);
  /* ncols must agree: max of ncols and of -ncols. */
  double mm[2] = {(double)ncols, -(double)ncols};
  if (err == DG_OK)
    err = dg_comm_allreduce_max(comm, mm, 2);
  if (err != DG_OK) {
    free(v);
    DG_CALL(err);
  }
  int64_t next = 0;
  for (int r = 0; r < size && err == DG_OK; r++) {
    starts[r] = (int64_t)v[r];
    if (starts[r] != next)
      err = dg_error_raise(DG_ERR_ARG, __FILE__, __LINE__, __func__,
                           "rank %d's rows start at %lld, but the rows of "
                           "ranks 0..%d end at %lld (ranges must be "
                           "consecutive in rank order)", r,
                           (long long)starts[r], r - 1, (long long)next);
    next += (int64_t)v[size + r];
  }
  free(v);
  DG_CALL(err);
  starts[size] = next;
  DG_CHECK(mm[0] == -mm[1], DG_ERR_ARG,
           "ranks disagree on the global size (%g to %g columns)", -mm[1],
           mm[0]);
  DG_CHECK(next == ncols, DG_ERR_ARG,
           "the ranks' rows cover [0, %lld) but the matrix has %lld columns "
           "(it must be square)", (long long)next, (long long)ncols);
  return DG_OK;
}

/* Tell every rank which of its entries this rank needs, learn what to send.
 * Counts travel in a size x size table (allreduced: fine for the rank
 * counts dgrun targets; an MPI_Alltoall would replace it at scale), the
 * index lists through one exchange. */
static dg_error plan_exchange(dg_sparse_dist *D, const int64_t *starts,
                              const split_result *s, int64_t **send_global) {
  int size = dg_comm_size(D->comm), rank = dg_comm_rank(D->comm);
  double *counts = calloc((size_t)size * size, sizeof *counts);
  int64_t *recv_from = calloc((size_t)size + 1, sizeof *recv_from);
  dg_error err = DG_OK;
  *send_global = NULL;
  DG_CHECK_GOTO(err, done, counts && recv_from, DG_ERR_MEMORY,
                "out of host memory");
  /* Ghost columns are sorted, hence grouped by owner in rank order. */
  for (int64_t k = 0; k < s->nghost; k++)
    recv_from[owner_of(starts, size, s->ghost_cols[k]) + 1]++;
  for (int q = 0; q < size; q++) {
    counts[(size_t)rank * size + q] = (double)recv_from[q + 1];
    recv_from[q + 1] += recv_from[q];
  }
  DG_CALL_GOTO(err, done, dg_comm_allreduce_sum(D->comm, counts, size * size));
  D->nsend = 0;
  D->nneighbors = 0;
  for (int q = 0; q < size; q++) {
    int64_t to_q = (int64_t)counts[(size_t)q * size + rank];
    int64_t from_q = recv_from[q + 1] - recv_from[q];
    DG_CHECK_GOTO(err, done, q != rank || (to_q == 0 && from_q == 0),
                  DG_ERR_INTERNAL, "rank %d lists its own columns as ghosts",
                  rank);
    D->nsend += to_q;
    D->nneighbors += to_q > 0 || from_q > 0;
  }
  D->neighbors = calloc((size_t)(D->nneighbors > 0 ? D->nneighbors : 1),
                        sizeof *D->neighbors);
  *send_global = alloc_array(D->nsend, sizeof **send_global);
  DG_CHECK_GOTO(err, done, D->neighbors && *send_global, DG_ERR_MEMORY,
                "out of host memory");
  int n = 0;
  int64_t send_at = 0;
  for (int q = 0; q < size; q++) {
    int64_t to_q = (int64_t)counts[(size_t)q * size + rank];
    int64_t from_q = recv_from[q + 1] - recv_from[q];
    if (!to_q && !from_q)
      continue;
    /* Setup: my requests go out to q, q's requests land in send_global. */
    D->neighbors[n++] = (dg_comm_neighbor){
        .rank = q,
        .send = s->ghost_cols + recv_from[q],
        .send_bytes = (size_t)from_q * sizeof(int64_t),
        .recv = *send_global + send_at,
        .recv_bytes = (size_t)to_q * sizeof(int64_t)};
    send_at += to_q;
  }
  dg_comm_request *req = NULL;
  DG_CALL_GOTO(err, done, dg_comm_exchange_start(D->comm, D->nneighbors,
                                                 D->neighbors, TAG_SETUP,
                                                 &req));
  DG_CALL_GOTO(err, done, dg_comm_exchange_wait(&req));
  /* From now on the neighbours describe the SpMV exchange of values:
   * sends of the requested entries, receives of this rank's ghosts. */
  size_t real = dg_dtype_size(D->dtype);
  D->send_host = alloc_array(D->nsend, real);
  D->recv_host = alloc_array(s->nghost, real);
  DG_CHECK_GOTO(err, done, D->send_host && D->recv_host, DG_ERR_MEMORY,
                "out of host memory");
  send_at = 0;
  for (int k = 0; k < D->nneighbors; k++) {
    dg_comm_neighbor *nb = &D->neighbors[k];
    int64_t to_q = (int64_t)(nb->recv_bytes / sizeof(int64_t));
    int64_t from_q = recv_from[nb->rank + 1] - recv_from[nb->rank];
    nb->send = (char *)D->send_host + (size_t)send_at * real;
    nb->send_bytes = (size_t)to_q * real;
    nb->recv = (char *)D->recv_host + (size_t)recv_from[nb->rank] * real;
    nb->recv_bytes = (size_t)from_q * real;
    send_at += to_q;
  }
done:
  free(counts);
  free(recv_from);
  return err;
}

dg_error dg_sparse_dist_create(dg_comm *comm, dg_device *dev,
                               const dg_csr *A_local, int64_t row_start,
                               dg_sparse_format f, int block, dg_dtype dtype,
                               dg_sparse_dist **out) {
  DG_CHECK(comm && dev && A_local && out, DG_ERR_ARG,
           "dg_sparse_dist_create: NULL argument");
  *out = NULL;
  int size = dg_comm_size(comm);
  /* Local checks first, agreed on before any rank waits for another. */
  dg_error err = dg_sparse_csr_check(A_local);
  if (err == DG_OK && f == DG_SPARSE_AUTO)
    err = dg_sparse_choose(dev, A_local, block, &f);
  int g = f == DG_SPARSE_BSR ? block : 1;
  if (err == DG_OK && (g < 1 || row_start < 0 || row_start % g ||
                       A_local->nrows % g))
    err = dg_error_raise(DG_ERR_ARG, __FILE__, __LINE__, __func__,
                         "bsr block %d must divide this rank's row start "
                         "%lld and row count %lld", g, (long long)row_start,
                         (long long)A_local->nrows);
  DG_CALL(dg_comm_agree(comm, err));
  if (block > 1) {
    /* bsr on some ranks only would cut ghost blocks apart: every rank uses
     * it or none does. */
    double not_bsr = f != DG_SPARSE_BSR;
    DG_CALL(dg_comm_allreduce_max(comm, &not_bsr, 1));
    if (not_bsr > 0 && f == DG_SPARSE_BSR)
      DG_CALL(dg_sparse_choose(dev, A_local, 1, &f));
    g = f == DG_SPARSE_BSR ? block : 1;
  }
  int64_t *starts = calloc((size_t)size + 1, sizeof *starts);
  DG_CHECK(starts != NULL, DG_ERR_MEMORY, "out of host memory");
  err = gather_ranges(comm, row_start, A_local->nrows, A_local->ncols, starts);
  if (err != DG_OK) {
    free(starts);
    DG_CALL(err);
  }
  split_result s = {0};
  int64_t *send_global = NULL;
  dg_sparse_dist *D = calloc(1, sizeof *D);
  err = D ? split_local(A_local, row_start, g, &s)
          : dg_error_raise(DG_ERR_MEMORY, __FILE__, __LINE__, __func__,
                           "out of host memory");
  DG_CALL_GOTO(err, fail, dg_comm_agree(comm, err));
  D->comm = comm;
  D->dev = dev;
  D->dtype = dtype;
  D->nloc = A_local->nrows;
  D->nglobal = A_local->ncols;
  D->row_start = row_start;
  D->nghost = s.nghost;
  err = plan_exchange(D, starts, &s, &send_global);
  DG_CALL_GOTO(err, fail, dg_comm_agree(comm, err));
  /* What neighbours asked for must be this rank's own rows. */
  for (int64_t k = 0; k < D->nsend && err == DG_OK; k++) {
    if (send_global[k] < row_start || send_global[k] >= row_start + D->nloc)
      err = dg_error_raise(DG_ERR_INTERNAL, __FILE__, __LINE__, __func__,
                           "a neighbour asked for column %lld, not owned here",
                           (long long)send_global[k]);
    else
      send_global[k] -= row_start;
  }
  /* Device side. */
  if (err == DG_OK)
    err = dg_sparse_create(dev, s.local, f, block, dtype, &D->local);
  if (err == DG_OK && s.nghost > 0)
    err = dg_sparse_create(dev, s.ghost, f, block, dtype, &D->ghost);
  if (err == DG_OK && s.nghost > 0)
    err = dg_array_create(dev, dtype, s.nghost, &D->x_ghost);
  if (err == DG_OK && D->nsend > 0) {
    char decl[96], name[32];
    snprintf(decl, sizeof decl, "%s *s, const %s *x, const int64_t *idx",
             real_name(dtype), real_name(dtype));
    snprintf(name, sizeof name, "spmv_gather_%s", real_name(dtype));
    err = dg_array_create(dev, dtype, D->nsend, &D->send_buf);
    if (err == DG_OK)
      err = upload_int64(dev, send_global, D->nsend, &D->send_idx);
    if (err == DG_OK)
      err = dg_elementwise_create(dev, name, decl, "s[i] = x[idx[i]]",
                                  &D->gather);
  }
  DG_CALL_GOTO(err, fail, dg_comm_agree(comm, err));
  free(starts);
  free(send_global);
  split_free(&s);
  *out = D;
  return DG_OK;
fail:
  free(starts);
  free(send_global);
  split_free(&s);
  dg_sparse_dist_destroy(&D);
  return err;
}

void dg_sparse_dist_destroy(dg_sparse_dist **A) {
  if (!A || !*A)
    return;
  dg_sparse_dist *D = *A;
  dg_sparse_destroy(&D->local);
  dg_sparse_destroy(&D->ghost);
  dg_array_destroy(&D->send_buf);
  dg_array_destroy(&D->x_ghost);
  if (D->send_idx)
    dg_device_free(D->dev, D->send_idx);
  dg_elementwise_destroy(&D->gather);
  free(D->neighbors);
  free(D->send_host);
  free(D->recv_host);
  free(D);
  *A = NULL;
}

dg_error dg_sparse_dist_spmv(dg_sparse_dist *D, const dg_array *x,
                             dg_array *y) {
  DG_CHECK(D && x && y, DG_ERR_ARG, "dg_sparse_dist_spmv: NULL argument");
  DG_CHECK(dg_array_length(x) == D->nloc && dg_array_length(y) == D->nloc,
           DG_ERR_ARG, "distributed SpMV with %lld local rows: x has %lld, "
           "y %lld entries", (long long)D->nloc,
           (long long)dg_array_length(x), (long long)dg_array_length(y));
  size_t real = dg_dtype_size(D->dtype);
  if (D->nsend > 0) {
    /* x is read at the indices: a pointer, not an n-long array. */
    dg_arg args[] = {DG_ARG_ARRAY(D->send_buf), DG_ARG_POINTER(dg_array_data(x)),
                     DG_ARG_POINTER(D->send_idx)};
    DG_CALL(dg_elementwise_call(D->gather, D->nsend, args));
    DG_CALL(dg_array_download(D->send_buf, D->send_host));
  }
  dg_comm_request *req = NULL;
  if (D->nneighbors > 0)
    DG_CALL(dg_comm_exchange_start(D->comm, D->nneighbors, D->neighbors,
                                   TAG_SPMV, &req));
  /* The local product runs while the messages travel; should it fail, the
   * exchange is still completed (the other ranks are not left waiting). */
  dg_error err = dg_sparse_spmv(D->local, x, y, 0, NULL);
  dg_error werr = dg_comm_exchange_wait(&req);
  if (err != DG_OK)
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  DG_CALL(werr);
  if (D->nghost > 0) {
    DG_CALL(dg_device_upload(D->dev, dg_array_data(D->x_ghost), D->recv_host,
                             (size_t)D->nghost * real));
    DG_CALL(dg_sparse_spmv(D->ghost, D->x_ghost, y, 1, NULL));
  }
  return DG_OK;
}

dg_comm *dg_sparse_dist_comm(const dg_sparse_dist *A) { return A->comm; }
dg_device *dg_sparse_dist_device(const dg_sparse_dist *A) { return A->dev; }
dg_dtype dg_sparse_dist_dtype(const dg_sparse_dist *A) { return A->dtype; }
int64_t dg_sparse_dist_local_rows(const dg_sparse_dist *A) { return A->nloc; }
int64_t dg_sparse_dist_global_rows(const dg_sparse_dist *A) {
  return A->nglobal;
}
int64_t dg_sparse_dist_row_start(const dg_sparse_dist *A) {
  return A->row_start;
}
int64_t dg_sparse_dist_ghosts(const dg_sparse_dist *A) { return A->nghost; }
int dg_sparse_dist_neighbors(const dg_sparse_dist *A) { return A->nneighbors; }
dg_sparse *dg_sparse_dist_local(const dg_sparse_dist *A) { return A->local; }
dg_sparse *dg_sparse_dist_ghost(const dg_sparse_dist *A) { return A->ghost; }
