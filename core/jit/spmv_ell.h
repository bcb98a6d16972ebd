  /* Tiles of DG_TILE rows; slab by slab, the tile's entries are contiguous. */
  for (int64_t r0 = first; r0 < last; r0 += DG_TILE) {
    const int64_t m = last - r0 < DG_TILE ? last - r0 : DG_TILE;
    real sum[DG_TILE];
    for (int64_t j = 0; j < m; ++j)
      sum[j] = 0;
    for (int64_t k = 0; k < DG_WIDTH; ++k) {
      const int32_t *restrict ck = colind + k * nrows + r0;
      const real *restrict vk = values + k * nrows + r0;
  #pragma omp simd
      for (int64_t j = 0; j < m; ++j)
        if (ck[j] >= 0)
          sum[j] += vk[j] * x[ck[j]];
    }
    for (int64_t j = 0; j < m; ++j)
