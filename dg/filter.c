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

dg_error dg_filter_sigma(const dg_refelem *re, const dg_filter_params *p, double *sigma) {
  DG_CALL(dg_filter_check(p, re->N));
  int *deg = malloc(sizeof(int) * (size_t)re->Np);
  DG_CHECK(deg, DG_ERR_MEMORY, "out of memory");
  dg_refelem_mode_degrees(re->dim, re->N, deg);
  for (int m = 0; m < re->Np; m++) {
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
