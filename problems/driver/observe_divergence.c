/* The run stops when its state diverges while staying finite (an unstable
 * time step grows the state geometrically long before it overflows to the
 * NaN/Inf that observe_nancheck.c catches).
 *
 * The norm is the max norm |u|max over all fields and nodes of the owned
 * elements, reduced on the device (a max reduction propagates NaN) and
 * then over the ranks, so every rank decides alike and all stop together.
 * It is sampled every k = ceil(W / 2) steps (W = [time] divergence_window;
 * each sample is a reduction and a wait for the device: every W / 10
 * steps cost 3.5 % of Euler 3D's step rate on the H200, tuning/RESULTS.md)
 * and, on the host copy, at every landing time before any output is
 * written from it.  The run has diverged at step n when
 *     |u|max(n) > F * max(|u|max(start), |u|max(m))
 * with F = [time] divergence_factor and m the oldest sample at most W
 * steps before n: the state grew by more than F within W steps and is more
 * than F times its start.  An energy-stable DG discretization of a
 * conservation law keeps |u|max within a modest constant of its start, so
 * F = 1e3 is far beyond any physical transient yet caught while an unstable
 * mode (growing from round-off at a fixed factor per step) is still 1e305
 * away from overflow; the window lets a forced problem grow slowly (by less
 * than F per W steps) without a stop.  A state that is zero at the start is
 * judged against the window alone.  Restarted runs judge against the state
 * they restart from.  A non-finite norm is the NaN check's to report (with
 * field and element). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/reduction.h"
#include "problems/driver/observer.h"
#include "problems/driver/run_state.h"

enum { NSAMPLE = 12 }; /* >= W / k + 1 samples fall in one window */

typedef struct divergence {
  dg_reduction *maxabs; /* created at the first sample (after the solver's kernels) */
  double factor;
  int64_t window;
  double start;                 /* |u|max where the run started */
  double norm[NSAMPLE];         /* the samples in the window, oldest first */
  int64_t step[NSAMPLE];
  int n;
} divergence;

/* |u|max of the device state over this rank's owned elements, all ranks
 * combined.  Element e's node p of component c lies at c*cs + e*ks + p
 * (field- or element-major, dg/opdata.h); padding nodes are left out. */
static dg_error device_norm(dg_run_state *r, divergence *dv, double *norm) {
  const dg_opdata *od = dg_solver_opdata(r->solver);
  int single = r->prob->precision == DG_FLOAT;
  if (!dv->maxabs)
    DG_CALL(dg_reduction_create(dg_solver_device(r->solver),
                                single ? "state_maxabs_float" : "state_maxabs_double",
                                single ? "const float *x, int64_t kn, int64_t np, int64_t cs, "
                                         "int64_t ks"
                                       : "const double *x, int64_t kn, int64_t np, int64_t cs, "
                                         "int64_t ks",
                                "fabs((double)x[(i / kn) * cs + (i % kn) / np * ks + i % np])",
                                DG_REDUCE_MAX, 0.0, &dv->maxabs));
  int64_t kn = od->K_owned * od->Np, n = (int64_t)od->ncomp * kn;
  int64_t cs = od->element_major ? od->np_pad : od->K * od->np_pad;
  int64_t ks = od->element_major ? (int64_t)od->ncomp * od->np_pad : od->np_pad;
  *norm = 0;
  if (n > 0)
    DG_CALL(dg_reduction_call(dv->maxabs, n,
                              (dg_arg[]){DG_ARG_POINTER(dg_solver_device_state(r->solver)),
                                         DG_ARG_INT(kn), DG_ARG_INT(od->Np), DG_ARG_INT(cs),
                                         DG_ARG_INT(ks)},
                              norm));
  DG_CALL(dg_parallel_max(r->par, norm, 1));
  return DG_OK;
}

/* The same norm of the host copy (at a landing time). */
static dg_error host_norm(dg_run_state *r, double *norm) {
  int64_t n = (int64_t)r->ncomp * r->disc->K * r->disc->Np;
  double m = 0;
  for (int64_t z = 0; z < n; z++)
    m = isnan(r->u[z]) || fabs(r->u[z]) > m ? fabs(r->u[z]) : m;
  *norm = m;
  DG_CALL(dg_parallel_max(r->par, norm, 1));
  return DG_OK;
}

