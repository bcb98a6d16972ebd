  /* Items are block rows; a block column times x[c] is a vector update. */
  for (int64_t br = first; br < last; ++br) {
    real acc[DG_B];
    for (int t = 0; t < DG_B; ++t)
      acc[t] = 0;
    for (int64_t k = rowptr[br]; k < rowptr[br + 1]; ++k) {
      const real *restrict blk = values + k * (DG_B * DG_B);
      const real *restrict xb = x + (int64_t)colind[k] * DG_B;
      for (int c = 0; c < DG_B; ++c) {
        const real xc = xb[c];
  #pragma omp simd
        for (int t = 0; t < DG_B; ++t)
          acc[t] += blk[c * DG_B + t] * xc;
      }
    }
    for (int t = 0; t < DG_B; ++t)
