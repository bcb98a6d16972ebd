/* dgbench step: whole time steps of a problem, as a run takes them.
 *
 *   dgbench step problem.cfg [section.key=value ...] [--warmup W]
 *                [--steps S] [--windows R] [--tune=off|auto|full]
 *
 * The peer's method (PyFR's bench.py in ../shared/peers/pyfr, which times
 * windows of solver.advance_to after set-up and a warm-up): the problem is
 * opened and its kernels tuned as dgrun does (bench_case.h), the state set
 * to the initial condition, W steps of the file's scheme taken to warm up,
 * then R windows of S steps, each timed by the host clock from a
 * synchronised device to a synchronised device; then R windows of S bare
 * right-hand-side evaluations.  Printed: per window and the median, ms per
 * step, ms per RHS (a step over its stages) and DOF-updates/s, and whether
 * the state stayed finite.  dt is the run's: [time] dt, or the cfl bound of
 * [time] wave_speed and diffusivity (dg_rk_cfl_dt_diffusive).
 *
 * A step here is dg_solver_step and, when the file asks for it, the modal
 * filter after it, exactly the run loop's work per step (run_loop.c
 * one_step) without the observers.  Adaptive schemes, the computed wave
 * speed and [shock] are refused: their steps are not of one fixed cost
 * (`dgbench rhs` times shock capturing's stage). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/timing.h"
#include "dg/timestep.h"
#include "operators/kernel_knobs.h"
#include "problems/bench/bench_case.h"
#include "problems/solver/autotune.h"
#include "problems/solver/filter.h"

typedef struct step_opts {
  int warmup, steps, windows, tune;
} step_opts;

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

typedef struct stepper {
  dg_solver *s;
  dg_state_filter *filter;
  const dg_rk_scheme *rk;
  double t, dt;
} stepper;

static dg_error take_steps(stepper *st, int n) {
  for (int i = 0; i < n; i++) {
    DG_CALL(dg_solver_step(st->s, st->rk, st->t, st->dt));
    if (st->filter)
      DG_CALL(dg_state_filter_apply(st->filter));
    st->t += st->dt;
  }
  return DG_OK;
}

static dg_error take_rhs(stepper *st, int n) {
  for (int i = 0; i < n; i++)
    DG_CALL(dg_solver_rhs(st->s, st->t, NULL));
  return DG_OK;
}

/* R windows of S steps (rhs 0) or S bare RHS evaluations (rhs 1): the
 * seconds of each into secs[]. */
static dg_error time_windows(stepper *st, dg_device *dev, const step_opts *o, int rhs,
                             double *secs) {
  for (int w = 0; w < o->windows; w++) {
    DG_CALL(dg_device_synchronize(dev));
    double t0 = dg_timing_now();
    DG_CALL(rhs ? take_rhs(st, o->steps) : take_steps(st, o->steps));
    DG_CALL(dg_device_synchronize(dev));
    secs[w] = dg_timing_now() - t0;
  }
  return DG_OK;
}

static dg_error step_dt(const dg_bench_case *c, double *dt) {
  const dg_problem *p = c->p;
  if (p->dt_fixed > 0) {
    *dt = p->dt_fixed;
    return DG_OK;
  }
  DG_CALL(dg_rk_cfl_dt_diffusive(p->cfl, c->disc->h_min, p->wave_speed, p->diffusivity,
                                 c->disc->N, dt));
  return DG_OK;
}

static void print_windows(const char *what, const double *secs, int n, int per, int stages,
                          double dofs) {
  double v[64];
  for (int w = 0; w < n; w++) {
    v[w] = secs[w] / per;
    printf("  %s window %d: %d in %.4f s, %.4f ms each\n", what, w + 1, per, secs[w],
           1e3 * v[w]);
  }
  double m = median(v, n);
  printf("%s: median %.4f ms", what, 1e3 * m);
  if (stages > 0)
    printf(" per step, %.4f ms per RHS (%d stages), %.3e DOF-updates/s", 1e3 * m / stages,
           stages, dofs * stages / m);
  else
    printf(" per RHS, %.3e DOF-updates/s", dofs / m);
  printf("\n");
}

static dg_error check_refused(const dg_problem *p) {
  DG_CHECK(!p->adaptive, DG_ERR_INPUT,
           "dgbench step: an adaptive scheme's steps are not of one cost (take lserk4, "
           "lsrk14 or ssprk3)");
  DG_CHECK(!p->speed_computed || p->dt_fixed > 0, DG_ERR_INPUT,
           "dgbench step: give [time] wave_speed (or dt): the computed wave speed's "
           "reductions are the run loop's, not a step's");
  DG_CHECK(!dg_problem_shock_enabled(p), DG_ERR_INPUT,
           "dgbench step: [shock] stages are timed end to end by dgbench rhs");
  return DG_OK;
}

