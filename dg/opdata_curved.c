/* The operator data of curved elements (issue 40): per-node metric terms
 * and per-face-node normals and surface Jacobians sJ, for the elements [0, ncurved) that
 * the generated curved kernels run over (operators/codegen.h, "curved").
 *
 * Formulation (why these numbers and not d->G): the curved kernels evaluate
 * the divergence of a flux in conservative (divergence) form with the
 * contravariant fluxes ghat_a = sum_d Ja_ad F_d, Ja_ad = J dr_a/dx_d,
 *   div F (x_i) = (1/J_i) sum_a (D_a ghat_a)(r_i),
 * the collocation form of Kopriva (2006), "Metric identities and the
 * discontinuous spectral element method on curvilinear meshes", J. Sci.
 * Comput. 26:301-327.  A constant state keeps its value (free-stream
 * preservation) when the discrete metric identities sum_a D_a Ja_ad = 0 hold
 * at every node; with the exact metric terms they hold only to the
 * interpolation error of Ja.  Kopriva's remedy, used here: compute Ja from
 * the interpolated geometry, x_N = I_N x (the element's node coordinates),
 *   2D   J rx = D_s y, J ry = -D_s x, J sx = -D_r y, J sy = D_r x
 *   3D   the conservative curl form (his eq. 36): Ja^i_n =
 *        -[curl_r I_N(x_l grad_r x_m)]_i, (n, m, l) cyclic,
 * for which sum_a D_a Ja_ad is a divergence of a curl of polynomials of
 * degree N, zero because the D_a commute on P_N.  J is det(D x_N).  The face
 * normals and surface Jacobians come from the same Ja at the face nodes
 * (sJ n = sum_a c_fa Ja_a, the Normals2D/3D coefficients), so both sides
 * of a face see one sJ n (its tangential derivatives of the shared face
 * trace): the scheme is conservative, d/dt sum_i w_i J_i u_i being the sum
 * of the faces' fluxes (w the mass matrix's row sums).  The inverse mass
 * matrix is the collocation one, diag(1/J) applied after the reference
 * operators, to the volume terms and to the lift alike:
 *   du/dt_i = (1/J_i) [-sum_a (D_a ghat_a)_i + (LIFT (sJ (f* - n.F(u-))))_i],
 * so that sum_i w_i J_i du_i/dt telescopes into the faces' sJ f* (with the
 * affine path's Fscale = sJ/J inside the lift, J_i / J_face would not
 * cancel).  Not the weight-adjusted M^-1 M_{1/J} M^-1 of Chan, Hewett &
 * Warburton (2017): it costs no extra matrix product, and for resolved
 * linear waves it converges at the design rate (tests).
 * Other volume terms (a lone derivative dx(g)) use the chain rule with the
 * same per-node dr/dx = Ja / J, which a constant state also keeps exactly.
 *
 * The device rows, NGEO = DIM*DIM + 1 reals per node and DIM + 1 per face
 * node (the affine egeo and fgeo hold the same per element and per face):
 *   cgeo[(k*NGEO + g)*NP + i]: g = a*DIM + d Ja_ad, g = DIM*DIM 1/J (node
 *   i fastest: the threads of an element's nodes load each factor coalesced)
 *   cfgeo[(k*NFNFP + m)*(DIM+1) + d] = n_d, cfgeo[... + DIM] = sJ
 * (the surface kernels' "fscale": the curved volume kernel applies 1/J). */
#include "dg/opdata.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Face normals' coefficients: face f's sJ n = sum_a c[f][a] Ja_a
 * (dg/discretization.c, Hesthaven & Warburton 2008 Normals2D/3D). */
static const double coef2[3][3] = {{0, -1, 0}, {1, 1, 0}, {-1, 0, 0}};
static const double coef3[4][3] = {{0, 0, -1}, {0, -1, 0}, {1, 1, 1}, {-1, 0, 0}};

