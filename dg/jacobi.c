/* Jacobi polynomials and Gauss quadrature, see jacobi.h. */
#include "dg/jacobi.h"

#include "dg/linalg.h"

#include <math.h>
#include <stdlib.h>

/* int_{-1}^{1} (1-x)^a (1+x)^b dx = 2^(a+b+1) G(a+1) G(b+1) / G(a+b+2): the
 * squared norm of the monic P_0 (H&W eq. A.2 with n = 0), through lgamma so
 * that the large a of the 3D basis (a = 2(i+j)+2) cannot overflow. */
static double weight_integral(double a, double b) {
  return exp((a + b + 1.0) * log(2.0) + lgamma(a + 1.0) + lgamma(b + 1.0) -
             lgamma(a + b + 2.0));
}

/* The normalised recurrence, storing P_0..P_n in P when P is not NULL;
 * returns P_n. */
static double recurrence(double x, double a, double b, int n, double *P) {
  /* gamma0 = ||P_0||^2, gamma1 = ||P_1||^2 of the unnormalised polynomials
   * (H&W JacobiP). */
  double gamma0 = weight_integral(a, b);
  double pold = 1.0 / sqrt(gamma0);
  if (P)
    P[0] = pold;
  if (n == 0)
    return pold;
  double gamma1 = (a + 1.0) * (b + 1.0) / (a + b + 3.0) * gamma0;
  double p = ((a + b + 2.0) * x / 2.0 + (a - b) / 2.0) / sqrt(gamma1);
  if (P)
    P[1] = p;
  /* x P_i = a_{i+1} P_{i+1} + b_i P_i + a_i P_{i-1} (H&W eq. A.3). */
  double aold = 2.0 / (2.0 + a + b) * sqrt((a + 1.0) * (b + 1.0) / (a + b + 3.0));
  for (int i = 1; i < n; ++i) {
    double h1 = 2.0 * i + a + b;
    double anew = 2.0 / (h1 + 2.0) *
                  sqrt((i + 1.0) * (i + 1.0 + a + b) * (i + 1.0 + a) *
                       (i + 1.0 + b) / (h1 + 1.0) / (h1 + 3.0));
    double bnew = -(a * a - b * b) / h1 / (h1 + 2.0);
    double pnew = (-aold * pold + (x - bnew) * p) / anew;
    pold = p;
    p = pnew;
    aold = anew;
    if (P)
      P[i + 1] = p;
  }
  return p;
}

double dg_jacobi_p(double x, double a, double b, int n) {
  return n < 0 ? 0.0 : recurrence(x, a, b, n, NULL);
}

double dg_jacobi_grad_p(double x, double a, double b, int n) {
  if (n <= 0)
    return 0.0;
  return sqrt(n * (n + a + b + 1.0)) * recurrence(x, a + 1.0, b + 1.0, n - 1, NULL);
}

void dg_jacobi_p_all(double x, double a, double b, int n, double *P) {
  if (n >= 0)
    recurrence(x, a, b, n, P);
}

void dg_jacobi_grad_p_all(double x, double a, double b, int n, double *dP) {
  if (n < 0)
    return;
  dP[0] = 0.0;
  if (n == 0)
    return;
  /* dP_i = sqrt(i (i+a+b+1)) P_{i-1}^{(a+1,b+1)}: fill P^{(a+1,b+1)} one
   * slot up, then scale. */
  recurrence(x, a + 1.0, b + 1.0, n - 1, dP + 1);
  for (int i = 1; i <= n; ++i)
    dP[i] *= sqrt(i * (i + a + b + 1.0));
}

dg_error dg_jacobi_gq(double a, double b, int q, double *x, double *w) {
  DG_CHECK(q >= 1 && x && w, DG_ERR_ARG, "Gauss-Jacobi: bad point count %d",
           q);
  DG_CHECK(a > -1.0 && b > -1.0, DG_ERR_ARG,
           "Gauss-Jacobi: weight exponents must exceed -1 (a = %g, b = %g)", a,
           b);
  double *e = malloc((size_t)q * sizeof *e);
  double *Z = malloc((size_t)q * (size_t)q * sizeof *Z);
  dg_error err = DG_OK;
  DG_CHECK_GOTO(err, done, e && Z, DG_ERR_MEMORY,
                "Gauss-Jacobi: cannot allocate for %d points", q);
  /* Jacobi matrix of the normalised recurrence: diagonal b_i, off-diagonal
   * a_{i+1} (H&W JacobiGQ).  For i = 0 the diagonal -(a^2-b^2)/((h1+2) h1)
   * with h1 = a+b is written without the factor a+b that cancels, so that
   * a + b = 0 needs no special case (the book's J(1,1) = 0 there is right
   * only for a = b). */
  for (int i = 0; i < q; ++i) {
    double h1 = 2.0 * i + a + b;
    x[i] = i == 0 ? (b - a) / (a + b + 2.0) : -(a * a - b * b) / (h1 + 2.0) / h1;
    if (i + 1 < q) {
      double j = i + 1.0;
      e[i] = 2.0 / (h1 + 2.0) *
             sqrt(j * (j + a + b) * (j + a) * (j + b) / (h1 + 1.0) / (h1 + 3.0));
    }
  }
  DG_CALL_GOTO(err, done, dg_linalg_tridiag_eig(q, x, e, Z));
  double g0 = weight_integral(a, b);
  for (int i = 0; i < q; ++i)
    w[i] = Z[i] * Z[i] * g0; /* first component of eigenvector i */
done:
  free(e);
  free(Z);
  return err;
}

dg_error dg_jacobi_gl(double a, double b, int n, double *x) {
  DG_CHECK(n >= 1 && x, DG_ERR_ARG, "Gauss-Lobatto: bad order %d", n);
  x[0] = -1.0;
  x[n] = 1.0;
  if (n == 1)
    return DG_OK;
  double *w = malloc((size_t)(n - 1) * sizeof *w);
  DG_CHECK(w, DG_ERR_MEMORY, "Gauss-Lobatto: cannot allocate %d weights", n);
  dg_error err = dg_jacobi_gq(a + 1.0, b + 1.0, n - 1, x + 1, w);
  free(w);
  DG_CALL(err);
  return DG_OK;
}
