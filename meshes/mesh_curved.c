#include "meshes/mesh_curved.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int dg_mesh_ho_count(int dim, int k) {
  if (k < 1 || dim < 1 || dim > 3)
    return 0;
  return dim == 1 ? k + 1 : dim == 2 ? (k + 1) * (k + 2) / 2 : (k + 1) * (k + 2) * (k + 3) / 6;
}

void dg_mesh_ho_bary(int dim, int k, int j, int b[DG_MESH_MAX_VERTS]) {
  /* Skip whole layers (of t), then rows (of s), in the lattice order of
   * mesh_curved.h; what is left is i. */
  int l = 0, jj = 0;
  while (dim > 2 && j >= (k - l + 1) * (k - l + 2) / 2)
    j -= (k - l + 1) * (k - l + 2) / 2, l++;
  while (dim > 1 && j >= k - l - jj + 1)
    j -= k - l - jj + 1, jj++;
  int t[4] = {k - j - jj - l, j, jj, l};
  for (int v = 0; v < DG_MESH_MAX_VERTS; v++)
    b[v] = v <= dim ? t[v] : 0;
}

int dg_mesh_ho_index(int dim, int k, const int b[DG_MESH_MAX_VERTS]) {
  int sum = 0;
  for (int v = 0; v <= dim; v++) {
    if (b[v] < 0)
      return -1;
    sum += b[v];
  }
  if (sum != k)
    return -1;
  int i = b[1], j = dim > 1 ? b[2] : 0, l = dim > 2 ? b[3] : 0, n = 0;
  /* Nodes before layer l, then before row j in it, then i. */
  for (int ll = 0; ll < l; ll++)
    n += (k - ll + 1) * (k - ll + 2) / 2;
  for (int jj = 0; jj < j; jj++)
    n += k - l - jj + 1;
  return n + i;
}

void dg_mesh_ho_reference(int dim, int k, double *rst) {
  const int n = dg_mesh_ho_count(dim, k);
  for (int j = 0; j < n; j++) {
    int b[DG_MESH_MAX_VERTS];
    dg_mesh_ho_bary(dim, k, j, b);
    for (int a = 0; a < dim; a++)
      rst[j * dim + a] = -1.0 + 2.0 * b[a + 1] / k;
  }
}

/* prod_{m < b} (k lambda - m) / (m + 1) and its derivative in lambda. */
static void silvester(int k, int b, double lambda, double *f, double *df) {
  double p = 1, dp = 0;
  for (int m = 0; m < b; m++) {
    double g = (k * lambda - m) / (m + 1), dg = (double)k / (m + 1);
    dp = dp * g + p * dg;
    p *= g;
  }
  *f = p;
  *df = dp;
}

void dg_mesh_ho_basis(int dim, int k, const double *r, double *phi, double *dphi) {
  const int n = dg_mesh_ho_count(dim, k);
  double lam[DG_MESH_MAX_VERTS], sum = 0;
  for (int a = 0; a < dim; a++) {
    lam[a + 1] = 0.5 * (1.0 + r[a]);
    sum += lam[a + 1];
  }
  lam[0] = 1.0 - sum;
  for (int j = 0; j < n; j++) {
    int b[DG_MESH_MAX_VERTS];
    dg_mesh_ho_bary(dim, k, j, b);
    double f[DG_MESH_MAX_VERTS], df[DG_MESH_MAX_VERTS], l = 1;
    for (int v = 0; v <= dim; v++) {
      silvester(k, b[v], lam[v], &f[v], &df[v]);
      l *= f[v];
    }
    phi[j] = l;
    if (!dphi)
      continue;
    /* dl/dlambda_v = df_v prod_{u != v} f_u; d lambda_{a+1} / dr_a = 1/2,
     * d lambda_0 / dr_a = -1/2. */
    double dl[DG_MESH_MAX_VERTS];
    for (int v = 0; v <= dim; v++) {
      dl[v] = df[v];
      for (int u = 0; u <= dim; u++)
        if (u != v)
          dl[v] *= f[u];
    }
    for (int a = 0; a < dim; a++)
      dphi[j * dim + a] = 0.5 * (dl[a + 1] - dl[0]);
  }
}

/* Affine position of lattice node j of element e: sum_v lambda_v VX[v]. */
static void affine_node(const dg_mesh *m, int64_t e, int k, int j, double *x) {
  int b[DG_MESH_MAX_VERTS];
  dg_mesh_ho_bary(m->dim, k, j, b);
  const int64_t *v = m->EToV + e * (m->dim + 1);
  for (int c = 0; c < m->dim; c++) {
    double s = 0;
    for (int p = 0; p <= m->dim; p++)
      s += (double)b[p] / k * m->VX[v[p] * m->dim + c];
    x[c] = s;
  }
}

