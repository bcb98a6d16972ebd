/* problems.adaptive_*: the adaptive steps of [time] scheme = rk34 | rk45
 * through the real run (problems/driver/run_loop_adaptive.c, the device
 * kernels of problems/solver/embedded.c).  Every error is measured against
 * an LSERK4 reference of the same mesh and order at a step far below the
 * runs' (the semi-discrete solution: the spatial error drops out).
 *
 *   order cfg dt0 [ov...]   rk34 and rk45 at fixed dt0, dt0/2, dt0/4 (max_fac = 1
 *                           and an atol no step can miss keep dt fixed): the
 *                           rates log2(e(dt)/e(dt/2)) within [p - 0.15, p + 0.3]
 *                           (on a nonlinear problem: rk34's stability polynomial
 *                           is of order 4, so a linear one shows 4)
 *   tolerance cfg [ov...]   atol = rtol = 1e-6 .. 1e-9: the error at the final
 *                           time falls with the tolerance at every decade, by a
 *                           factor within 10^[2.4, 4.5] over the 3 (proportional:
 *                           10^3; measured on order1d.cfg rk45 10^2.97, rk34
 *                           10^3.99: on a linear problem rk34's solution is of
 *                           order 4, its estimate of order 3, so the error goes
 *                           as tol^(4/3)), and stays within 30 times the tolerance
 *                           (larger tolerances: the step is held by stability,
 *                           not accuracy, and the error no longer follows)
 *   stiff cfg dt0 [ov...]   a first step dt0 far past stability: steps are
 *                           rejected, and the run still ends within its tolerance
 *   layouts cfg [ov...]     the kernel variants (element-major with padded nodes,
 *                           the update and surface fused into the volume kernel)
 *                           take the default run's steps: the same accepted and
 *                           rejected counts, the state to 1e-12 of its size (the
 *                           error norm reads the owned nodes in every layout)
 *   backends cfg [ov...]    the cuda run (exit 77 without a GPU) takes the cpu
 *                           run's step sequence: the same accepted and rejected
 *                           counts, the last dt equal to 1e-9 relative, the state
 *                           to 1e-9 of its size.  They may differ in the last
 *                           bits: the norm's reduction adds in another order
 *                           (a tree of blocks against chunks) and nvcc fuses
 *                           multiply-adds, so dt differs by round-off, which
 *                           the controller does not amplify (fac is a smooth
 *                           function of err) unless an error lies at 1 within
 *                           round-off.
 * usage: test_problems_adaptive MODE cfg [dt0] [section.key=value ...] */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/device.h"
#include "tests/expect.h"
#include "tests/run_state.h"

enum { MAX_OVER = 32 };

static const char *cfg;
static int nextra;
static char **extra;

static void run(const char *backend, int n, const char **ov, dg_run_result *res) {
  char *all[MAX_OVER + 16];
  int m = 0;
  all[m++] = "output.enabled=false";
  for (int i = 0; i < nextra && m < MAX_OVER; i++)
    all[m++] = extra[i];
  for (int i = 0; i < n; i++)
    all[m++] = (char *)ov[i];
  char dev[64];
  snprintf(dev, sizeof dev, "backend.device=%s", backend);
  all[m++] = dev;
  MUST(run_state(cfg, "adaptive_out", NULL, NULL, m, all, res));
}

static double max_diff(const dg_run_result *ref, const dg_run_result *res) {
  CHECK(res->state_length == ref->state_length && ref->state_length > 0);
  return state_compare(ref, res).maxdiff;
}

static void reference(double dt, dg_run_result *ref) {
  char d[64];
  snprintf(d, sizeof d, "time.dt=%.17g", dt);
  const char *ov[] = {"time.scheme=lserk4", d};
  run("cpu", 2, ov, ref);
  printf("reference: lserk4, dt = %g, %lld steps\n", dt, (long long)ref->steps);
}

static void adaptive(const char *scheme, double tol, const char *dt0, int fixed,
                     const char *backend, dg_run_result *res) {
  char s[64], a[64], r[64], d[64];
  snprintf(s, sizeof s, "time.scheme=%s", scheme);
  snprintf(a, sizeof a, "time.atol=%.17g", fixed ? 1e10 : tol);
  snprintf(r, sizeof r, "time.rtol=%.17g", fixed ? 0 : tol);
  snprintf(d, sizeof d, "time.dt=%s", dt0 ? dt0 : "0");
  const char *ov[] = {s, a, r, d, fixed ? "time.max_fac=1" : "time.max_fac=2.5"};
  run(backend, 5, ov, res);
}

