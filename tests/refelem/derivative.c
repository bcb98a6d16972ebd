/* dg.refelem_derivative: Dr, Ds, Dt differentiate every monomial
 * r^i s^j t^k of total degree <= N exactly, N = 1..10, dims 1..3. */
#include "refelem_test.h"

static double worst = 0.0;

static void check(const dg_refelem *re, const mono *m, int nm) {
  int dim = re->dim, N = re->N, Np = re->Np;
  EXPECT(nm == Np, "%dD N=%d: %d monomials but Np = %d", dim, N, nm, Np);
  /* Tolerance: D = Vr V^{-1} is formed with relative error about
   * eps ||V|| ||V^{-1}|| (the condition of the inverse), and applying it to
   * data of size 1 amplifies rounding by ||D||_inf = O(N^2) (Markov's
   * inequality for the exact operator).  The monomials are bounded by 1 on
   * the element and their derivatives by N, so we allow
   * 10 eps * cond_inf(V) * N^2 * N (about 1e-10 at N = 10 in 3D, where
   * cond_inf(V) is ~5e2; the errors seen are below 4% of it). */
  double cond = norm_inf(Np, Np, re->V) * norm_inf(Np, Np, re->invV);
  double tol = 10.0 * 2.2e-16 * cond * N * N * N;
  const double *D[3] = {re->Dr, re->Ds, re->Dt};
  for (int d = 0; d < dim; ++d)
    for (int a = 0; a < nm; ++a)
      for (int v = 0; v < Np; ++v) {
        double num = 0.0;
        for (int w = 0; w < Np; ++w)
          num += D[d][(size_t)v * Np + w] *
                 mono_eval(m[a], coord(re, 0, w), coord(re, 1, w),
                           coord(re, 2, w));
        double ex = mono_deriv(m[a], d, coord(re, 0, v), coord(re, 1, v),
                               coord(re, 2, v));
        double err = fabs(num - ex);
        if (err / tol > worst)
          worst = err / tol;
        EXPECT(err <= tol, "%dD N=%d D%d of r^%d s^%d t^%d at node %d: %.3e "
               "vs %.3e (tol %.1e)", dim, N, d, m[a].e[0], m[a].e[1],
               m[a].e[2], v, num, ex, tol);
      }
}

int main(void) {
  for_each_element(check);
  printf("worst error / tolerance: %.3f\n", worst);
  return test_result("dg.refelem_derivative");
}
