/* dgbench rhs with [shock] (rhsbench_shock.h).  Per stage of a run with
 * shock capturing (problems/solver/solver.c): the sensor, the vertex
 * maximum, the node values and the face traces of the viscosity before the
 * right-hand side, the positivity limiter after the update.  The RHS itself
 * is the same kernels with or without [shock] (the viscosity is a
 * coefficient of the flux file, its second-order terms are in the RHS
 * either way).  Then a whole stage with the module attached, end to end:
 * where the sensor finds no viscosity anywhere the stage runs the
 * first-order twin of the flux file (problems/solver/solver_smooth.h), so
 * a smooth flow costs the sensor and the limiter beside the first-order
 * RHS, and the stage is timed rather than summed from the rows. */
#include "problems/bench/rhsbench_shock.h"

#include <stdlib.h>

#include "core/device.h"
#include "operators/kernel_knobs.h"
#include "problems/solver/autotune.h"
#include "problems/solver/shock.h"

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

enum { MAXR = 64 };

/* Median time of each launched kernel over the repeats (ms[k] = 0: not in
 * the module). */
static dg_error time_kernels(dg_shock *sh, dg_solver *s, int repeats,
                             double ms[DG_SHOCK_NKERNELS]) {
  dg_device *dev = dg_solver_device(s);
  dg_event *ev[DG_SHOCK_NKERNELS + 1] = {NULL};
  double samples[DG_SHOCK_NKERNELS][MAXR];
  dg_error err = DG_OK;
  for (int i = 0; i <= DG_SHOCK_NKERNELS; i++)
    DG_CALL_GOTO(err, done, dg_event_create(dev, &ev[i]));
  for (int k = 0; k < DG_SHOCK_NKERNELS; k++) /* warm-up */
    if (dg_shock_kernel_launches(sh, k))
      DG_CALL_GOTO(err, done, dg_shock_launch_kernel(sh, s, k));
  for (int r = 0; r < repeats; r++) {
    int end[DG_SHOCK_NKERNELS] = {0}, n = 0;
    DG_CALL_GOTO(err, done, dg_event_record(ev[0], NULL));
    for (int k = 0; k < DG_SHOCK_NKERNELS; k++) {
      if (!dg_shock_kernel_launches(sh, k))
        continue;
      DG_CALL_GOTO(err, done, dg_shock_launch_kernel(sh, s, k));
      DG_CALL_GOTO(err, done, dg_event_record(ev[++n], NULL));
      end[k] = n;
    }
    DG_CALL_GOTO(err, done, dg_event_synchronize(ev[n]));
    for (int k = 0; k < DG_SHOCK_NKERNELS; k++) {
      float e = 0;
      if (end[k])
        DG_CALL_GOTO(err, done, dg_event_elapsed_ms(ev[end[k] - 1], ev[end[k]], &e));
      samples[k][r] = e;
    }
  }
  for (int k = 0; k < DG_SHOCK_NKERNELS; k++) {
    qsort(samples[k], (size_t)repeats, sizeof(double), cmp_double);
    ms[k] = samples[k][repeats / 2];
  }
done:
  for (int i = 0; i <= DG_SHOCK_NKERNELS; i++)
    dg_event_destroy(&ev[i]);
  return err;
}

/* One stage with shock capturing, end to end (twin 0): the RHS with the
 * sensor and the viscosity (and, where the sensor finds nothing, the
 * first-order twin: problems/solver/solver_smooth.h), the update kernel
 * where it is not fused, the limiter.  Or (twin 1) the twin's kernels
 * alone with the update: the first-order RHS of the same physics. */
static dg_error run_once(dg_shock *sh, dg_solver *s, int twin) {
  if (twin) {
    if (dg_solver_kernel_launches(s, DG_SOLVER_SURFACE_SMOOTH))
      DG_CALL(dg_solver_launch_kernel(s, DG_SOLVER_SURFACE_SMOOTH, 0.0));
    DG_CALL(dg_solver_launch_kernel(s, DG_SOLVER_VOLUME_SMOOTH, 0.0));
  } else {
    DG_CALL(dg_solver_rhs(s, 0.0, NULL));
  }
  if (dg_solver_kernel_launches(s, DG_SOLVER_UPDATE))
    DG_CALL(dg_solver_launch_kernel(s, DG_SOLVER_UPDATE, 0.0));
  if (!twin && dg_shock_kernel_launches(sh, 4))
    DG_CALL(dg_shock_launch_kernel(sh, s, 4));
  return DG_OK;
}

/* The median of run_once over the repeats, after two warm-ups (the twin
 * builds on first use); *ntwin: how many of the timed stages ran the twin. */
