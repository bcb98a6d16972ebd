/* dg.discretization_curved: the host geometry of curved elements.
 *  - A polynomial map of degree k (2D and 3D, k = 2, 3) is reproduced
 *    exactly by the order-k geometry: node coordinates, dr/dx and J at the
 *    order-N nodes (N = 1..4, also N < k) against the map's own derivatives
 *    computed here, to 1e-12.
 *  - The polar map of an annulus sector (not polynomial): the errors of J
 *    at the nodes and of the outer-circle normals against the radial
 *    direction fall at rate >= k - 0.3 under refinement, the sector's area
 *    sum J w at rate >= k + 0.7 (k = 2, 3); on one mesh they fall with k
 *    (k = 1..4 at N = 4).
 *  - Affine elements are bitwise those of a straight mesh: a mesh of
 *    geometry order 2 with affine nodes, and the affine elements of a mesh
 *    curved only where x > 1/2.
 *  - Neighbours whose curved faces do not share their nodes: DG_ERR_INPUT
 *    naming both elements. */
#include "tests/discretization/disc_test.h"

#include "dg/opdata.h"
#include "meshes/mesh_curved.h"

static const double PI = 3.14159265358979323846;

/* Degree-k polynomial map and its Jacobian (D[c][b] = d y_c / d x_b). */
typedef struct {
  int dim, k;
} poly_ctx;

static void poly_map(const poly_ctx *p, const double *x, double *y, double D[3][3]) {
  const double e = 0.08;
  for (int c = 0; c < p->dim; c++) {
    int o = (c + 1) % p->dim; /* y_c = x_c + e x_o^k */
    y[c] = x[c] + e * pow(x[o], p->k);
    for (int b = 0; b < 3; b++)
      D[c][b] = c == b;
    D[c][o] += e * p->k * pow(x[o], p->k - 1);
  }
}

static void poly_fn(void *ctx, const double *x, double *y) {
  double D[3][3];
  poly_map(ctx, x, y, D);
}

/* Straight-sided position of node i of element e and dx/dr of the affine
 * map (E[c][a] = (v_{a+1} - v_0)_c / 2), from the straight mesh. */
static void affine_node(const dg_mesh *s, const dg_refelem *re, int64_t e, int i, double *x,
                        double E[3][3]) {
  const int dim = s->dim;
  const int64_t *v = s->EToV + e * (dim + 1);
  const double *rst[3] = {re->r, re->s, re->t};
  for (int c = 0; c < dim; c++) {
    x[c] = s->VX[v[0] * dim + c];
    for (int a = 0; a < dim; a++) {
      E[c][a] = 0.5 * (s->VX[v[a + 1] * dim + c] - s->VX[v[0] * dim + c]);
      x[c] += E[c][a] * (1 + rst[a][i]);
    }
  }
}

static double det3(int dim, double A[3][3]) {
  if (dim == 2)
    return A[0][0] * A[1][1] - A[0][1] * A[1][0];
  return A[0][0] * (A[1][1] * A[2][2] - A[1][2] * A[2][1]) -
         A[0][1] * (A[1][0] * A[2][2] - A[1][2] * A[2][0]) +
         A[0][2] * (A[1][0] * A[2][1] - A[1][1] * A[2][0]);
}

