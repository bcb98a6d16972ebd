/* Shared helpers of the dg.refelem_* tests: monomials on the reference
 * simplices and their exact integrals, computed independently of dg/. */
#ifndef DG_TESTS_REFELEM_TEST_H
#define DG_TESTS_REFELEM_TEST_H

#include "dg/refelem.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/expect.h"

#define M_PI_REF 3.14159265358979323846

/* Exponents (e[0], e[1], e[2]) of a monomial r^e0 s^e1 t^e2. */
typedef struct mono { int e[3]; } mono;

/* All monomials of total degree <= deg in dim variables (caller frees). */
static inline mono *monomials(int dim, int deg, int *count) {
  int cap = (deg + 1) * (deg + 1) * (deg + 1), n = 0;
  mono *m = malloc((size_t)cap * sizeof *m);
  for (int k = 0; k <= (dim > 2 ? deg : 0); ++k)
    for (int j = 0; j <= (dim > 1 ? deg - k : 0); ++j)
      for (int i = 0; i <= deg - j - k; ++i) {
        m[n].e[0] = i;
        m[n].e[1] = j;
        m[n].e[2] = k;
        ++n;
      }
  *count = n;
  return m;
}

static inline double ipow(double x, int p) {
  double y = 1.0;
  for (int i = 0; i < p; ++i)
    y *= x;
  return y;
}

static inline double mono_eval(mono m, double r, double s, double t) {
  return ipow(r, m.e[0]) * ipow(s, m.e[1]) * ipow(t, m.e[2]);
}

/* d/dx_d of a monomial: coefficient and the lowered monomial. */
static inline double mono_deriv(mono m, int d, double r, double s, double t) {
  if (m.e[d] == 0)
    return 0.0;
  double c = m.e[d];
  m.e[d] -= 1;
  return c * mono_eval(m, r, s, t);
}

/* Exact integral of r^i s^j t^k over the reference simplex of dimension dim
 * (exponents beyond dim must be 0), total degree <= 28 - dim.  With
 * r = 2x-1 etc. the reference simplex is 2^dim times the unit simplex, where
 *   int x^p y^q z^u = p! q! u! / (p+q+u+dim)!
 * (Dirichlet integral).  Expanding (2x-1)^i binomially cancels badly (the
 * sum of |terms| reaches 5e8 for degree 20), so the sum is done exactly over
 * the common denominator D = (deg+dim)! in unsigned 128-bit arithmetic:
 * that is exact modulo 2^128, and the true numerator (|integral| <= 2 times
 * D / 2^dim <= 28! < 2^98) fits, so the wrapped result is the exact one.
 * Factorials up to 31! < 2^113 and the exact divisions stay in range. */
static inline double exact_integral(int dim, mono m) {
  typedef unsigned __int128 u128;
  int deg = m.e[0] + m.e[1] + m.e[2];
  u128 fact[32];
  fact[0] = 1;
  for (int i = 1; i < 32; ++i)
    fact[i] = fact[i - 1] * (u128)i;
  u128 den = fact[deg + dim], num = 0;
  for (int p = 0; p <= m.e[0]; ++p)
    for (int q = 0; q <= m.e[1]; ++q)
      for (int u = 0; u <= m.e[2]; ++u) {
        u128 c = 1;
        int neg = 0, ps[3] = {p, q, u};
        for (int d = 0; d < 3; ++d) {
          int n = m.e[d], k = ps[d];
          c *= fact[n] / (fact[k] * fact[n - k]); /* binomial */
          c *= (u128)1 << k;                      /* 2^k */
          c *= fact[k];
          neg ^= (n - k) & 1;                     /* (-1)^(n-k) */
        }
        c *= den / fact[p + q + u + dim];
        num = neg ? num - c : num + c;
      }
  /* Two's-complement reading of the wrapped sum. */
  int negative = (num >> 127) != 0;
  u128 mag = negative ? (u128)0 - num : num;
  long double v = (long double)mag / (long double)den * (long double)(1 << dim);
  return (double)(negative ? -v : v);
}

/* Fill the Np x nm matrix F[v*nm + a] = monomial a at node v. */
static inline double *monomials_at_nodes(const dg_refelem *re, const mono *m,
                                  int nm) {
  double *F = malloc((size_t)re->Np * (size_t)nm * sizeof *F);
  for (int v = 0; v < re->Np; ++v)
    for (int a = 0; a < nm; ++a)
      F[(size_t)v * nm + a] =
          mono_eval(m[a], re->r[v], re->dim > 1 ? re->s[v] : 0.0,
                    re->dim > 2 ? re->t[v] : 0.0);
  return F;
}

