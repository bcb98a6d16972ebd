    const long long n,
    double *__restrict__ dg_partials)
{
  double dg_acc[DG_ILP];
#pragma unroll
  for (int dg_u = 0; dg_u < DG_ILP; ++dg_u)
    dg_acc[dg_u] = DG_NEUTRAL;
