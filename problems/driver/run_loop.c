/* The time loop of dg_run: step the solver from landing time to landing
 * time and notify the observers (observer.h).  The landing times are the
 * multiples of the observers' every_dt and the final time; between two of
 * them the steps are equal (dg_rk_plan_steps), so that every output time is
 * hit exactly. */
#include <math.h>
#include <stdlib.h>

#include "core/comm.h"
#include "core/log.h"
#include "core/timing.h"
#include "dg/timestep.h"
#include "problems/driver/observer.h"
#include "problems/driver/run_loop_adaptive.h"
#include "problems/driver/run_loop_speed.h"
#include "problems/driver/run_state.h"

/* The observers of a run, in the order they are notified.  A new per-step
 * output is one more line here (and its observe_<what>.c). */
static const dg_observer_create_fn registry[] = {
    dg_observe_history_create,  /* the CSV history (first: its row of the step a signal
                                   stops at is written before the checkpoint) */
    dg_observe_signal_create,   /* SIGINT/SIGTERM: checkpoint and stop */
    dg_observe_nancheck_create, /* the state is finite */
    dg_observe_divergence_create, /* the state does not grow without bound */
    dg_observe_snapshot_create, /* HDF5/XDMF snapshots at the output times */
    dg_observe_norms_create,    /* error norms against the exact solution */
    dg_observe_progress_create, /* the progress line */
    dg_observe_checkpoint_create, /* periodic and final checkpoints */
};
enum { NOBS = sizeof registry / sizeof registry[0] };

typedef struct observers {
  dg_observer o[NOBS];
  int n;
} observers;

static void observers_free(observers *obs) {
  for (int i = 0; i < obs->n; i++) {
    if (obs->o[i].destroy)
      obs->o[i].destroy(&obs->o[i]);
    free(obs->o[i].ctx);
  }
  obs->n = 0;
}

static dg_error observers_create(dg_run_state *r, const dg_run_options *opt, observers *obs) {
  obs->n = 0;
  for (int i = 0; i < NOBS; i++) {
    dg_observer o = {0};
    DG_CALL(registry[i](r, opt, &o));
    if (o.notify)
      obs->o[obs->n++] = o;
  }
  return DG_OK;
}

int dg_observe_is_multiple(double t, double iv) {
  if (iv <= 0)
    return 0;
  double m = t / iv;
  return fabs(m - round(m)) < 1e-9 && round(m) >= 1;
}

/* Notify the observers whose trigger asks for ev at now. */
static dg_error notify(observers *obs, dg_observe_event ev, const dg_run_now *now) {
  for (int i = 0; i < obs->n; i++) {
    dg_observer *o = &obs->o[i];
    const dg_observer_trigger *tr = &o->trigger;
    int want = 0;
    if (ev == DG_OBSERVE_START)
      want = tr->at_start;
    else if (ev == DG_OBSERVE_END)
      want = tr->at_end;
    else if (ev == DG_OBSERVE_STEP)
      want = tr->every_steps > 0 && now->step % tr->every_steps == 0;
    else if (now->final)
      want = tr->at_final_time || tr->at_every_landing;
    else
      want = tr->at_every_landing || dg_observe_is_multiple(now->t, tr->every_dt);
    if (want)
      DG_CALL(o->notify(o, ev, now));
  }
  return DG_OK;
}

typedef struct landing_ctx {
  const observers *obs;
  double t_final;
} landing_ctx;

/* The next time after t the loop must land on exactly: the next multiple
 * of an observer's every_dt, or the final time. */
static double landing(void *ctx, double t) {
  const landing_ctx *lc = ctx;
  double stop = lc->t_final;
  for (int j = 0; j < lc->obs->n; j++) {
    double iv = lc->obs->o[j].trigger.every_dt;
    if (iv <= 0)
      continue;
    double m = floor(t / iv * (1 + 1e-12)) + 1;
    double cand = m * iv;
    if (cand < stop && cand > t * (1 + 1e-12))
      stop = cand;
  }
  return stop;
}

