/* HDF5/XDMF snapshots (problems/io/snapshot.h) at t = 0, at every
 * [output] interval and at the final time, with the error norms of that
 * time when the flux file gives exact solutions.  The loop lands on the
 * output times even with [output] enabled = false, as it always has, so
 * that turning output off does not change the steps (nor the results). */
#include <stdlib.h>

#include "problems/driver/observer.h"
#include "problems/driver/run_state.h"

static dg_error write_file(dg_run_state *r, double t, int64_t step, dg_run_result *res) {
  const dg_discretization *d = r->disc;
  const double *u = r->u;
  int64_t K = d->K;
  if (r->par->size > 1 && !r->collective) {
    /* Serial HDF5: rank 0 gathers the fields and writes the file. */
    DG_CALL(dg_parallel_gather(r->par, r->ncomp, d->Np, r->u, r->u_global));
    if (r->par->rank != 0)
      return DG_OK;
    u = r->u_global;
    K = r->par->K_global;
  }
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
  /* A field of more than 3 components (an XDMF vector holds 3) is written
   * as scalars <name>_<c>, the names of its checkpoint components. */
  dg_snapshot_field *fields = calloc((size_t)r->ncomp + 1, sizeof *fields);
  DG_CHECK(fields, DG_ERR_MEMORY, "out of memory");
  int nout = 0;
  for (int f = 0; f < nf; f++) {
    const dg_flux_field_info *fi = dg_flux_field(prog, f);
    if (!r->prob->output_field[f])
      continue;
    int split = fi->ncomp > 3;
    for (int s = 0; s < (split ? fi->ncomp : 1); s++) {
      dg_snapshot_field *o = &fields[nout++];
      o->name = split ? r->comp_names[fi->offset + s] : fi->name;
      o->ncomp = split ? 1 : fi->ncomp;
      o->real_size = 8;
      for (int c = 0; c < o->ncomp; c++)
        o->comp[c] = u + (int64_t)(fi->offset + s + c) * K * d->Np;
    }
  }
  dg_error err = dg_snapshot_writer_write(r->writer, t, step, fields, nout, norms,
                                          res->have_norms ? nnorms : 0);
  free(fields);
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
