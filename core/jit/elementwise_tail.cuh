    }
  }
  /* The last, partial tile. */
#pragma unroll
  for (int dg_u = 0; dg_u < DG_ILP; ++dg_u) {
    const long long i = dg_base + dg_u * DG_BLOCK;
    if (i < n) {
