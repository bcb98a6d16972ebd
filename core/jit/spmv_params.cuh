    const int *__restrict__ colind,
    const real *__restrict__ values,
    const real *__restrict__ x, real *__restrict__ y,
    const long long nrows)
{
