
/* max that propagates NaN (fmax would drop it). */
__device__ __forceinline__ double dg_reduce(double a, double b)
{
  return (a != a || a > b) ? a : b;
}
