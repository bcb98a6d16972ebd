/* LSERK stage update: res = a*res + dt*rhs; q += b*res (grid-stride) */
KERNEL void dg_update_lserk(real *__restrict__ q, real *__restrict__ res,
    const real *__restrict__ rhs, real rk_a, real rk_b, real dt, long long n) {
  for (long long z = (long long)blockIdx.x * blockDim.x + threadIdx.x; z < n;
       z += (long long)gridDim.x * blockDim.x) {
    const real rs = rk_a * res[z] + dt * rhs[z];
    res[z] = rs;
    q[z] += rk_b * rs;
  }
}

/* SSP-RK stage (Shu-Osher form): q = alpha*q0 + beta*(q + dt*rhs) */
KERNEL void dg_update_ssp(real *__restrict__ q, const real *__restrict__ q0,
    const real *__restrict__ rhs, real alpha, real beta, real dt, long long n) {
  for (long long z = (long long)blockIdx.x * blockDim.x + threadIdx.x; z < n;
       z += (long long)gridDim.x * blockDim.x)
    q[z] = alpha * q0[z] + beta * (q[z] + dt * rhs[z]);
}