static void put(void *buf, size_t real_size, int64_t idx, double v) {
  if (real_size == 4)
    ((float *)buf)[idx] = (float)v;
  else
    ((double *)buf)[idx] = v;
}

/* y = D x for one element's nodes (D row-major Np x Np). */
static void apply(const double *D, int Np, const double *x, double *y) {
  for (int i = 0; i < Np; i++) {
    double s = 0;
    for (int j = 0; j < Np; j++)
      s += D[i * Np + j] * x[j];
    y[i] = s;
  }
}

/* Ja[(i*3 + a)*3 + d] and J[i] of element k from its node coordinates;
 * w: scratch of 11 Np doubles. */
static void kopriva_metrics(const dg_discretization *d, int64_t k, double *Ja, double *J,
                            double *w) {
  const int dim = d->dim, Np = d->Np;
  const double *D[3] = {d->re->Dr, d->re->Ds, d->re->Dt};
  const double *x[3] = {NULL, NULL, NULL};
  for (int c = 0; c < dim; c++)
    x[c] = d->X[c] + k * Np;
  double *dx = w; /* dx[(c*3 + b)*Np + i] = d x_c / d r_b */
  for (int c = 0; c < dim; c++)
    for (int b = 0; b < dim; b++)
      apply(D[b], Np, x[c], dx + (c * 3 + b) * Np);
#define DX(c, b, i) dx[((c) * 3 + (b)) * Np + (i)]
  memset(Ja, 0, (size_t)Np * 9 * sizeof *Ja);
  if (dim == 2) {
    for (int i = 0; i < Np; i++) {
      Ja[(i * 3 + 0) * 3 + 0] = DX(1, 1, i);
      Ja[(i * 3 + 0) * 3 + 1] = -DX(0, 1, i);
      Ja[(i * 3 + 1) * 3 + 0] = -DX(1, 0, i);
      Ja[(i * 3 + 1) * 3 + 1] = DX(0, 0, i);
      J[i] = DX(0, 0, i) * DX(1, 1, i) - DX(0, 1, i) * DX(1, 0, i);
    }
    return;
  }
  double *tmp = w + 9 * Np, *tmp2 = w + 10 * Np;
  for (int n = 0; n < 3; n++) {
    const int m = (n + 1) % 3, l = (n + 2) % 3;
    for (int i = 0; i < 3; i++) { /* reference direction i: (curl V)_i */
      const int j1 = (i + 1) % 3, j2 = (i + 2) % 3;
      /* (curl V)_i = D_j1 V_j2 - D_j2 V_j1, V_j = I_N(x_l D_j x_m) */
      for (int p = 0; p < Np; p++)
        tmp[p] = x[l][p] * DX(m, j2, p);
      apply(D[j1], Np, tmp, tmp2);
      for (int p = 0; p < Np; p++)
        Ja[(p * 3 + i) * 3 + n] = -tmp2[p];
      for (int p = 0; p < Np; p++)
        tmp[p] = x[l][p] * DX(m, j1, p);
      apply(D[j2], Np, tmp, tmp2);
      for (int p = 0; p < Np; p++)
        Ja[(p * 3 + i) * 3 + n] += tmp2[p];
    }
  }
  for (int i = 0; i < Np; i++) {
    double A[3][3];
    for (int c = 0; c < 3; c++)
      for (int b = 0; b < 3; b++)
        A[c][b] = DX(c, b, i);
    J[i] = A[0][0] * (A[1][1] * A[2][2] - A[1][2] * A[2][1]) -
           A[0][1] * (A[1][0] * A[2][2] - A[1][2] * A[2][0]) +
           A[0][2] * (A[1][0] * A[2][1] - A[1][1] * A[2][0]);
  }
#undef DX
}

