/* Error norms against the exact solution of the flux file: computed for
 * every snapshot (they go into its file), printed at the output times,
 * and at the end into the run's result (the closing summary). */
#include <math.h>
#include <stdlib.h>

#include "core/log.h"
#include "operators/flux_eval.h"
#include "problems/driver/observer.h"
#include "problems/driver/run_state.h"

/* Node coordinates of (k, i) as a dim-vector. */
static void node_x(const dg_discretization *d, int64_t k, int i, double *x) {
  for (int a = 0; a < d->dim; a++)
    x[a] = d->X[a][k * d->Np + i];
}

/* Error norms per field against the exact solution at time t:
 * L2 = sqrt(sum_k J_k e_k^T M e_k) (the mass matrix of the reference
 * element, exact for the nodal interpolant of the error), max over nodes. */
dg_error dg_observe_error_norms(dg_run_state *r, double t, dg_run_result *res) {
  const dg_discretization *d = r->disc;
  const dg_flux_program *prog = r->prob->program;
  int nf = dg_flux_field_count(prog);
  res->have_norms = 1;
  for (int f = 0; f < nf; f++)
    if (!dg_flux_field(prog, f)->exact)
      res->have_norms = 0;
  if (!res->have_norms)
    return DG_OK;
  int Np = d->Np;
  double sums[DG_RUN_MAX_FIELDS] = {0};
  for (int f = 0; f < nf && f < DG_RUN_MAX_FIELDS; f++) {
    const dg_flux_field_info *fi = dg_flux_field(prog, f);
    int nc = fi->ncomp;
    double sum = 0, mx = 0;
    int nan_seen = 0, no_memory = 0;
    int64_t bad_k = -1;
    /* over the elements in parallel (a serial loop took 25 s after a 3-step
     * run on 257k N=3 tets); the exact solution once per node for all its
     * components */
#pragma omp parallel reduction(+ : sum) reduction(max : mx) reduction(| : nan_seen, no_memory)
    {
      double *e = malloc(sizeof(double) * (size_t)Np * (size_t)nc);
      no_memory |= e == NULL;
#pragma omp for schedule(static)
      for (int64_t k = 0; k < d->K; k++) {
        if (!e)
          continue;
        int failed = 0;
        for (int i = 0; i < Np && !failed; i++) {
          double x[3], ex[64];
          node_x(d, k, i, x);
          if (dg_flux_eval_exact(prog, f, x, t, ex) != DG_OK) {
            failed = 1;
            break;
          }
          for (int c = 0; c < nc; c++) {
            double v = r->u[((int64_t)(fi->offset + c) * d->K + k) * Np + i] - ex[c];
            e[c * Np + i] = v;
            nan_seen |= isnan(v);
            if (fabs(v) > mx)
              mx = fabs(v);
          }
        }
        if (failed) {
#pragma omp atomic write
          bad_k = k;
          continue;
        }
        for (int c = 0; c < nc; c++) {
          const double *ec = e + c * Np;
          double s = 0;
          for (int i = 0; i < Np; i++) {
            double mi = 0;
            for (int j = 0; j < Np; j++)
              mi += d->re->M[i * Np + j] * ec[j];
            s += ec[i] * mi;
          }
          sum += d->J[k * Np] * s;
        }
      }
      free(e);
    }
    DG_CHECK(!no_memory, DG_ERR_MEMORY, "out of memory");
    if (bad_k >= 0) { /* again on this thread, whose error stack is reported */
      for (int i = 0; i < Np; i++) {
        double x[3], ex[64];
        node_x(d, bad_k, i, x);
        DG_CALL(dg_flux_eval_exact(prog, f, x, t, ex));
      }
      DG_RAISE(DG_ERR_INTERNAL, "exact solution of '%s' failed on another thread only",
               fi->name);
    }
    sums[f] = sum;
    res->maxerr[f] = nan_seen ? NAN : mx;
  }
  /* Over all ranks (NaN kept: fmax would drop it, so it is flagged apart). */
  int nn = nf < DG_RUN_MAX_FIELDS ? nf : DG_RUN_MAX_FIELDS;
  double nan_flag = 0;
  for (int f = 0; f < nn; f++)
    if (isnan(res->maxerr[f]))
      nan_flag = 1;
  DG_CALL(dg_parallel_sum(r->par, sums, nn));
  DG_CALL(dg_parallel_max(r->par, res->maxerr, nn));
  DG_CALL(dg_parallel_max(r->par, &nan_flag, 1));
  for (int f = 0; f < nn; f++) {
    res->l2[f] = sqrt(sums[f]);
    if (nan_flag)
      res->maxerr[f] = NAN;
  }
  return DG_OK;
}

static dg_error notify(dg_observer *self, dg_observe_event ev, const dg_run_now *now) {
  (void)self;
  dg_run_state *r = now->run;
  const dg_problem *p = r->prob;
  dg_run_result *res = now->res;
  if (ev == DG_OBSERVE_END) {
    DG_CALL(dg_observe_error_norms(r, now->t, res));
    return DG_OK;
  }
  /* at an output time the snapshot observer has just computed them */
  if (p->output_enabled && res->have_norms && !now->opt->quiet)
    for (int f = 0; f < dg_flux_field_count(p->program) && f < DG_RUN_MAX_FIELDS; f++)
      dg_info("t = %.6g  %s: L2 error %.6e  max error %.6e", now->t,
              dg_flux_field(p->program, f)->name, res->l2[f], res->maxerr[f]);
  return DG_OK;
}

dg_error dg_observe_norms_create(dg_run_state *r, const dg_run_options *opt, dg_observer *o) {
  (void)opt;
  o->name = "norms";
  o->trigger.every_dt = r->prob->output_interval;
  o->trigger.at_final_time = 1;
  o->trigger.at_end = 1;
  o->notify = notify;
  return DG_OK;
}
