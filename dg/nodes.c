/* Interpolation nodes, see nodes.h.  A port of H&W's Nodes2D, Warpfactor,
 * xytors, Nodes3D, WarpShiftFace3D, evalshift, evalwarp, xyztorst. */
#include "dg/nodes.h"

#include "dg/jacobi.h"

#include <math.h>
#include <stdlib.h>

int dg_nodes_count(int dim, int N) {
  if (N < 0)
    return 0;
  switch (dim) {
  case 1: return N + 1;
  case 2: return (N + 1) * (N + 2) / 2;
  case 3: return (N + 1) * (N + 2) * (N + 3) / 6;
  default: return 0;
  }
}

dg_error dg_nodes_lgl(int N, double *r) {
  DG_CHECK(N >= 1 && r, DG_ERR_ARG, "LGL nodes: bad order %d", N);
  DG_CALL(dg_jacobi_gl(0.0, 0.0, N, r));
  return DG_OK;
}

/* The 1D warp function divided by the edge blend (H&W eq. 6.6 and
 * Warpfactor / evalwarp):
 *   w(x) = sum_i (x_i^LGL - x_i^eq) l_i^eq(x) / (1 - x^2),
 * l_i^eq the Lagrange polynomials of the N+1 equispaced points.  The end
 * terms vanish (x^LGL = x^eq = -+1), and for interior i the factor
 * (1 - x^2) divides l_i^eq exactly, so w is a polynomial evaluated here
 * without the 0/0 of the book's Warpfactor at x = +-1 (where the blend
 * multiplying w is zero anyway). */
static double warp_1d(int N, const double *lgl, double x) {
  double w = 0.0;
  for (int i = 1; i < N; ++i) {
    double xi = -1.0 + 2.0 * i / N;
    double d = (lgl[i] - xi) / ((1.0 + xi) * (1.0 - xi));
    for (int j = 1; j < N; ++j)
      if (j != i) {
        double xj = -1.0 + 2.0 * j / N;
        d *= (x - xj) / (xi - xj);
      }
    w += d;
  }
  return w;
}

/* Warp & blend shift of one point of the equilateral triangle with
 * barycentric coordinates L1, L2, L3 and blend parameter alpha (H&W
 * eqs. 6.7-6.8; Nodes2D and evalshift).  Edge e is opposite L_e; its warp
 * points along the edge direction at angle 0, 2pi/3, 4pi/3. */
static void warp_shift_2d(int N, const double *lgl, double alpha, double L1,
                          double L2, double L3, double *dx, double *dy) {
  double w1 = 4.0 * L2 * L3 * warp_1d(N, lgl, L3 - L2) *
              (1.0 + (alpha * L1) * (alpha * L1));
  double w2 = 4.0 * L1 * L3 * warp_1d(N, lgl, L1 - L3) *
              (1.0 + (alpha * L2) * (alpha * L2));
  double w3 = 4.0 * L1 * L2 * warp_1d(N, lgl, L2 - L1) *
              (1.0 + (alpha * L3) * (alpha * L3));
  /* cos(2pi/3) = cos(4pi/3) = -1/2, sin(2pi/3) = -sin(4pi/3) = sqrt(3)/2. */
  *dx = w1 - 0.5 * w2 - 0.5 * w3;
  *dy = 0.5 * sqrt(3.0) * (w2 - w3);
}

/* LGL points of order N in a fresh array (caller frees). */
static dg_error lgl_alloc(int N, double **out) {
  *out = malloc((size_t)(N + 1) * sizeof **out);
  DG_CHECK(*out, DG_ERR_MEMORY, "cannot allocate %d LGL points", N + 1);
  dg_error err = dg_nodes_lgl(N, *out);
  if (err != DG_OK) {
    free(*out);
    *out = NULL;
    DG_CALL(err);
  }
  return DG_OK;
}