static const char *schemes[] = {"rk34", "rk45"};
static const int orders[] = {3, 4};

static int mode_order(double dt0) {
  dg_run_result ref;
  reference(dt0 / 4 / 64, &ref);
  double umax = state_compare(&ref, &ref).maxref;
  for (int m = 0; m < 2; m++) {
    double e[3];
    int64_t steps = 0;
    for (int l = 0; l < 3; l++) {
      char d[64];
      snprintf(d, sizeof d, "%.17g", dt0 / (1 << l));
      dg_run_result res;
      adaptive(schemes[m], 0, d, 1, "cpu", &res);
      e[l] = max_diff(&ref, &res);
      steps = res.steps;
      printf("%s  dt = %-10g steps = %-5lld rejected %lld  |u - u_ref|max = %.3e", schemes[m],
             dt0 / (1 << l), (long long)res.steps, (long long)res.rejected_steps, e[l]);
      if (l > 0)
        printf("  rate %.3f", log2(e[l - 1] / e[l]));
      printf("\n");
      EXPECT(res.rejected_steps == 0, "%s: a fixed-step run rejected steps", schemes[m]);
      free(res.state);
    }
    EXPECT(e[2] > 100 * umax * DBL_EPSILON * (double)steps, "%s: the finest error %.3e is near round-off",
           schemes[m], e[2]);
    for (int l = 1; l < 3; l++) {
      double rate = log2(e[l - 1] / e[l]);
      EXPECT(rate >= orders[m] - 0.15 && rate <= orders[m] + 0.3, "%s: rate %.3f, want %d",
             schemes[m], rate, orders[m]);
    }
  }
  free(ref.state);
  return expect_finish();
}

static int mode_tolerance(void) {
  /* (the reference's step: well below the one rk45 takes at 1e-9) */
  dg_run_result ref;
  reference(1e-4, &ref);
  const double tols[] = {1e-6, 1e-7, 1e-8, 1e-9};
  for (int m = 0; m < 2; m++) {
    double e[4];
    for (int l = 0; l < 4; l++) {
      dg_run_result res;
      adaptive(schemes[m], tols[l], NULL, 0, "cpu", &res);
      e[l] = max_diff(&ref, &res);
      printf("%s  tol = %-7g steps = %-5lld rejected %-3lld |u - u_ref|max = %.3e  "
             "error/tol %.2f\n",
             schemes[m], tols[l], (long long)res.steps, (long long)res.rejected_steps, e[l],
             e[l] / tols[l]);
      EXPECT(e[l] < 30 * tols[l], "%s: error %.3e at tol %g", schemes[m], e[l], tols[l]);
      if (l > 0)
        EXPECT(e[l] < e[l - 1], "%s: the error does not fall from tol %g to %g", schemes[m],
               tols[l - 1], tols[l]);
      free(res.state);
    }
    double decades = log10(e[0] / e[3]);
    printf("%s: the error falls by 10^%.2f over 3 decades of tolerance\n", schemes[m], decades);
    EXPECT(decades >= 2.4 && decades <= 4.5, "%s: error falls by 10^%.2f over 3 decades",
           schemes[m], decades);
  }
  free(ref.state);
  return expect_finish();
}

static int mode_stiff(const char *dt0) {
  dg_run_result ref;
  reference(2e-4, &ref);
  for (int m = 0; m < 2; m++) {
    dg_run_result res;
    adaptive(schemes[m], 1e-6, dt0, 0, "cpu", &res);
    double e = max_diff(&ref, &res);
    printf("%s  first dt = %s: %lld steps, %lld rejected, |u - u_ref|max = %.3e\n", schemes[m],
           dt0, (long long)res.steps, (long long)res.rejected_steps, e);
    EXPECT(res.rejected_steps >= 1, "%s: the too large first step was not rejected", schemes[m]);
    EXPECT(e < 30e-6, "%s: error %.3e after the rejections", schemes[m], e);
    free(res.state);
  }
  free(ref.state);
  return expect_finish();
}

