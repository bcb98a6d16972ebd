/* Snapshots (problems/io/snapshot.h: HDF5/XDMF and/or VTKHDF) at t = 0, at
 * every [output] interval and at the final time, with the error norms of
 * that time when the flux file gives exact solutions, and in VTKHDF the
 * error field at the points.  The loop lands on the output times even
 * with [output] enabled = false, as it always has, so that turning output
 * off does not change the steps (nor the results). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "operators/flux_eval.h"
#include "problems/driver/observer.h"
#include "problems/driver/run_state.h"
#include "problems/io/vtk_lagrange.h"

/* Does field f go into the error fields (written, with an exact solution)? */
static int has_error_field(const dg_run_state *r, int f) {
  return r->prob->output_field[f] && dg_flux_field(r->prob->program, f)->exact != NULL;
}

/* Error components of this rank's elements at the VTKHDF points, field by
 * field (those of has_error_field), component by component, K*Np each:
 * the element's polynomial there (V(equispaced) V^{-1} u, see
 * problems/io/vtk_lagrange.h) minus the exact solution at the point, whose
 * coordinates come through the same interpolation of the nodes'. */
static dg_error point_errors(dg_run_state *r, double t, double *e) {
  const dg_discretization *d = r->disc;
  const dg_flux_program *prog = r->prob->program;
  int Np = d->Np, nf = dg_flux_field_count(prog);
  double *I = malloc(sizeof(double) * (size_t)(Np * Np));
  DG_CHECK(I, DG_ERR_MEMORY, "out of memory");
  dg_error err = dg_vtk_lagrange_interp(d->re, I);
  int64_t at = 0, bad_k = -1, bad_f = -1;
  for (int f = 0; err == DG_OK && f < nf; f++) {
    if (!has_error_field(r, f))
      continue;
    const dg_flux_field_info *fi = dg_flux_field(prog, f);
    int nc = fi->ncomp;
#pragma omp parallel for schedule(static)
    for (int64_t k = 0; k < d->K; k++)
      for (int p = 0; p < Np; p++) {
        double x[3] = {0, 0, 0}, ex[64];
        for (int a = 0; a < d->dim; a++)
          for (int i = 0; i < Np; i++)
            x[a] += I[p * Np + i] * d->X[a][k * Np + i];
        if (dg_flux_eval_exact(prog, f, x, t, ex) != DG_OK) {
#pragma omp atomic write
          bad_k = k;
          break;
        }
        for (int c = 0; c < nc; c++) {
          const double *u = r->u + ((int64_t)(fi->offset + c) * d->K + k) * Np;
          double v = 0;
          for (int i = 0; i < Np; i++)
            v += I[p * Np + i] * u[i];
          e[(at + c) * d->K * Np + k * Np + p] = v - ex[c];
        }
      }
    if (bad_k >= 0) {
      bad_f = f;
      break;
    }
    at += nc;
  }
  if (err == DG_OK && bad_k >= 0) { /* again on this thread, whose error stack is reported */
    double x[3] = {0, 0, 0}, ex[64];
    for (int a = 0; a < d->dim; a++)
      x[a] = d->X[a][bad_k * Np];
    err = dg_flux_eval_exact(prog, (int)bad_f, x, t, ex);
    if (err == DG_OK)
      err = dg_error_raise(DG_ERR_INTERNAL, __FILE__, __LINE__, __func__,
                           "exact solution of '%s' failed on another thread only",
                           dg_flux_field(prog, (int)bad_f)->name);
  }
  free(I);
  DG_CALL(err);
  return DG_OK;
}

/* The snapshot fields of the components at u (K elements): the output
 * fields, or (errors set) the error fields "error_<name>", of fields that
 * pass `want`.  A field of more than 3 components (an XDMF vector holds 3)
 * is written as scalars <name>_<c>, the names of its checkpoint components. */
