KERNEL void dg_halo_pack(const real *__restrict__ q, real *__restrict__ buf,
    const int *__restrict__ idx, long long n) {
  for (long long z = (long long)blockIdx.x * blockDim.x + threadIdx.x; z < n;
       z += (long long)gridDim.x * blockDim.x)
    buf[z] = q[idx[z]];
}

KERNEL void dg_halo_unpack(real *__restrict__ q, const real *__restrict__ buf,
    const int *__restrict__ idx, long long n) {
  for (long long z = (long long)blockIdx.x * blockDim.x + threadIdx.x; z < n;
       z += (long long)gridDim.x * blockDim.x)
    q[idx[z]] = buf[z];
}
