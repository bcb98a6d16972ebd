  /* Tiles of DG_BLOCK * DG_ILP consecutive items, grid-stride over the
   * tiles (64-bit index).  A thread takes items dg_u * DG_BLOCK +
   * threadIdx.x of its tile: every load of a warp is coalesced, a tile
   * is one contiguous stretch of memory, and the constant offsets let
   * the compiler issue all DG_ILP loads before the first store. */
  const long long dg_step = (long long)gridDim.x * (DG_BLOCK * DG_ILP);
  long long dg_base = (long long)blockIdx.x * (DG_BLOCK * DG_ILP) + threadIdx.x;
  for (; dg_base + (DG_ILP - 1) * DG_BLOCK < n; dg_base += dg_step) {
#pragma unroll
    for (int dg_u = 0; dg_u < DG_ILP; ++dg_u) {
      const long long i = dg_base + dg_u * DG_BLOCK;
