#include "dg/opdata.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int64_t dg_opdata_offset(const dg_opdata *od, int64_t k, int i, int c) {
  if (od->element_major)
    return (k * od->ncomp + c) * od->np_pad + i;
  return ((int64_t)c * od->K + k) * od->np_pad + i;
}

int64_t dg_opdata_state_length(const dg_opdata *od) {
  return (int64_t)od->ncomp * od->K * od->np_pad;
}

static void put(void *buf, size_t real_size, int64_t idx, double v) {
  if (real_size == 4)
    ((float *)buf)[idx] = (float)v;
  else
    ((double *)buf)[idx] = v;
}

enum { OPDATA_OK = 0, OPDATA_CURVED = 1, OPDATA_NO_BC = 2 /* + face */ };

/* The rows of element k; OPDATA_CURVED when its geometric factors vary,
 * OPDATA_NO_BC + f when its face f has a tag without boundary condition. */
static int element_opdata(const dg_discretization *d, dg_opdata *o, const int *tag_to_bc,
                          int64_t k) {
  const int curved = d->ncurved > 0 && d->curved[k]; /* factors in cgeo (opdata_curved.c) */
  const int dim = d->dim, Np = d->Np, nfnfp = o->nfnfp, np_pad = o->np_pad;
  const int64_t K = o->K;
  const size_t rs = o->real_size;
  /* The element's largest factor sets the scale of round-off in all. */
  double gmax = 0;
  for (int a = 0; a < dim; a++)
    for (int b = 0; b < dim; b++)
      for (int i = 0; i < Np; i++)
        gmax = fmax(gmax, fabs(d->G[a][b][k * Np + i]));
  /* Affine elements: node 0 carries the element's factors; check that the
   * others agree (to round-off relative to the factor's magnitude). */
  for (int a = 0; a < dim; a++)
    for (int b = 0; b < dim; b++) {
      const double *G = d->G[a][b];
      double g0 = G[k * Np];
      for (int i = 1; i < Np && !curved; i++)
        if (!(fabs(G[k * Np + i] - g0) <= 1e-8 * gmax))
          return OPDATA_CURVED;
      put(o->egeo, rs, k * o->ngeo + a * dim + b, g0);
    }
  put(o->egeo, rs, k * o->ngeo + dim * dim, d->J[k * Np]);
  o->Jk[k] = d->J[k * Np];
  for (int m = 0; m < nfnfp; m++) {
    int64_t idx = k * nfnfp + m;
    for (int a = 0; a < dim; a++) {
      put(o->fgeo, rs, idx * (dim + 1) + a, d->n[a][idx]);
      put(o->fx, rs, idx * dim + a, d->X[a][d->vmapM[idx]]);
    }
    put(o->fgeo, rs, idx * (dim + 1) + dim, d->Fscale[idx]);
    int64_t vm = d->vmapM[idx], vp = d->vmapP[idx];
    o->mapM[idx] = (int32_t)dg_opdata_offset(o, vm / Np, (int)(vm % Np), 0);
    o->mapP[idx] = (int32_t)dg_opdata_offset(o, vp / Np, (int)(vp % Np), 0);
  }
  for (int i = 0; i < Np; i++)
    for (int a = 0; a < dim; a++)
      put(o->vx, rs, ((int64_t)a * K + k) * np_pad + i, d->X[a][k * Np + i]);
  for (int f = 0; f < d->Nfaces; f++) {
    int tag = d->mesh->face_tag[k * d->Nfaces + f];
    int bc = -1;
    if (tag >= 0) {
      bc = tag_to_bc ? tag_to_bc[tag] : -1;
      if (bc < 0)
        return OPDATA_NO_BC + f;
    }
    o->fbc[k * d->Nfaces + f] = bc;
  }
  return OPDATA_OK;
}

void dg_opdata_destroy(dg_opdata **od) {
  if (!od || !*od)
    return;
  dg_opdata *o = *od;
  free(o->egeo);
  free(o->fgeo);
  free(o->fx);
  free(o->vx);
  free(o->mapM);
  free(o->mapP);
  free(o->fbc);
  free(o->Jk);
  free(o->cgeo);
  free(o->cfgeo);
  free(o);
  *od = NULL;
}

