/* dg.refelem_mass: the mass matrix integrates every product of two
 * monomials of degree <= N exactly (g^T M f = int f g, compared with the
 * exact Dirichlet-integral value), hence also 1^T M f = int f; M is
 * symmetric and M invM = I. */
#include "refelem_test.h"

#include "dg/linalg.h"

static void check(const dg_refelem *re, const mono *m, int nm) {
  int dim = re->dim, N = re->N, Np = re->Np;
  double *F = monomials_at_nodes(re, m, nm);
  double *MF = malloc((size_t)Np * nm * sizeof *MF);
  double *G = malloc((size_t)nm * nm * sizeof *G);
  MUST(dg_linalg_matmul(0, 0, Np, nm, Np, re->M, F, MF));
  MUST(dg_linalg_matmul(1, 0, nm, nm, Np, F, MF, G));
  /* Tolerance: M = V^{-T} V^{-1} carries relative error ~eps cond(V)^2
   * (cond(V) ~1e2 at N = 10 in 3D) and g^T M f sums Np^2 terms with
   * |f|, |g| <= 1, i.e. roughly Np times the row sums of |M|, which are
   * O(volume / Np) each; 1e-14 per node (3e-12 for 3D N = 10) covers it,
   * while an error of 1e-10 in any mass entry would show. */
  double tol = 1e-14 * Np;
  for (int a = 0; a < nm; ++a)
    for (int b = 0; b < nm; ++b) {
      mono p = {{m[a].e[0] + m[b].e[0], m[a].e[1] + m[b].e[1],
                 m[a].e[2] + m[b].e[2]}};
      double ex = exact_integral(dim, p);
      EXPECT(fabs(G[(size_t)a * nm + b] - ex) <= tol,
             "%dD N=%d: int r^%d s^%d t^%d = %.15f, exact %.15f", dim, N,
             p.e[0], p.e[1], p.e[2], G[(size_t)a * nm + b], ex);
    }
  for (int a = 0; a < nm; ++a) {
    double one = 0.0;
    for (int v = 0; v < Np; ++v)
      one += MF[(size_t)v * nm + a];
    double ex = exact_integral(dim, m[a]);
    EXPECT(fabs(one - ex) <= tol, "%dD N=%d: 1^T M f for r^%d s^%d t^%d "
           "= %.15f, exact %.15f", dim, N, m[a].e[0], m[a].e[1],
           m[a].e[2], one, ex);
  }
  double *P = malloc((size_t)Np * Np * sizeof *P);
  MUST(dg_linalg_matmul(0, 0, Np, Np, Np, re->M, re->invM, P));
  for (int i = 0; i < Np; ++i)
    for (int j = 0; j < Np; ++j) {
      EXPECT(fabs(P[i * Np + j] - (i == j)) < 1e-10,
             "%dD N=%d: (M invM)[%d][%d] = %g", dim, N, i, j,
             P[i * Np + j]);
      EXPECT(fabs(re->M[i * Np + j] - re->M[j * Np + i]) < 1e-14,
             "%dD N=%d: M not symmetric at %d,%d", dim, N, i, j);
    }
  free(P);
  free(F);
  free(MF);
  free(G);
}

int main(void) {
  for_each_element(check);
  return test_result("dg.refelem_mass");
}