static dg_error bench(const char *cfg, const char *const *ov, int nov, const step_opts *o) {
  dg_bench_case c;
  dg_solver *s = NULL;
  dg_state_filter *filter = NULL;
  dg_error err = DG_OK;
  DG_CALL_GOTO(err, done, dg_bench_case_open(cfg, ov, nov, &c));
  DG_CALL_GOTO(err, done, check_refused(c.p));
  dg_kernel_config kc;
  DG_CALL_GOTO(err, done, dg_bench_case_tune(&c, o->tune, &kc));
  DG_CALL_GOTO(err, done, dg_bench_case_solver(&c, &kc, o->tune, &s));
  DG_CALL_GOTO(err, done, dg_solver_set_initial(s, 0.0));
  if (c.p->filter)
    DG_CALL_GOTO(err, done, dg_state_filter_create(s, c.disc, &c.p->filter_params, &filter));
  stepper st = {s, filter, &c.p->scheme, 0.0, 0.0};
  DG_CALL_GOTO(err, done, step_dt(&c, &st.dt));
  double dofs = (double)c.disc->K * c.disc->Np * c.ph.ncomp;
  char variant[DG_KERNEL_CONFIG_TEXT];
  dg_kernel_config_describe(&kc, variant, sizeof variant);
  printf("%s: %s, %dD N=%d %s, K=%lld, %.0f DOFs, scheme %s (%d stages), dt %.4g%s\n", cfg,
         dg_device_get_info(c.dev)->name, c.disc->dim, c.disc->N,
         c.p->precision == DG_FLOAT ? "float" : "double", (long long)c.disc->K, dofs,
         c.p->scheme.name, c.p->scheme.nstages, st.dt, filter ? ", modal filter after each step" : "");
  printf("variant: %s\n", variant);
  DG_CALL_GOTO(err, done, take_steps(&st, o->warmup));
  double secs[64];
  DG_CALL_GOTO(err, done, time_windows(&st, c.dev, o, 0, secs));
  print_windows("step", secs, o->windows, o->steps, c.p->scheme.nstages, dofs);
  DG_CALL_GOTO(err, done, time_windows(&st, c.dev, o, 1, secs));
  print_windows("rhs", secs, o->windows, o->steps, 0, dofs);
  int finite = 0;
  DG_CALL_GOTO(err, done, dg_solver_state_finite(s, &finite));
  printf("state finite after %d steps (t = %.4g): %s\n", o->warmup + o->windows * o->steps,
         st.t, finite ? "yes" : "NO");
  DG_CHECK_GOTO(err, done, finite, DG_ERR_NUMERIC,
                "dgbench step: the state is not finite after the timed steps");
done:
  dg_state_filter_destroy(&filter);
  dg_solver_destroy(&s);
  dg_bench_case_close(&c);
  return err;
}

int dg_stepbench_main(int argc, char **argv) {
  step_opts o = {20, 50, 5, DG_TUNE_AUTO};
  const char **ov = calloc((size_t)argc + 1, sizeof *ov);
  const char *cfg = NULL;
  int nov = 0, bad = !ov;
  for (int i = 0; i < argc && !bad; i++) {
    const char *a = argv[i];
    int *iv = strcmp(a, "--warmup") == 0  ? &o.warmup
              : strcmp(a, "--steps") == 0 ? &o.steps
              : strcmp(a, "--windows") == 0 ? &o.windows
                                            : NULL;
    if (iv && i + 1 < argc)
      *iv = atoi(argv[++i]);
    else if (strcmp(a, "--tune=off") == 0 || strcmp(a, "--tune=auto") == 0 ||
             strcmp(a, "--tune=full") == 0)
      o.tune = a[7] == 'o' ? DG_TUNE_OFF : a[7] == 'f' ? DG_TUNE_FULL : DG_TUNE_AUTO;
    else if (strncmp(a, "--", 2) == 0) {
      fprintf(stderr, "dgbench step: unknown option '%s'\n", a);
      bad = 1;
    } else if (strchr(a, '='))
      ov[nov++] = a;
    else if (!cfg)
      cfg = a;
    else {
      fprintf(stderr, "dgbench step: one problem file ('%s' is a second)\n", a);
      bad = 1;
    }
  }
  if (!bad && (o.warmup < 0 || o.steps < 1 || o.windows < 1 || o.windows > 64)) {
    fprintf(stderr, "dgbench step: --warmup >= 0, --steps >= 1, --windows 1..64\n");
    bad = 1;
  }
  if (bad || !cfg) {
    fprintf(stderr, "usage: dgbench step problem.cfg [section.key=value ...] [--warmup W]\n"
                    "                    [--steps S] [--windows R] [--tune=off|auto|full]\n");
    free(ov);
    return 2;
  }
  dg_log_set_level(DG_LOG_WARN);
  int rc = 0;
  if (bench(cfg, ov, nov, &o) != DG_OK) {
    dg_error_print(stderr);
    rc = 1;
  }
  free(ov);
  return rc;
}