dg_error dg_opdata_check_affine(const dg_discretization *d) {
  for (int64_t k = 0; k < d->K && d->ncurved > 0; k++)
    DG_CHECK(!d->curved[k], DG_ERR_UNSUPPORTED,
             "element %lld is curved (the mesh has geometry order %d and %lld curved "
             "elements): this solver runs straight-sided elements only; use a straight-sided "
             "mesh (geometry_order = 1)",
             (long long)k, d->mesh->geom_order, (long long)d->ncurved);
  return DG_OK;
}

dg_error dg_opdata_create(const dg_discretization *d, int np_pad, int element_major,
                          int ncomp, const int *tag_to_bc, dg_opdata **out) {
  *out = NULL;
  DG_CHECK(np_pad >= d->Np, DG_ERR_ARG, "np_pad %d < Np %d", np_pad, d->Np);
  DG_CHECK(ncomp >= 1, DG_ERR_ARG, "ncomp %d", ncomp);
  int64_t K = d->K;
  int dim = d->dim, Np = d->Np, nfnfp = d->Nfaces * d->Nfp;
  DG_CHECK((double)ncomp * (double)K * np_pad < 2147483647.0, DG_ERR_UNSUPPORTED,
           "state of %d components x %lld elements x %d nodes exceeds 32-bit offsets "
           "(partition the mesh over more ranks)",
           ncomp, (long long)K, np_pad);
  dg_opdata *o = calloc(1, sizeof *o);
  DG_CHECK(o, DG_ERR_MEMORY, "out of memory");
  o->K = K;
  o->K_owned = K;
  o->dim = dim;
  o->Np = Np;
  o->np_pad = np_pad;
  o->Nfaces = d->Nfaces;
  o->Nfp = d->Nfp;
  o->nfnfp = nfnfp;
  o->ncomp = ncomp;
  o->ngeo = dim * dim + 1;
  o->element_major = element_major;
  o->real_size = d->precision == DG_FLOAT ? 4 : 8;
  size_t rs = o->real_size;
  o->egeo = calloc((size_t)K * o->ngeo, rs);
  o->fgeo = calloc((size_t)K * nfnfp * (dim + 1), rs);
  o->fx = calloc((size_t)K * nfnfp * dim, rs);
  o->vx = calloc((size_t)dim * K * np_pad, rs);
  o->mapM = calloc((size_t)K * nfnfp, sizeof(int32_t));
  o->mapP = calloc((size_t)K * nfnfp, sizeof(int32_t));
  o->fbc = calloc((size_t)K * d->Nfaces, sizeof(int32_t));
  o->Jk = calloc((size_t)K, sizeof(double));
  dg_error err = DG_OK;
  DG_CHECK_GOTO(err, fail,
                o->egeo && o->fgeo && o->fx && o->vx && o->mapM && o->mapP && o->fbc && o->Jk,
                DG_ERR_MEMORY, "out of memory for the operator data of %lld elements",
                (long long)K);
  DG_CALL_GOTO(err, fail, dg_opdata_curved_fill(d, o));
  /* Elements in parallel (each writes only its own rows); the first bad
   * element is reported, as a sequential loop would. */
  int64_t bad = K;
#pragma omp parallel for schedule(static) reduction(min : bad)
  for (int64_t k = 0; k < K; k++)
    if (element_opdata(d, o, tag_to_bc, k) != OPDATA_OK && k < bad)
      bad = k;
  if (bad < K) {
    int why = element_opdata(d, o, tag_to_bc, bad);
    if (why == OPDATA_CURVED)
      DG_CHECK_GOTO(err, fail, 0, DG_ERR_UNSUPPORTED,
                    "element %lld is not straight-sided (geometric factors vary); "
                    "curved elements are not supported yet",
                    (long long)bad);
    int tag = d->mesh->face_tag[bad * d->Nfaces + why - OPDATA_NO_BC];
    DG_CHECK_GOTO(err, fail, 0, DG_ERR_INPUT,
                  "boundary tag '%s' has no boundary condition (map it in the "
                  "[boundaries] section of the problem file)",
                  d->mesh->tag_names[tag]);
  }
  *out = o;
  return DG_OK;
fail:
  dg_opdata_destroy(&o);
  return err;
}
