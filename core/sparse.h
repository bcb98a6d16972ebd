/* Sparse matrices and SpMV (y = A x) on both backends.
 *
 * Host side (plain C, double values, 64-bit indices):
 *   dg_csr  compressed sparse rows; columns sorted and unique within a row;
 *   dg_ell  ELLPACK: every row padded to the longest one, stored column-major
 *           (entry k of row r at k * nrows + r), padding column -1, value 0;
 *   dg_bsr  block CSR with dense b x b blocks (the element blocks of a DG
 *           matrix, b = Np); every block is stored column-major (entry (t, c)
 *           of a block at c * b + t), so that the b threads of a block row
 *           read b consecutive values for each column c.
 * Built from coordinates (dg_sparse_csr_from_coo) and converted between the
 * formats (dg_sparse_csr_to_ell / _to_bsr and back).
 *
 * Device side: a dg_sparse holds one matrix in one format on one device,
 * with values in the precision of the vectors it multiplies (float or
 * double; products are accumulated in that precision), column indices as
 * int32 (so at most 2^31 - 1 columns per matrix, per rank when distributed)
 * and row pointers as int64.  Its SpMV kernels are generated at run time for
 * exactly that matrix (format, precision, BSR block size, ELL width, CSR
 * lanes per row), compiled through dg_device_compile (kernel cache), and
 * readable (dg_sparse_source):
 *   csr-scalar  one thread per row (Bell & Garland 2008, sec. 4.3);
 *   csr-vector  a group of V lanes (V = 2..32, a power of two near the mean
 *               row length) per row, combined with warp shuffles (Bell &
 *               Garland 2008, sec. 4.4, with CUSP's lanes-per-row choice);
 *   ell         one thread per row over the column-major slabs (sec. 4.2);
 *   bsr         one thread per row of a block row: for each block and each
 *               of its b columns one coalesced load of the block column and
 *               one broadcast load of x; b is a compile-time constant, so
 *               the column loop is unrolled (b independent loads in flight).
 * On the cpu backend the same formats are loops over chunks of rows (block
 * rows for bsr) with `omp simd` inner loops.
 *
 * Format choice (dg_sparse_choose): a heuristic from the matrix structure,
 * or dg_sparse_tune, which times every candidate on the device.
 *
 * Distributed matrices (dg_sparse_dist): rank r owns a contiguous range of
 * global rows and the same range of the vector entries; its columns are
 * split into the local block (owned columns) and the ghost block (columns
 * owned by other ranks, renumbered in global order).  y = A x gathers the
 * entries other ranks need, starts a non-blocking exchange (core/comm),
 * runs the local product, waits, uploads the ghost entries and adds the
 * ghost product (see dg_sparse_dist_spmv). */
#ifndef DG_CORE_SPARSE_H
#define DG_CORE_SPARSE_H

#include <stddef.h>
#include <stdint.h>

#include "core/array.h"
#include "core/comm.h"
#include "core/device.h"
#include "core/error.h"
#include "core/strbuf.h"

/* ---- host formats --------------------------------------------------------- */

typedef struct dg_csr {
  int64_t nrows, ncols, nnz;
  int64_t *rowptr; /* nrows + 1 */
  int64_t *colind; /* nnz */
  double *values;  /* nnz */
} dg_csr;

typedef struct dg_ell {
  int64_t nrows, ncols;
  int64_t width;   /* longest row */
  int64_t *colind; /* width * nrows, column-major, -1 = padding */
  double *values;  /* width * nrows, column-major, 0 in padding */
} dg_ell;

typedef struct dg_bsr {
  int64_t nbrows, nbcols; /* block rows / columns */
  int b;                  /* block size */
  int64_t nblocks;
  int64_t *browptr;       /* nbrows + 1 */
  int64_t *bcolind;       /* nblocks, sorted within a block row */
  double *values;         /* nblocks * b * b, each block column-major */
} dg_bsr;

/* A CSR with room for nnz entries; rowptr zeroed, the rest uninitialised. */
dg_error dg_sparse_csr_create(int64_t nrows, int64_t ncols, int64_t nnz,
                              dg_csr **out);
