/* What happens during a run besides the time step (output, checkpoints,
 * NaN checks, progress, norms, the signal check) is a list of observers:
 * small objects with a trigger that the time loop (run_loop.c) notifies.
 * The model is PyFR's plugins (pyfr/plugins/) and Trixi.jl's callbacks
 * (SaveSolutionCallback, AnalysisCallback, ...).
 *
 * A new per-step output is a new file observe_<what>.c with a create
 * function filling a dg_observer, plus one line in the registry of
 * run_loop.c.  The order of the registry is the order of notification.
 *
 * Events:
 *  - DG_OBSERVE_START: before the first step (the state of t = 0 or of the
 *    checkpoint is on the host, in run->u, when the run needs it there);
 *  - DG_OBSERVE_STEP: after every trigger.every_steps-th step (the state
 *    is on the device only);
 *  - DG_OBSERVE_TIME: at a landing time of the loop the trigger asks for
 *    (the state is on the host, run->u);
 *  - DG_OBSERVE_END: after the last step (the final wall time and rate are
 *    in the result).
 * A notify returning an error stops the run with it (DG_ERR_INTERRUPTED:
 * the signal observer's checkpoint-and-stop). */
#ifndef DG_PROBLEMS_OBSERVER_H
#define DG_PROBLEMS_OBSERVER_H

#include <stdint.h>

#include "core/error.h"
#include "problems/driver/run.h"

typedef struct dg_run_state dg_run_state;

typedef enum {
  DG_OBSERVE_START,
  DG_OBSERVE_STEP,
  DG_OBSERVE_TIME,
  DG_OBSERVE_END
} dg_observe_event;

typedef struct dg_observer_trigger {
  int64_t every_steps; /* STEP after every n-th step (counted from step 0); 0: never */
  /* TIME at every positive multiple of every_dt in simulated time; the
   * loop lands on each exactly (the steps between two landing times are
   * equal); 0: none */
  double every_dt;
  int at_every_landing; /* TIME at every landing time (any observer's, the final time) */
  int at_final_time;    /* TIME at the final time, a multiple of every_dt or not */
  int at_start, at_end; /* START, END */
} dg_observer_trigger;

/* The loop as observers see it when notified. */
typedef struct dg_run_now {
  dg_run_state *run;
  const dg_run_options *opt;
  dg_run_result *res;
  double t, dt;       /* time after the step; its step size */
  int64_t step;       /* steps taken since t = 0 */
  int64_t total;      /* steps the run takes in all (for the progress line) */
  int final;          /* t is the final time */
  double loop_start;  /* wall clock at the first step of this process */
  int64_t steps_at_start, rhs_at_start; /* counters then */
} dg_run_now;

typedef struct dg_observer dg_observer;
struct dg_observer {
  const char *name;
  dg_observer_trigger trigger;
  dg_error (*notify)(dg_observer *self, dg_observe_event ev, const dg_run_now *now);
  void *ctx;                   /* the observer's own (freed with free) */
  void (*destroy)(dg_observer *self); /* what ctx holds besides itself (NULL: nothing) */
};

/* An observer's constructor: fills *obs, or leaves obs->notify NULL when
 * the run does not need it (e.g. no checkpoints asked for). */
typedef dg_error (*dg_observer_create_fn)(dg_run_state *r, const dg_run_options *opt,
                                          dg_observer *obs);

dg_error dg_observe_history_create(dg_run_state *r, const dg_run_options *opt, dg_observer *o);
dg_error dg_observe_signal_create(dg_run_state *r, const dg_run_options *opt, dg_observer *o);
dg_error dg_observe_nancheck_create(dg_run_state *r, const dg_run_options *opt, dg_observer *o);
dg_error dg_observe_divergence_create(dg_run_state *r, const dg_run_options *opt,
                                      dg_observer *o);
dg_error dg_observe_snapshot_create(dg_run_state *r, const dg_run_options *opt, dg_observer *o);
dg_error dg_observe_norms_create(dg_run_state *r, const dg_run_options *opt, dg_observer *o);
dg_error dg_observe_progress_create(dg_run_state *r, const dg_run_options *opt, dg_observer *o);
dg_error dg_observe_checkpoint_create(dg_run_state *r, const dg_run_options *opt,
                                      dg_observer *o);

/* What the observers share with each other and with the loop. */
/* 1 when t is a positive multiple of iv (to the loop's tolerance: a
 * landing time of every_dt = iv); 0 for iv <= 0. */
int dg_observe_is_multiple(double t, double iv);
/* NaN/Inf anywhere in the host state (every rank learns of it): the
 * error names field, element (the mesh's number) and time. */
dg_error dg_observe_check_finite(dg_run_state *r, double t, int64_t step);
/* Error norms per field against the exact solution at t, into res. */
dg_error dg_observe_error_norms(dg_run_state *r, double t, dg_run_result *res);
/* Print them (and the integrals of the flux file, as last computed), one
 * line per field with an exact solution, "<label> = t  ..."; then name the
 * fields without one. */
void dg_observe_norms_print(const dg_run_state *r, const char *label, double t,
                            const dg_run_result *res);
/* A checkpoint of the host state (collective). */
dg_error dg_observe_write_checkpoint(dg_run_state *r, double t, double dt, int64_t step);
/* DG_ERR_INPUT when the state has more components than a checkpoint holds. */
dg_error dg_observe_checkpoint_fields_check(const dg_run_state *r);
/* The path of the checkpoint of step (malloc'd; NULL: out of memory). */
char *dg_observe_checkpoint_path(const dg_run_state *r, int64_t step);

#endif
