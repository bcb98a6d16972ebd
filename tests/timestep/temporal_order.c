/* problems.temporal_order_*: the temporal order of each scheme through the
 * real solver (generated right-hand side and update kernels, stage times,
 * the loop's fixed steps): the final state of the semi-discrete system at
 * dt, dt/2, dt/4 compared with an LSERK4 reference at 1/64 of the smaller
 * dt on the same mesh and order, so that the spatial error, the same in
 * every run, drops out of the difference (e(dt) = |u_dt - u_ref|max is the
 * time integration error of the method of lines alone; the reference's
 * own is at most (1/16)^4 of the finest LSERK4 run's, < 2e-5 of it).  The observed rates
 * log2(e(dt)/e(dt/2)) must be within [p - 0.15, p + 0.3] of the design
 * order p (4: Carpenter & Kennedy 1994 and Niegemann, Diehl & Busch 2012;
 * 3: Shu & Osher 1988): a rate that
 * falls short shows a wrong coefficient or stage time, one well above it
 * that dt0 is not in the asymptotic range.  The errors must stay 100 times
 * above the round-off the steps can accumulate (|u|max * eps * steps) to
 * measure anything.
 * dt0 is given per scheme (SSP-RK3's stability region is the smaller).
 * lsrk14's smaller error constants bring the Euler vortex's max-norm error
 * at lserk4's dt0 (3.2e-5 at 0.05, 2.6e-6 at 0.025, then 1.0e-7, 5.7e-7) down
 * to a floor of ~1e-7 that does not fall with dt (lserk4's own final state
 * moves by 4e-8 from dt = 0.0125 to 0.00625: the Rusanov flux's max is not
 * smooth), so it starts at 2.5 times that dt there (--lsrk14=0.125).
 * usage: test_problems_temporal_order problem.cfg dt0_lserk4 dt0_ssprk3 [--lsrk14=dt0]
 *        [section.key=value ...] */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/expect.h"
#include "tests/run_state.h"

enum { NLEVEL = 3, REF_DIVISOR = 64, MAX_OVER = 32 };

static void run_dt(const char *cfg, const char *scheme, double dt, int nextra, char **extra,
                   dg_run_result *res) {
  char sch[64], dts[64];
  snprintf(sch, sizeof sch, "time.scheme=%s", scheme);
  snprintf(dts, sizeof dts, "time.dt=%.17g", dt);
  char *ov[MAX_OVER + 3] = {sch, dts, "output.enabled=false"};
  int n = 3;
  for (int i = 0; i < nextra && n < MAX_OVER + 3; i++)
    ov[n++] = extra[i];
  MUST(run_state(cfg, "temporal_order_out", NULL, NULL, n, ov, res));
}

int main(int argc, char **argv) {
  CHECK(argc >= 4, "usage: %s problem.cfg dt0_lserk4 dt0_ssprk3 [section.key=value ...]",
        argv[0]);
  const char *cfg = argv[1];
  /* lsrk14: lserk4's dt0 unless --lsrk14=dt0 follows */
  double dt0s[3] = {atof(argv[2]), atof(argv[3]), atof(argv[2])};
  int first = 4;
  if (argc > 4 && strncmp(argv[4], "--lsrk14=", 9) == 0)
    dt0s[2] = atof(argv[first++] + 9);
  int nextra = argc - first;
  char **extra = argv + first;
  CHECK(dt0s[0] > 0 && dt0s[1] > 0 && dt0s[2] > 0 && nextra <= MAX_OVER);
  double dt_ref = fmin(dt0s[0], dt0s[1]) / REF_DIVISOR;
  dg_run_result ref;
  run_dt(cfg, "lserk4", dt_ref, nextra, extra, &ref);
  CHECK(ref.state_length > 0);
  double umax = 0;
  for (int64_t i = 0; i < ref.state_length; i++)
    umax = fmax(umax, fabs(ref.state[i]));
  printf("reference: lserk4, dt = %g, %lld steps, |u|max = %g\n", dt_ref,
         (long long)ref.steps, umax);
  const char *schemes[] = {"lserk4", "ssprk3", "lsrk14"};
  const int order[] = {4, 3, 4};
  for (int m = 0; m < 3; m++) {
    double e[NLEVEL], dt0 = dt0s[m];
    int64_t steps = 0;
    for (int l = 0; l < NLEVEL; l++) {
      dg_run_result res;
      run_dt(cfg, schemes[m], dt0 / (1 << l), nextra, extra, &res);
      CHECK(res.state_length == ref.state_length);
      state_diff d = state_compare(&ref, &res);
      e[l] = d.maxdiff;
      steps = res.steps;
      printf("%s  dt = %-10g steps = %-5lld |u - u_ref|max = %.3e", schemes[m],
             dt0 / (1 << l), (long long)res.steps, e[l]);
      if (l > 0)
        printf("  rate %.3f", log2(e[l - 1] / e[l]));
      printf("\n");
      free(res.state);
    }
    EXPECT(e[NLEVEL - 1] > 100 * umax * DBL_EPSILON * (double)steps,
           "%s: the finest error %.3e is near round-off", schemes[m], e[NLEVEL - 1]);
    for (int l = 1; l < NLEVEL; l++) {
      double rate = log2(e[l - 1] / e[l]);
      EXPECT(rate >= order[m] - 0.15 && rate <= order[m] + 0.3,
             "%s: rate %.3f from dt = %g to %g, want %d", schemes[m], rate, dt0 / (1 << (l - 1)),
             dt0 / (1 << l), order[m]);
    }
  }
  free(ref.state);
  return expect_finish();
}
