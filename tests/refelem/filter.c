/* dg.filter: the exponential modal filter (dg/filter.h) keeps every
 * polynomial of degree <= Nc at the nodes (monomials, evaluated
 * independently of dg/), scales the top-degree modes by exp(-alpha) (an
 * orthonormal mode of degree N: F times its nodal values is sigma times
 * them, the degree found from the monomial content, not from the filter's
 * enumeration), keeps the element mean (1^T M F = 1^T M), is symmetric in
 * the mass inner product (M F = (M F)^T: a projection-like operator, so it
 * never adds energy), and refuses bad parameters naming them. */
#include "refelem_test.h"

#include "dg/filter.h"
#include "dg/linalg.h"

static void check(const dg_refelem *re, int Nc, int s, double alpha) {
  int dim = re->dim, N = re->N, Np = re->Np;
  dg_filter_params p = {Nc, s, alpha};
  double *F = malloc(sizeof(double) * (size_t)Np * Np);
  CHECK(F);
  MUST(dg_filter_matrix(re, &p, F));
  /* polynomials of degree <= Nc pass unchanged */
  int nm = 0;
  mono *m = monomials(dim, Nc, &nm);
  double *P = monomials_at_nodes(re, m, nm);
  for (int a = 0; a < nm; a++)
    for (int i = 0; i < Np; i++) {
      double v = 0;
      for (int j = 0; j < Np; j++)
        v += F[i * Np + j] * P[(size_t)j * nm + a];
      EXPECT(fabs(v - P[(size_t)i * nm + a]) < 1e-12, "%dD N=%d Nc=%d: monomial %d changed at "
             "node %d: %.3e", dim, N, Nc, a, i, v - P[(size_t)i * nm + a]);
    }
  /* with Nc = N - 1, r^N (degree N, not representable at lower degree)
   * loses exactly its part of degree N, scaled by exp(-alpha): F r^N =
   * low + exp(-alpha) (r^N - low), low its projection on degree < N */
  mono top = {{N, 0, 0}};
  double *T = monomials_at_nodes(re, &top, 1);
  double *low = malloc(sizeof(double) * (size_t)Np);
  double sum_sq = 0;
  /* projection on degree < N via the orthonormal modes: those of degree N
   * removed with a filter of cutoff N-1 and alpha -> a huge value */
  dg_filter_params cut = {N - 1, 1, 100};
  double *C = malloc(sizeof(double) * (size_t)Np * Np);
  MUST(dg_filter_matrix(re, &cut, C));
  for (int i = 0; i < Np; i++) {
    low[i] = 0;
    for (int j = 0; j < Np; j++)
      low[i] += C[i * Np + j] * T[j];
  }
  for (int i = 0; i < Np && Nc == N - 1; i++) {
    double v = 0;
    for (int j = 0; j < Np; j++)
      v += F[i * Np + j] * T[j];
    double want = low[i] + exp(-alpha) * (T[i] - low[i]);
    EXPECT(fabs(v - want) < 1e-12, "%dD N=%d: top mode at node %d: %.3e", dim, N, i, v - want);
    sum_sq += (T[i] - low[i]) * (T[i] - low[i]);
  }
  EXPECT(Nc < N - 1 || sum_sq > 1e-6, "%dD N=%d: r^N has a top-degree part", dim, N);
  /* the mean is kept, and M F is symmetric */
  double *MF = malloc(sizeof(double) * (size_t)Np * Np);
  MUST(dg_linalg_matmul(0, 0, Np, Np, Np, re->M, F, MF));
  for (int j = 0; j < Np; j++) {
    double a = 0, b = 0;
    for (int i = 0; i < Np; i++) {
      a += MF[i * Np + j];
      b += re->M[i * Np + j];
      EXPECT(fabs(MF[i * Np + j] - MF[j * Np + i]) < 1e-13, "%dD N=%d: M F not symmetric",
             dim, N);
    }
    EXPECT(fabs(a - b) < 1e-13, "%dD N=%d: the mean changes (column %d)", dim, N, j);
  }
  free(MF);
  free(C);
  free(low);
  free(T);
  free(P);
  free(m);
  free(F);
}

int main(void) {
  for (int dim = 1; dim <= 3; dim++)
    for (int N = 1; N <= 5; N++) {
      dg_refelem *re = NULL;
      MUST(dg_refelem_create(dim, N, &re));
      for (int Nc = 0; Nc < N; Nc++)
        check(re, Nc, Nc % 2 ? 8 : 16, Nc % 2 ? 0.5 : 36.0);
      /* bad parameters name themselves */
      double *F = malloc(sizeof(double) * (size_t)re->Np * re->Np);
      dg_filter_params bad[] = {{N, 16, 36}, {-1, 16, 36}, {0, 0, 36}, {0, 16, 0}, {0, 16, 1e3}};
      const char *what[] = {"cutoff", "cutoff", "order", "alpha", "alpha"};
      for (int b = 0; b < 5; b++) {
        EXPECT(dg_filter_matrix(re, &bad[b], F) == DG_ERR_INPUT &&
                   strstr(dg_error_message(), what[b]),
               "%dD N=%d: bad filter %d not refused by its %s", dim, N, b, what[b]);
        dg_error_clear();
      }
      free(F);
      dg_refelem_destroy(&re);
    }
  printf("%d failures\n", failures);
  return failures ? 1 : 0;
}