/* Node coordinate d (0: r, 1: s, 2: t) of node v; 0 beyond dim. */
static inline double coord(const dg_refelem *re, int d, int v) {
  const double *x = d == 0 ? re->r : d == 1 ? re->s : re->t;
  return d < re->dim ? x[v] : 0.0;
}

/* Max-norm (largest absolute row sum) of a row-major rows x cols matrix. */
static inline double norm_inf(int rows, int cols, const double *A) {
  double mx = 0.0;
  for (int i = 0; i < rows; ++i) {
    double s = 0.0;
    for (int j = 0; j < cols; ++j)
      s += fabs(A[(size_t)i * cols + j]);
    if (s > mx)
      mx = s;
  }
  return mx;
}

/* Uniform random number in [-1, 1] (xorshift, seeded per run from the
 * clock so that every run sees fresh data; the seed is printed). */
static unsigned long long rng_state = 0;
static inline double urand(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (double)(rng_state >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

/* Reference-element outward normal n (dim entries) and surface Jacobian sJ
 * (physical face measure / reference face measure, refelem.h) of face f,
 * from the face definitions written out by hand. */
static inline void ref_face_normal(int dim, int f, double *n, double *sJ) {
  n[0] = n[1] = n[2] = 0.0;
  *sJ = 1.0;
  if (dim == 1) {
    n[0] = f == 0 ? -1.0 : 1.0;
  } else if (dim == 2) {
    if (f == 0) n[1] = -1.0;                 /* s = -1, length 2 */
    else if (f == 1) {                       /* r + s = 0, length 2 sqrt 2 */
      n[0] = n[1] = 1.0 / sqrt(2.0);
      *sJ = sqrt(2.0);
    } else n[0] = -1.0;                      /* r = -1, length 2 */
  } else {
    if (f == 0) n[2] = -1.0;                 /* t = -1, area 2 */
    else if (f == 1) n[1] = -1.0;            /* s = -1, area 2 */
    else if (f == 2) {                       /* r+s+t = -1, area 2 sqrt 3 */
      n[0] = n[1] = n[2] = 1.0 / sqrt(3.0);
      *sJ = sqrt(3.0);
    } else n[0] = -1.0;                      /* r = -1, area 2 */
  }
}

/* Legendre polynomial L_n (Bonnet's recurrence) and its derivative
 * (from (1-x^2) L_n' = n (L_{n-1} - x L_n)), valid for |x| < 1. */
static inline void legendre(int n, double x, double *L, double *dL) {
  double p0 = 1.0, p1 = x;
  if (n == 0) {
    *L = 1.0;
    *dL = 0.0;
    return;
  }
  for (int k = 1; k < n; ++k) {
    double p2 = ((2.0 * k + 1.0) * x * p1 - k * p0) / (k + 1.0);
    p0 = p1;
    p1 = p2;
  }
  *L = p1;
  *dL = n * (p0 - x * p1) / (1.0 - x * x);
}

/* LGL points of order N, computed independently of dg/: -1, +1 and the
 * roots of L_N' by Newton's method from the Chebyshev-Gauss-Lobatto guesses
 * -cos(pi m / N), using L_N'' = (2x L_N' - N(N+1) L_N) / (1-x^2). */
static inline void lgl_reference(int N, double *x) {
  x[0] = -1.0;
  x[N] = 1.0;
  for (int m = 1; m < N; ++m) {
    double y = -cos(M_PI_REF * m / N);
    for (int it = 0; it < 100; ++it) {
      double L, dL;
      legendre(N, y, &L, &dL);
      double d2L = (2.0 * y * dL - N * (N + 1.0) * L) / (1.0 - y * y);
      double dy = dL / d2L;
      y -= dy;
      if (fabs(dy) < 1e-16)
        break;
    }
    x[m] = y;
  }
}

/* Run check(re, monomials of degree <= N, their count) on the reference
 * element of every dim 1..3 and N = 1..10. */
static inline void for_each_element(void (*check)(const dg_refelem *re,
                                                  const mono *m, int nm)) {
  for (int dim = 1; dim <= 3; ++dim)
    for (int N = 1; N <= 10; ++N) {
      dg_refelem *re = NULL;
      MUST(dg_refelem_create(dim, N, &re));
      int nm;
      mono *m = monomials(dim, N, &nm);
      check(re, m, nm);
      free(m);
      dg_refelem_destroy(&re);
    }
}

static inline int test_result(const char *name) {
  if (failures) {
    fprintf(stderr, "%s: %d check(s) failed\n", name, failures);
    return 1;
  }
  printf("%s: ok\n", name);
  return 0;
}

#endif
