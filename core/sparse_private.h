/* Private: what the files of the sparse module share (core/sparse.h is the
 * module's one public header).  The module is split by purpose:
 *   sparse_convert.c  host formats: CSR from coordinates, CSR <-> ELL / BSR;
 *   sparse.c          format names and the SpMV kernels' source text;
 *   sparse_device.c   the device matrix: upload, compile, launch;
 *   sparse_choose.c   format choice, by heuristic or by timing;
 *   sparse_dist.c     distributed matrices: row split, halo plan, SpMV.
 * Nothing outside core/sparse*.c includes this header. */
#ifndef DG_CORE_SPARSE_PRIVATE_H
#define DG_CORE_SPARSE_PRIVATE_H

#include <stdint.h>
#include <stdlib.h>

#include "core/sparse.h"

/* Threads per CUDA block for every SpMV kernel: one thread (or one group of
 * lanes) per row, 8 warps per block, enough blocks to cover the rows. */
enum { DG_SPARSE_CUDA_BLOCK = 256 };

/* At least one element, so that an empty matrix still has valid pointers
 * and malloc(0) cannot be confused with failure. */
static inline void *dg_sparse_alloc(int64_t n, size_t size) {
  return malloc((size_t)(n > 0 ? n : 1) * size);
}

/* Entries of the longest row of a (checked) CSR matrix. */
static inline int64_t dg_sparse_longest_row(const dg_csr *A) {
  int64_t w = 0;
  for (int64_t r = 0; r < A->nrows; r++)
    if (A->rowptr[r + 1] - A->rowptr[r] > w)
      w = A->rowptr[r + 1] - A->rowptr[r];
  return w;
}

/* Is b a legal BSR block size for A (1..1024, dividing both sizes)? */
dg_error dg_sparse_check_block(const dg_csr *A, int b);

/* For every block row of A, the distinct block columns its rows touch, in
 * increasing order (sparse_convert.c). */
dg_error dg_sparse_block_pattern(const dg_csr *A, int b, int64_t **browptr,
                                 int64_t **bcol, int64_t *nblocks);

/* Upload n int64 host values to a new device allocation (*dst stays NULL
 * when n is 0). */
dg_error dg_sparse_upload_int64(dg_device *dev, const int64_t *src, int64_t n,
                                void **dst);

#endif