dg_error dg_nodes_triangle(int N, double *r, double *s) {
  DG_CHECK(N >= 1 && r && s, DG_ERR_ARG, "triangle nodes: bad order %d", N);
  /* Optimised blend parameters alpha_opt(N), N = 1..15 (H&W Table 6.1). */
  static const double alpopt[15] = {0.0000, 0.0000, 1.4152, 0.1001, 0.2751,
                                    0.9800, 1.0999, 1.2832, 1.3648, 1.4773,
                                    1.4959, 1.5743, 1.5770, 1.6223, 1.6258};
  double alpha = N <= 15 ? alpopt[N - 1] : 5.0 / 3.0;
  double *lgl;
  DG_CALL(lgl_alloc(N, &lgl));
  const double sq3 = sqrt(3.0);
  int sk = 0;
  for (int j = 0; j <= N; ++j)
    for (int i = 0; i <= N - j; ++i, ++sk) {
      /* Equispaced lattice in barycentric coordinates: L1 = (1+s)/2,
       * L3 = (1+r)/2 (Nodes2D). */
      double L1 = (double)j / N, L3 = (double)i / N, L2 = 1.0 - L1 - L3;
      double x = -L2 + L3, y = (-L2 - L3 + 2.0 * L1) / sq3;
      double dx, dy;
      warp_shift_2d(N, lgl, alpha, L1, L2, L3, &dx, &dy);
      x += dx;
      y += dy;
      /* Equilateral (x, y) -> reference (r, s) (xytors). */
      double l1 = (sq3 * y + 1.0) / 3.0;
      double l2 = (-3.0 * x - sq3 * y + 2.0) / 6.0;
      double l3 = (3.0 * x - sq3 * y + 2.0) / 6.0;
      r[sk] = -l2 + l3 - l1;
      s[sk] = -l2 - l3 + l1;
    }
  free(lgl);
  return DG_OK;
}

