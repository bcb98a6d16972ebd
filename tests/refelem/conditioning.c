/* dg.refelem_conditioning: V is well conditioned and the nodes interpolate
 * well, N = 1..10.
 * - cond_2(V) < 1e3 (generous: warp & blend nodes with the orthonormal
 *   basis stay near 1e2 at N = 10 in 3D, H&W Fig. 10.2; equispaced nodes
 *   pass 1e3 there);
 * - the Lebesgue constant, estimated as the largest sum |l_i(x)| over a
 *   fine sample (order 3N lattice plus the degree-6N cubature points),
 *   stays below loose bounds (1 + N in 1D/2D, 1 + N^2/2 in 3D; equispaced
 *   nodes grow like 2^N), is below that of the equispaced nodes of the same
 *   order from N = 3 on (equal for N <= 2, where LGL and equispaced
 *   coincide), and at N = 10 below a third of it (the warp is what brings
 *   it down; equispaced nodes are built here from scratch). */
#include "refelem_test.h"

#include "dg/cubature.h"
#include "dg/linalg.h"
#include "dg/nodes.h"

/* Lattice of order n (same loops as refelem.h's ordering) into r, s, t. */
static int equi_lattice(int dim, int n, double *r, double *s, double *t) {
  int v = 0;
  for (int k = 0; k <= (dim > 2 ? n : 0); ++k)
    for (int j = 0; j <= (dim > 1 ? n - k : 0); ++j)
      for (int i = 0; i <= n - j - k; ++i, ++v) {
        r[v] = -1.0 + 2.0 * i / n;
        s[v] = -1.0 + 2.0 * j / n;
        t[v] = -1.0 + 2.0 * k / n;
      }
  return v;
}

/* max_x sum_i |l_i(x)| over the sample, l = V(x) invV. */
static double lebesgue(int dim, int N, int Np, const double *invV, int ns,
                       const double *r, const double *s, const double *t) {
  double *Vx = malloc((size_t)ns * Np * sizeof *Vx);
  double *L = malloc((size_t)ns * Np * sizeof *L);
  MUST(dg_refelem_vandermonde(dim, N, ns, r, s, t, Vx, NULL, NULL, NULL));
  MUST(dg_linalg_matmul(0, 0, ns, Np, Np, Vx, invV, L));
  double mx = norm_inf(ns, Np, L);
  free(Vx);
  free(L);
  return mx;
}

int main(void) {
  for (int dim = 1; dim <= 3; ++dim)
    for (int N = 1; N <= 10; ++N) {
      dg_refelem *re = NULL;
      MUST(dg_refelem_create(dim, N, &re));
      int Np = re->Np;
      double cond;
      MUST(dg_linalg_cond2(Np, re->V, &cond));
      EXPECT(cond < 1e3, "%dD N=%d: cond(V) = %g", dim, N, cond);
      /* V V^{-1} = I checks the stored inverse. */
      double *P = malloc((size_t)Np * Np * sizeof *P);
      MUST(dg_linalg_matmul(0, 0, Np, Np, Np, re->V, re->invV, P));
      for (int i = 0; i < Np * Np; ++i)
        EXPECT(fabs(P[i] - (i / Np == i % Np)) < 1e-12, "%dD N=%d: V invV "
               "entry %d = %g", dim, N, i, P[i]);
      free(P);

      /* Sample points. */
      int nl = dg_nodes_count(dim, 3 * N);
      int nc = dg_cubature_count(dim, 6 * N), ns = nl + nc;
      double *x = calloc(3 * (size_t)ns, sizeof *x), *w = malloc((size_t)nc * sizeof *w);
      double *r = x, *s = x + ns, *t = x + 2 * ns;
      equi_lattice(dim, 3 * N, r, s, t);
      MUST(dg_cubature_simplex(dim, 6 * N, r + nl, s + nl, t + nl, w));
      double leb = lebesgue(dim, N, Np, re->invV, ns, r, s, t);

      /* Equispaced nodes of order N and their Lebesgue constant. */
      double *e = calloc(3 * (size_t)Np, sizeof *e);
      equi_lattice(dim, N, e, e + Np, e + 2 * Np);
      double *Ve = malloc((size_t)Np * Np * sizeof *Ve);
      MUST(dg_refelem_vandermonde(dim, N, Np, e, e + Np, e + 2 * Np, Ve, NULL,
                                  NULL, NULL));
      MUST(dg_linalg_inverse(Np, Ve));
      double leb_eq = lebesgue(dim, N, Np, Ve, ns, r, s, t);
      printf("%dD N=%2d cond(V) %8.2f  Lebesgue %7.3f  equispaced %9.3f\n",
             dim, N, cond, leb, leb_eq);
      double bound = dim == 3 ? 1.0 + 0.5 * N * N : 1.0 + N;
      EXPECT(leb >= 1.0 - 1e-12 && leb < bound, "%dD N=%d: Lebesgue constant "
             "%g (bound %g)", dim, N, leb, bound);
      EXPECT(N < 3 || leb < leb_eq, "%dD N=%d: Lebesgue %g not below "
             "equispaced %g", dim, N, leb, leb_eq);
      EXPECT(N < 10 || leb < leb_eq / 3.0, "%dD N=%d: Lebesgue %g vs "
             "equispaced %g", dim, N, leb, leb_eq);
      free(e);
      free(Ve);
      free(x);
      free(w);
      dg_refelem_destroy(&re);
    }
  return test_result("dg.refelem_conditioning");
}
