/* Error norms against the exact solution of the flux file, and its
 * integrals, by quadrature on the device (problems/solver/quantities.h):
 * computed for every snapshot (they go into its file), printed at the
 * output times, and at the end into the run's result (the closing
 * summary).  A field without an exact solution is named as such; the
 * others get their norms whatever the rest have. */
#include <stdio.h>
#include <string.h>

#include "core/log.h"
#include "problems/driver/observer.h"
#include "problems/driver/run_state.h"

dg_error dg_observe_error_norms(dg_run_state *r, double t, dg_run_result *res) {
  const dg_flux_program *prog = r->prob->program;
  int nf = dg_flux_field_count(prog);
  res->have_norms = 0;
  memset(res->has_exact, 0, sizeof res->has_exact);
  if (!r->quantities)
    return DG_OK;
  res->quadrature_degree = dg_quantities_degree(r->quantities);
  DG_CALL(dg_quantities_eval(r->quantities, t, r->quantity_values));
  /* the values are l2_<f>, max_<f> of each field with an exact solution
   * in field order, then the integrals */
  for (int f = 0, o = 0; f < nf && f < DG_RUN_MAX_FIELDS; f++) {
    res->l2[f] = res->maxerr[f] = 0;
    if (!dg_flux_field(prog, f)->exact)
      continue;
    res->has_exact[f] = 1;
    res->have_norms = 1;
    res->l2[f] = r->quantity_values[o];
    res->maxerr[f] = r->quantity_values[o + 1];
    o += 2;
  }
  return DG_OK;
}

void dg_observe_norms_print(const dg_run_state *r, const char *label, double t,
                            const dg_run_result *res) {
  const dg_flux_program *prog = r->prob->program;
  if (!r->quantities)
    return;
  int nf = dg_flux_field_count(prog);
  for (int f = 0; f < nf && f < DG_RUN_MAX_FIELDS && res->have_norms; f++)
    if (res->has_exact[f])
      dg_info("%s = %.6g  %s: L2 error %.6e (quadrature of degree %d)  max nodal error %.6e",
              label, t, dg_flux_field(prog, f)->name, res->l2[f], res->quadrature_degree,
              res->maxerr[f]);
  int nq = dg_quantities_count(r->quantities), ni = dg_flux_integral_count(prog);
  for (int i = 0; i < ni; i++)
    dg_info("%s = %.6g  integral %s = %.12e", label, t, dg_flux_integral(prog, i)->name,
            r->quantity_values[nq - ni + i]);
  const char *names[DG_RUN_MAX_FIELDS];
  int nno = dg_quantities_fields_without_exact(r->quantities, names, DG_RUN_MAX_FIELDS);
  if (nno > 0) {
    char list[1024] = "";
    for (int i = 0; i < nno && i < DG_RUN_MAX_FIELDS; i++) {
      size_t len = strlen(list);
      snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", names[i]);
    }
    dg_info("%s = %.6g  no exact solution: %s", label, t, list);
  }
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
  if (p->output_enabled && !now->opt->quiet)
    dg_observe_norms_print(r, "t", now->t, res);
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
