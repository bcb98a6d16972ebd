/* meshes.curved: the high-order node lattice and its Lagrange basis
 * (Kronecker at the nodes, partition of unity, derivatives against central
 * differences), dg_mesh_curve and the affine test, and that copy, permute,
 * orient, sub-meshes and partition parts carry the nodes: each node of each
 * resulting element must sit at phi of the affine lattice point of that
 * element's own vertices, computed here; a tangled element is refused. */
#include "tests/mesh/mesh_test.h"

#include <string.h>

#include "core/error.h"
#include "meshes/mesh_curved.h"
#include "meshes/mesh_validate.h"
#include "meshes/partition.h"
#include "meshes/submesh.h"

/* A smooth non-polynomial warp that keeps the box [0,1]^dim's sides. */
static void warp(void *ctx, const double *x, double *y) {
  const int dim = *(const int *)ctx;
  for (int a = 0; a < dim; a++) {
    double s = 1;
    for (int b = 0; b < dim; b++)
      s *= sin(3.14159265358979323846 * x[b]);
    y[a] = x[a] + 0.05 * s;
  }
}

static void check_basis(int dim, int k) {
  const int n = dg_mesh_ho_count(dim, k);
  double rst[84 * 3], phi[84], dphi[84 * 3];
  dg_mesh_ho_reference(dim, k, rst);
  for (int j = 0; j < n; j++) {
    int b[4];
    dg_mesh_ho_bary(dim, k, j, b);
    EXPECT(dg_mesh_ho_index(dim, k, b) == j, "dim %d k %d node %d", dim, k, j);
    dg_mesh_ho_basis(dim, k, rst + j * dim, phi, NULL);
    for (int i = 0; i < n; i++)
      EXPECT(fabs(phi[i] - (i == j)) < 1e-13, "dim %d k %d l_%d(x_%d) = %g", dim, k, i, j,
             phi[i]);
  }
  /* At a generic point: sum l = 1, sum dl = 0, dl against differences
   * (step 1e-5: truncation ~1e-10 k^2, round-off ~1e-11). */
  double r[3] = {-0.31, -0.42, -0.27}, sum = 0, dsum[3] = {0, 0, 0};
  dg_mesh_ho_basis(dim, k, r, phi, dphi);
  for (int j = 0; j < n; j++) {
    sum += phi[j];
    for (int a = 0; a < dim; a++)
      dsum[a] += dphi[j * dim + a];
  }
  EXPECT(fabs(sum - 1) < 1e-13 && fabs(dsum[0]) < 1e-12 && fabs(dsum[dim - 1]) < 1e-12);
  for (int a = 0; a < dim; a++) {
    double rp[3], rm[3], pp[84], pm[84];
    memcpy(rp, r, sizeof r);
    memcpy(rm, r, sizeof r);
    rp[a] += 1e-5;
    rm[a] -= 1e-5;
    dg_mesh_ho_basis(dim, k, rp, pp, NULL);
    dg_mesh_ho_basis(dim, k, rm, pm, NULL);
    for (int j = 0; j < n; j++)
      EXPECT(fabs((pp[j] - pm[j]) / 2e-5 - dphi[j * dim + a]) < 1e-7, "dim %d k %d d%d l_%d",
             dim, k, a, j);
  }
}

/* Max distance of element e's nodes from warp(affine lattice point of its
 * vertices). */
static double node_error(const dg_mesh *m, const dg_mesh *straight_vx, int64_t e, int dim) {
  /* straight_vx: the mesh's vertices before warping, by vertex id. */
  const int k = m->geom_order, n = dg_mesh_ho_count(dim, k);
  double err = 0;
  for (int j = 0; j < n; j++) {
    int b[4];
    dg_mesh_ho_bary(dim, k, j, b);
    double x[3] = {0, 0, 0}, y[3];
    for (int v = 0; v <= dim; v++)
      for (int c = 0; c < dim; c++)
        x[c] += (double)b[v] / k * straight_vx->VX[m->EToV[e * (dim + 1) + v] * dim + c];
    warp((void *)&dim, x, y);
    for (int c = 0; c < dim; c++)
      err = fmax(err, fabs(m->XH[(e * n + j) * dim + c] - y[c]));
  }
  return err;
}

