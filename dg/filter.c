#include "dg/filter.h"

#include <math.h>
#include <stdlib.h>

dg_error dg_filter_check(const dg_filter_params *p, int N) {
  DG_CHECK(p->cutoff >= 0 && p->cutoff < N, DG_ERR_INPUT,
           "filter cutoff %d must lie in 0..N-1 = 0..%d (the modes above it are filtered)",
           p->cutoff, N - 1);
  DG_CHECK(p->order >= 1 && p->order <= 64, DG_ERR_INPUT, "filter order %d must lie in 1..64",
           p->order);
  DG_CHECK(p->alpha > 0 && p->alpha <= 100, DG_ERR_INPUT,
           "filter strength alpha %g must lie in (0, 100] (36 removes the top mode)", p->alpha);
  return DG_OK;
}

/* The total degree of each basis mode, in the order refelem.h lists them:
 * 1D i; 2D for i, for j <= N-i; 3D for i, for j <= N-i, for k <= N-i-j. */
static int mode_degrees(int dim, int N, int *deg) {
  int m = 0;
  for (int i = 0; i <= N; i++) {
    if (dim == 1) {
      deg[m++] = i;
      continue;
    }
    for (int j = 0; j <= N - i; j++) {
      if (dim == 2) {
        deg[m++] = i + j;
        continue;
      }
      for (int k = 0; k <= N - i - j; k++)
        deg[m++] = i + j + k;
    }
  }
  return m;
}

dg_error dg_filter_sigma(const dg_refelem *re, const dg_filter_params *p, double *sigma) {
  DG_CALL(dg_filter_check(p, re->N));
  int *deg = malloc(sizeof(int) * (size_t)re->Np);
  DG_CHECK(deg, DG_ERR_MEMORY, "out of memory");
  int n = mode_degrees(re->dim, re->N, deg);
  if (n != re->Np) {
    free(deg);
    DG_CHECK(0, DG_ERR_ARG, "filter: %d modes counted for Np = %d", n, re->Np);
  }
  for (int m = 0; m < n; m++) {
    double eta = (double)(deg[m] - p->cutoff) / (double)(re->N - p->cutoff);
    sigma[m] = deg[m] <= p->cutoff ? 1.0 : exp(-p->alpha * pow(eta, p->order));
  }
  free(deg);
  return DG_OK;
}

dg_error dg_filter_matrix(const dg_refelem *re, const dg_filter_params *p, double *F) {
  int np = re->Np;
  double *sigma = malloc(sizeof(double) * (size_t)np);
  DG_CHECK(sigma, DG_ERR_MEMORY, "out of memory");
  dg_error e = dg_filter_sigma(re, p, sigma);
  if (e != DG_OK) {
    free(sigma);
    return dg_error_push(e, __FILE__, __LINE__, __func__);
  }
  for (int i = 0; i < np; i++)
    for (int j = 0; j < np; j++) {
      double s = 0;
      for (int m = 0; m < np; m++)
        s += re->V[i * np + m] * sigma[m] * re->invV[m * np + j];
      F[i * np + j] = s;
    }
  free(sigma);
  return DG_OK;
}
