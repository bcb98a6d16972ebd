#include "sptest.h"

#include <math.h>
#include <string.h>

dg_device *st_open_device(int argc, char **argv, const char **cache_dir) {
  const char *backend = argc > 1 ? argv[1] : "cpu";
  if (strcmp(backend, "cuda") == 0 && !dg_device_cuda_available()) {
    printf("no usable CUDA device: skipped\n");
    exit(77);
  }
  *cache_dir = dt_fresh_cache_dir();
  dg_device *dev;
  MUST(dg_device_create(backend, 0, &dev));
  return dev;
}

dg_csr *st_random_csr(int64_t nrows, int64_t ncols, double per_row, int flags,
                      uint64_t *rng) {
  int64_t cap = (int64_t)((double)nrows * (2 * per_row + 1)) + ncols + 1;
  int64_t *r = malloc((size_t)cap * sizeof *r), *c = malloc((size_t)cap * sizeof *c);
  double *v = malloc((size_t)cap * sizeof *v);
  CHECK(r && c && v, "out of memory");
  int64_t n = 0;
  for (int64_t i = 0; i < nrows; i++) {
    if ((flags & ST_EMPTY_ROWS) && i % 5 == 3)
      continue;
    if ((flags & ST_DENSE_ROW) && i == nrows / 2) {
      for (int64_t j = 0; j < ncols; j++) {
        r[n] = i;
        c[n] = j;
        v[n++] = dt_uniform(rng);
      }
      continue;
    }
    /* Row lengths vary between 0 and 2 per_row. */
    int64_t len = (int64_t)((dt_uniform(rng) + 1.0) * per_row);
    for (int64_t k = 0; k < len && ncols > 0 && n < cap; k++) {
      r[n] = i;
      c[n] = (int64_t)((dt_uniform(rng) + 1.0) * 0.5 * (double)ncols) % ncols;
      v[n++] = dt_uniform(rng);
    }
  }
  dg_csr *A;
  MUST(dg_sparse_csr_from_coo(nrows, ncols, n, r, c, v, &A));
  free(r);
  free(c);
  free(v);
  return A;
}

dg_csr *st_block_matrix(int64_t K, int b, double dominance, uint64_t *rng) {
  int64_t s = (int64_t)llround(sqrt((double)K));
  if (s < 2)
    s = 2;
  int64_t cap = K * 5 * b * b;
  int64_t *r = malloc((size_t)cap * sizeof *r), *c = malloc((size_t)cap * sizeof *c);
  double *v = malloc((size_t)cap * sizeof *v);
  double *rowsum = calloc((size_t)(K * b), sizeof *rowsum);
  CHECK(r && c && v && rowsum, "out of memory");
  int64_t n = 0;
  /* Off-diagonal couplings e -> e + 1 and e -> e + s, mirrored. */
  for (int64_t e = 0; e < K; e++) {
    const int64_t nb[2] = {e + 1, e + s};
    for (int q = 0; q < 2; q++) {
      int64_t f = nb[q];
      if (f >= K)
        continue;
      for (int t = 0; t < b; t++)
        for (int u = 0; u < b; u++) {
          double a = dt_uniform(rng);
          r[n] = e * b + t, c[n] = f * b + u, v[n++] = a;
          r[n] = f * b + u, c[n] = e * b + t, v[n++] = a;
          rowsum[e * b + t] += fabs(a);
          rowsum[f * b + u] += fabs(a);
        }
    }
  }
  /* Diagonal blocks: symmetric, with a diagonal that dominates the row. */
  for (int64_t e = 0; e < K; e++) {
    for (int t = 0; t < b; t++)
      for (int u = 0; u < t; u++) {
        double a = dt_uniform(rng);
        r[n] = e * b + t, c[n] = e * b + u, v[n++] = a;
        r[n] = e * b + u, c[n] = e * b + t, v[n++] = a;
        rowsum[e * b + t] += fabs(a);
        rowsum[e * b + u] += fabs(a);
      }
    for (int t = 0; t < b; t++) {
      r[n] = e * b + t, c[n] = e * b + t;
      v[n++] = dominance * (rowsum[e * b + t] + 0.1);
    }
  }
  dg_csr *A;
  MUST(dg_sparse_csr_from_coo(K * b, K * b, n, r, c, v, &A));
  free(r);
  free(c);
  free(v);
  free(rowsum);
  return A;
}

void st_reference(const dg_csr *A, const double *x, double *y, double *bound) {
  for (int64_t i = 0; i < A->nrows; i++) {
    long double s = 0, m = 0;
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
      long double p = (long double)A->values[k] * x[A->colind[k]];
      s += p;
      m += fabsl(p);
    }
    y[i] = (double)s;
    if (bound)
      bound[i] = (double)m;
  }
}

double *st_random_vector(int64_t n, dg_dtype dtype, uint64_t *rng) {
  double *v = malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
  CHECK(v != NULL, "out of memory");
  for (int64_t i = 0; i < n; i++) {
    v[i] = dt_uniform(rng);
    if (dtype == DG_FLOAT)
      v[i] = (float)v[i];
  }
  return v;
}

dg_csr *st_round_to_float(const dg_csr *A) {
  dg_csr *B;
  MUST(dg_sparse_csr_create(A->nrows, A->ncols, A->nnz, &B));
  memcpy(B->rowptr, A->rowptr, (size_t)(A->nrows + 1) * sizeof *B->rowptr);
  memcpy(B->colind, A->colind, (size_t)A->nnz * sizeof *B->colind);
  for (int64_t k = 0; k < A->nnz; k++)
    B->values[k] = (float)A->values[k];
  return B;
}

dg_csr *st_rows_of(const dg_csr *A, int64_t start, int64_t count) {
  int64_t k0 = A->rowptr[start], k1 = A->rowptr[start + count];
  dg_csr *L;
  MUST(dg_sparse_csr_create(count, A->ncols, k1 - k0, &L));
  for (int64_t i = 0; i <= count; i++)
    L->rowptr[i] = A->rowptr[start + i] - k0;
  memcpy(L->colind, A->colind + k0, (size_t)(k1 - k0) * sizeof *L->colind);
  memcpy(L->values, A->values + k0, (size_t)(k1 - k0) * sizeof *L->values);
  return L;
}