dg_error dg_mesh_ho_set_order(dg_mesh *m, int k) {
  DG_CHECK(m != NULL, DG_ERR_ARG, "dg_mesh_ho_set_order: mesh is NULL");
  DG_CHECK(k >= 1 && k <= DG_MESH_MAX_GEOM_ORDER, DG_ERR_INPUT,
           "geometry order %d must be 1 to %d", k, DG_MESH_MAX_GEOM_ORDER);
  free(m->XH);
  m->XH = NULL;
  m->geom_order = k;
  if (k == 1)
    return DG_OK;
  const int nho = dg_mesh_ho_count(m->dim, k);
  m->XH = malloc((size_t)(m->K * nho * m->dim) * sizeof *m->XH);
  DG_CHECK(m->XH != NULL, DG_ERR_MEMORY, "high-order nodes of %" PRId64 " elements: out of memory",
           m->K);
#pragma omp parallel for schedule(static)
  for (int64_t e = 0; e < m->K; e++)
    for (int j = 0; j < nho; j++)
      affine_node(m, e, k, j, m->XH + (e * nho + j) * m->dim);
  return DG_OK;
}

int dg_mesh_element_affine(const dg_mesh *m, int64_t e) {
  if (m->geom_order <= 1 || !m->XH)
    return 1;
  const int k = m->geom_order, nho = dg_mesh_ho_count(m->dim, k);
  const double h = dg_mesh_element_size(m, e);
  double mag = 0, dev = 0;
  for (int j = 0; j < nho; j++) {
    double x[3];
    affine_node(m, e, k, j, x);
    for (int c = 0; c < m->dim; c++) {
      mag = fmax(mag, fabs(x[c]));
      dev = fmax(dev, fabs(m->XH[(e * nho + j) * m->dim + c] - x[c]));
    }
  }
  return dev <= 1e-10 * h + 1e-14 * mag;
}

int64_t dg_mesh_curved_count(const dg_mesh *m) {
  int64_t n = 0;
  if (m->geom_order <= 1)
    return 0;
#pragma omp parallel for schedule(static) reduction(+ : n)
  for (int64_t e = 0; e < m->K; e++)
    n += !dg_mesh_element_affine(m, e);
  return n;
}

dg_error dg_mesh_curve(dg_mesh *m, int k, dg_mesh_map_fn phi, void *ctx) {
  DG_CHECK(m != NULL && phi != NULL, DG_ERR_ARG, "dg_mesh_curve: NULL argument");
  DG_CALL(dg_mesh_ho_set_order(m, k)); /* the affine positions first */
  const int nho = dg_mesh_ho_count(m->dim, k), dim = m->dim;
  for (int64_t i = 0; i < m->K * nho && k > 1; i++) {
    double x[3], y[3];
    memcpy(x, m->XH + i * dim, (size_t)dim * sizeof *x);
    phi(ctx, x, y);
    memcpy(m->XH + i * dim, y, (size_t)dim * sizeof *y);
  }
  for (int64_t v = 0; v < m->Nv; v++) {
    double x[3], y[3];
    memcpy(x, m->VX + v * dim, (size_t)dim * sizeof *x);
    phi(ctx, x, y);
    memcpy(m->VX + v * dim, y, (size_t)dim * sizeof *y);
  }
  return DG_OK;
}

void dg_mesh_ho_flip_permutation(int dim, int k, int *perm) {
  const int nho = dg_mesh_ho_count(dim, k);
  for (int j = 0; j < nho; j++) {
    int b[DG_MESH_MAX_VERTS];
    dg_mesh_ho_bary(dim, k, j, b);
    int t = b[dim]; /* new vertex dim-1 is old vertex dim, and back */
    b[dim] = b[dim - 1];
    b[dim - 1] = t;
    perm[j] = dg_mesh_ho_index(dim, k, b);
  }
}

/* det of the dim x dim matrix A. */
static double det(int dim, double A[3][3]) {
  if (dim == 1)
    return A[0][0];
  if (dim == 2)
    return A[0][0] * A[1][1] - A[0][1] * A[1][0];
  return A[0][0] * (A[1][1] * A[2][2] - A[1][2] * A[2][1]) -
         A[0][1] * (A[1][0] * A[2][2] - A[1][2] * A[2][0]) +
         A[0][2] * (A[1][0] * A[2][1] - A[1][1] * A[2][0]);
}