void dg_sparse_csr_destroy(dg_csr **A);
/* From coordinates (any order; duplicates are summed, as in assembly).
 * Indices are 0-based; one out of range is DG_ERR_ARG naming the entry. */
dg_error dg_sparse_csr_from_coo(int64_t nrows, int64_t ncols, int64_t nnz,
                                const int64_t *rows, const int64_t *cols,
                                const double *values, dg_csr **out);
/* Structure check: row pointers monotone from 0 to nnz, columns in range,
 * strictly increasing within each row. */
dg_error dg_sparse_csr_check(const dg_csr *A);

dg_error dg_sparse_csr_to_ell(const dg_csr *A, dg_ell **out);
dg_error dg_sparse_ell_to_csr(const dg_ell *E, dg_csr **out);
void dg_sparse_ell_destroy(dg_ell **E);
/* b must divide nrows and ncols; a block is stored when any of its entries
 * is in A (the others are explicit zeros). */
dg_error dg_sparse_csr_to_bsr(const dg_csr *A, int b, dg_bsr **out);
/* Entries that are exactly zero inside stored blocks are dropped. */
dg_error dg_sparse_bsr_to_csr(const dg_bsr *B, dg_csr **out);
void dg_sparse_bsr_destroy(dg_bsr **B);

/* ---- device matrices ------------------------------------------------------ */

typedef enum dg_sparse_format {
  DG_SPARSE_CSR_SCALAR = 0,
  DG_SPARSE_CSR_VECTOR,
  DG_SPARSE_ELL,
  DG_SPARSE_BSR,
  DG_SPARSE_NFORMATS,
  DG_SPARSE_AUTO = DG_SPARSE_NFORMATS /* dg_sparse_choose's pick */
} dg_sparse_format;

/* "csr-scalar", "csr-vector", "ell", "bsr", "auto". */
const char *dg_sparse_format_name(dg_sparse_format f);
/* The inverse; an unknown name is DG_ERR_INPUT listing the valid ones. */
dg_error dg_sparse_format_parse(const char *name, dg_sparse_format *out);

typedef struct dg_sparse dg_sparse;

/* Upload A in format f (DG_SPARSE_AUTO: dg_sparse_choose's heuristic) with
 * values of dtype.  block is the BSR block size (>= 1, dividing nrows and
 * ncols) and is ignored by the other formats (pass 1 when there is no block
 * structure).  Generates and compiles the matrix's kernels. */
dg_error dg_sparse_create(dg_device *dev, const dg_csr *A, dg_sparse_format f,
                          int block, dg_dtype dtype, dg_sparse **out);
void dg_sparse_destroy(dg_sparse **A);

/* y = A x (accumulate = 0) or y += A x (accumulate = 1), asynchronously on
 * stream (NULL: the default stream).  x has ncols entries, y nrows, both of
 * the matrix's dtype; x and y must not overlap. */
dg_error dg_sparse_spmv(dg_sparse *A, const dg_array *x, dg_array *y,
                        int accumulate, dg_stream *stream);

int64_t dg_sparse_rows(const dg_sparse *A);
int64_t dg_sparse_cols(const dg_sparse *A);
/* Entries of A (before block / ELL padding). */
int64_t dg_sparse_nnz(const dg_sparse *A);
dg_sparse_format dg_sparse_get_format(const dg_sparse *A);
dg_dtype dg_sparse_dtype(const dg_sparse *A);
/* The fewest bytes y = A x moves in this format: stored values (with BSR
 * explicit zeros and ELL padding) + stored indices (column indices and row
 * pointers) + x once + y once (written).  Caches could only lower the x
 * term; it is the yardstick for GB/s figures. */
int64_t dg_sparse_bytes_moved(const dg_sparse *A);
/* The generated kernel source (for dumps and reading). */
const char *dg_sparse_source(const dg_sparse *A);
/* The SpMV module dg_sparse_create generates for a matrix of format f
 * (not auto), dtype, backend (cuda or cpu), bsr block size b, ell width
 * and csr-vector lanes (each read only by its format), appended to out,
 * and its name (the entries are <name>_set and <name>_add); no device is
 * needed (the kernel-source digest test hashes every variant). */
