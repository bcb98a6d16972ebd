/* dg.bernstein: the Bernstein-Bezier basis of dg/bernstein.h against
 * independent formulas, dims 1..3, N = 1..15 (every order refelem builds):
 *   multi-indices in lattice order, zero where their node's barycentric
 *   coordinate is; nb;
 *   V entry by entry, partition of unity, V invV = I;
 *   Dr/Ds/Dt: at most 2*dim+1 nonzeros a row, exact on every barycentric
 *   monomial l^beta (|beta| = N, a basis of P_N) whose BB coefficients are
 *   known in closed form, and equal to invV re->D V;
 *   faces: Fmask_f are the domain points with the face's barycentric
 *   coordinate zero and the other B_alpha vanish there; LIFT equals the
 *   nodal LIFT between face BB and volume BB coefficients, and M LIFT = E
 *   with the BB mass and surface matrices from exact integrals;
 *   NULL arguments are errors.
 * One line a case reports the conditioning and the errors seen. */
#include "refelem_test.h"

#include "dg/bernstein.h"
#include "dg/linalg.h"

#include <float.h>
#include <time.h>

/* Barycentric coordinate that vanishes on refelem face f (from the face
 * equations in refelem.h: 2D face 1 is r+s=0, i.e. l0 = -(r+s)/2 = 0).
 * check_indices ties alpha_z = 0 to l_z = 0 at the node, so the table is
 * checked against the node coordinates too. */
static const int FACE_ZERO[4][4] = {{0}, {1, 0}, {2, 0, 1}, {3, 2, 0, 1}};

/* Barycentric coordinates written out per dimension (bernstein.h). */
static void bary(const dg_refelem *re, int p, double *l) {
  double r = coord(re, 0, p), s = coord(re, 1, p), t = coord(re, 2, p);
  l[1] = (1 + r) / 2;
  l[2] = (1 + s) / 2;
  l[3] = (1 + t) / 2;
  l[0] = re->dim == 1 ? (1 - r) / 2 : re->dim == 2 ? -(r + s) / 2
                                                   : -(1 + r + s + t) / 2;
}

/* x (x-1) ... (x-k+1); zero when k > x >= 0. */
static double falling(int x, int k) {
  double f = 1.0;
  for (int i = 0; i < k; ++i)
    f *= x - i;
  return f;
}

/* N!/prod a_v! over k+1 indices. */
static double multinomial(int k, int N, const int *a) {
  double c = falling(N, N);
  for (int v = 0; v <= k; ++v)
    c /= falling(a[v], a[v]);
  return c;
}

/* B_alpha(l) = N!/prod alpha_v! prod l_v^alpha_v. */
static double bern(int dim, int N, const int *alpha, const double *l) {
  double y = multinomial(dim, N, alpha);
  for (int v = 0; v <= dim; ++v)
    y *= ipow(l[v], alpha[v]);
  return y;
}

/* BB coefficient at alpha (|alpha| = N) of l^beta with |beta| = m <= N:
 * l^beta (sum l)^(N-m) expanded multinomially, with l^alpha = alpha!/N!
 * B_alpha, gives prod_v falling(alpha_v, beta_v) / falling(N, m). */
static double bb_power(int dim, int N, const int *alpha, const int *beta) {
  int m = 0;
  double c = 1.0;
  for (int v = 0; v <= dim; ++v) {
    c *= falling(alpha[v], beta[v]);
    m += beta[v];
  }
  return c / falling(N, m);
}

/* Integral of B_a B_b (degree N, k+1 indices each) over a k-simplex of
 * measure meas: with int l^g = g! k! meas / (|g|+k)!,
 *   C(N,a) C(N,b) / C(2N,a+b) * meas / C(2N+k,k). */
static double bb_inner(int k, int N, const int *a, const int *b, double meas) {
  int ab[4];
  for (int v = 0; v <= k; ++v)
    ab[v] = a[v] + b[v];
  return multinomial(k, N, a) * multinomial(k, N, b) /
         multinomial(k, 2 * N, ab) * meas * falling(k, k) /
         falling(2 * N + k, k);
}

/* BB coefficient at alpha of d/dx_d l^beta
 *   = (beta_{d+1} l^(beta-e_{d+1}) - beta_0 l^(beta-e_0)) / 2,
 * and (with alpha NULL) its value at barycentric point l. */
