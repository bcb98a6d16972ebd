/* The coefficient tables of a physics with `coefficients` in the layout of
 * the generated kernels (operators/codegen.h): cf at the volume nodes, and
 * fcf, each face node's interior and exterior traces.
 *
 * Why traces per face node rather than a gather through mapP in the
 * kernels: they never change, so one table serves every kernel variant
 * (dg_surface, the fused surfaces of the volume kernels, range launches)
 * with one coalesced load and no index arithmetic, and the exterior value
 * of a partition-boundary face, which lives on another rank, is fetched
 * once at set-up (problems/solver/solver_coefficients.c). */
#include <stdlib.h>

#include "dg/opdata.h"

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

void dg_opdata_coef_nodes(const dg_opdata *od, int ncf, const double *values, void *cf) {
  for (int c = 0; c < ncf; c++)
    for (int64_t k = 0; k < od->K_owned; k++)
      for (int i = 0; i < od->Np; i++)
        put(cf, od->real_size, ((int64_t)c * od->K + k) * od->np_pad + i,
            values[((int64_t)c * od->K_owned + k) * od->Np + i]);
}

void dg_opdata_coef_traces(const dg_opdata *od, int ncf, const double *values,
                           const void *const *ghost, void *fcf) {
  int nfn = od->nfnfp;
  size_t rs = od->real_size;
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
        else if (!boundary && ghost) /* a ghost slot: the neighbour rank's trace */
          vP = get(ghost[c / od->ncomp], rs, od->mapP[idx] + (int64_t)(c % od->ncomp) * cstride);
        put(fcf, rs, (idx * ncf + c) * 2, vM);
        put(fcf, rs, (idx * ncf + c) * 2 + 1, vP);
      }
    }
}
