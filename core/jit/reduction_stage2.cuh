    double *__restrict__ dg_result)
{
  double dg_acc = DG_NEUTRAL;
  for (long long j = threadIdx.x; j < dg_count; j += DG_BLOCK2)
    dg_acc = dg_reduce(dg_acc, dg_partials[j]);
  dg_acc = dg_block_reduce(dg_acc);
  if (threadIdx.x == 0)
    *dg_result = dg_acc;
}