static double deriv_power(int dim, int N, int d, const int *alpha,
                          const int *beta, const double *l) {
  double sum = 0.0;
  for (int side = 0; side < 2; ++side) {
    int v = side ? 0 : d + 1, b[4] = {0, 0, 0, 0};
    if (beta[v] == 0)
      continue;
    memcpy(b, beta, (size_t)(dim + 1) * sizeof *b);
    b[v] -= 1;
    double term = 1.0;
    if (alpha)
      term = bb_power(dim, N, alpha, b);
    else
      for (int w = 0; w <= dim; ++w)
        term *= ipow(l[w], b[w]);
    sum += (side ? -0.5 : 0.5) * beta[v] * term;
  }
  return sum;
}

static double max_abs_diff(size_t n, const double *a, const double *b) {
  double mx = 0.0;
  for (size_t i = 0; i < n; ++i)
    mx = fmax(mx, fabs(a[i] - b[i]));
  return mx;
}

static void check_indices(const dg_refelem *re, const dg_bernstein *b) {
  int dim = re->dim, N = re->N, nv = dim + 1, p = 0;
  for (int k = 0; k <= (dim > 2 ? N : 0); ++k)
    for (int j = 0; j <= (dim > 1 ? N - k : 0); ++j)
      for (int i = 0; i <= N - j - k; ++i, ++p) {
        int ex[4] = {N - i - j - k, i, j, k};
        for (int v = 0; v < nv; ++v)
          EXPECT(b->alpha[p * nv + v] == ex[v], "%dD N=%d node %d alpha_%d "
                 "= %d, lattice gives %d", dim, N, p, v, b->alpha[p * nv + v],
                 ex[v]);
      }
  for (p = 0; p < b->Np; ++p) {
    /* Nodes on a face stay on it when warped: same zero pattern. */
    double l[4];
    bary(re, p, l);
    for (int v = 0; v < nv; ++v)
      EXPECT((b->alpha[p * nv + v] == 0) == (fabs(l[v]) < 1e-12),
             "%dD N=%d node %d: alpha_%d = %d but l_%d = %g", dim, N, p, v,
             b->alpha[p * nv + v], v, l[v]);
    for (int v = 0; v < nv; ++v)
      for (int w = 0; w < nv; ++w) {
        int q = b->nb[(p * nv + v) * nv + w];
        if (b->alpha[p * nv + v] == 0) {
          EXPECT(q == -1, "%dD N=%d nb(%d,%d,%d) = %d", dim, N, p, v, w, q);
          continue;
        }
        CHECK(q >= 0 && q < b->Np, "%dD N=%d nb(%d,%d,%d) = %d", dim, N, p, v,
              w, q);
        for (int u = 0; u < nv; ++u)
          EXPECT(b->alpha[q * nv + u] ==
                     b->alpha[p * nv + u] - (u == v) + (u == w),
                 "%dD N=%d nb(%d,%d,%d) = %d has the wrong multi-index", dim,
                 N, p, v, w, q);
      }
  }
}

/* Returns max |invV re->D V - D| / max(1, ||D||_inf) over the directions;
 * *max_nnz: the most nonzeros in a row. */
