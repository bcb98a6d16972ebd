{
  const int64_t *restrict rowptr = *(const int64_t *const *)dg_args[0];
  const int32_t *restrict colind = *(const int32_t *const *)dg_args[1];
  const real *restrict values = *(const real *const *)dg_args[2];
  const real *restrict x = *(const real *const *)dg_args[3];
  real *restrict y = *(real *const *)dg_args[4];
  const int64_t nrows = *(const int64_t *)dg_args[5];
  const int64_t last = first + count;
  (void)rowptr;
  (void)nrows;
