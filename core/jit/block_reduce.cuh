
/* Reduce one value per thread to thread 0 of the block. */
__device__ __forceinline__ double dg_block_reduce(double acc)
{
  __shared__ double dg_warp_acc[32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (int off = 16; off > 0; off >>= 1)
    acc = dg_reduce(acc, __shfl_down_sync(0xffffffffu, acc, off));
  if (lane == 0)
    dg_warp_acc[warp] = acc;
  __syncthreads();
  if (warp == 0) {
    acc = lane < (int)(blockDim.x >> 5) ? dg_warp_acc[lane] : DG_NEUTRAL;
    for (int off = 16; off > 0; off >>= 1)
      acc = dg_reduce(acc, __shfl_down_sync(0xffffffffu, acc, off));
  }
  return acc;
}

