/* HDF5/XDMF snapshots (problems/io/snapshot.h) at t = 0, at every
 * [output] interval and at the final time, with the error norms of that
 * time when the flux file gives exact solutions.  The loop lands on the
 * output times even with [output] enabled = false, as it always has, so
 * that turning output off does not change the steps (nor the results). */
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
  dg_snapshot_field fields[16];
  dg_snapshot_norm norms[16];
  DG_CHECK(nf <= 16, DG_ERR_UNSUPPORTED, "more than 16 fields");
  int nout = 0;
  for (int f = 0; f < nf; f++) {
    norms[f].name = dg_flux_field(prog, f)->name;
    norms[f].l2 = res->l2[f];
    norms[f].max = res->maxerr[f];
  }
  for (int f = 0; f < nf; f++) {
    const dg_flux_field_info *fi = dg_flux_field(prog, f);
    if (!r->prob->output_field[f])
      continue;
    DG_CHECK(fi->ncomp <= 3, DG_ERR_UNSUPPORTED,
             "field %s has %d components; snapshots show at most 3", fi->name, fi->ncomp);
    fields[nout].name = fi->name;
    fields[nout].ncomp = fi->ncomp;
    fields[nout].real_size = 8;
    for (int c = 0; c < 3; c++)
      fields[nout].comp[c] =
          c < fi->ncomp ? u + (int64_t)(fi->offset + c) * K * d->Np : NULL;
    nout++;
  }
  DG_CALL(dg_snapshot_writer_write(r->writer, t, step, fields, nout, norms,
                                   res->have_norms ? nf : 0));
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