static int before_end(double t, double t_final) { return t < t_final * (1 - 1e-14); }

/* The total number of steps from where the run starts to the end, for the
 * progress line; more than [time] max_steps is an error. */
static dg_error count_steps(const dg_problem *p, landing_ctx *lc, const dg_run_resume *at,
                            double dt_max, int64_t *total) {
  *total = at->step;
  double t = at->t;
  if (at->in_segment) {
    *total += at->seg_n - at->seg_s;
    t = at->seg_stop;
  }
  while (before_end(t, p->t_final)) {
    double stop = landing(lc, t);
    int64_t n;
    double dt;
    DG_CALL(dg_rk_plan_steps(t, stop, dt_max, p->max_steps, &n, &dt));
    *total += n;
    t = stop;
    DG_CHECK(p->max_steps <= 0 || *total <= p->max_steps, DG_ERR_INPUT,
             "reaching t = %g needs more than [time] max_steps = %lld steps", p->t_final,
             (long long)p->max_steps);
  }
  return DG_OK;
}

/* The final state of all elements for the caller (rank 0). */
static dg_error final_state(dg_run_state *r, dg_run_result *res) {
  int64_t n = (int64_t)r->ncomp * r->par->K_global * r->disc->Np;
  double *u = NULL;
  if (r->par->rank == 0) {
    u = malloc(sizeof(double) * (size_t)(n + 1));
    DG_CHECK(u, DG_ERR_MEMORY, "out of memory");
  }
  dg_error err = dg_parallel_gather(r->par, r->ncomp, r->disc->Np, r->u, u);
  if (err != DG_OK) {
    free(u);
    DG_CALL(err);
  }
  res->state = u;
  res->state_length = u ? n : 0;
  return DG_OK;
}

static dg_error largest_dt(const dg_run_state *r, double *dt_max) {
  const dg_problem *p = r->prob;
  if (p->dt_fixed > 0) {
    *dt_max = p->dt_fixed;
    return DG_OK;
  }
  double h_min = r->disc->h_min;
  DG_CALL(dg_parallel_min(r->par, &h_min, 1));
  double nu = dg_run_diffusivity(r, h_min);
  DG_CALL(dg_parallel_agree(r->par->comm,
                            dg_rk_cfl_dt_diffusive(p->cfl, h_min, p->wave_speed, nu,
                                                   r->disc->N, dt_max)));
  return DG_OK;
}

/* The state at the start: the initial condition, evaluated on the device
 * by a generated kernel (time to first step), or the checkpoint.  The host
 * copy serves the observers at t = 0 and otherwise comes down only when
 * the device finds the state not finite. */
static dg_error start_state(const dg_run_options *opt, dg_run_state *r, const dg_run_resume *at) {
  const dg_problem *p = r->prob;
  int host_state = opt->restart || (p->output_enabled && p->output_interval > 0);
  int ph = dg_timing_begin("initial condition");
  if (!opt->restart) {
    DG_CALL(dg_solver_set_initial(r->solver, at->t));
    int finite = 1;
    if (!host_state)
      DG_CALL(dg_solver_state_finite(r->solver, &finite));
    if (host_state || !finite)
      DG_CALL(dg_solver_get_state(r->solver, r->u));
    host_state |= !finite;
  }
  if (host_state || r->par->size > 1) /* (under MPI every rank takes part) */
    DG_CALL(dg_observe_check_finite(r, at->t, at->step));
  dg_timing_end(ph);
  if (opt->restart)
    DG_CALL(dg_solver_set_state(r->solver, r->u));
  return DG_OK;
}

/* After a step to t_after: the count, the time to first step, the
 * observers of steps. */
