/* The state stays finite: decided on the device every [backend]
 * nan_check_steps steps (the state comes down only to say where), and on
 * the host copy at every landing time (before any output is written from
 * it).  A non-finite state stops the run naming field, element and time;
 * the last good snapshot is kept. */
#include <math.h>

#include "problems/driver/observer.h"
#include "problems/driver/run_state.h"

/* The element named is the mesh's (a partitioned run's local numbers mean
 * nothing to the user): of the first component that is not finite, its
 * first element in mesh order, as a serial run names it. */
static dg_error check_finite_local(dg_run_state *r, double t, int64_t step) {
  const dg_discretization *d = r->disc;
  const int64_t *gk = r->par->gk; /* NULL: local numbers are the mesh's */
  int64_t KN = d->K * d->Np, n = (int64_t)r->ncomp * KN, bad = -1;
  for (int64_t z = 0; z < n; z++) {
    if (isfinite(r->u[z]))
      continue;
    if (bad < 0) {
      bad = z;
      if (!gk)
        break;
    } else if (z / KN > bad / KN) {
      break;
    } else if (gk[(z / d->Np) % d->K] < gk[(bad / d->Np) % d->K]) {
      bad = z; /* (the first node of that element: nodes are scanned in order) */
    }
  }
  if (bad < 0)
    return DG_OK;
  int c = (int)(bad / KN);
  int64_t k = (bad / d->Np) % d->K;
  DG_RAISE(DG_ERR_NUMERIC,
           "the solution is not finite (%g) in %s at element %lld (node %lld) at "
           "t = %.9g (step %lld): the run is unstable (reduce [time] cfl or dt, or "
           "check the fluxes); the last good snapshot is kept",
           r->u[bad], r->comp_names[c], (long long)(gk ? gk[k] : k), (long long)(bad % d->Np),
           t, (long long)step);
}

dg_error dg_observe_check_finite(dg_run_state *r, double t, int64_t step) {
  dg_error err = check_finite_local(r, t, step);
  DG_CALL(dg_parallel_agree(r->par->comm, err)); /* (one rank: err itself) */
  return DG_OK;
}

static dg_error notify(dg_observer *self, dg_observe_event ev, const dg_run_now *now) {
  (void)self;
  dg_run_state *r = now->run;
  if (ev == DG_OBSERVE_TIME) {
    DG_CALL(dg_observe_check_finite(r, now->t, now->step));
    return DG_OK;
  }
  /* Every rank learns of a non-finite state on any rank: the rank that
   * found it would otherwise wait in check_finite's agreement while the
   * others wait for its halo faces in the next step. */
  int finite = 1;
  DG_CALL(dg_solver_state_finite(r->solver, &finite));
  double bad = !finite;
  DG_CALL(dg_parallel_max(r->par, &bad, 1));
  if (bad != 0) {
    DG_CALL(dg_solver_get_state(r->solver, r->u));
    DG_CALL(dg_observe_check_finite(r, now->t, now->step));
  }
  return DG_OK;
}

dg_error dg_observe_nancheck_create(dg_run_state *r, const dg_run_options *opt,
                                    dg_observer *o) {
  (void)opt;
  o->name = "nancheck";
  o->trigger.every_steps = r->prob->nan_check_steps;
  o->trigger.at_every_landing = 1;
  o->notify = notify;
  return DG_OK;
}