static double check_derivatives(const dg_refelem *re, const dg_bernstein *b,
                                int *max_nnz) {
  int dim = re->dim, N = re->N, Np = re->Np, nv = dim + 1;
  size_t NpNp = (size_t)Np * Np;
  const double *Dn[3] = {re->Dr, re->Ds, re->Dt};
  const double *Db[3] = {b->Dr, b->Ds, b->Dt};
  double *T = malloc(NpNp * sizeof *T), *C = malloc(NpNp * sizeof *C);
  double *P = malloc(NpNp * sizeof *P), *dP = malloc(NpNp * sizeof *dP);
  double worst = 0.0;
  *max_nnz = 0;
  for (int d = 0; d < dim; ++d) {
    const double *D = Db[d];
    for (int p = 0; p < Np; ++p) {
      int nnz = 0;
      for (int q = 0; q < Np; ++q)
        nnz += D[(size_t)p * Np + q] != 0.0;
      *max_nnz = nnz > *max_nnz ? nnz : *max_nnz;
      EXPECT(nnz <= 2 * dim + 1, "%dD N=%d D%d row %d has %d nonzeros", dim,
             N, d, p, nnz);
    }
    /* Exactness on l^beta, beta = alpha of node c: P (column c: BB
     * coefficients of l^beta) and dP (of its derivative) in closed form.
     * dP is checked first by evaluating it through V against the derivative
     * at the nodes.  Both sides are short sums of O(N)-sized terms with
     * V >= 0 summing to 1 a row, so rounding stays below 1e-13. */
    for (int q = 0; q < Np; ++q)
      for (int c = 0; c < Np; ++c) {
        const int *aq = &b->alpha[q * nv], *beta = &b->alpha[c * nv];
        P[(size_t)q * Np + c] = bb_power(dim, N, aq, beta);
        dP[(size_t)q * Np + c] = deriv_power(dim, N, d, aq, beta, NULL);
      }
    MUST(dg_linalg_matmul(0, 0, Np, Np, Np, D, P, T));
    MUST(dg_linalg_matmul(0, 0, Np, Np, Np, b->V, dP, C));
    for (int p = 0; p < Np; ++p) {
      double l[4];
      bary(re, p, l);
      for (int c = 0; c < Np; ++c) {
        size_t pc = (size_t)p * Np + c;
        double exval = deriv_power(dim, N, d, NULL, &b->alpha[c * nv], l);
        EXPECT(fabs(C[pc] - exval) < 1e-13, "%dD N=%d: reference BB "
               "coefficients of D%d l^beta (node %d) evaluate to %.16g at "
               "node %d, exact %.16g", dim, N, d, c, C[pc], p, exval);
        EXPECT(fabs(T[pc] - dP[pc]) < 1e-13, "%dD N=%d D%d of l^beta (node "
               "%d): coefficient %d is %.16g, exact %.16g", dim, N, d, c, p,
               T[pc], dP[pc]);
      }
    }
    MUST(dg_linalg_matmul(0, 0, Np, Np, Np, Dn[d], b->V, T));
    MUST(dg_linalg_matmul(0, 0, Np, Np, Np, b->invV, T, C));
    worst = fmax(worst, max_abs_diff(NpNp, C, D) /
                            fmax(1.0, norm_inf(Np, Np, D)));
  }
  free(T);
  free(C);
  free(P);
  free(dP);
  return worst;
}

/* Face structure; returns through *nodal the largest difference of LIFT g
 * from invV re->LIFT (face nodal values of g) over random g, relative to
 * max(1, |result|_max), and through *mass that of M LIFT from the surface
 * matrix E (exact BB integrals: M LIFT = E is what lifting means), relative
 * to max(1, ||LIFT||_inf). */