double dg_mesh_ho_jacobian(const dg_mesh *m, int64_t e, const double *r, double A[3][3]) {
  const int dim = m->dim, k = m->geom_order, nho = dg_mesh_ho_count(dim, k);
  double phi[84], dphi[84 * 3]; /* nho <= 84 for k <= 6 in 3D */
  dg_mesh_ho_basis(dim, k, r, phi, dphi);
  for (int c = 0; c < dim; c++)
    for (int b = 0; b < dim; b++) {
      double s = 0;
      for (int j = 0; j < nho; j++)
        s += m->XH[(e * nho + j) * dim + c] * dphi[j * dim + b];
      A[c][b] = s;
    }
  return det(dim, A);
}

/* First check set point of element e with J <= 0, or -1; its J in *Jbad.
 * dphi: the basis gradients at the ncheck points (ncheck x nho x dim). */
static int tangled_at(const dg_mesh *m, int64_t e, const double *dphi, int ncheck, int nho,
                      double *Jbad) {
  const int dim = m->dim;
  const double *xh = m->XH + e * nho * dim;
  for (int p = 0; p < ncheck; p++) {
    double A[3][3] = {{0}};
    for (int j = 0; j < nho; j++)
      for (int c = 0; c < dim; c++)
        for (int b = 0; b < dim; b++)
          A[c][b] += xh[j * dim + c] * dphi[(p * nho + j) * dim + b];
    double J = det(dim, A);
    if (!(J > 0)) {
      *Jbad = J;
      return p;
    }
  }
  return -1;
}

dg_error dg_mesh_curved_check(const dg_mesh *m) {
  if (m->geom_order <= 1)
    return DG_OK;
  const int dim = m->dim, k = m->geom_order, nho = dg_mesh_ho_count(dim, k);
  DG_CHECK(m->XH != NULL, DG_ERR_INTERNAL, "mesh of geometry order %d has no nodes", k);
  /* The vertex nodes are the vertices. */
  for (int64_t e = 0; e < m->K; e++) {
    const double tol = 1e-10 * dg_mesh_element_size(m, e);
    for (int v = 0; v <= dim; v++) {
      int b[DG_MESH_MAX_VERTS] = {0, 0, 0, 0};
      b[v] = k;
      int j = dg_mesh_ho_index(dim, k, b);
      int64_t vid = m->EToV[e * (dim + 1) + v];
      for (int c = 0; c < dim; c++)
        DG_CHECK(fabs(m->XH[(e * nho + j) * dim + c] - m->VX[vid * dim + c]) <= tol,
                 DG_ERR_INPUT,
                 "element %" PRId64 ": its high-order node %d (vertex %d) is at coordinate %d "
                 "= %.17g, but vertex %" PRId64 " is at %.17g",
                 e, j, v, c, m->XH[(e * nho + j) * dim + c], vid, m->VX[vid * dim + c]);
    }
  }
  const int nchk = dg_mesh_ho_count(dim, 2 * k);
  double *rst = malloc((size_t)nchk * dim * sizeof *rst);
  double *dphi = malloc((size_t)nchk * nho * dim * sizeof *dphi);
  if (!rst || !dphi) {
    free(rst);
    free(dphi);
    DG_RAISE(DG_ERR_MEMORY, "curved element check: out of memory");
  }
  dg_mesh_ho_reference(dim, 2 * k, rst);
  for (int p = 0; p < nchk; p++) {
    double phi[84];
    dg_mesh_ho_basis(dim, k, rst + p * dim, phi, dphi + p * nho * dim);
  }
  int64_t bad = m->K;
#pragma omp parallel for schedule(static) reduction(min : bad)
  for (int64_t e = 0; e < m->K; e++) {
    double J;
    if (e < bad && !dg_mesh_element_affine(m, e) && tangled_at(m, e, dphi, nchk, nho, &J) >= 0)
      bad = e;
  }
  if (bad == m->K) {
    free(rst);
    free(dphi);
    return DG_OK;
  }
  double J = 0, phi[84], x[3] = {0, 0, 0}, r[3] = {0, 0, 0};
  int p = tangled_at(m, bad, dphi, nchk, nho, &J);
  memcpy(r, rst + p * dim, (size_t)dim * sizeof *r);
  free(rst);
  free(dphi);
  dg_mesh_ho_basis(dim, k, r, phi, NULL);
  for (int j = 0; j < nho; j++)
    for (int c = 0; c < dim; c++)
      x[c] += phi[j] * m->XH[(bad * nho + j) * dim + c];
  DG_RAISE(DG_ERR_INPUT,
           "curved element %" PRId64 " is tangled or inverted: its Jacobian is %.3g <= 0 at "
           "reference point (%g %g %g), physical (%g %g %g); move its high-order nodes (Gmsh: "
           "Mesh.HighOrderOptimize = 2) or refine the mesh near the curved boundary",
           bad, J, r[0], r[1], r[2], x[0], x[1], x[2]);
}
