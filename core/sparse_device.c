/* Sparse matrices on the device: one matrix in one format, uploaded in the
 * vectors' precision, with its SpMV kernels (source from core/sparse.c)
 * compiled through dg_device_compile and launched on either backend. */
#include <stdio.h>
#include <stdlib.h>

#include "core/sparse.h"
#include "core/sparse_private.h"
#include "core/strbuf.h"

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

dg_error dg_sparse_upload_int64(dg_device *dev, const int64_t *src, int64_t n,
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
    DG_CALL(dg_sparse_upload_int64(dev, src->rowptr, src->nrows + 1,
                                   &A->rowptr));
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
    dg_error err =
        dg_sparse_upload_int64(dev, B->browptr, B->nbrows + 1, &A->rowptr);
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
    DG_CALL(dg_sparse_check_block(src, block));
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
           dg_dtype_name(A->dtype), dg_dtype_name(dg_array_dtype(x)),
           dg_dtype_name(dg_array_dtype(y)));
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
    int64_t blocks = (threads + DG_SPARSE_CUDA_BLOCK - 1) / DG_SPARSE_CUDA_BLOCK;
    DG_CHECK(blocks <= INT32_MAX, DG_ERR_UNSUPPORTED,
             "SpMV of %lld rows needs %lld thread blocks (at most %d)",
             (long long)A->nrows, (long long)blocks, INT32_MAX);
    launch.grid[0] = (unsigned)blocks;
    launch.block[0] = DG_SPARSE_CUDA_BLOCK;
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