static dg_error time_runs(dg_shock *sh, dg_solver *s, int twin, int repeats, double *ms,
                          long long *ntwin) {
  dg_device *dev = dg_solver_device(s);
  dg_event *e0 = NULL, *e1 = NULL;
  double samples[MAXR];
  long long before = 0;
  dg_error err = DG_OK;
  DG_CALL_GOTO(err, done, dg_event_create(dev, &e0));
  DG_CALL_GOTO(err, done, dg_event_create(dev, &e1));
  for (int r = -2; r < repeats; r++) {
    if (r == 0)
      before = dg_solver_get_timings(s).smooth_evaluations;
    DG_CALL_GOTO(err, done, dg_event_record(e0, NULL));
    DG_CALL_GOTO(err, done, run_once(sh, s, twin));
    DG_CALL_GOTO(err, done, dg_event_record(e1, NULL));
    DG_CALL_GOTO(err, done, dg_event_synchronize(e1));
    float e = 0;
    DG_CALL_GOTO(err, done, dg_event_elapsed_ms(e0, e1, &e));
    if (r >= 0)
      samples[r] = e;
  }
  *ntwin = dg_solver_get_timings(s).smooth_evaluations - before;
  qsort(samples, (size_t)repeats, sizeof(double), cmp_double);
  *ms = samples[repeats / 2];
done:
  dg_event_destroy(&e0);
  dg_event_destroy(&e1);
  return err;
}

static void print_rows(FILE *out, const dg_problem *p, dg_shock *sh, const double *ms,
                       double rhs_ms) {
  const dg_shock_settings *set = &p->shock;
  fprintf(out, "shock capturing: sensor = %s, viscosity = %s, positivity = %s\n",
          set->sensor && set->sensor[0] ? set->sensor : "(none)",
          set->viscosity && set->viscosity[0] ? set->viscosity : "(none)",
          set->positivity && set->positivity[0] ? set->positivity : "(none)");
  fprintf(out, "%-10s %10s %9s\n", "kernel", "time ms", "of RHS");
  for (int k = 0; k < DG_SHOCK_NKERNELS; k++)
    if (dg_shock_kernel_launches(sh, k))
      fprintf(out, "%-10s %10.4f %9.3f\n", dg_shock_kernel_name(k), ms[k],
              rhs_ms > 0 ? ms[k] / rhs_ms : 0);
}

/* The twin, tuned where asked, and its RHS alone (*twin_ms 0: none). */
static dg_error twin_rhs(dg_shock *sh, dg_solver *s, const dg_autotune_request *tune,
                         int repeats, FILE *out, double *twin_ms) {
  int coef = dg_shock_viscosity_coefficient(sh), available = 0;
  *twin_ms = 0;
  if (coef < 0)
    return DG_OK;
  if (tune) {
    dg_autotune_outcome to;
    DG_CALL(dg_autotune_smooth(tune, s, coef, &to));
  }
  DG_CALL(dg_solver_smooth_prepare(s, coef, &available));
  if (!available)
    return DG_OK;
  long long n = 0;
  DG_CALL(time_runs(sh, s, 1, repeats, twin_ms, &n));
  if (out) {
    char v[DG_KERNEL_CONFIG_TEXT];
    dg_kernel_config_describe(dg_solver_kernels_smooth(s), v, sizeof v);
    fprintf(out, "first-order twin (the file without its viscosity terms): RHS %.4f ms, "
                 "variant: %s\n", *twin_ms, v);
  }
  return DG_OK;
}

dg_error dg_rhsbench_shock(dg_solver *s, const dg_discretization *disc, dg_problem *p,
                           const dg_physics *ph, const dg_autotune_request *tune, int repeats,
                           double rhs_ms, FILE *out, double *ratio) {
  if (repeats < 1)
    repeats = 1;
  if (repeats > MAXR)
    repeats = MAXR;
  dg_shock *sh = NULL;
  double ms[DG_SHOCK_NKERNELS], stage_ms = 0, twin_ms = 0;
  long long ntwin = 0;
  dg_error err = DG_OK;
  DG_CALL_GOTO(err, done, dg_shock_create_for(s, disc, p->program, ph, &p->shock,
                                              p->precision == DG_FLOAT, &sh));
  DG_CALL_GOTO(err, done, time_kernels(sh, s, repeats, ms));
  dg_shock *owned = sh; /* the solver owns it from here on */
  dg_solver_set_shock(s, owned);
  sh = NULL;
  if (out)
    print_rows(out, p, owned, ms, rhs_ms);
  DG_CALL_GOTO(err, done, twin_rhs(owned, s, tune, repeats, out, &twin_ms));
  DG_CALL_GOTO(err, done, time_runs(owned, s, 0, repeats, &stage_ms, &ntwin));
  *ratio = rhs_ms > 0 ? stage_ms / rhs_ms : 0;
  if (out) {
    fprintf(out, "stage with shock capturing, end to end: %.4f ms (%s: the first-order twin "
                 "ran in %lld of %d stages), without [shock] %.4f ms: %.3fx",
            stage_ms, ntwin == repeats ? "smooth" : ntwin ? "mixed" : "viscous", ntwin, repeats,
            rhs_ms, *ratio);
    if (twin_ms > 0)
      fprintf(out, "; over the first-order RHS %.3fx (issue 41's target for a smooth flow: "
                   "at most 1.3x)", stage_ms / twin_ms);
    fprintf(out, "\n\n");
  }
done:
  dg_shock_destroy(&sh);
  return err;
}