static void check_polynomial(int dim, int k, int N) {
  mesh_case c = {.dim = dim, .lo = {0.2, 0.1, 0.3}, .hi = {1.2, 0.9, 1.1}, .n = {2, 2, 1}};
  dg_mesh *s = test_make_mesh(&c, 0.0), *m = NULL;
  MUST(dg_mesh_copy(s, &m));
  poly_ctx p = {dim, k};
  MUST(dg_mesh_curve(m, k, poly_fn, &p));
  dg_discretization *d = NULL;
  MUST(dg_discretization_create(m, N, DG_DOUBLE, &d));
  EXPECT(d->ncurved == m->K, "all %lld elements curved (%lld)", (long long)m->K,
         (long long)d->ncurved);
  double ex = 0, eg = 0, ej = 0;
  for (int64_t e = 0; e < m->K; e++)
    for (int i = 0; i < d->Np; i++) {
      double x[3], E[3][3], y[3], D[3][3], A[3][3] = {{0}};
      affine_node(s, d->re, e, i, x, E);
      poly_map(&p, x, y, D);
      for (int cc = 0; cc < dim; cc++)
        for (int a = 0; a < dim; a++)
          for (int b = 0; b < dim; b++)
            A[cc][a] += D[cc][b] * E[b][a]; /* dx/dr = Dphi E */
      double J = det3(dim, A);
      const int64_t n = e * d->Np + i;
      ej = fmax(ej, fabs(d->J[n] - J) / fabs(J));
      for (int cc = 0; cc < dim; cc++) {
        ex = fmax(ex, fabs(d->X[cc][n] - y[cc]));
        /* dr_a/dx_b (A G = I): sum_a A[cc][a] G[a][b] = delta */
        for (int b = 0; b < dim; b++) {
          double sum = 0;
          for (int a = 0; a < dim; a++)
            sum += A[cc][a] * d->G[a][b][n];
          eg = fmax(eg, fabs(sum - (cc == b)));
        }
      }
    }
  /* Round-off of sums of ~nho products of O(1) values. */
  EXPECT(ex < 1e-13 && eg < 1e-12 && ej < 1e-12,
         "%dD k %d N %d: x error %.2e, dr/dx error %.2e, J error %.2e", dim, k, N, ex, eg, ej);
  dg_discretization_destroy(&d);
  dg_mesh_destroy(&m);
  dg_mesh_destroy(&s);
}

/* (rho, theta) -> (rho cos theta, rho sin theta) on [1, 2] x [0, pi/2]. */
static void polar_fn(void *ctx, const double *x, double *y) {
  (void)ctx;
  y[0] = x[0] * cos(x[1]);
  y[1] = x[0] * sin(x[1]);
}

/* Errors on the sector mesh of n x n cells at geometry order k, order N:
 * J at the nodes (relative), outer normals vs radial, area. */
static void polar_errors(int n, int k, int N, double err[3]) {
  mesh_case c = {.dim = 2, .lo = {1, 0, 0}, .hi = {2, PI / 2, 0}, .n = {n, n, 1}};
  dg_mesh *s = test_make_mesh(&c, 0.0), *m = NULL;
  MUST(dg_mesh_copy(s, &m));
  MUST(dg_mesh_curve(m, k, polar_fn, NULL));
  dg_discretization *d = NULL;
  MUST(dg_discretization_create(m, N, DG_DOUBLE, &d));
  err[0] = err[1] = 0;
  for (int64_t e = 0; e < m->K; e++)
    for (int i = 0; i < d->Np; i++) {
      double x[3], E[3][3];
      affine_node(s, d->re, e, i, x, E);
      /* J of the polar map composed with the affine map: rho det E. */
      double J = x[0] * det3(2, E);
      err[0] = fmax(err[0], fabs(d->J[e * d->Np + i] - J) / J);
    }
  const int64_t *map;
  int64_t count;
  MUST(dg_discretization_boundary_nodes(d, "right", &map, &count)); /* rho = 2 */
  for (int64_t i = 0; i < count; i++) {
    int64_t fn = map[i], vn = d->vmapM[fn];
    double r = hypot(d->x[vn], d->y[vn]);
    err[1] = fmax(err[1], hypot(d->nx[fn] - d->x[vn] / r, d->ny[fn] - d->y[vn] / r));
  }
  err[2] = fabs(d->volume - 0.75 * PI);
  dg_discretization_destroy(&d);
  dg_mesh_destroy(&m);
  dg_mesh_destroy(&s);
}

static void check_polar(int k) {
  double e1[3], e2[3];
  polar_errors(4, k, k, e1);
  polar_errors(8, k, k, e2);
  const double want[3] = {k - 0.3, k - 0.3, k + 0.7};
  const char *what[3] = {"J", "normal", "area"};
  for (int q = 0; q < 3; q++) {
    double rate = log2(e1[q] / e2[q]);
    printf("polar k %d %-6s error %.3e -> %.3e rate %.2f\n", k, what[q], e1[q], e2[q], rate);
    EXPECT(rate >= want[q], "k %d %s rate %.2f < %.1f", k, what[q], rate, want[q]);
  }
}