dg_error dg_sparse_emit_source(dg_sparse_format f, dg_dtype dtype, int cuda,
                               int b, int64_t width, int lanes, char *name,
                               size_t name_size, dg_strbuf *out);

/* The heuristic (no timing).  On structure alone, on both backends:
 *   bsr         when block > 1 divides the matrix and the stored blocks are
 *               at least 3/4 full (explicit zeros cost bandwidth; a full
 *               block saves all but one index per b*b values);
 *   ell         when padding to the longest row adds at most 1/8 of the
 *               entries (near-uniform rows: no row pointers, coalesced);
 *   csr-vector  when rows hold >= 8 entries on average (on cuda, scalar
 *               threads would read 8+ separate segments per warp load; on
 *               cpu the long rows vectorise);
 *   csr-scalar  otherwise.
 * The thresholds follow the break-even points of Bell & Garland (2008,
 * sec. 5); on the cpu backend spbench --quick agrees with the bsr pick for
 * DG matrices.  `spbench --tune` prints what dg_sparse_tune measures next
 * to the heuristic's pick, to check them on a GPU; tune when a matrix is
 * used many times. */
dg_error dg_sparse_choose(const dg_device *dev, const dg_csr *A, int block,
                          dg_sparse_format *out);
/* Time y = A x for every format that applies (bsr only when block > 1)
 * with `repeats` runs each after one warm-up, and pick the fastest.
 * ms[f] gets the best time of format f in milliseconds (negative: not
 * tried).  Builds and frees each candidate. */
dg_error dg_sparse_tune(dg_device *dev, const dg_csr *A, int block,
                        dg_dtype dtype, int repeats, dg_sparse_format *out,
                        double ms[DG_SPARSE_NFORMATS]);

/* ---- distributed matrices ------------------------------------------------- */

typedef struct dg_sparse_dist dg_sparse_dist;

/* Collective over comm.  This rank's rows are global rows
 * [row_start, row_start + A_local->nrows); A_local's columns are global
 * (A_local->ncols = the global size; the matrix is square and x is
 * distributed like y).  Ranks hold consecutive ranges in rank order that
 * cover [0, ncols) (checked).  For bsr, block divides every rank's row
 * start and count, and ghost columns travel as whole blocks.  Errors on any
 * rank are agreed on (core/comm.h): every rank returns an error. */
dg_error dg_sparse_dist_create(dg_comm *comm, dg_device *dev,
                               const dg_csr *A_local, int64_t row_start,
                               dg_sparse_format f, int block, dg_dtype dtype,
                               dg_sparse_dist **out);
void dg_sparse_dist_destroy(dg_sparse_dist **A);

/* y = A x on this rank's rows; x and y hold this rank's entries.
 * Collective.  Steps: gather the entries neighbours need (generated kernel)
 * and download them; post the receives and sends; launch the local product
 * y = A_loc x (asynchronous on cuda, so it overlaps the messages; on cpu the
 * messages progress in MPI while it runs); wait; upload the ghost entries;
 * y += A_ghost x_ghost.  A failure on one rank between the post and the
 * wait leaves the others waiting: the caller aborts the job (core/comm.h). */
dg_error dg_sparse_dist_spmv(dg_sparse_dist *A, const dg_array *x,
                             dg_array *y);

dg_comm *dg_sparse_dist_comm(const dg_sparse_dist *A);
dg_device *dg_sparse_dist_device(const dg_sparse_dist *A);
dg_dtype dg_sparse_dist_dtype(const dg_sparse_dist *A);
int64_t dg_sparse_dist_local_rows(const dg_sparse_dist *A);
int64_t dg_sparse_dist_global_rows(const dg_sparse_dist *A);
int64_t dg_sparse_dist_row_start(const dg_sparse_dist *A);
/* Ghost entries this rank receives, and neighbours it talks to. */
int64_t dg_sparse_dist_ghosts(const dg_sparse_dist *A);
int dg_sparse_dist_neighbors(const dg_sparse_dist *A);
/* The local and ghost blocks (the ghost one is NULL without ghosts). */
dg_sparse *dg_sparse_dist_local(const dg_sparse_dist *A);
dg_sparse *dg_sparse_dist_ghost(const dg_sparse_dist *A);

#endif
