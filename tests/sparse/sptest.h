/* Helpers shared by the sparse, krylov and comm tests: device opening from
 * the command line, random matrices with the awkward rows SpMV kernels get
 * wrong (empty rows, one dense row), DG-structured SPD block matrices, and
 * a plain long double reference product.  CHECK / TRY come from
 * tests/device/devtest.h. */
#ifndef DG_TESTS_SPTEST_H
#define DG_TESTS_SPTEST_H

#include <stdint.h>

#include "core/sparse.h"
#include "tests/device/devtest.h"

/* argv[1] names the backend ("cpu" when absent); "cuda" without a usable
 * GPU exits 77 (skipped).  Also points the kernel cache at a fresh
 * directory (returned in *cache_dir for removal). */
dg_device *st_open_device(int argc, char **argv, const char **cache_dir);

enum { ST_EMPTY_ROWS = 1, ST_DENSE_ROW = 2 };

/* nrows x ncols with about per_row random entries per row (values in
 * [-1, 1)); ST_EMPTY_ROWS empties every 5th row, ST_DENSE_ROW fills row
 * nrows / 2 completely. */
dg_csr *st_random_csr(int64_t nrows, int64_t ncols, double per_row, int flags,
                      uint64_t *rng);

/* The DG-structured matrix of issue 8: K elements of b x b dense blocks,
 * element e coupled to e +- 1 and e +- s (s = round(sqrt(K))), symmetric,
 * diagonal blocks symmetric and strictly diagonally dominant (so the matrix
 * is SPD).  dominance > 1 scales the diagonal (larger: better conditioned). */
dg_csr *st_block_matrix(int64_t K, int b, double dominance, uint64_t *rng);

/* y = A x accumulated in long double; bound[i] = sum_j |a_ij x_j| (the scale
 * of the rounding error of row i). */
void st_reference(const dg_csr *A, const double *x, double *y, double *bound);

/* n values in [-1, 1), rounded to float when dtype is DG_FLOAT. */
double *st_random_vector(int64_t n, dg_dtype dtype, uint64_t *rng);

/* Rows [start, start + count) of A (global column numbers kept). */
dg_csr *st_rows_of(const dg_csr *A, int64_t start, int64_t count);

/* A copy of A with values rounded to float (for float references). */
dg_csr *st_round_to_float(const dg_csr *A);

#endif
