/* The progress line on stderr: rewritten in place on a terminal at most
 * every 0.2 s, one line every 5 s otherwise, and a final one after the
 * last step. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "problems/driver/observer.h"
#include "problems/driver/run_state.h"

typedef struct progress_ctx {
  int tty;
  int printed;       /* a line since the loop started */
  double last_print; /* wall clock of the last line */
} progress_ctx;

static void print_line(const dg_run_now *now, int tty, double elapsed, double dofs_per_s,
                       int final) {
  if (now->opt->quiet)
    return;
  int64_t step = now->step, nsteps = now->total;
  double eta = step > 0 ? elapsed / (double)step * (double)(nsteps - step) : 0;
  char line[256], rejected[48] = "";
  const dg_problem *p = now->run->prob;
  /* adaptive steps: the rejected ones too (the step count is the accepted) */
  if (p->adaptive)
    snprintf(rejected, sizeof rejected, " (%lld rejected)",
             (long long)now->run->rk_ctrl.rejected);
  /* with dt from the computed wave speed the total is an estimate (~) at
   * the last dt update; with adaptive steps at the controller's next dt */
  snprintf(line, sizeof line,
           "step %lld%s/%s%lld  t = %.6g  dt = %.3g  wall %.1f s  ETA %.1f s  %.3g "
           "DOF-updates/s",
           (long long)step, rejected, (p->speed_computed || p->adaptive) && !final ? "~" : "",
           (long long)(final ? step : nsteps), now->t, now->dt, elapsed, eta, dofs_per_s);
  if (tty) {
    fprintf(stderr, "\r%-110s", line);
    if (final)
      fputc('\n', stderr);
  } else {
    fprintf(stderr, "dgrun: %s\n", line);
  }
  fflush(stderr);
}

static dg_error notify(dg_observer *self, dg_observe_event ev, const dg_run_now *now) {
  progress_ctx *c = self->ctx;
  dg_run_state *r = now->run;
  if (ev == DG_OBSERVE_END) {
    print_line(now, c->tty, now->res->wall_seconds, now->res->dof_updates_per_second, 1);
    return DG_OK;
  }
  double nowt = dg_run_now_seconds(), last = c->printed ? c->last_print : now->loop_start;
  if (nowt - last > (c->tty ? 0.2 : 5.0)) {
    double dofs = (double)r->ncomp * (double)r->par->K_global * r->disc->Np;
    int64_t rhs = dg_solver_get_timings(r->solver).rhs_evaluations - now->rhs_at_start;
    print_line(now, c->tty, nowt - now->loop_start,
               dofs * (double)rhs / (nowt - now->loop_start), 0);
    c->last_print = nowt;
    c->printed = 1;
  }
  return DG_OK;
}

dg_error dg_observe_progress_create(dg_run_state *r, const dg_run_options *opt,
                                    dg_observer *o) {
  (void)r;
  (void)opt;
  progress_ctx *c = calloc(1, sizeof *c);
  DG_CHECK(c, DG_ERR_MEMORY, "out of memory");
  c->tty = isatty(STDERR_FILENO);
  o->name = "progress";
  o->trigger.every_steps = 1;
  o->trigger.at_end = 1;
  o->ctx = c;
  o->notify = notify;
  return DG_OK;
}
