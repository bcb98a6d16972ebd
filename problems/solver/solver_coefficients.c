/* Material coefficients on the device: dg_solver_set_coefficients (the
 * tables themselves are built by dg/opdata_coef.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "problems/solver/shock.h"
#include "problems/solver/solver_private.h"

/* Partitioned runs: ghost[b] = the raw device state after the halo exchange
 * of a state whose components carry coefficients b*NC .. b*NC + NC - 1 (the
 * ghost slots then hold the neighbours' traces of them).  The state is
 * saved and restored around it. */
static dg_error exchange_ghosts(dg_solver *s, const double *values, int nbatch, void **ghost) {
  const dg_opdata *od = s->od;
  size_t bytes = (size_t)s->n_state * s->rs;
  size_t per = (size_t)od->K_owned * od->Np, nb = (size_t)s->ncomp * per;
  void *saved = malloc(bytes ? bytes : 1), *buf = malloc(bytes ? bytes : 1);
  double *u = malloc((nb ? nb : 1) * sizeof *u); /* one batch as a state, logical order */
  dg_error err = DG_OK;
  DG_CHECK_GOTO(err, done, saved && buf && u, DG_ERR_MEMORY, "out of host memory (%zu bytes)",
                bytes);
  DG_CALL_GOTO(err, done, dg_device_download(s->dev, saved, s->q, bytes));
  for (int b = 0; b < nbatch; b++) {
    int n = s->physics->ncoef - b * s->ncomp; /* coefficients in this batch */
    n = n < s->ncomp ? n : s->ncomp;
    memset(u, 0, nb * sizeof *u);
    memcpy(u, values + (size_t)b * nb, (size_t)n * per * sizeof *u);
    DG_CALL_GOTO(err, done, dg_solver_pack_state(s, u, buf));
    DG_CALL_GOTO(err, done, dg_device_upload(s->dev, s->q, buf, bytes));
    DG_CALL_GOTO(err, done, dg_halo_start(s->halo, s->q));
    DG_CALL_GOTO(err, done, dg_halo_finish(s->halo, s->q));
    ghost[b] = malloc(bytes ? bytes : 1);
    DG_CHECK_GOTO(err, done, ghost[b], DG_ERR_MEMORY, "out of host memory (%zu bytes)", bytes);
    DG_CALL_GOTO(err, done, dg_device_download(s->dev, ghost[b], s->q, bytes));
  }
  DG_CALL_GOTO(err, done, dg_device_upload(s->dev, s->q, saved, bytes));
done:
  free(saved);
  free(buf);
  free(u);
  return err;
}

dg_error dg_solver_set_coefficients(dg_solver *s, const double *values) {
  const dg_opdata *od = s->od;
  int ncf = s->physics->ncoef;
  DG_CHECK(ncf > 0, DG_ERR_ARG, "the physics has no coefficients");
  int64_t nval = (int64_t)ncf * od->K_owned * od->Np;
  for (int64_t v = 0; v < nval; v++)
    DG_CHECK(isfinite(values[v]), DG_ERR_ARG, "coefficient %lld of element %lld is not finite",
             (long long)(v / ((int64_t)od->K_owned * od->Np)),
             (long long)(v / od->Np % (od->K_owned > 0 ? od->K_owned : 1)));
  size_t ncf_n = (size_t)ncf * od->K * od->np_pad, nfc = (size_t)od->K * od->nfnfp * ncf * 2;
  void *cf = calloc(ncf_n ? ncf_n : 1, s->rs), *fcf = calloc(nfc ? nfc : 1, s->rs);
  int nbatch = s->halo ? (ncf + s->ncomp - 1) / s->ncomp : 0;
  void **ghost = calloc((size_t)nbatch + 1, sizeof *ghost);
  dg_error err = DG_OK;
  DG_CHECK_GOTO(err, done, cf && fcf && ghost, DG_ERR_MEMORY, "out of host memory");
  dg_opdata_coef_nodes(od, ncf, values, cf);
  if (nbatch)
    DG_CALL_GOTO(err, done, exchange_ghosts(s, values, nbatch, ghost));
  dg_opdata_coef_traces(od, ncf, values, nbatch ? (const void *const *)ghost : NULL, fcf);
  void *bufs[2] = {s->cf, s->fcf}; /* a second call replaces the tables */
  s->cf = s->fcf = NULL;
  for (int i = 0; i < 2; i++)
    if (bufs[i])
      dg_device_free(s->dev, bufs[i]);
  DG_CALL_GOTO(err, done, dg_solver_upload_new(s->dev, cf, ncf_n * s->rs, &s->cf));
  DG_CALL_GOTO(err, done, dg_solver_upload_new(s->dev, fcf, nfc * s->rs, &s->fcf));
  s->coef_set = 1;
  if (s->shock) /* new tables (perhaps at the old addresses): not known to be zero */
    dg_shock_forget_coefficients(s->shock);
done:
  for (int b = 0; b < nbatch; b++)
    free(ghost[b]);
  free(ghost);
  free(cf);
  free(fcf);
  return err;
}

void *dg_solver_device_coefficients(const dg_solver *s) { return s->cf; }

dg_error dg_solver_get_coefficient(dg_solver *s, int c, double *out) {
  const dg_opdata *od = s->od;
  DG_CHECK(s->coef_set && c >= 0 && c < s->physics->ncoef, DG_ERR_ARG,
           "coefficient %d of %d (set: %d)", c, s->physics->ncoef, s->coef_set);
  size_t n = (size_t)od->K * od->np_pad;
  void *buf = malloc(n * s->rs + 1);
  DG_CHECK(buf, DG_ERR_MEMORY, "out of host memory (%zu reals)", n);
  dg_error err = dg_device_download(s->dev, buf, (char *)s->cf + (size_t)c * n * s->rs, n * s->rs);
  for (int64_t k = 0; k < od->K_owned && err == DG_OK; k++)
    for (int i = 0; i < od->Np; i++) {
      size_t o = (size_t)k * od->np_pad + i;
      out[k * od->Np + i] = s->rs == 4 ? ((float *)buf)[o] : ((double *)buf)[o];
    }
  free(buf);
  DG_CALL(err);
  return DG_OK;
}