/* On one mesh at N = 4, the geometry error falls with k: each order at
 * least halves the errors of J and of the normals (measured: by 3x to 180x). */
static void check_polar_orders(void) {
  double prev[3] = {0, 0, 0};
  for (int k = 1; k <= 4; k++) {
    double e[3];
    polar_errors(4, k, 4, e);
    printf("polar 4 x 4, N = 4, k = %d: J %.3e normal %.3e area %.3e\n", k, e[0], e[1], e[2]);
    if (k > 1)
      EXPECT(e[0] < 0.5 * prev[0] && e[1] < 0.5 * prev[1] && e[2] < prev[2],
             "k %d does not improve on k %d", k, k - 1);
    memcpy(prev, e, sizeof e);
  }
}

/* Identity for x <= 1/2, cubic bend beyond (C^2): elements left of 1/2
 * stay affine bitwise. */
static void half_fn(void *ctx, const double *x, double *y) {
  const int dim = *(const int *)ctx;
  double t = x[0] > 0.5 ? x[0] - 0.5 : 0.0;
  for (int a = 0; a < dim; a++)
    y[a] = x[a];
  y[dim - 1] += 0.3 * t * t * t;
}

/* Affine elements of b equal those of the straight a, bitwise. */
static int same_affine(const dg_discretization *a, const dg_discretization *b) {
  int ok = 1;
  const int Np = a->Np, nfp = a->Nfaces * a->Nfp;
  for (int64_t e = 0; e < a->K; e++) {
    if (b->curved[e])
      continue;
    for (int c = 0; c < a->dim; c++) {
      ok &= memcmp(a->X[c] + e * Np, b->X[c] + e * Np, sizeof(double) * Np) == 0;
      ok &= memcmp(a->n[c] + e * nfp, b->n[c] + e * nfp, sizeof(double) * nfp) == 0;
      for (int q = 0; q < a->dim; q++)
        ok &= memcmp(a->G[c][q] + e * Np, b->G[c][q] + e * Np, sizeof(double) * Np) == 0;
    }
    ok &= memcmp(a->J + e * Np, b->J + e * Np, sizeof(double) * Np) == 0;
    ok &= memcmp(a->sJ + e * nfp, b->sJ + e * nfp, sizeof(double) * nfp) == 0;
    ok &= memcmp(a->Fscale + e * nfp, b->Fscale + e * nfp, sizeof(double) * nfp) == 0;
    ok &= a->h[e] == b->h[e];
  }
  return ok;
}