static void check_mesh(int dim, int k) {
  mesh_case c = {.dim = dim, .lo = {0, 0, 0}, .hi = {1, 1, 1}, .n = {3, 3, 2}};
  dg_mesh *straight = test_make_mesh(&c, 0.0), *m = NULL, *cp = NULL;
  MUST(dg_mesh_copy(straight, &m));
  MUST(dg_mesh_ho_set_order(m, k));
  EXPECT(dg_mesh_curved_count(m) == 0, "affine nodes are affine");
  MUST(dg_mesh_curve(m, k, warp, &dim));
  int64_t ncurved = dg_mesh_curved_count(m);
  EXPECT(ncurved > 0 && ncurved <= m->K, "dim %d k %d: %lld curved", dim, k, (long long)ncurved);
  double err = 0;
  for (int64_t e = 0; e < m->K; e++)
    err = fmax(err, node_error(m, straight, e, dim));
  EXPECT(err < 1e-15, "dim %d k %d: curve error %g", dim, k, err);
  MUST(dg_mesh_validate(m, NULL, NULL));

  /* Copy, then permute (reverse order). */
  MUST(dg_mesh_copy(m, &cp));
  EXPECT(cp->geom_order == k && memcmp(cp->XH, m->XH, sizeof(double) * (size_t)(m->K * dg_mesh_ho_count(dim, k) * dim)) == 0);
  int64_t *perm = malloc(sizeof(int64_t) * (size_t)m->K);
  for (int64_t e = 0; e < m->K; e++)
    perm[e] = m->K - 1 - e;
  MUST(dg_mesh_permute(cp, perm));
  free(perm);
  err = 0;
  for (int64_t e = 0; e < cp->K; e++)
    err = fmax(err, node_error(cp, straight, e, dim));
  EXPECT(err < 1e-15, "dim %d k %d: permuted error %g", dim, k, err);

  /* Orient: invert element 1 by swapping v0 and v1 (its nodes relabelled
   * to match by barycentric swap), then dg_mesh_orient reorients it. */
  if (dim > 1) {
    const int n = dg_mesh_ho_count(dim, k), nv = dim + 1;
    int64_t e = 1, t = cp->EToV[e * nv];
    cp->EToV[e * nv] = cp->EToV[e * nv + 1];
    cp->EToV[e * nv + 1] = t;
    double old[84 * 3];
    memcpy(old, cp->XH + e * n * dim, sizeof(double) * (size_t)(n * dim));
    for (int j = 0; j < n; j++) {
      int b[4];
      dg_mesh_ho_bary(dim, k, j, b);
      int s = b[0];
      b[0] = b[1];
      b[1] = s;
      memcpy(cp->XH + (e * n + j) * dim, old + dg_mesh_ho_index(dim, k, b) * dim,
             sizeof(double) * (size_t)dim);
    }
    EXPECT(node_error(cp, straight, e, dim) < 1e-15, "relabelled nodes");
    int64_t nflip = 0;
    MUST(dg_mesh_orient(cp, &nflip));
    EXPECT(nflip == 1);
    EXPECT(node_error(cp, straight, e, dim) < 1e-15, "dim %d k %d: reoriented node error %g",
           dim, k, node_error(cp, straight, e, dim));
  }
  dg_mesh_destroy(&cp);

  /* Sub-mesh of every other element and partition parts. */
  const int nf = dim + 1;
  int64_t *EToE = malloc(sizeof(int64_t) * (size_t)(m->K * nf));
  int *EToF = malloc(sizeof(int) * (size_t)(m->K * nf));
  double *shift = calloc((size_t)(m->K * nf * 3), sizeof(double));
  MUST(dg_mesh_validate_neighbors(m, 1, EToE, EToF));
  for (int64_t i = 0; i < m->K * nf; i++)
    if (EToE[i] < 0) {
      EToE[i] = i / nf;
      EToF[i] = (int)(i % nf);
    }
  int64_t nsel = (m->K + 1) / 2, *sel = malloc(sizeof(int64_t) * (size_t)nsel);
  for (int64_t i = 0; i < nsel; i++)
    sel[i] = 2 * i;
  dg_mesh *sub = NULL;
  MUST(dg_mesh_submesh(m, EToE, EToF, shift, nsel, sel, "cut", &sub));
  const int n = dg_mesh_ho_count(dim, k);
  EXPECT(sub->geom_order == k);
  for (int64_t i = 0; i < nsel; i++)
    EXPECT(memcmp(sub->XH + i * n * dim, m->XH + sel[i] * n * dim,
                  sizeof(double) * (size_t)(n * dim)) == 0);
  dg_mesh_destroy(&sub);
  dg_partition *p = NULL;
  dg_partition_local *L = NULL;
  MUST(dg_partition_create(m, NULL, NULL, 2, NULL, &p));
  MUST(dg_partition_extract(m, NULL, NULL, p, 1, &L));
  EXPECT(L->mesh->geom_order == k);
  for (int64_t i = 0; i < L->mesh->K; i++)
    EXPECT(memcmp(L->mesh->XH + i * n * dim, m->XH + L->global_element[i] * n * dim,
                  sizeof(double) * (size_t)(n * dim)) == 0);
  dg_partition_local_destroy(&L);
  dg_partition_destroy(&p);
  free(sel);
  free(EToE);
  free(EToF);
  free(shift);

  /* Tangle element 0: pull its node next to v0 on edge v0-v1 beyond v1
   * (J changes sign along the edge). */
  if (dim > 1) {
    int b[4] = {k - 1, 1, 0, 0};
    int j = dg_mesh_ho_index(dim, k, b);
    const int64_t *v = m->EToV;
    for (int cc = 0; cc < dim; cc++)
      m->XH[j * dim + cc] = m->VX[v[0] * dim + cc] + 1.5 * (m->VX[v[1] * dim + cc] - m->VX[v[0] * dim + cc]);
    dg_error e = dg_mesh_validate(m, NULL, NULL);
    EXPECT(e == DG_ERR_INPUT && strstr(dg_error_message(), "curved element 0 is tangled"),
           "dim %d k %d: %s", dim, k, dg_error_message());
    dg_error_clear();
  }
  dg_mesh_destroy(&m);
  dg_mesh_destroy(&straight);
}

int main(void) {
  rng_seed();
  for (int dim = 1; dim <= 3; dim++)
    for (int k = 1; k <= 4; k++)
      check_basis(dim, k);
  for (int dim = 1; dim <= 3; dim++)
    for (int k = 2; k <= (dim == 3 ? 3 : 4); k++)
      check_mesh(dim, k);
  return expect_finish();
}
