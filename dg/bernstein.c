/* Bernstein-Bezier basis on the reference simplices, see bernstein.h
 * (Chan & Warburton, SIAM J. Sci. Comput. 39 (2017): sparse BB derivative
 * operators by degree elevation). */
#include "dg/bernstein.h"

#include "dg/linalg.h"
#include "dg/refelem.h"

#include <stdlib.h>
#include <string.h>

/* Barycentric coordinates of the point x (dim coordinates) on the reference
 * simplex (bernstein.h): l_{d+1} = (1+x_d)/2 and l0 = (2-dim-sum x)/2,
 * written so that l0 is the face equation itself (it rounds to zero on the
 * slanted face instead of leaving 1 - sum l_{d+1}). */
static void barycentric(int dim, const double *x, double *l) {
  double sum = 0.0;
  for (int d = 0; d < dim; ++d) {
    l[d + 1] = 0.5 * (1.0 + x[d]);
    sum += x[d];
  }
  l[0] = 0.5 * ((2.0 - dim) - sum);
}

static double factorial(int n) {
  double f = 1.0;
  for (int i = 2; i <= n; ++i)
    f *= i; /* exact in double up to 18!, N <= 15 here */
  return f;
}

/* B_alpha(l) = N!/prod(alpha_v!) prod l_v^alpha_v. */
static double bernstein_value(int dim, int N, const int *alpha,
                              const double *l) {
  double b = factorial(N);
  for (int v = 0; v <= dim; ++v) {
    b /= factorial(alpha[v]);
    for (int e = 0; e < alpha[v]; ++e)
      b *= l[v];
  }
  return b;
}

/* alpha in lattice order and the neighbour table nb (bernstein.h).  A
 * lookup from lattice point (i, j, k) to node index turns alpha - e_v + e_w
 * into a node. */
static dg_error build_indices(dg_bernstein *b) {
  int dim = b->dim, N = b->N, n1 = N + 1, nv = dim + 1;
  int *lookup = malloc((size_t)n1 * n1 * n1 * sizeof *lookup);
  DG_CHECK(lookup, DG_ERR_MEMORY, "Bernstein basis: cannot allocate lookup");
  int p = 0;
  for (int k = 0; k <= (dim > 2 ? N : 0); ++k)
    for (int j = 0; j <= (dim > 1 ? N - k : 0); ++j)
      for (int i = 0; i <= N - j - k; ++i, ++p) {
        int ijk[3] = {i, j, k};
        b->alpha[p * nv] = N - i - j - k;
        for (int d = 0; d < dim; ++d)
          b->alpha[p * nv + d + 1] = ijk[d];
        lookup[(k * n1 + j) * n1 + i] = p;
      }
  for (p = 0; p < b->Np; ++p)
    for (int v = 0; v < nv; ++v)
      for (int w = 0; w < nv; ++w) {
        int a[4] = {0, 0, 0, 0};
        memcpy(a, &b->alpha[p * nv], (size_t)nv * sizeof *a);
        int q = -1;
        if (a[v] > 0) {
          a[v] -= 1;
          a[w] += 1;
          q = lookup[(a[3] * n1 + a[2]) * n1 + a[1]];
        }
        b->nb[(p * nv + v) * nv + w] = q;
      }
  free(lookup);
  return DG_OK;
}

/* Derivative along coordinate d (Chan & Warburton 2017): the degree N-1
 * derivative N sum_gamma (c[gamma+e_{d+1}] - c[gamma+e_0])/2 B_gamma,
 * elevated back to degree N (B_gamma = sum_v (gamma_v+1)/N B_{gamma+e_v}):
 *   (D c)_alpha = sum_{v: alpha_v>0} alpha_v/2 (c[alpha-e_v+e_{d+1}]
 *                                              - c[alpha-e_v+e_0]).
 * The two c[alpha] terms (v = d+1 and v = 0) share one entry, so a row has
 * at most 2*dim+1 nonzeros; entries are half-integers, hence exact. */
static void build_derivative(const dg_bernstein *b, int d, double *D) {
  int nv = b->dim + 1;
  for (int p = 0; p < b->Np; ++p)
    for (int v = 0; v < nv; ++v) {
      const int *nbv = &b->nb[(p * nv + v) * nv];
      if (nbv[0] < 0)
        continue;
      double half = 0.5 * b->alpha[p * nv + v];
      D[(size_t)p * b->Np + nbv[d + 1]] += half;
      D[(size_t)p * b->Np + nbv[0]] -= half;
    }
}

/* LIFT = invV re->LIFT blockdiag_f(V[Fmask_f][Fmask_f]): face BB
 * coefficients -> face nodal values (bernstein.h) -> nodal lift -> volume
 * BB coefficients. */
