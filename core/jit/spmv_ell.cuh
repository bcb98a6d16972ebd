  /* One thread per row; slab k holds entry k of every row (stride nrows),
   * so a warp's loads are coalesced.  Rows are padded at their end. */
  const long long row = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= nrows)
    return;
  real sum = 0;
  for (int k = 0; k < DG_WIDTH; ++k) {
    const int c = colind[k * nrows + row];
    if (c < 0)
      break;
    sum += values[k * nrows + row] * __ldg(x + c);
  }