static int mode_layouts(void) {
  const char *variants[][3] = {{"backend.layout=element-major", "backend.np_align=8", NULL},
                               {"backend.fuse_update=true", "backend.fuse_surface=true", NULL}};
  for (int m = 0; m < 2; m++) {
    dg_run_result ref;
    char s[64];
    snprintf(s, sizeof s, "time.scheme=%s", schemes[m]);
    const char *ov0[] = {s, "time.dt=0.5"};
    run("cpu", 2, ov0, &ref);
    for (int v = 0; v < 2; v++) {
      const char *ov[] = {s, "time.dt=0.5", variants[v][0], variants[v][1]};
      dg_run_result res;
      run("cpu", 4, ov, &res);
      state_diff d = state_compare(&ref, &res);
      printf("%s  %s %s: %lld steps (%lld rejected), default %lld (%lld); max |du| %.3e\n",
             schemes[m], variants[v][0], variants[v][1], (long long)res.steps,
             (long long)res.rejected_steps, (long long)ref.steps, (long long)ref.rejected_steps,
             d.maxdiff);
      EXPECT(res.steps == ref.steps && res.rejected_steps == ref.rejected_steps &&
                 ref.rejected_steps > 0,
             "%s: the step sequences differ (or none rejected)", schemes[m]);
      EXPECT(d.maxdiff <= 1e-12 * d.maxref, "%s: the states differ", schemes[m]);
      free(res.state);
    }
    free(ref.state);
  }
  return expect_finish();
}

static int mode_backends(void) {
  if (!dg_device_cuda_available()) {
    printf("skipped: no usable CUDA device\n");
    return 77;
  }
  for (int m = 0; m < 2; m++) {
    dg_run_result c, g;
    adaptive(schemes[m], 1e-6, NULL, 0, "cpu", &c);
    adaptive(schemes[m], 1e-6, NULL, 0, "cuda", &g);
    state_diff d = state_compare(&c, &g);
    printf("%s  cpu %lld accepted %lld rejected, last dt %.17g; cuda %lld / %lld, %.17g; "
           "max |u_cuda - u_cpu| = %.3e (|u|max %.3e)\n",
           schemes[m], (long long)c.steps, (long long)c.rejected_steps, c.dt_last,
           (long long)g.steps, (long long)g.rejected_steps, g.dt_last, d.maxdiff, d.maxref);
    EXPECT(c.steps == g.steps && c.rejected_steps == g.rejected_steps,
           "%s: the step sequences differ", schemes[m]);
    /* The step counts and rejections must agree exactly, the last dt only
     * to 1e-6: the embedded error estimate is the difference of two nearly
     * equal stage sums, so the backends' round-off (reduction order, FMA
     * contraction) comes out of it amplified by ~1/tol, and the PI
     * controller passes that on to dt (measured on the H200: 1.4e-8 rk34,
     * 3.4e-8 rk45 relative, with the states within 3.4e-15). */
    EXPECT(fabs(c.dt_last - g.dt_last) <= 1e-6 * c.dt_last, "%s: last dt differs", schemes[m]);
    EXPECT(d.maxdiff <= 1e-9 * d.maxref, "%s: the states differ", schemes[m]);
    free(c.state);
    free(g.state);
  }
  return expect_finish();
}

int main(int argc, char **argv) {
  CHECK(argc >= 3, "usage: %s order|tolerance|stiff|layouts|backends problem.cfg [dt0] [ov...]", argv[0]);
  const char *mode = argv[1];
  cfg = argv[2];
  int first = 3, with_dt = strcmp(mode, "order") == 0 || strcmp(mode, "stiff") == 0;
  CHECK(!with_dt || argc >= 4, "%s needs dt0", mode);
  first += with_dt;
  nextra = argc - first;
  extra = argv + first;
  CHECK(nextra <= MAX_OVER);
  if (strcmp(mode, "order") == 0)
    return mode_order(atof(argv[3]));
  if (strcmp(mode, "tolerance") == 0)
    return mode_tolerance();
  if (strcmp(mode, "stiff") == 0)
    return mode_stiff(argv[3]);
  if (strcmp(mode, "layouts") == 0)
    return mode_layouts();
  CHECK(strcmp(mode, "backends") == 0, "unknown mode %s", mode);
  return mode_backends();
}
