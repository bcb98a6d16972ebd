/* Material coefficients on the device (FLUX_LANGUAGE.md, `coefficients`):
 * the values at the volume nodes (cf) and, per face node, the interior and
 * exterior traces (fcf), both laid out as operators/codegen.h says.
 *
 * Why traces per face node rather than a gather through mapP in the
 * kernels: they never change, so one table serves every kernel variant
 * (dg_surface, the fused surfaces of the volume kernels, range launches)
 * with one coalesced load and no index arithmetic, and the exterior value
 * of a partition-boundary face, which lives on another rank, is fetched
 * once here through the state's own halo exchange. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "problems/solver/solver_private.h"

static void put(void *buf, size_t rs, int64_t o, double v) {
  if (rs == 4)
    ((float *)buf)[o] = (float)v;
  else
    ((double *)buf)[o] = v;
}

static double get(const void *buf, size_t rs, int64_t o) {
  return rs == 4 ? (double)((const float *)buf)[o] : ((const double *)buf)[o];
}

/* The element slot and node of state offset o (component 0). */
static void node_of(const dg_opdata *od, int64_t o, int64_t *k, int *i) {
  int64_t ek = od->element_major ? (int64_t)od->ncomp * od->np_pad : od->np_pad;
  *k = o / ek;
  *i = (int)(o - *k * ek);
}

/* Partitioned runs: ghost[b] = the raw device state after the halo exchange
 * of a state whose components carry coefficients b*NC .. b*NC + NC - 1 (the
 * ghost slots then hold the neighbours' traces of them).  The state is
 * saved and restored around it. */
static dg_error exchange_ghosts(dg_solver *s, const double *values, int nbatch, void **ghost) {
  const dg_opdata *od = s->od;
  size_t bytes = (size_t)s->n_state * s->rs;
  void *saved = malloc(bytes ? bytes : 1), *buf = malloc(bytes ? bytes : 1);
  dg_error err = DG_OK;
  DG_CHECK_GOTO(err, done, saved && buf, DG_ERR_MEMORY, "out of host memory (%zu bytes)", bytes);
  DG_CALL_GOTO(err, done, dg_device_download(s->dev, saved, s->q, bytes));
  for (int b = 0; b < nbatch; b++) {
    memset(buf, 0, bytes);
    for (int cc = 0; cc < s->ncomp && b * s->ncomp + cc < s->physics->ncoef; cc++) {
      int c = b * s->ncomp + cc;
      for (int64_t k = 0; k < od->K_owned; k++)
        for (int i = 0; i < od->Np; i++)
          put(buf, s->rs, dg_opdata_offset(od, k, i, cc),
              values[((int64_t)c * od->K_owned + k) * od->Np + i]);
    }
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
  return err;
}

/* fcf on the host: the interior trace from the element's own node, the
 * exterior from the neighbour's (mapP), a ghost slot's from the exchange,
 * and on a boundary face the interior value again. */
static void build_traces(const dg_solver *s, const double *values, void *const *ghost,
                         void *fcf) {
  const dg_opdata *od = s->od;
  int ncf = s->physics->ncoef, nfn = od->nfnfp;
  int64_t cstride = od->element_major ? od->np_pad : od->K * od->np_pad;
#pragma omp parallel for schedule(static)
  for (int64_t k = 0; k < od->K_owned; k++)
    for (int m = 0; m < nfn; m++) {
      int64_t idx = k * nfn + m, kM, kP;
      int iM, iP;
      node_of(od, od->mapM[idx], &kM, &iM);
      node_of(od, od->mapP[idx], &kP, &iP);
      int boundary = od->fbc[k * od->Nfaces + m / od->Nfp] >= 0;
      for (int c = 0; c < ncf; c++) {
        double vM = values[((int64_t)c * od->K_owned + kM) * od->Np + iM], vP = vM;
        if (!boundary && kP < od->K_owned)
          vP = values[((int64_t)c * od->K_owned + kP) * od->Np + iP];
        else if (!boundary)
          vP = get(ghost[c / s->ncomp], s->rs, od->mapP[idx] + (int64_t)(c % s->ncomp) * cstride);
        put(fcf, s->rs, (idx * ncf + c) * 2, vM);
        put(fcf, s->rs, (idx * ncf + c) * 2 + 1, vP);
      }
    }
}

static dg_error upload_table(dg_solver *s, void **dev, const void *host, size_t bytes) {
  if (!*dev && bytes)
    DG_CALL(dg_device_malloc(s->dev, bytes, dev));
  if (bytes)
    DG_CALL(dg_device_upload(s->dev, *dev, host, bytes));
  return DG_OK;
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
  for (int c = 0; c < ncf; c++)
    for (int64_t k = 0; k < od->K_owned; k++)
      for (int i = 0; i < od->Np; i++)
        put(cf, s->rs, ((int64_t)c * od->K + k) * od->np_pad + i,
            values[((int64_t)c * od->K_owned + k) * od->Np + i]);
  if (nbatch)
    DG_CALL_GOTO(err, done, exchange_ghosts(s, values, nbatch, ghost));
  build_traces(s, values, ghost, fcf);
  DG_CALL_GOTO(err, done, upload_table(s, &s->cf, cf, ncf_n * s->rs));
  DG_CALL_GOTO(err, done, upload_table(s, &s->fcf, fcf, nfc * s->rs));
  s->coef_set = 1;
done:
  for (int b = 0; b < nbatch; b++)
    free(ghost[b]);
  free(ghost);
  free(cf);
  free(fcf);
  return err;
}

void *dg_solver_device_coefficients(const dg_solver *s) { return s->cf; }
