  /* DG_LANES consecutive threads per row; they stride the row together
   * (coalesced) and add up with shuffles.  Every thread reaches the
   * shuffles (no early return), as the full mask requires. */
  const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const long long row = tid / DG_LANES;
  const int lane = (int)(threadIdx.x & (DG_LANES - 1));
  const bool active = row < nrows;
  const long long end = active ? rowptr[row + 1] : 0;
  real sum = 0;
  for (long long k = (active ? rowptr[row] : 0) + lane; k < end; k += DG_LANES)
    sum += values[k] * __ldg(x + colind[k]);
  #pragma unroll
  for (int off = DG_LANES / 2; off > 0; off >>= 1)
    sum += __shfl_down_sync(0xffffffffu, sum, off, DG_LANES);
  if (active && lane == 0)
