  /* One thread per row. */
  const long long row = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= nrows)
    return;
  real sum = 0;
  const long long end = rowptr[row + 1];
  for (long long k = rowptr[row]; k < end; ++k)
    sum += values[k] * __ldg(x + colind[k]);
