/* SIGINT/SIGTERM (problems/driver/signals.h): polled after every step;
 * when one arrived (on any rank: every rank stops at the same step, the
 * checkpoint is collective), checkpoint the state at the end of the step
 * just taken and stop with DG_ERR_INTERRUPTED. */
#include <stdlib.h>

#include "core/comm.h"
#include "core/fsutil.h"
#include "problems/driver/observer.h"
#include "problems/driver/run_state.h"
#include "problems/driver/signals.h"

static dg_error stop_on_signal(const dg_run_now *now, int sig) {
  dg_run_state *r = now->run;
  now->res->interrupted_by = sig;
  DG_CALL(dg_solver_get_state(r->solver, r->u));
  DG_CALL(dg_observe_check_finite(r, now->t, now->step));
  /* (a run without output or checkpoints has not created the directory;
   * every rank tries, and all stop together when it cannot be made) */
  DG_CALL(dg_parallel_agree(r->par->comm, dg_fsutil_mkdir_p(r->prob->output_dir, 0755)));
  DG_CALL(dg_observe_write_checkpoint(r, now->t, now->dt, now->step));
  char *path = dg_observe_checkpoint_path(r, now->step);
  DG_CHECK(path, DG_ERR_MEMORY, "out of memory");
  dg_error e = dg_error_raise(DG_ERR_INTERRUPTED, __FILE__, __LINE__, __func__,
                              "%s: stopped at t = %.9g (step %lld) after writing checkpoint %s; "
                              "continue with: dgrun --restart %s",
                              dg_signals_name(sig), now->t, (long long)now->step, path, path);
  free(path);
  return e;
}

static dg_error notify(dg_observer *self, dg_observe_event ev, const dg_run_now *now) {
  (void)self;
  (void)ev;
  dg_run_state *r = now->run;
  dg_signals_test_raise(r->par->rank, now->step); /* test hook: signals.h */
  int sig = dg_signals_pending();
  if (r->par->size > 1) {
    double v = sig;
    DG_CALL(dg_comm_allreduce_max(r->par->comm, &v, 1));
    sig = (int)v;
  }
  if (sig)
    DG_CALL(stop_on_signal(now, sig));
  return DG_OK;
}

dg_error dg_observe_signal_create(dg_run_state *r, const dg_run_options *opt, dg_observer *o) {
  (void)r;
  (void)opt;
  o->name = "signal";
  o->trigger.every_steps = 1;
  o->notify = notify;
  return DG_OK;
}
