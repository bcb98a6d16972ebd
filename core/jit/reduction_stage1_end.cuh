#pragma unroll
  for (int dg_u = 1; dg_u < DG_ILP; ++dg_u)
    dg_acc[0] = dg_reduce(dg_acc[0], dg_acc[dg_u]);
  const double dg_block = dg_block_reduce(dg_acc[0]);
  if (threadIdx.x == 0)
    dg_partials[blockIdx.x] = dg_block;
}

extern "C" __global__ void __launch_bounds__(DG_BLOCK2)
