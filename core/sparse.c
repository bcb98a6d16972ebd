/* Sparse matrices: format names, and the source text of the SpMV kernels
 * (generated per format, precision and shape; compiled by sparse_device.c).
 * The other parts of the module are listed in core/sparse_private.h. */
#include "core/sparse.h"

#include <stdio.h>
#include <string.h>

#include "core/jit_source.h"
#include "core/sparse_private.h"
#include "core/strbuf.h"

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

/* ---- kernel generation -----------------------------------------------------
 * Every format has the same argument list, in this order:
 *   rowptr (int64: CSR row / BSR block-row pointers; unused by ell),
 *   colind (int32: columns, ell slabs or block columns), values, x, y,
 *   nrows (int64: rows of y; the ell slab stride).
 * Two entries per module: <name>_set (y = A x) and <name>_add (y += A x).
 * The text names this file (core/sparse.c) as its generator. */

/* What the text depends on: a matrix's format and shape, not its values. */
typedef struct {
  dg_sparse_format format;
  dg_dtype dtype;
  int cuda;
  int b;         /* bsr block size (1 otherwise) */
  int64_t width; /* ell width */
  int lanes;     /* csr-vector lanes per row */
} spmv_shape;

static const char *real_name(dg_dtype d) { return dg_dtype_name(d); }

static void kernel_name(const spmv_shape *A, char *buf, size_t size) {
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

static void emit_header(dg_strbuf *s, const spmv_shape *A, const char *name) {
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
static void emit_cuda_kernel(dg_strbuf *s, const spmv_shape *A,
                             const char *entry, const char *store) {
  dg_strbuf_line(s, "extern \"C\" __global__ void __launch_bounds__(%d)",
                 DG_SPARSE_CUDA_BLOCK);
  dg_strbuf_line(s, "%s(const long long *__restrict__ rowptr,", entry);
  dg_core_jit(s, "core/jit/spmv_params.cuh");
  dg_core_jit(s, cuda_body[A->format]);
  dg_strbuf_line(s, "%sy[row] %s sum;",
                 A->format == DG_SPARSE_CSR_VECTOR ? "    " : "  ", store);
  dg_strbuf_lines(s, "}\n\n");
}

/* The body of one cpu kernel (a chunk of rows, or of block rows for bsr). */
static void emit_cpu_kernel(dg_strbuf *s, const spmv_shape *A,
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

static void generate(const spmv_shape *A, const char *name, dg_strbuf *s) {
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

/* The device-free form the digest test (tests/sparse/kernel_sources.c)
 * hashes is thus the one dg_sparse_create compiles. */
static spmv_shape shape(dg_sparse_format f, dg_dtype dtype, int cuda, int b,
                       int64_t width, int lanes) {
  return (spmv_shape){.format = f, .dtype = dtype, .cuda = cuda,
                     .b = f == DG_SPARSE_BSR ? b : 1, .width = width,
                     .lanes = lanes};
}

dg_error dg_sparse_emit_source(dg_sparse_format f, dg_dtype dtype, int cuda,
                               int b, int64_t width, int lanes,
                               char *name, size_t name_size, dg_strbuf *out) {
  DG_CHECK(out && name && (unsigned)f < DG_SPARSE_NFORMATS &&
               (dtype == DG_FLOAT || dtype == DG_DOUBLE),
           DG_ERR_ARG, "dg_sparse_emit_source: bad argument");
  spmv_shape A = shape(f, dtype, cuda, b, width, lanes);
  kernel_name(&A, name, name_size);
  generate(&A, name, out);
  return DG_OK;
}