static dg_error step_done(observers *obs, dg_run_now *now, double t_after, int ph_first,
                          int *first_pending) {
  dg_run_state *r = now->run;
  now->step++;
  if (*first_pending) { /* time to first step: set-up + one step */
    *first_pending = 0;
    DG_CALL(dg_device_synchronize(r->dev));
    dg_timing_end(ph_first);
    if (!now->opt->quiet)
      dg_info("first step done %.2f s after start", dg_run_now_seconds() - r->t_entry);
  }
  now->t = t_after;
  DG_CALL(notify(obs, DG_OBSERVE_STEP, now));
  return DG_OK;
}

/* One step of the time loop and its observers, time after it t_after. */
static dg_error one_step(observers *obs, dg_run_now *now, double t_after, int ph_first,
                         int *first_pending) {
  dg_run_state *r = now->run;
  DG_CALL(dg_parallel_test_fault(r->par, now->step));
  DG_CALL(dg_solver_step(r->solver, &r->prob->scheme, now->t, now->dt));
  if (r->filter) /* after the whole step: H&W 2008 sec. 5.3 */
    DG_CALL(dg_state_filter_apply(r->filter));
  DG_CALL(step_done(obs, now, t_after, ph_first, first_pending));
  return DG_OK;
}

/* Adaptive steps (run_loop_adaptive.c) from landing time to landing time. */
static dg_error loop_adaptive(observers *obs, dg_run_now *now, const dg_run_resume *at,
                              double dt_cfl) {
  dg_run_state *r = now->run;
  const dg_problem *p = r->prob;
  landing_ctx lc = {obs, p->t_final};
  int ph_first = dg_timing_begin("first step");
  int first_pending = 1;
  DG_CALL(dg_run_adaptive_start(r, now->opt->restart ? at : NULL, dt_cfl, now->t, now->step));
  while (before_end(now->t, p->t_final)) {
    double stop = landing(&lc, now->t);
    for (int lands = 0; !lands;) {
      DG_CALL(dg_parallel_test_fault(r->par, now->step));
      double t_before = now->t;
      DG_CALL(dg_run_adaptive_step(r, now, stop, &lands));
      double t_after = now->t;
      now->t = t_before; /* (step_done sets it, as for the equal steps) */
      now->total = dg_run_adaptive_estimate(r, now) + 1;
      DG_CALL(step_done(obs, now, t_after, ph_first, &first_pending));
    }
    DG_CALL(dg_solver_get_state(r->solver, r->u));
    now->final = !before_end(now->t, p->t_final);
    DG_CALL(notify(obs, DG_OBSERVE_TIME, now));
  }
  return DG_OK;
}

/* One segment: n equal steps of dt from t0 to stop, starting at step s0
 * of it (not 0 only in the first segment of a restart). */
static dg_error segment(observers *obs, dg_run_now *now, double t0, double stop, int64_t n,
                        int64_t s0, int ph_first, int *first_pending) {
  for (int64_t s = s0; s < n; s++)
    DG_CALL(one_step(obs, now, s + 1 == n ? stop : t0 + (double)(s + 1) * now->dt, ph_first,
                     first_pending));
  return DG_OK;
}

/* A segment to stop with dt from the computed wave speed
 * (run_loop_speed.c): a new rate at its start (unless it continues a
 * restart's segment: left > 0 steps of now->dt) and every dt_interval
 * steps, the rest re-planned in equal steps; t summed step by step. */
static dg_error segment_speed(observers *obs, dg_run_now *now, double stop, int64_t left,
                              int ph_first, int *first_pending) {
  dg_run_state *r = now->run;
  const dg_problem *p = r->prob;
  for (;;) {
    if (left == 0 || now->step % p->dt_interval == 0) {
      double dt_max;
      DG_CALL(dg_run_speed_dt(r, now->t, now->step, &dt_max));
      DG_CALL(dg_rk_plan_steps(now->t, stop, dt_max, 0, &left, &now->dt));
      now->total = dg_run_speed_estimate(now->step, stop, left, p->t_final, dt_max);
    }
    DG_CHECK(p->max_steps <= 0 || now->step < p->max_steps, DG_ERR_INPUT,
             "t = %.9g: reaching t = %g needs more than [time] max_steps = %lld steps "
             "(dt %.3g from the wave speed)",
             now->t, p->t_final, (long long)p->max_steps, now->dt);
    left--;
    DG_CALL(one_step(obs, now, left == 0 ? stop : now->t + now->dt, ph_first, first_pending));
    if (left == 0)
      return DG_OK;
  }
}