/* The rows of curved element k; returns the first node with J <= 0 or -1. */
static int curved_rows(const dg_discretization *d, dg_opdata *o, int64_t k, double *Ja,
                       double *J, double *w) {
  const int dim = d->dim, Np = d->Np, Nfp = d->Nfp, ngeo = o->ngeo;
  const size_t rs = o->real_size;
  kopriva_metrics(d, k, Ja, J, w);
  int bad = -1;
  for (int i = 0; i < Np; i++) {
    if (!(J[i] > 0) && bad < 0)
      bad = i;
    for (int a = 0; a < dim; a++)
      for (int c = 0; c < dim; c++)
        put(o->cgeo, rs, (k * ngeo + a * dim + c) * Np + i, Ja[(i * 3 + a) * 3 + c]);
    put(o->cgeo, rs, (k * ngeo + dim * dim) * Np + i, 1.0 / J[i]);
  }
  const double(*coef)[3] = dim == 2 ? coef2 : coef3;
  for (int f = 0; f < d->Nfaces; f++)
    for (int j = 0; j < Nfp; j++) {
      const int vn = d->re->Fmask[f * Nfp + j];
      const int64_t m = k * o->nfnfp + f * Nfp + j;
      double nv[3] = {0, 0, 0}, len = 0;
      for (int c = 0; c < dim; c++) {
        for (int a = 0; a < dim; a++)
          nv[c] += coef[f][a] * Ja[(vn * 3 + a) * 3 + c];
        len += nv[c] * nv[c];
      }
      len = sqrt(len);
      for (int c = 0; c < dim; c++)
        put(o->cfgeo, rs, m * (dim + 1) + c, nv[c] / len);
      put(o->cfgeo, rs, m * (dim + 1) + dim, len); /* sJ: 1/J comes after the lift */
    }
  return bad;
}

dg_error dg_opdata_curved_fill(const dg_discretization *d, dg_opdata *o) {
  o->Kc = 0;
  if (d->ncurved == 0)
    return DG_OK;
  DG_CHECK(d->dim >= 2, DG_ERR_UNSUPPORTED, "curved elements in %dD", d->dim);
  for (int64_t k = 0; k < d->K; k++)
    DG_CHECK(d->curved[k] == (k < d->ncurved), DG_ERR_ARG,
             "element %lld: the curved kernels need the curved elements first (elements 0 .. "
             "%lld; dg_mesh_order_curved_first)",
             (long long)k, (long long)d->ncurved - 1);
  const int64_t Kc = d->ncurved;
  const size_t rs = o->real_size;
  o->cgeo = calloc((size_t)Kc * d->Np * o->ngeo, rs);
  o->cfgeo = calloc((size_t)Kc * o->nfnfp * (d->dim + 1), rs);
  DG_CHECK(o->cgeo && o->cfgeo, DG_ERR_MEMORY,
           "out of memory for the metric terms of %lld curved elements", (long long)Kc);
  int64_t bad = INT64_MAX; /* first node k*Np + i with J <= 0 */
#pragma omp parallel
  {
    double *buf = malloc((size_t)d->Np * (9 + 1 + 11) * sizeof *buf);
#pragma omp for schedule(static) reduction(min : bad)
    for (int64_t k = 0; k < Kc; k++) {
      if (!buf) {
        bad = -1;
        continue;
      }
      int i = curved_rows(d, o, k, buf, buf + 9 * d->Np, buf + 10 * d->Np);
      if (i >= 0 && k * d->Np + i < bad)
        bad = k * d->Np + i;
    }
    free(buf);
  }
  DG_CHECK(bad >= 0, DG_ERR_MEMORY, "out of memory for the curved metric terms");
  DG_CHECK(bad == INT64_MAX, DG_ERR_INPUT,
           "curved element %lld: the Jacobian of its order-%d interpolated geometry is <= 0 "
           "at node %d (the element is too strongly curved for N = %d: refine near the "
           "curved boundary or raise N)",
           (long long)(bad / d->Np), d->N, (int)(bad % d->Np), d->N);
  o->Kc = Kc;
  return DG_OK;
}