static void check_affine(int dim) {
  mesh_case c = {.dim = dim, .lo = {0, 0, 0}, .hi = {1, 1, 1}, .n = {4, 2, 2}};
  dg_mesh *s = test_make_mesh(&c, 0.1), *m = NULL, *h = NULL;
  MUST(dg_mesh_copy(s, &m));
  MUST(dg_mesh_ho_set_order(m, 2));
  MUST(dg_mesh_copy(s, &h));
  MUST(dg_mesh_curve(h, dim == 3 ? 3 : 4, half_fn, &dim));
  /* The straight twin of h: its vertices bent alike, since the random
   * perturbation can carry a vertex of a nearly straight element past 1/2. */
  dg_mesh *hs = NULL;
  MUST(dg_mesh_copy(s, &hs));
  MUST(dg_mesh_curve(hs, 1, half_fn, &dim));
  for (int N = 1; N <= 3; N++) {
    dg_discretization *a = NULL, *b = NULL, *q = NULL, *as = NULL;
    MUST(dg_discretization_create(s, N, DG_DOUBLE, &a));
    MUST(dg_discretization_create(hs, N, DG_DOUBLE, &as));
    MUST(dg_discretization_create(m, N, DG_DOUBLE, &b));
    EXPECT(b->ncurved == 0 && same_affine(a, b) && a->volume == b->volume &&
               memcmp(a->vmapP, b->vmapP, sizeof(int64_t) * (size_t)(a->K * a->Nfaces * a->Nfp)) == 0,
           "%dD N %d: affine nodes of order 2 not bitwise straight", dim, N);
    MUST(dg_discretization_create(h, N, DG_DOUBLE, &q));
    EXPECT(q->ncurved > 0 && q->ncurved < q->K && same_affine(as, q),
           "%dD N %d: %lld of %lld curved; affine elements not bitwise straight", dim, N,
           (long long)q->ncurved, (long long)q->K);
    /* The curved kernels run [0, ncurved): unless the curved elements come
     * first the operator data refuses, naming the order that runs; an
     * affine-only consumer (dg_opdata_check_affine) refuses any curved
     * element. */
    dg_opdata *o = NULL;
    int bc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    dg_error err = q->curved[0] ? DG_ERR_ARG : dg_opdata_create(q, q->Np, 1, 1, bc, &o);
    EXPECT(err == DG_ERR_ARG && (q->curved[0] || strstr(dg_error_message(), "curved elements first")),
           "%s", dg_error_message());
    dg_error_clear();
    err = dg_opdata_check_affine(q);
    EXPECT(err == DG_ERR_UNSUPPORTED && strstr(dg_error_message(), "is curved"), "%s",
           dg_error_message());
    dg_error_clear();
    dg_discretization_destroy(&a);
    dg_discretization_destroy(&as);
    dg_discretization_destroy(&b);
    dg_discretization_destroy(&q);
  }
  dg_mesh_destroy(&hs);
  /* Break the shared curved face: move one element's nodes only. */
  const int nho = dg_mesh_ho_count(dim, h->geom_order);
  int64_t e = -1;
  for (int64_t i = 0; i < h->K && e < 0; i++)
    if (!dg_mesh_element_affine(h, i))
      e = i;
  for (int j = 0; j < nho; j++) {
    int b[4];
    dg_mesh_ho_bary(dim, h->geom_order, j, b);
    int vertex = 0;
    for (int v = 0; v <= dim; v++)
      vertex |= b[v] == h->geom_order;
    if (!vertex)
      h->XH[(e * nho + j) * dim] += 1e-3;
  }
  dg_discretization *q = NULL;
  dg_error err = dg_discretization_create(h, 2, DG_DOUBLE, &q);
  char want[64];
  snprintf(want, sizeof want, "element %lld", (long long)e);
  EXPECT(err == DG_ERR_INPUT && strstr(dg_error_message(), "high-order nodes") &&
             strstr(dg_error_message(), want),
         "%s", dg_error_message());
  dg_error_clear();
  dg_mesh_destroy(&h);
  /* A tangled element that skipped validation: the discretization refuses
   * it at its own nodes, naming it (its edge node pulled beyond v1). */
  const int k = 2, n2 = dg_mesh_ho_count(dim, k);
  MUST(dg_mesh_copy(s, &h));
  MUST(dg_mesh_ho_set_order(h, k));
  int bb[4] = {1, 1, 0, 0};
  const int j = dg_mesh_ho_index(dim, k, bb);
  for (int cc = 0; cc < dim; cc++)
    h->XH[(3 * n2 + j) * dim + cc] = h->VX[h->EToV[3 * (dim + 1)] * dim + cc] +
                                     0.9 * (h->VX[h->EToV[3 * (dim + 1) + 1] * dim + cc] -
                                            h->VX[h->EToV[3 * (dim + 1)] * dim + cc]);
  err = dg_discretization_create(h, 3, DG_DOUBLE, &q);
  EXPECT(err == DG_ERR_INPUT && strstr(dg_error_message(), "curved element 3 has Jacobian"),
         "%s", dg_error_message());
  dg_error_clear();
  dg_mesh_destroy(&h);
  dg_mesh_destroy(&m);
  dg_mesh_destroy(&s);
}

int main(void) {
  rng_seed();
  for (int dim = 2; dim <= 3; dim++)
    for (int k = 2; k <= 3; k++)
      for (int N = 1; N <= 4; N++)
        check_polynomial(dim, k, N);
  check_polar(2);
  check_polar(3);
  check_polar_orders();
  check_affine(2);
  check_affine(3);
  return expect_finish();
}