static void check_faces(const dg_refelem *re, const dg_bernstein *b,
                        double *nodal, double *mass) {
  int dim = re->dim, N = re->N, Np = re->Np, nv = dim + 1, Nfp = re->Nfp;
  int nfn = re->Nfaces * Nfp;
  /* Reference measures (refelem.h): volume 2, 2, 4/3; face 1 (point) or 2. */
  const double vol = dim == 3 ? 4.0 / 3.0 : 2.0, fmeas = dim == 1 ? 1.0 : 2.0;
  double *M = malloc((size_t)Np * Np * sizeof *M);
  double *E = calloc((size_t)Np * nfn, sizeof *E);
  double *ML = malloc((size_t)Np * nfn * sizeof *ML);
  for (int p = 0; p < Np; ++p)
    for (int q = 0; q < Np; ++q)
      M[(size_t)p * Np + q] =
          bb_inner(dim, N, &b->alpha[p * nv], &b->alpha[q * nv], vol);
  for (int f = 0; f < re->Nfaces; ++f) {
    int z = FACE_ZERO[dim][f];
    for (int n = 0; n < Nfp; ++n) {
      int p = re->Fmask[f * Nfp + n];
      EXPECT(b->alpha[p * nv + z] == 0, "%dD N=%d face %d node %d has "
             "alpha_%d = %d", dim, N, f, p, z, b->alpha[p * nv + z]);
      /* Face multi-indices: alpha without component z. */
      int fp[4], fa[4];
      for (int v = 0, k = 0; v < nv; ++v)
        if (v != z)
          fp[k++] = b->alpha[p * nv + v];
      for (int a = 0; a < Np; ++a) {
        /* B_alpha with alpha_z > 0 vanishes on the face: |l_z| < 1e-15 at
         * the face nodes, times a polynomial bounded by 1. */
        if (b->alpha[a * nv + z] > 0) {
          EXPECT(fabs(b->V[(size_t)p * Np + a]) < 1e-14, "%dD N=%d face %d: "
                 "B_%d = %g at face node %d", dim, N, f, a,
                 b->V[(size_t)p * Np + a], p);
          continue;
        }
        for (int v = 0, k = 0; v < nv; ++v)
          if (v != z)
            fa[k++] = b->alpha[a * nv + v];
        E[(size_t)a * nfn + f * Nfp + n] = bb_inner(dim - 1, N, fa, fp, fmeas);
      }
    }
  }
  MUST(dg_linalg_matmul(0, 0, Np, nfn, Np, M, b->LIFT, ML));
  *mass = max_abs_diff((size_t)Np * nfn, ML, E) /
          fmax(1.0, norm_inf(Np, nfn, b->LIFT));

  double *g = malloc((size_t)nfn * sizeof *g), *u = malloc((size_t)nfn * sizeof *u);
  double *w = malloc((size_t)Np * sizeof *w), *ex = malloc((size_t)Np * sizeof *ex);
  double *got = malloc((size_t)Np * sizeof *got);
  *nodal = 0.0;
  for (int trial = 0; trial < 5; ++trial) {
    for (int i = 0; i < nfn; ++i)
      g[i] = urand();
    /* Face nodal values: the face polynomial sum_m g_m B_alpha(m) at face
     * node n, B evaluated here from the barycentric formula. */
    for (int f = 0; f < re->Nfaces; ++f)
      for (int n = 0; n < Nfp; ++n) {
        double l[4];
        bary(re, re->Fmask[f * Nfp + n], l);
        u[f * Nfp + n] = 0.0;
        for (int m = 0; m < Nfp; ++m)
          u[f * Nfp + n] += g[f * Nfp + m] *
                            bern(dim, N, &b->alpha[re->Fmask[f * Nfp + m] * nv], l);
      }
    MUST(dg_linalg_matmul(0, 0, Np, 1, nfn, re->LIFT, u, w));
    MUST(dg_linalg_matmul(0, 0, Np, 1, Np, b->invV, w, ex));
    MUST(dg_linalg_matmul(0, 0, Np, 1, nfn, b->LIFT, g, got));
    double scale = 0.0;
    for (int p = 0; p < Np; ++p)
      scale = fmax(scale, fabs(ex[p]));
    *nodal = fmax(*nodal, max_abs_diff((size_t)Np, got, ex) / fmax(1.0, scale));
  }
  free(M);
  free(E);
  free(ML);
  free(g);
  free(u);
  free(w);
  free(ex);
  free(got);
}