static int list_fields(dg_run_state *r, const double *u, int64_t K, int errors,
                       dg_snapshot_field *out, char (*names)[80]) {
  const dg_flux_program *prog = r->prob->program;
  int nout = 0, at = 0;
  for (int f = 0; f < dg_flux_field_count(prog); f++) {
    const dg_flux_field_info *fi = dg_flux_field(prog, f);
    if (!r->prob->output_field[f] || (errors && !has_error_field(r, f)))
      continue;
    int split = fi->ncomp > 3;
    for (int s = 0; s < (split ? fi->ncomp : 1); s++) {
      dg_snapshot_field *o = &out[nout];
      const char *base = split ? r->comp_names[fi->offset + s] : fi->name;
      snprintf(names[nout], sizeof names[nout], "%s%s", errors ? "error_" : "", base);
      o->name = names[nout++];
      o->ncomp = split ? 1 : fi->ncomp;
      o->real_size = 8;
      int first = errors ? at + s : fi->offset + s;
      for (int c = 0; c < o->ncomp; c++)
        o->comp[c] = u + (int64_t)(first + c) * K * r->disc->Np;
    }
    at += fi->ncomp;
  }
  return nout;
}

/* live: [shock]'s artificial viscosity the last stage used (K x Np), in
 * place of its coefficient's start value; NULL: none. */
static dg_error write_fields(dg_run_state *r, double t, int64_t step, dg_run_result *res,
                             const double *u, const double *e, const double *live, int64_t K) {
  const dg_flux_program *prog = r->prob->program;
  int nf = dg_flux_field_count(prog);
  /* (at most DG_RUN_MAX_FIELDS fields, refused at set-up past it) */
  dg_snapshot_norm norms[DG_RUN_MAX_FIELDS];
  DG_CHECK(nf <= DG_RUN_MAX_FIELDS, DG_ERR_INTERNAL, "more than %d fields", DG_RUN_MAX_FIELDS);
  int nnorms = 0; /* the fields with an exact solution */
  for (int f = 0; f < nf; f++) {
    if (!res->has_exact[f])
      continue;
    norms[nnorms].name = dg_flux_field(prog, f)->name;
    norms[nnorms].l2 = res->l2[f];
    norms[nnorms++].max = res->maxerr[f];
  }
  int ncoef = r->coef ? r->coef->ncoef : 0;
  size_t n = (size_t)(r->ncomp + ncoef) + 1;
  dg_snapshot_field *fields = calloc(2 * n, sizeof *fields);
  char(*names)[80] = calloc(2 * n, sizeof *names);
  dg_error err = fields && names ? DG_OK
                                 : dg_error_raise(DG_ERR_MEMORY, __FILE__, __LINE__, __func__,
                                                  "out of memory");
  if (err == DG_OK) {
    int nout = list_fields(r, u, K, 0, fields, names);
    /* the coefficients as point data coef_<name> (gathered with the state) */
    const double *cv = r->par->size > 1 && !r->collective ? r->coef_global : r->coef->values;
    for (int c = 0; c < ncoef; c++, nout++) {
      snprintf(names[nout], sizeof names[nout], "coef_%s", r->coef_names[c]);
      fields[nout] = (dg_snapshot_field){names[nout], 1, 8, {cv + (int64_t)c * K * r->disc->Np}};
    }
    int av = -1;
    if (live)
      err = dg_flux_coef_find(prog, r->prob->shock.viscosity, &av);
    if (err == DG_OK && av >= 0)
      fields[nout - ncoef + av].comp[0] = live;
    int nerr = e ? list_fields(r, e, K, 1, fields + n, names + n) : 0;
    if (err == DG_OK)
      err = dg_snapshot_writer_write_with(r->writer, t, step, fields, nout, fields + n, nerr,
                                        norms, res->have_norms ? nnorms : 0);
  }
  free(fields);
  free(names);
  DG_CALL(err);
  return DG_OK;
}

/* [shock]: this rank's live artificial viscosity (*live, K_owned x Np; NULL
 * without a sensor), as the last stage left it on the device. */
static dg_error live_viscosity(dg_run_state *r, double **live) {
  *live = NULL;
  const dg_shock_settings *sh = &r->prob->shock;
  if (!sh->sensor || !sh->sensor[0])
    return DG_OK;
  int av;
  DG_CALL(dg_flux_coef_find(r->prob->program, sh->viscosity, &av));
  *live = malloc(sizeof(double) * (size_t)(r->disc->K * r->disc->Np) + 1);
  DG_CHECK(*live, DG_ERR_MEMORY, "out of memory");
  DG_CALL(dg_solver_get_coefficient(r->solver, av, *live));
  return DG_OK;
}

