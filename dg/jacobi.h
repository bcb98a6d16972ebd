/* Jacobi polynomials and Gauss quadrature (Hesthaven & Warburton 2008,
 * Appendix A: JacobiP, GradJacobiP, JacobiGQ, JacobiGL).
 *
 * P_n^{(a,b)} is normalised to be orthonormal on [-1, 1] with weight
 * (1-x)^a (1+x)^b, i.e. int P_m P_n (1-x)^a (1+x)^b dx = delta_mn
 * (H&W eq. A.2 and the normalisation below it). */
#ifndef DG_DG_JACOBI_H
#define DG_DG_JACOBI_H

#include "core/error.h"

/* Normalised Jacobi polynomial P_n^{(a,b)}(x), n >= 0, a, b > -1 (JacobiP,
 * three-term recurrence H&W eq. A.3).  Returns 0 for n < 0. */
double dg_jacobi_p(double x, double a, double b, int n);

/* Its derivative: d/dx P_n^{(a,b)} = sqrt(n (n+a+b+1)) P_{n-1}^{(a+1,b+1)}
 * (H&W eq. A.4, GradJacobiP). */
double dg_jacobi_grad_p(double x, double a, double b, int n);

/* P_0^{(a,b)}(x) .. P_n^{(a,b)}(x) into P[0..n] in one pass of the
 * recurrence (n >= 0). */
void dg_jacobi_p_all(double x, double a, double b, int n, double *P);

/* Their derivatives into dP[0..n] (dP[0] = 0). */
void dg_jacobi_grad_p_all(double x, double a, double b, int n, double *dP);

/* Gauss-Jacobi quadrature with q >= 1 points for the weight
 * (1-x)^a (1+x)^b, exact for degree 2q-1 (JacobiGQ with N = q-1): the points
 * are the eigenvalues of the symmetric Jacobi matrix of the recurrence
 * (Golub-Welsch), the weights the squared first eigenvector components times
 * int (1-x)^a (1+x)^b dx.  x ascending. */
dg_error dg_jacobi_gq(double a, double b, int q, double *x, double *w);

/* Gauss-Lobatto-Jacobi points for order n >= 1 (n+1 points, JacobiGL):
 * -1, the n-1 Gauss points of weight (1-x)^(a+1) (1+x)^(b+1), +1; ascending.
 * For a = b = 0 these are the Legendre-Gauss-Lobatto (LGL) points. */
dg_error dg_jacobi_gl(double a, double b, int n, double *x);

#endif