static void check(int dim, int N) {
  dg_refelem *re = NULL;
  dg_bernstein *b = NULL;
  MUST(dg_refelem_create(dim, N, &re));
  MUST(dg_bernstein_create(re, &b));
  int Np = re->Np, nv = dim + 1;
  size_t NpNp = (size_t)Np * Np;
  CHECK(b->dim == dim && b->N == N && b->Np == Np && b->Nfp == re->Nfp &&
            b->Nfaces == re->Nfaces && (dim > 1) == !!b->Ds &&
            (dim > 2) == !!b->Dt,
        "%dD N=%d: wrong sizes", dim, N);
  check_indices(re, b);

  /* V against the formula; rows sum to 1 (sum of the multinomial expansion
   * of (sum l)^N, nonnegative terms: rounding below 1e-14). */
  double verr = 0.0;
  for (int p = 0; p < Np; ++p) {
    double l[4], sum = 0.0;
    bary(re, p, l);
    for (int a = 0; a < Np; ++a) {
      double v = b->V[(size_t)p * Np + a];
      verr = fmax(verr, fabs(v - bern(dim, N, &b->alpha[a * nv], l)));
      sum += v;
    }
    EXPECT(fabs(sum - 1.0) < 1e-14, "%dD N=%d: row %d of V sums to %.16g",
           dim, N, p, sum);
  }
  EXPECT(verr < 1e-14, "%dD N=%d: V off the formula by %g", dim, N, verr);

  /* Everything built through invV is as accurate as the inverse.  V >= 0
   * with rows summing to 1 has ||V||_inf = 1, so kinf = ||invV||_inf is
   * cond_inf(V), and LU (backward stable) leaves |V invV - I| and the
   * relative errors of the products with invV below about Np eps kinf
   * (Higham, Accuracy and Stability, ch. 14); the nodal side (cond(V) < 1e3,
   * dg.refelem_conditioning) adds less.  We allow 10 Np eps kinf: the worst
   * seen is 0.25 of Np eps kinf (at N = 1, where rounding of single terms
   * dominates), below 0.05 of it for N >= 3.  kinf itself is held to 3^N
   * (seen: about 2^N in 1D, 2.2^N in 2D, 2.5^N in 3D), so that a bad
   * invV cannot widen its own tolerance. */
  double cond, kinf = norm_inf(Np, Np, b->invV), tol = 10.0 * DBL_EPSILON * Np * kinf;
  EXPECT(kinf < pow(3.0, N), "%dD N=%d: ||invV||_inf = %g", dim, N, kinf);
  double *I = malloc(NpNp * sizeof *I), *Id = calloc(NpNp, sizeof *Id);
  MUST(dg_linalg_cond2(Np, b->V, &cond));
  MUST(dg_linalg_matmul(0, 0, Np, Np, Np, b->V, b->invV, I));
  for (int p = 0; p < Np; ++p)
    Id[(size_t)p * Np + p] = 1.0;
  double ierr = max_abs_diff(NpNp, I, Id);
  EXPECT(ierr < tol, "%dD N=%d: |V invV - I| = %g (tol %g)", dim, N, ierr, tol);
  free(I);
  free(Id);

  int nnz;
  double lerr, merr, derr = check_derivatives(re, b, &nnz);
  check_faces(re, b, &lerr, &merr);
  EXPECT(derr < tol, "%dD N=%d: BB D differs from invV D V by %g relative "
         "(tol %g)", dim, N, derr, tol);
  EXPECT(lerr < tol, "%dD N=%d: BB LIFT differs from invV LIFT by %g "
         "relative (tol %g)", dim, N, lerr, tol);
  EXPECT(merr < tol, "%dD N=%d: M LIFT differs from E by %g relative (tol "
         "%g)", dim, N, merr, tol);
  printf("%dD N=%2d Np=%3d cond2(V) %.2e ||invV|| %.2e ||LIFT|| %.2e  "
         "errors: V %.0e V*invV %.0e D %.0e LIFT %.0e M*LIFT %.0e  max nnz "
         "%d\n", dim, N, Np, cond, kinf, norm_inf(Np, re->Nfaces * re->Nfp,
         b->LIFT), verr, ierr, derr, lerr, merr, nnz);
  dg_bernstein_destroy(&b);
  EXPECT(b == NULL, "destroy did not reset the pointer");
  dg_bernstein_destroy(&b);
  dg_refelem_destroy(&re);
}

int main(void) {
  rng_state = (unsigned long long)time(NULL) * 2654435761ULL + 11;
  printf("seed %llu\n", rng_state);
  for (int dim = 1; dim <= 3; ++dim)
    for (int N = 1; N <= DG_REFELEM_MAX_ORDER; ++N)
      check(dim, N);

  dg_bernstein *b = (dg_bernstein *)&b; /* poisoned: must become NULL */
  EXPECT(dg_bernstein_create(NULL, &b) == DG_ERR_ARG, "NULL refelem accepted");
  EXPECT(b == NULL, "NULL refelem left *out non-NULL");
  EXPECT(strlen(dg_error_message()) > 0, "no message for a NULL refelem");
  dg_error_clear();
  dg_refelem *re = NULL;
  MUST(dg_refelem_create(2, 3, &re));
  EXPECT(dg_bernstein_create(re, NULL) == DG_ERR_ARG, "NULL out accepted");
  dg_error_clear();
  dg_refelem_destroy(&re);
  dg_bernstein_destroy(NULL);
  return test_result("dg.bernstein");
}