static dg_error loop_speed(observers *obs, dg_run_now *now, const dg_run_resume *at) {
  dg_run_state *r = now->run;
  const dg_problem *p = r->prob;
  landing_ctx lc = {obs, p->t_final};
  int ph_first = dg_timing_begin("first step");
  int first = 1, first_pending = 1;
  while (before_end(now->t, p->t_final)) {
    double stop = landing(&lc, now->t);
    int64_t left = 0;
    if (first && at->in_segment) { /* the rest of the segment the checkpoint lies in */
      stop = at->seg_stop;
      left = at->seg_n;
      now->dt = at->dt;
    }
    first = 0;
    DG_CALL(segment_speed(obs, now, stop, left, ph_first, &first_pending));
    DG_CALL(dg_solver_get_state(r->solver, r->u));
    now->final = !before_end(now->t, p->t_final);
    DG_CALL(notify(obs, DG_OBSERVE_TIME, now));
  }
  return DG_OK;
}

static dg_error loop(observers *obs, dg_run_now *now, const dg_run_resume *at,
                     double dt_max) {
  dg_run_state *r = now->run;
  const dg_problem *p = r->prob;
  if (p->adaptive)
    return loop_adaptive(obs, now, at, dt_max);
  if (p->speed_computed)
    return loop_speed(obs, now, at);
  landing_ctx lc = {obs, p->t_final};
  int ph_first = dg_timing_begin("first step");
  int first = 1, first_pending = 1;
  while (before_end(now->t, p->t_final)) {
    double t0 = now->t, stop;
    int64_t n, s0 = 0;
    if (first && at->in_segment) { /* the rest of the segment the checkpoint lies in */
      t0 = at->seg_t0;
      stop = at->seg_stop;
      n = at->seg_n;
      s0 = at->seg_s;
      now->dt = at->dt;
    } else {
      stop = landing(&lc, now->t);
      DG_CALL(dg_rk_plan_steps(now->t, stop, dt_max, 0, &n, &now->dt));
    }
    first = 0;
    DG_CALL(segment(obs, now, t0, stop, n, s0, ph_first, &first_pending));
    DG_CALL(dg_solver_get_state(r->solver, r->u));
    now->final = !before_end(now->t, p->t_final);
    DG_CALL(notify(obs, DG_OBSERVE_TIME, now));
  }
  return DG_OK;
}

/* What set-up plans before any kernel is generated (bad input must leave
 * no kernel-cache entry): the largest stable step, the observers and so
 * the landing times, a restart's checkpoint read into r->u and placed in
 * the step sequence, and the step count. */
struct dg_run_plan {
  observers obs;
  double dt_max;
  dg_run_resume at;
  int64_t total;
};

