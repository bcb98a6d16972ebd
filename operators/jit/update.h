/* LSERK stage update: res = a*res + dt*rhs; q += b*res */
KERNEL void dg_update_lserk(void **args, int64_t first, int64_t count) {
  real *restrict q = *(real **)args[0];
  real *restrict res = *(real **)args[1];
  const real *restrict rhs = *(const real **)args[2];
  const real a = *(const real *)args[3], bb = *(const real *)args[4];
  const real dt = *(const real *)args[5];
  for (int64_t z = first; z < first + count; ++z) {
    const real rs = a * res[z] + dt * rhs[z];
    res[z] = rs;
    q[z] += bb * rs;
  }
}

/* SSP-RK stage (Shu-Osher form): q = alpha*q0 + beta*(q + dt*rhs) */
KERNEL void dg_update_ssp(void **args, int64_t first, int64_t count) {
  real *restrict q = *(real **)args[0];
  const real *restrict q0 = *(const real **)args[1];
  const real *restrict rhs = *(const real **)args[2];
  const real alpha = *(const real *)args[3], beta = *(const real *)args[4];
  const real dt = *(const real *)args[5];
  for (int64_t z = first; z < first + count; ++z)
    q[z] = alpha * q0[z] + beta * (q[z] + dt * rhs[z]);
}
