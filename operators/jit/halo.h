KERNEL void dg_halo_pack(void **args, int64_t first, int64_t count) {
  const real *restrict q = *(const real **)args[0];
  real *restrict buf = *(real **)args[1];
  const int *restrict idx = *(const int **)args[2];
  for (int64_t z = first; z < first + count; ++z)
    buf[z] = q[idx[z]];
}

KERNEL void dg_halo_unpack(void **args, int64_t first, int64_t count) {
  real *restrict q = *(real **)args[0];
  const real *restrict buf = *(const real **)args[1];
  const int *restrict idx = *(const int **)args[2];
  for (int64_t z = first; z < first + count; ++z)
    q[idx[z]] = buf[z];
}
