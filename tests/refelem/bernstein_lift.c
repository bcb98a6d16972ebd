/* dg.bernstein_lift: the factored Bernstein-Bezier lift (dg/bernstein_lift.h),
 * its layer-0 block in the closed form (N + dim/2) I + (N^2/2) E E^T,
 * reproduces every face block of the dense BB LIFT (dg/bernstein.h, itself
 * checked against the nodal LIFT and exact integrals in dg.bernstein) on
 * random face coefficients, in 1D, 2D and 3D for N = 1..10 (a change of
 * 1e-9 in either constant fails it). */
#include "dg/bernstein_lift.h"

#include <time.h>

#include "dg/bernstein.h"
#include "tests/refelem/refelem_test.h"

static void check(int dim, int N) {
  dg_refelem *re = NULL;
  dg_bernstein *bb = NULL;
  dg_bernstein_lift *l = NULL;
  MUST(dg_refelem_create(dim, N, &re));
  MUST(dg_bernstein_create(re, &bb));
  MUST(dg_bernstein_lift_create(re, bb, &l));
  int Np = re->Np, Nfp = re->Nfp, nfn = re->Nfaces * Nfp;
  double *g = malloc(sizeof(double) * Nfp), *want = malloc(sizeof(double) * Np);
  double *got = malloc(sizeof(double) * Np), *work = malloc(sizeof(double) * Np);
  double worst = 0;
  for (int f = 0; f < re->Nfaces; ++f) {
    for (int m = 0; m < Nfp; ++m)
      g[m] = urand();
    double scale = 0;
    for (int a = 0; a < Np; ++a) {
      want[a] = 0;
      for (int m = 0; m < Nfp; ++m)
        want[a] += bb->LIFT[(size_t)a * nfn + f * Nfp + m] * g[m];
      scale = fmax(scale, fabs(want[a]));
      got[a] = 0;
    }
    dg_bernstein_lift_apply(l, bb, re->Fmask, f, g, work, got);
    for (int a = 0; a < Np; ++a)
      worst = fmax(worst, fabs(got[a] - want[a]) / scale);
  }
  /* Both sides carry the dense LIFT's rounding (invV, cond(V) < 3^N; below
   * 1e-13 relative up to N = 10 in dg.bernstein), the factored one through a
   * chain of N convex combinations: 1e-11 leaves room and still catches a
   * wrong ell_j or neighbour (errors of order one) */
  EXPECT(worst < 1e-11, "%dD N=%d: factored lift differs by %.2e (relative)", dim, N, worst);
  free(g);
  free(want);
  free(got);
  free(work);
  dg_bernstein_lift_destroy(&l);
  dg_bernstein_destroy(&bb);
  dg_refelem_destroy(&re);
}

int main(void) {
  rng_state = (unsigned long long)time(NULL) * 2654435761ULL + 17; /* fresh data, printed */
  printf("seed %llu\n", rng_state);
  for (int dim = 1; dim <= 3; ++dim)
    for (int N = 1; N <= 10; ++N)
      check(dim, N);
  dg_refelem *re = NULL;
  dg_bernstein *bb = NULL;
  dg_bernstein_lift *l = (dg_bernstein_lift *)&l; /* poisoned: must become NULL */
  MUST(dg_refelem_create(3, 3, &re));
  MUST(dg_bernstein_create(re, &bb));
  EXPECT(dg_bernstein_lift_create(NULL, bb, &l) == DG_ERR_ARG && l == NULL);
  dg_error_clear();
  dg_refelem *re2 = NULL;
  MUST(dg_refelem_create(3, 4, &re2));
  EXPECT(dg_bernstein_lift_create(re2, bb, &l) == DG_ERR_ARG, "mismatched order accepted");
  EXPECT(strlen(dg_error_message()) > 0);
  dg_error_clear();
  dg_refelem_destroy(&re2);
  dg_bernstein_destroy(&bb);
  dg_refelem_destroy(&re);
  dg_bernstein_lift_destroy(NULL);
  return test_result("dg.bernstein_lift");
}