static dg_error write_file(dg_run_state *r, double t, int64_t step, dg_run_result *res) {
  const dg_discretization *d = r->disc;
  int ne = 0; /* error components */
  for (int f = 0; f < dg_flux_field_count(r->prob->program); f++)
    if (has_error_field(r, f))
      ne += dg_flux_field(r->prob->program, f)->ncomp;
  if (!(r->prob->output_formats & DG_SNAPSHOT_VTKHDF))
    ne = 0;
  double *e = ne ? malloc(sizeof(double) * (size_t)(ne * d->K * d->Np)) : NULL;
  double *eg = NULL, *live = NULL, *live_g = NULL;
  const double *u = r->u, *eu = e;
  int64_t K = d->K;
  dg_error err = !ne || e ? DG_OK
                          : dg_error_raise(DG_ERR_MEMORY, __FILE__, __LINE__, __func__,
                                           "out of memory for the error fields");
  if (err == DG_OK && ne)
    err = point_errors(r, t, e);
  if (err == DG_OK)
    err = live_viscosity(r, &live);
  const double *lv = live;
  if (r->par->size > 1 && !r->collective) {
    /* Serial HDF5: rank 0 gathers the fields and writes the file. */
    DG_CALL_GOTO(err, done, dg_parallel_agree(r->par->comm, err));
    DG_CALL_GOTO(err, done, dg_parallel_gather(r->par, r->ncomp, d->Np, r->u, r->u_global));
    if (ne && r->par->rank == 0) {
      eg = malloc(sizeof(double) * (size_t)(ne * r->par->K_global * d->Np));
      DG_CHECK_GOTO(err, gathered, eg, DG_ERR_MEMORY, "out of memory for the error fields");
    }
    if (live && r->par->rank == 0) {
      live_g = malloc(sizeof(double) * (size_t)(r->par->K_global * d->Np));
      DG_CHECK_GOTO(err, gathered, live_g, DG_ERR_MEMORY, "out of memory for the viscosity");
    }
  gathered:
    DG_CALL_GOTO(err, done, dg_parallel_agree(r->par->comm, err));
    if (ne)
      DG_CALL_GOTO(err, done, dg_parallel_gather(r->par, ne, d->Np, e, eg));
    if (live) /* (every rank has a sensor or none) */
      DG_CALL_GOTO(err, done, dg_parallel_gather(r->par, 1, d->Np, live, live_g));
    if (r->par->rank != 0)
      goto done;
    u = r->u_global;
    eu = eg;
    lv = live_g;
    K = r->par->K_global;
  }
  if (err == DG_OK)
    err = write_fields(r, t, step, res, u, eu, lv, K);
done:
  free(e);
  free(eg);
  free(live);
  free(live_g);
  DG_CALL(err);
  return DG_OK;
}

/* A snapshot, collectively or by rank 0; every rank learns of a failure
 * (all stop with one report instead of an abort). */
static dg_error write_snapshot(dg_run_state *r, double t, int64_t step, dg_run_result *res) {
  dg_error err = write_file(r, t, step, res);
  DG_CALL(dg_parallel_agree(r->par->comm, err)); /* (one rank: err itself) */
  return DG_OK;
}

static dg_error notify(dg_observer *self, dg_observe_event ev, const dg_run_now *now) {
  (void)self;
  dg_run_state *r = now->run;
  const dg_problem *p = r->prob;
  if (!p->output_enabled)
    return DG_OK;
  /* (a restart continues the files of the run it continues: no t = 0) */
  if (ev == DG_OBSERVE_START && (now->opt->restart || p->output_interval <= 0))
    return DG_OK;
  DG_CALL(dg_observe_error_norms(r, now->t, now->res));
  DG_CALL(write_snapshot(r, now->t, now->step, now->res));
  return DG_OK;
}

dg_error dg_observe_snapshot_create(dg_run_state *r, const dg_run_options *opt,
                                    dg_observer *o) {
  (void)opt;
  o->name = "snapshot";
  o->trigger.every_dt = r->prob->output_interval;
  o->trigger.at_final_time = 1;
  o->trigger.at_start = 1;
  o->notify = notify;
  return DG_OK;
}
