#include "dg/bernstein_lift.h"

#include <stdlib.h>

#include "dg/bernstein.h"
#include "dg/refelem.h"

static double binomial(int n, int k) {
  double c = 1;
  for (int i = 1; i <= k; ++i)
    c = c * (n - k + i) / i;
  return c;
}

dg_error dg_bernstein_lift_create(const dg_refelem *re, const dg_bernstein *bb,
                                  dg_bernstein_lift **out) {
  DG_CHECK(out, DG_ERR_ARG, "Bernstein lift: NULL output pointer");
  *out = NULL;
  DG_CHECK(re && bb, DG_ERR_ARG, "Bernstein lift: NULL reference element or basis");
  DG_CHECK(re->dim == bb->dim && re->N == bb->N && re->Np == bb->Np && re->Nfp == bb->Nfp,
           DG_ERR_ARG, "Bernstein lift: the basis (%dD, N = %d) is not the reference "
           "element's (%dD, N = %d)", bb->dim, bb->N, re->dim, re->N);
  int nv = bb->dim + 1, Nfp = bb->Nfp, nf = bb->Nfaces;
  dg_bernstein_lift *l = calloc(1, sizeof *l);
  DG_CHECK(l, DG_ERR_MEMORY, "Bernstein lift: cannot allocate");
  *l = (dg_bernstein_lift){.dim = bb->dim, .N = bb->N, .Np = bb->Np, .Nfp = Nfp, .Nfaces = nf};
  l->zero = malloc((size_t)nf * sizeof *l->zero);
  l->ell = malloc((size_t)(bb->N + 1) * sizeof *l->ell);
  if (!l->zero || !l->ell) {
    dg_bernstein_lift_destroy(&l);
    DG_RAISE(DG_ERR_MEMORY, "Bernstein lift: cannot allocate the %dD N = %d factors", bb->dim,
             bb->N);
  }
  for (int f = 0; f < nf; ++f) {
    /* the component that is zero at every node of the face (bernstein.h) */
    l->zero[f] = -1;
    for (int v = 0; v < nv && l->zero[f] < 0; ++v) {
      int all = 1;
      for (int n = 0; n < Nfp && all; ++n)
        all = bb->alpha[re->Fmask[f * Nfp + n] * nv + v] == 0;
      if (all)
        l->zero[f] = v;
    }
    if (l->zero[f] < 0) {
      dg_bernstein_lift_destroy(&l);
      DG_RAISE(DG_ERR_ARG, "Bernstein lift: no barycentric component vanishes on face %d", f);
    }
  }
  l->l0_diag = bb->N + 0.5 * bb->dim;
  l->l0_ee = 0.5 * bb->N * bb->N;
  for (int j = 0; j <= bb->N; ++j)
    l->ell[j] = (j % 2 ? -1.0 : 1.0) * binomial(bb->N, j) / (j + 1);
  *out = l;
  return DG_OK;
}

void dg_bernstein_lift_destroy(dg_bernstein_lift **l) {
  if (!l || !*l)
    return;
  free((*l)->zero);
  free((*l)->ell);
  free(*l);
  *l = NULL;
}

/* Layer j of t from layer j - 1 (one degree reduction); out, unless NULL,
 * gets ell_j times it. */
static void reduce(const dg_bernstein_lift *l, const dg_bernstein *bb, int z, int j,
                   double *t, double *out) {
  int nv = l->dim + 1;
  for (int a = 0; a < l->Np; ++a) {
    const int *al = &bb->alpha[a * nv];
    if (al[z] != j)
      continue;
    double s = 0;
    for (int v = 0; v < nv; ++v)
      if (v != z)
        s += (al[v] + 1.0) / (l->N - j + 1) * t[bb->nb[(a * nv + z) * nv + v]];
    t[a] = s;
    if (out)
      out[a] += l->ell[j] * s;
  }
}

void dg_bernstein_lift_apply(const dg_bernstein_lift *l, const dg_bernstein *bb,
                             const int *Fmask, int f, const double *g, double *t,
                             double *out) {
  int nv = l->dim + 1, Nfp = l->Nfp, z = l->zero[f];
  /* E^T g: the face data on layer 0, one degree reduction onto layer 1 */
  for (int n = 0; n < Nfp; ++n)
    t[Fmask[f * Nfp + n]] = g[n];
  reduce(l, bb, z, 1, t, NULL);
  /* layer 0: t = L0_f g = l0_diag g + l0_ee E (E^T g), E's weights beta_v / N
   * from the layer-1 nodes beta - e_v + e_z (E^T g, overwritten below by
   * the chain's own layer 1) */
  for (int n = 0; n < Nfp; ++n) {
    int p = Fmask[f * Nfp + n];
    const int *al = &bb->alpha[p * nv];
    double e = 0;
    for (int v = 0; v < nv; ++v)
      if (v != z && al[v] > 0)
        e += (double)al[v] / l->N * t[bb->nb[(p * nv + v) * nv + z]];
    t[p] = l->l0_diag * g[n] + l->l0_ee * e;
    out[p] += t[p];
  }
  /* layers 1..N: one degree reduction each from the layer below */
  for (int j = 1; j <= l->N; ++j)
    reduce(l, bb, z, j, t, out);
}