static dg_error build_lift(dg_bernstein *b, const dg_refelem *re) {
  int Np = b->Np, Nfp = b->Nfp, nfn = b->Nfaces * Nfp;
  double *E = calloc((size_t)nfn * nfn, sizeof *E);
  double *T = malloc((size_t)Np * nfn * sizeof *T);
  dg_error err = DG_OK;
  DG_CHECK_GOTO(err, done, E && T, DG_ERR_MEMORY,
                "Bernstein basis: cannot allocate the lift work space");
  for (int f = 0; f < b->Nfaces; ++f)
    for (int m = 0; m < Nfp; ++m)
      for (int n = 0; n < Nfp; ++n)
        E[(size_t)(f * Nfp + m) * nfn + f * Nfp + n] =
            b->V[(size_t)re->Fmask[f * Nfp + m] * Np + re->Fmask[f * Nfp + n]];
  DG_CALL_GOTO(err, done,
               dg_linalg_matmul(0, 0, Np, nfn, nfn, re->LIFT, E, T));
  DG_CALL_GOTO(err, done,
               dg_linalg_matmul(0, 0, Np, nfn, Np, b->invV, T, b->LIFT));
done:
  free(E);
  free(T);
  return err;
}

dg_error dg_bernstein_create(const dg_refelem *re, dg_bernstein **out) {
  DG_CHECK(out, DG_ERR_ARG, "Bernstein basis: NULL output pointer");
  *out = NULL;
  DG_CHECK(re, DG_ERR_ARG, "Bernstein basis: NULL reference element");
  DG_CHECK(re->dim >= 1 && re->dim <= 3 && re->N >= 1 &&
               re->N <= DG_REFELEM_MAX_ORDER && re->Nfaces == re->dim + 1,
           DG_ERR_ARG, "Bernstein basis: reference element of dimension %d, "
           "order %d is not one dg_refelem_create builds", re->dim, re->N);
  dg_bernstein *b = calloc(1, sizeof *b);
  DG_CHECK(b, DG_ERR_MEMORY, "Bernstein basis: cannot allocate");
  int dim = re->dim, Np = re->Np, nv = dim + 1;
  size_t NpNp = (size_t)Np * Np;
  *b = (dg_bernstein){.dim = dim, .N = re->N, .Np = Np,
                      .Nfaces = re->Nfaces, .Nfp = re->Nfp};
  b->alpha = malloc((size_t)Np * nv * sizeof *b->alpha);
  b->nb = malloc((size_t)Np * nv * nv * sizeof *b->nb);
  b->V = malloc(NpNp * sizeof *b->V);
  b->invV = malloc(NpNp * sizeof *b->invV);
  b->LIFT = malloc((size_t)Np * re->Nfaces * re->Nfp * sizeof *b->LIFT);
  double **D[3] = {&b->Dr, &b->Ds, &b->Dt};
  int ok = b->alpha && b->nb && b->V && b->invV && b->LIFT;
  for (int d = 0; d < dim; ++d)
    ok = (*D[d] = calloc(NpNp, sizeof **D[d])) && ok;
  dg_error err = DG_OK;
  DG_CHECK_GOTO(err, fail, ok, DG_ERR_MEMORY,
                "Bernstein basis: cannot allocate the %dD N=%d operators",
                dim, re->N);
  DG_CALL_GOTO(err, fail, build_indices(b));

  const double *x[3] = {re->r, re->s, re->t};
  for (int p = 0; p < Np; ++p) {
    double xp[3], l[4];
    for (int d = 0; d < dim; ++d)
      xp[d] = x[d][p];
    barycentric(dim, xp, l);
    for (int a = 0; a < Np; ++a)
      b->V[(size_t)p * Np + a] = bernstein_value(dim, b->N, &b->alpha[a * nv], l);
  }
  memcpy(b->invV, b->V, NpNp * sizeof *b->invV);
  DG_CALL_GOTO(err, fail, dg_linalg_inverse(Np, b->invV));
  for (int d = 0; d < dim; ++d)
    build_derivative(b, d, *D[d]);
  DG_CALL_GOTO(err, fail, build_lift(b, re));
  *out = b;
  return DG_OK;
fail:
  dg_bernstein_destroy(&b);
  return err;
}

void dg_bernstein_destroy(dg_bernstein **b) {
  if (!b || !*b)
    return;
  dg_bernstein *e = *b;
  free(e->alpha);
  free(e->nb);
  free(e->V);
  free(e->invV);
  free(e->Dr);
  free(e->Ds);
  free(e->Dt);
  free(e->LIFT);
  free(e);
  *b = NULL;
}