static dg_error plan(const dg_run_options *opt, dg_run_state *r, dg_run_plan *pl) {
  const dg_problem *p = r->prob;
  if (p->adaptive) { /* steps from the controller: no plan of them */
    if (p->speed_computed && p->dt_fixed == 0)
      DG_CALL(dg_problem_check_wave_speed(p));
    else
      DG_CALL(largest_dt(r, &pl->dt_max)); /* the first step */
    DG_CALL(observers_create(r, opt, &pl->obs));
    if (opt->restart)
      DG_CALL(dg_run_restart_read(opt, r, &pl->at));
    pl->total = pl->at.step;
    return DG_OK;
  }
  if (p->speed_computed) { /* dt from the state: known once the kernels exist */
    DG_CALL(dg_problem_check_wave_speed(p));
    DG_CALL(observers_create(r, opt, &pl->obs));
    landing_ctx lc = {&pl->obs, p->t_final};
    if (opt->restart) {
      DG_CALL(dg_run_restart_read(opt, r, &pl->at));
      dg_run_speed_place(landing, &lc, &pl->at);
    }
    pl->total = pl->at.step;
    return DG_OK;
  }
  DG_CALL(largest_dt(r, &pl->dt_max));
  DG_CALL(observers_create(r, opt, &pl->obs));
  landing_ctx lc = {&pl->obs, p->t_final};
  if (opt->restart) {
    DG_CALL(dg_run_restart_read(opt, r, &pl->at));
    DG_CALL(dg_run_restart_place(landing, &lc, p->t_final, pl->dt_max, &pl->at));
  }
  /* (the same on every rank: agreed, so that all stop with one report) */
  DG_CALL(dg_parallel_agree(r->par->comm, count_steps(p, &lc, &pl->at, pl->dt_max, &pl->total)));
  return DG_OK;
}

dg_error dg_run_plan_create(const dg_run_options *opt, dg_run_state *r) {
  dg_run_plan *pl = calloc(1, sizeof *pl);
  DG_CHECK(pl, DG_ERR_MEMORY, "out of memory");
  r->plan = pl;
  DG_CALL(plan(opt, r, pl));
  return DG_OK;
}

void dg_run_plan_destroy(dg_run_plan **pl) {
  if (!*pl)
    return;
  observers_free(&(*pl)->obs);
  free(*pl);
  *pl = NULL;
}

static dg_error run_observed(const dg_run_options *opt, dg_run_state *r, dg_run_result *res,
                             dg_run_plan *pl) {
  observers *obs = &pl->obs;
  double dt_max = pl->dt_max;
  const dg_run_resume at = pl->at;
  DG_CALL(start_state(opt, r, &at));
  /* (with the computed wave speed: the checkpoint's dt_max bounds the first
     update's growth, as the continued run's last update does) */
  r->speed_dt_max = at.dt_max;
  dg_run_now now = {.run = r, .opt = opt, .res = res, .t = at.t,
                    .dt = r->prob->speed_computed || r->prob->adaptive ? at.dt : dt_max,
                    .step = at.step};
  DG_CALL(notify(obs, DG_OBSERVE_START, &now));
  now.total = pl->total;
  now.loop_start = dg_run_now_seconds();
  now.steps_at_start = now.step;
  now.rhs_at_start = dg_solver_get_timings(r->solver).rhs_evaluations;
  DG_CALL(loop(obs, &now, &at, dt_max));
  double wall = dg_run_now_seconds() - now.loop_start;
  dg_solver_timings tm = dg_solver_get_timings(r->solver);
  double dofs = (double)r->ncomp * (double)r->par->K_global * r->disc->Np;
  res->steps = now.step;
  res->rejected_steps = r->rk_ctrl.rejected;
  res->dt_last = now.dt;
  res->t_final = now.t;
  res->wall_seconds = wall;
  res->dof_updates_per_second =
      wall > 0 ? dofs * (double)(tm.rhs_evaluations - now.rhs_at_start) / wall : 0;
  res->halo_wait_seconds = tm.halo.wait_seconds;
  res->halo_exchanges = tm.halo.exchanges;
  now.final = 1;
  DG_CALL(notify(obs, DG_OBSERVE_END, &now));
  if (opt->want_state)
    DG_CALL(final_state(r, res));
  return DG_OK;
}

dg_error dg_run_loop(const dg_run_options *opt, dg_run_state *r, dg_run_result *res) {
  DG_CHECK(r->plan, DG_ERR_INTERNAL, "the run was not planned (dg_run_plan_create)");
  DG_CALL(run_observed(opt, r, res, r->plan));
  return DG_OK;
}
