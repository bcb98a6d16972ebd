
__device__ __forceinline__ double dg_reduce(double a, double b)
{
  return a + b;
}