/* Judge the norm of step against the window, then keep it as a sample. */
static dg_error judge(dg_run_state *r, divergence *dv, double norm, double t, int64_t step) {
  if (!isfinite(norm)) { /* the NaN check names field and element */
    DG_CALL(dg_solver_get_state(r->solver, r->u));
    DG_CALL(dg_observe_check_finite(r, t, step));
    return DG_OK;
  }
  int drop = 0;
  while (drop < dv->n && dv->step[drop] < step - dv->window)
    drop++;
  dv->n -= drop;
  memmove(dv->norm, dv->norm + drop, sizeof(double) * (size_t)dv->n);
  memmove(dv->step, dv->step + drop, sizeof(int64_t) * (size_t)dv->n);
  double ref = dv->start;
  int64_t ref_step = -1;
  if (dv->n > 0 && dv->norm[0] > ref) {
    ref = dv->norm[0];
    ref_step = dv->step[0];
  }
  if (ref > 0 && norm > dv->factor * ref) {
    char from[96];
    if (ref_step < 0)
      snprintf(from, sizeof from, "its value where the run started");
    else
      snprintf(from, sizeof from, "its value %lld steps earlier (step %lld)",
               (long long)(step - ref_step), (long long)ref_step);
    DG_RAISE(DG_ERR_NUMERIC,
             "the solution diverges: its max norm grew to %.3g at t = %.9g (step %lld), "
             "%.3g times %s (%.3g), more than [time] divergence_factor = %g within [time] "
             "divergence_window = %lld steps: the time step is too large for the scheme "
             "(reduce [time] cfl or dt) or the fluxes are unstable; the last good snapshot "
             "is kept",
             norm, t, (long long)step, norm / ref, from, ref, dv->factor,
             (long long)dv->window);
  }
  if (dv->n == NSAMPLE) { /* (only when a landing time adds samples: drop the oldest) */
    dv->n--;
    memmove(dv->norm, dv->norm + 1, sizeof(double) * (size_t)dv->n);
    memmove(dv->step, dv->step + 1, sizeof(int64_t) * (size_t)dv->n);
  }
  dv->norm[dv->n] = norm;
  dv->step[dv->n++] = step;
  return DG_OK;
}

static dg_error notify(dg_observer *self, dg_observe_event ev, const dg_run_now *now) {
  divergence *dv = self->ctx;
  dg_run_state *r = now->run;
  double norm = 0;
  if (ev == DG_OBSERVE_TIME)
    DG_CALL(host_norm(r, &norm));
  else
    DG_CALL(device_norm(r, dv, &norm));
  if (ev == DG_OBSERVE_START) {
    dv->start = isfinite(norm) ? norm : 0; /* (a non-finite start is the NaN check's) */
    return DG_OK;
  }
  /* (every rank judges the same norm alike; rank 0 reports once) */
  DG_CALL(dg_parallel_agree(r->par->comm, judge(r, dv, norm, now->t, now->step)));
  return DG_OK;
}

static void destroy(dg_observer *self) {
  divergence *dv = self->ctx;
  dg_reduction_destroy(&dv->maxabs);
}

dg_error dg_observe_divergence_create(dg_run_state *r, const dg_run_options *opt,
                                      dg_observer *o) {
  (void)opt;
  const dg_problem *p = r->prob;
  if (p->divergence_factor <= 0 || p->divergence_window <= 0)
    return DG_OK; /* off */
  divergence *dv = calloc(1, sizeof *dv);
  DG_CHECK(dv, DG_ERR_MEMORY, "out of memory");
  dv->factor = p->divergence_factor;
  dv->window = p->divergence_window;
  o->name = "divergence";
  o->ctx = dv;
  o->destroy = destroy;
  o->trigger.every_steps = (p->divergence_window + 1) / 2;
  o->trigger.at_every_landing = 1;
  o->trigger.at_start = 1;
  o->notify = notify;
  return DG_OK;
}
