/* dg.refelem_lift: the LIFT matrix realises the surface integral.
 * (1) For all monomials v, phi of degree <= N and each direction d,
 *       v^T M LIFT g = oint v n_d phi = int d/dx_d (v phi)
 *     with g the face-node values sJ n_d phi (reference normals and surface
 *     Jacobians written out by hand), the right side exact.
 * (2) For random polynomial vector fields F of degree <= N,
 *       1^T M (sum_d D_d F_d) = 1^T M LIFT (sJ n.F) = int div F (exact).
 * N = 1..10, dims 1..3. */
#include "refelem_test.h"

#include "dg/linalg.h"

#include <time.h>

static void check(int dim, int N) {
  dg_refelem *re = NULL;
  MUST(dg_refelem_create(dim, N, &re));
  int Np = re->Np, Nfp = re->Nfp, Nf = re->Nfaces, nfn = Nf * Nfp, nm;
  mono *m = monomials(dim, N, &nm);
  double *F = monomials_at_nodes(re, m, nm);  /* Np x nm */
  double *W = malloc((size_t)Np * nfn * sizeof *W);
  double *G = malloc((size_t)nfn * nm * sizeof *G);
  double *WG = malloc((size_t)Np * nm * sizeof *WG);
  double *R = malloc((size_t)nm * nm * sizeof *R);
  MUST(dg_linalg_matmul(0, 0, Np, nfn, Np, re->M, re->LIFT, W));
  /* Tolerance: entries of M LIFT are face mass entries (<= 2), rounded
   * through V V^T and its inverse (relative error ~eps cond(V)^2 <= 1e-11
   * at N = 10 in 3D); sums of Np * Nfp terms bounded by 1 each. */
  double tol = 1e-12 * Np;
  for (int d = 0; d < dim; ++d) {
    for (int f = 0; f < Nf; ++f) {
      double n[3], sJ;
      ref_face_normal(dim, f, n, &sJ);
      for (int i = 0; i < Nfp; ++i)
        for (int a = 0; a < nm; ++a)
          G[(size_t)(f * Nfp + i) * nm + a] =
              sJ * n[d] * F[(size_t)re->Fmask[f * Nfp + i] * nm + a];
    }
    MUST(dg_linalg_matmul(0, 0, Np, nm, nfn, W, G, WG));
    MUST(dg_linalg_matmul(1, 0, nm, nm, Np, F, WG, R));
    for (int a = 0; a < nm; ++a)
      for (int b = 0; b < nm; ++b) {
        /* d/dx_d (v phi) = e_d x^(e-1) with e the summed exponents. */
        mono p = {{m[a].e[0] + m[b].e[0], m[a].e[1] + m[b].e[1],
                   m[a].e[2] + m[b].e[2]}};
        double ex = 0.0;
        if (p.e[d] > 0) {
          double c = p.e[d];
          p.e[d] -= 1;
          ex = c * exact_integral(dim, p);
        }
        double got = R[(size_t)a * nm + b];
        EXPECT(fabs(got - ex) < tol, "%dD N=%d d=%d v=#%d phi=#%d: surface "
               "integral %.15g, exact %.15g", dim, N, d, a, b, got, ex);
      }
  }
  /* Random fields: coefficients c[d][a] in [-1, 1]. */
  for (int trial = 0; trial < 5; ++trial) {
    double c[3][816]; /* Np of 3D N = 15 bounds nm */
    double exact = 0.0, vol = 0.0, surf = 0.0;
    double *Fd = calloc((size_t)Np * 3, sizeof *Fd), *div = calloc((size_t)Np, sizeof *div);
    double *g = calloc((size_t)nfn, sizeof *g);
    for (int d = 0; d < dim; ++d)
      for (int a = 0; a < nm; ++a) {
        c[d][a] = urand();
        if (m[a].e[d] > 0) {
          mono p = m[a];
          p.e[d] -= 1;
          exact += c[d][a] * m[a].e[d] * exact_integral(dim, p);
        }
        for (int v = 0; v < Np; ++v)
          Fd[(size_t)d * Np + v] += c[d][a] * F[(size_t)v * nm + a];
      }
    const double *D[3] = {re->Dr, re->Ds, re->Dt};
    for (int d = 0; d < dim; ++d)
      for (int v = 0; v < Np; ++v)
        for (int w = 0; w < Np; ++w)
          div[v] += D[d][(size_t)v * Np + w] * Fd[(size_t)d * Np + w];
    for (int f = 0; f < Nf; ++f) {
      double n[3], sJ;
      ref_face_normal(dim, f, n, &sJ);
      for (int i = 0; i < Nfp; ++i)
        for (int d = 0; d < dim; ++d)
          g[f * Nfp + i] += sJ * n[d] * Fd[(size_t)d * Np + re->Fmask[f * Nfp + i]];
    }
    for (int v = 0; v < Np; ++v)
      for (int w = 0; w < Np; ++w)
        vol += re->M[(size_t)v * Np + w] * div[w];
    for (int v = 0; v < Np; ++v)
      for (int j = 0; j < nfn; ++j)
        surf += W[(size_t)v * nfn + j] * g[j];
    /* Fields are sums of nm monomials with |c| <= 1: scale by nm. */
    double ftol = 1e-12 * nm * (1 + N * N);
    EXPECT(fabs(vol - exact) < ftol && fabs(surf - exact) < ftol,
           "%dD N=%d random field: volume %.15g, surface %.15g, exact %.15g",
           dim, N, vol, surf, exact);
    free(Fd);
    free(div);
    free(g);
  }
  free(m);
  free(F);
  free(W);
  free(G);
  free(WG);
  free(R);
  dg_refelem_destroy(&re);
}

int main(void) {
  rng_state = (unsigned long long)time(NULL) * 2654435761ULL + 7;
  printf("seed %llu\n", rng_state);
  for (int dim = 1; dim <= 3; ++dim)
    for (int N = 1; N <= 10; ++N)
      check(dim, N);
  return test_result("dg.refelem_lift");
}