dg_error dg_nodes_tetrahedron(int N, double *r, double *s, double *t) {
  DG_CHECK(N >= 1 && r && s && t, DG_ERR_ARG,
           "tetrahedron nodes: bad order %d", N);
  /* Optimised blend parameters, N = 1..15 (H&W Table 10.1, Nodes3D). */
  static const double alphastore[15] = {0.0,    0.0,     0.0,    0.1002,
                                        1.1332, 1.5608,  1.3413, 1.2577,
                                        1.1603, 1.10153, 0.6080, 0.4523,
                                        0.8856, 0.8717,  0.9655};
  double alpha = N <= 15 ? alphastore[N - 1] : 1.0;
  const double tol = 1e-10;
  double *lgl;
  DG_CALL(lgl_alloc(N, &lgl));

  /* Vertices of the equilateral tetrahedron and the two orthonormal
   * tangents of each face (Nodes3D). */
  const double v[4][3] = {{-1.0, -1.0 / sqrt(3.0), -1.0 / sqrt(6.0)},
                          {1.0, -1.0 / sqrt(3.0), -1.0 / sqrt(6.0)},
                          {0.0, 2.0 / sqrt(3.0), -1.0 / sqrt(6.0)},
                          {0.0, 0.0, 3.0 / sqrt(6.0)}};
  double t1[4][3], t2[4][3];
  for (int d = 0; d < 3; ++d) {
    t1[0][d] = v[1][d] - v[0][d];
    t1[1][d] = v[1][d] - v[0][d];
    t1[2][d] = v[2][d] - v[1][d];
    t1[3][d] = v[2][d] - v[0][d];
    t2[0][d] = v[2][d] - 0.5 * (v[0][d] + v[1][d]);
    t2[1][d] = v[3][d] - 0.5 * (v[0][d] + v[1][d]);
    t2[2][d] = v[3][d] - 0.5 * (v[1][d] + v[2][d]);
    t2[3][d] = v[3][d] - 0.5 * (v[0][d] + v[2][d]);
  }
  for (int f = 0; f < 4; ++f) {
    double n1 = sqrt(t1[f][0] * t1[f][0] + t1[f][1] * t1[f][1] + t1[f][2] * t1[f][2]);
    double n2 = sqrt(t2[f][0] * t2[f][0] + t2[f][1] * t2[f][1] + t2[f][2] * t2[f][2]);
    for (int d = 0; d < 3; ++d) {
      t1[f][d] /= n1;
      t2[f][d] /= n2;
    }
  }

  int sk = 0;
  for (int k = 0; k <= N; ++k)
    for (int j = 0; j <= N - k; ++j)
      for (int i = 0; i <= N - j - k; ++i, ++sk) {
        double r0 = -1.0 + 2.0 * i / N, s0 = -1.0 + 2.0 * j / N,
               t0 = -1.0 + 2.0 * k / N;
        double L[4] = {(1.0 + t0) / 2.0, (1.0 + s0) / 2.0,
                       -(1.0 + r0 + s0 + t0) / 2.0, (1.0 + r0) / 2.0};
        /* Undeformed point L3 v1 + L4 v2 + L2 v3 + L1 v4 (1-based L). */
        double X[3], shift[3] = {0.0, 0.0, 0.0};
        for (int d = 0; d < 3; ++d)
          X[d] = L[2] * v[0][d] + L[3] * v[1][d] + L[1] * v[2][d] + L[0] * v[3][d];
        /* Per face: La is the barycentric coordinate vanishing on it, Lb..Ld
         * those of the face's vertices in the order of Nodes3D. */
        static const int perm[4][4] = {
            {0, 1, 2, 3}, {1, 0, 2, 3}, {2, 0, 3, 1}, {3, 0, 2, 1}};
        for (int f = 0; f < 4; ++f) {
          double La = L[perm[f][0]], Lb = L[perm[f][1]], Lc = L[perm[f][2]],
                 Ld = L[perm[f][3]];
          double w1, w2; /* WarpShiftFace3D = evalshift(Lb, Lc, Ld) */
          warp_shift_2d(N, lgl, alpha, Lb, Lc, Ld, &w1, &w2);
          /* Face-to-volume blend (H&W eq. 10.3), modified by alpha. */
          double blend = Lb * Lc * Ld;
          double denom = (Lb + 0.5 * La) * (Lc + 0.5 * La) * (Ld + 0.5 * La);
          if (denom > tol)
            blend = (1.0 + (alpha * La) * (alpha * La)) * blend / denom;
          for (int d = 0; d < 3; ++d)
            shift[d] += blend * w1 * t1[f][d] + blend * w2 * t2[f][d];
          /* On an edge of this face (La = 0 and another L = 0) the face warp
           * alone is used, as in Nodes3D. */
          int inside = (Lb > tol) + (Lc > tol) + (Ld > tol);
          if (La < tol && inside < 3)
            for (int d = 0; d < 3; ++d)
              shift[d] = w1 * t1[f][d] + w2 * t2[f][d];
        }
        for (int d = 0; d < 3; ++d)
          X[d] += shift[d];
        /* Equilateral -> reference (xyztorst): X = A (r,s,t)^T + c with
         * A = [(v2-v1)/2, (v3-v1)/2, (v4-v1)/2], c = (v2+v3+v4-v1)/2; solve
         * the 3x3 system by Cramer's rule. */
        double A[3][3], rhs[3];
        for (int d = 0; d < 3; ++d) {
          A[d][0] = 0.5 * (v[1][d] - v[0][d]);
          A[d][1] = 0.5 * (v[2][d] - v[0][d]);
          A[d][2] = 0.5 * (v[3][d] - v[0][d]);
          rhs[d] = X[d] - 0.5 * (v[1][d] + v[2][d] + v[3][d] - v[0][d]);
        }
        double out[3];
        double det = A[0][0] * (A[1][1] * A[2][2] - A[1][2] * A[2][1]) -
                     A[0][1] * (A[1][0] * A[2][2] - A[1][2] * A[2][0]) +
                     A[0][2] * (A[1][0] * A[2][1] - A[1][1] * A[2][0]);
        for (int c = 0; c < 3; ++c) {
          double B[3][3];
          for (int a = 0; a < 3; ++a)
            for (int b = 0; b < 3; ++b)
              B[a][b] = b == c ? rhs[a] : A[a][b];
          out[c] = (B[0][0] * (B[1][1] * B[2][2] - B[1][2] * B[2][1]) -
                    B[0][1] * (B[1][0] * B[2][2] - B[1][2] * B[2][0]) +
                    B[0][2] * (B[1][0] * B[2][1] - B[1][1] * B[2][0])) /
                   det;
        }
        r[sk] = out[0];
        s[sk] = out[1];
        t[sk] = out[2];
      }
  free(lgl);
  return DG_OK;
}
