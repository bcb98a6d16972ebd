/* dg.refelem_cubature: volume and face quadrature of the reference
 * elements integrate monomials up to degree 2N exactly (exact Dirichlet
 * integrals), weights are positive and sum to the reference measure, points
 * lie inside the element / on their face, and the interpolation matrices
 * reproduce polynomials of degree N; dg_cubature_simplex for every degree
 * 0..25 including odd ones. */
#include "refelem_test.h"

#include "dg/cubature.h"

static const double VOLUME[4] = {1.0, 2.0, 2.0, 4.0 / 3.0};

/* Face-local coordinates (refelem.h) of a volume point on face f. */
static void face_local(int dim, int f, double r, double s, double t,
                       double *a, double *b) {
  *b = 0.0;
  if (dim == 1)
    *a = 0.0;
  else if (dim == 2)
    *a = f == 2 ? s : r;
  else {
    *a = f <= 1 ? r : s;
    *b = f == 0 ? s : t;
  }
}

static double face_residual(int dim, int f, double r, double s, double t) {
  if (dim == 1)
    return f == 0 ? 1 + r : 1 - r;
  if (dim == 2)
    return f == 0 ? 1 + s : f == 1 ? r + s : 1 + r;
  return f == 0 ? 1 + t : f == 1 ? 1 + s : f == 2 ? 1 + r + s + t : 1 + r;
}

/* A rule (n points) of dimension dim integrates all monomials of degree
 * <= deg: |error| <= 1e-14 * (number of points) since |f| <= 1 on the
 * simplex and the weights are positive with sum <= 2. */
static void check_rule(const char *what, int dim, int deg, int n,
                       const double *r, const double *s, const double *t,
                       const double *w) {
  double sum = 0.0;
  for (int q = 0; q < n; ++q) {
    EXPECT(w[q] > 0, "%s: weight %d = %g", what, q, w[q]);
    double l0 = 1.0;
    for (int d = 0; d < dim; ++d) {
      double x = d == 0 ? r[q] : d == 1 ? s[q] : t[q];
      EXPECT(x > -1.0, "%s: point %d coordinate %d = %g", what, q, d, x);
      l0 -= 0.5 * (1.0 + x);
    }
    EXPECT(l0 > 0.0, "%s: point %d outside the slanted face", what, q);
    sum += w[q];
  }
  EXPECT(fabs(sum - VOLUME[dim]) < 1e-14 * n, "%s: weights sum to %.16g",
         what, sum);
  if (dim == 0)
    return;
  int nm;
  mono *m = monomials(dim, deg, &nm);
  for (int a = 0; a < nm; ++a) {
    double num = 0.0;
    for (int q = 0; q < n; ++q)
      num += w[q] * mono_eval(m[a], r[q], dim > 1 ? s[q] : 0.0,
                              dim > 2 ? t[q] : 0.0);
    double ex = exact_integral(dim, m[a]);
    EXPECT(fabs(num - ex) < 1e-14 * n, "%s: r^%d s^%d t^%d: %.16g vs %.16g",
           what, m[a].e[0], m[a].e[1], m[a].e[2], num, ex);
  }
  free(m);
}

