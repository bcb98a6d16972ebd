  /* One thread per row: thread t of block row br reads column c of each
   * block at c * DG_B + t, so the DG_B threads of a block row read DG_B
   * consecutive values, and x[bc * DG_B + c] is one broadcast load. */
  const long long row = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= nrows)
    return;
  const long long br = row / DG_B;
  const int t = (int)(row - br * DG_B);
  real sum = 0;
  const long long end = rowptr[br + 1];
  for (long long k = rowptr[br]; k < end; ++k) {
    const real *__restrict__ blk = values + k * (DG_B * DG_B) + t;
    const real *__restrict__ xb = x + (long long)colind[k] * DG_B;
  #pragma unroll
    for (int c = 0; c < DG_B; ++c)
      sum += blk[c * DG_B] * __ldg(xb + c);
  }
