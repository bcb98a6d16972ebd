/* dg.refelem_jacobi: Jacobi polynomials, their derivatives and
 * Gauss(-Lobatto) quadrature against independent formulas. */
#include "refelem_test.h"

#include "dg/jacobi.h"

#include <time.h>

int main(void) {
  rng_state = (unsigned long long)time(NULL) * 2654435761ULL + 1;
  printf("seed %llu\n", rng_state);
  /* P_n^{(0,0)} = sqrt((2n+1)/2) L_n (orthonormal Legendre). */
  for (int n = 0; n <= 20; ++n)
    for (int p = 0; p < 50; ++p) {
      double x = 0.999 * urand(), L, dL;
      legendre(n, x, &L, &dL);
      double ex = sqrt((2.0 * n + 1.0) / 2.0) * L;
      EXPECT(fabs(dg_jacobi_p(x, 0, 0, n) - ex) < 1e-13 * (1 + fabs(ex)),
             "P_%d(%g) = %.16g, expected %.16g", n, x, dg_jacobi_p(x, 0, 0, n),
             ex);
      double dex = sqrt((2.0 * n + 1.0) / 2.0) * dL;
      /* dL from the identity above loses ~1/(1-x^2) <= 500 ulps. */
      EXPECT(fabs(dg_jacobi_grad_p(x, 0, 0, n) - dex) < 1e-11 * (1 + fabs(dex)),
             "P_%d'(%g) = %.16g, expected %.16g", n, x,
             dg_jacobi_grad_p(x, 0, 0, n), dex);
    }
  /* Orthonormality of P_n^{(a,0)} for every a the bases use (a = 2i+1 in
   * 2D, a = 2(i+j)+2 <= 2N+2 = 32 in 3D), n <= 15, with an independent rule:
   * Gauss-Legendre with 40 points (exact to degree 79 >= 2n + a) taken
   * from Newton iteration on L_40 (no dg/ code), weight (1-x)^a explicit. */
  {
    enum { Q = 40 };
    double gx[Q], gw[Q];
    for (int i = 0; i < Q; ++i) {
      double y = -cos(M_PI_REF * (i + 0.75) / (Q + 0.5)), L, dL;
      for (int it = 0; it < 100; ++it) {
        legendre(Q, y, &L, &dL);
        double dy = L / dL;
        y -= dy;
        if (fabs(dy) < 1e-16)
          break;
      }
      legendre(Q, y, &L, &dL);
      gx[i] = y;
      gw[i] = 2.0 / ((1.0 - y * y) * dL * dL);
    }
    for (int a = 0; a <= 32; ++a)
      for (int m = 0; m <= 15; ++m)
        for (int n = m; n <= 15; ++n) {
          double sum = 0.0;
          for (int i = 0; i < Q; ++i)
            sum += gw[i] * pow(1.0 - gx[i], a) * dg_jacobi_p(gx[i], a, 0, m) *
                   dg_jacobi_p(gx[i], a, 0, n);
          EXPECT(fabs(sum - (m == n)) < 1e-12, "a=%d: <P_%d, P_%d> = %.3e",
                 a, m, n, sum);
        }
  }
  /* Gauss-Jacobi with q points integrates (1-x)^a (1+x)^(b+m), m < 2q,
   * exactly: 2^(a+b+m+1) B(a+1, b+m+1) (Beta function; these span all
   * polynomials of degree < 2q). */
  const double ab[][2] = {{0, 0}, {1, 0}, {2, 0}, {5, 0}, {1, 1},
                          {0.5, -0.5}, {3, 2}, {-0.5, 0.5}};
  for (size_t c = 0; c < sizeof ab / sizeof ab[0]; ++c) {
    double a = ab[c][0], b = ab[c][1];
    for (int q = 1; q <= 16; ++q) {
      double x[16], w[16];
      MUST(dg_jacobi_gq(a, b, q, x, w));
      for (int i = 0; i < q; ++i) {
        EXPECT(w[i] > 0 && fabs(x[i]) < 1, "a=%g b=%g q=%d: point %d", a, b,
               q, i);
        EXPECT(i == 0 || x[i] > x[i - 1], "points not ascending");
      }
      for (int m = 0; m < 2 * q; ++m) {
        double sum = 0.0;
        for (int i = 0; i < q; ++i)
          sum += w[i] * pow(1.0 + x[i], m);
        double ex = exp((a + b + m + 1) * log(2.0) + lgamma(a + 1) +
                        lgamma(b + m + 1) - lgamma(a + b + m + 2));
        EXPECT(fabs(sum - ex) < 1e-13 * ex, "a=%g b=%g q=%d m=%d: %.16g vs "
               "%.16g", a, b, q, m, sum, ex);
      }
      /* Orthonormality int P_m P_n w = delta_mn, m, n < q (degree 2q-2). */
      for (int m = 0; m < q; ++m)
        for (int n = 0; n < q; ++n) {
          double sum = 0.0;
          for (int i = 0; i < q; ++i)
            sum += w[i] * dg_jacobi_p(x[i], a, b, m) * dg_jacobi_p(x[i], a, b, n);
          EXPECT(fabs(sum - (m == n)) < 1e-12, "a=%g b=%g: <P_%d, P_%d> = %g",
                 a, b, m, n, sum);
        }
      /* Derivative vs a fourth-order central difference: the truncation
       * error grows like (n h)^4 (P_n varies on a scale 1/n), round-off like
       * eps/h; h = 2e-3/(n+1) keeps both far below 1e-6 relative. */
      for (int n = 0; n < q; ++n) {
        double y = 0.9 * urand(), h = 2e-3 / (n + 1);
        double fd = (-dg_jacobi_p(y + 2 * h, a, b, n) +
                     8 * dg_jacobi_p(y + h, a, b, n) -
                     8 * dg_jacobi_p(y - h, a, b, n) +
                     dg_jacobi_p(y - 2 * h, a, b, n)) / (12 * h);
        double g = dg_jacobi_grad_p(y, a, b, n);
        EXPECT(fabs(g - fd) < 1e-6 * (1 + fabs(fd)), "a=%g b=%g: P_%d'(%g) = "
               "%.12g, difference quotient %.12g", a, b, n, y, g, fd);
        double all[16], dall[16];
        dg_jacobi_p_all(y, a, b, n, all);
        dg_jacobi_grad_p_all(y, a, b, n, dall);
        for (int k = 0; k <= n; ++k)
          EXPECT(all[k] == dg_jacobi_p(y, a, b, k) &&
                 fabs(dall[k] - dg_jacobi_grad_p(y, a, b, k)) <=
                     1e-14 * (1 + fabs(dall[k])),
                 "p_all/grad_p_all differ from p/grad_p at k = %d", k);
      }
    }
  }
  /* Gauss-Lobatto (0,0) = LGL points from Newton on L_N'. */
  for (int N = 1; N <= 20; ++N) {
    double x[21], ref[21];
    MUST(dg_jacobi_gl(0, 0, N, x));
    lgl_reference(N, ref);
    for (int i = 0; i <= N; ++i)
      EXPECT(fabs(x[i] - ref[i]) < 1e-14, "LGL N=%d point %d: %.17g vs %.17g",
             N, i, x[i], ref[i]);
  }
  double x[4], w[4];
  EXPECT(dg_jacobi_gq(0, 0, 0, x, w) == DG_ERR_ARG, "q = 0 accepted");
  EXPECT(dg_jacobi_gq(-1, 0, 2, x, w) == DG_ERR_ARG, "a = -1 accepted");
  EXPECT(dg_jacobi_gl(0, 0, 0, x) == DG_ERR_ARG, "GL order 0 accepted");
  dg_error_clear();
  return test_result("dg.refelem_jacobi");
}