static void check_element(int dim, int N) {
  dg_refelem *re = NULL;
  MUST(dg_refelem_create(dim, N, &re));
  char what[64];
  snprintf(what, sizeof what, "%dD N=%d volume", dim, N);
  check_rule(what, dim, 2 * N, re->Ncub, re->cub_r, re->cub_s, re->cub_t,
             re->cub_w);
  int Np = re->Np, nm, Nfq = re->Nfq, Nfp = re->Nfp;
  mono *m = monomials(dim, N, &nm);
  /* Interpolation: the Lebesgue constant (< 10 here) times eps times
   * Np-term sums: 1e-12 is generous. */
  const double itol = 1e-12;
  for (int a = 0; a < nm; ++a) {
    for (int q = 0; q < re->Ncub; ++q) {
      double num = 0.0;
      for (int v = 0; v < Np; ++v)
        num += re->cub_interp[(size_t)q * Np + v] *
               mono_eval(m[a], coord(re, 0, v), coord(re, 1, v), coord(re, 2, v));
      double ex = mono_eval(m[a], re->cub_r[q], dim > 1 ? re->cub_s[q] : 0,
                            dim > 2 ? re->cub_t[q] : 0);
      EXPECT(fabs(num - ex) < itol, "%dD N=%d cub_interp of monomial %d at "
             "point %d: %g vs %g", dim, N, a, q, num, ex);
    }
    for (int f = 0; f < re->Nfaces; ++f)
      for (int q = 0; q < Nfq; ++q) {
        int fq = f * Nfq + q;
        double x[3] = {re->fq_r[fq], dim > 1 ? re->fq_s[fq] : 0,
                       dim > 2 ? re->fq_t[fq] : 0};
        double ex = mono_eval(m[a], x[0], x[1], x[2]);
        double num = 0.0, numf = 0.0;
        for (int v = 0; v < Np; ++v)
          num += re->fq_interp[(size_t)fq * Np + v] *
                 mono_eval(m[a], coord(re, 0, v), coord(re, 1, v), coord(re, 2, v));
        for (int i = 0; i < Nfp; ++i) {
          int v = re->Fmask[f * Nfp + i];
          numf += re->fq_face_interp[((size_t)f * Nfq + q) * Nfp + i] *
                  mono_eval(m[a], coord(re, 0, v), coord(re, 1, v), coord(re, 2, v));
        }
        EXPECT(fabs(num - ex) < itol && fabs(numf - ex) < itol,
               "%dD N=%d face %d point %d monomial %d: fq_interp %g, "
               "fq_face_interp %g, exact %g", dim, N, f, q, a, num, numf, ex);
      }
  }
  free(m);
  /* Face rule: points on their face; in face-local coordinates the rule
   * integrates (dim-1)-variable monomials of degree <= 2N exactly. */
  double *fa = malloc(2 * (size_t)Nfq * sizeof *fa);
  for (int f = 0; f < re->Nfaces; ++f) {
    for (int q = 0; q < Nfq; ++q) {
      int fq = f * Nfq + q;
      double x[3] = {re->fq_r[fq], dim > 1 ? re->fq_s[fq] : 0,
                     dim > 2 ? re->fq_t[fq] : 0};
      EXPECT(fabs(face_residual(dim, f, x[0], x[1], x[2])) < 1e-14,
             "%dD N=%d face %d point %d off the face", dim, N, f, q);
      face_local(dim, f, x[0], x[1], x[2], &fa[q], &fa[Nfq + q]);
    }
    snprintf(what, sizeof what, "%dD N=%d face %d", dim, N, f);
    check_rule(what, dim - 1, 2 * N, Nfq, fa, fa + Nfq, NULL, re->fq_w);
  }
  free(fa);
  dg_refelem_destroy(&re);
}

int main(void) {
  for (int dim = 0; dim <= 3; ++dim)
    for (int deg = 0; deg <= 25; ++deg) {
      int n = dg_cubature_count(dim, deg);
      double *x = malloc(4 * (size_t)n * sizeof *x);
      MUST(dg_cubature_simplex(dim, deg, x, x + n, x + 2 * n, x + 3 * n));
      char what[64];
      snprintf(what, sizeof what, "rule dim %d degree %d", dim, deg);
      /* exact_integral is exact in 128-bit integers up to degree 25. */
      check_rule(what, dim, deg, n, x, x + n, x + 2 * n, x + 3 * n);
      free(x);
    }
  EXPECT(dg_cubature_count(4, 2) == 0 && dg_cubature_count(2, -1) == 0,
         "bad arguments counted");
  double w[1];
  EXPECT(dg_cubature_simplex(4, 2, w, w, w, w) == DG_ERR_ARG, "dim 4 accepted");
  dg_error_clear();
  for (int dim = 1; dim <= 3; ++dim)
    for (int N = 1; N <= 10; ++N)
      check_element(dim, N);
  return test_result("dg.refelem_cubature");
}
