#include "dg/geometry_curved.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "meshes/mesh_curved.h"

double dg_geometry_invert(int dim, double A[3][3], double B[3][3]) {
  if (dim == 1) {
    B[0][0] = 1.0 / A[0][0];
    return A[0][0];
  }
  if (dim == 2) {
    double det = A[0][0] * A[1][1] - A[0][1] * A[1][0];
    B[0][0] = A[1][1] / det;
    B[0][1] = -A[0][1] / det;
    B[1][0] = -A[1][0] / det;
    B[1][1] = A[0][0] / det;
    return det;
  }
  double C[3][3];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      int i1 = (i + 1) % 3, i2 = (i + 2) % 3, j1 = (j + 1) % 3, j2 = (j + 2) % 3;
      C[i][j] = A[i1][j1] * A[i2][j2] - A[i1][j2] * A[i2][j1]; /* cofactor */
    }
  double det = A[0][0] * C[0][0] + A[0][1] * C[0][1] + A[0][2] * C[0][2];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      B[j][i] = C[i][j] / det;
  return det;
}

/* Node coordinates, dr/dx and J of curved element k from the basis values
 * L (Np x nho) and gradients dL (Np x nho x dim) at the order-N nodes;
 * returns the first node with J <= 0, or -1. */
static int curved_element(dg_discretization *d, int64_t k, const double *L, const double *dL,
                          int nho) {
  const int dim = d->dim, Np = d->Np;
  const double *xh = d->mesh->XH + k * nho * dim;
  int bad = -1;
  for (int i = 0; i < Np; i++) {
    const int64_t n = k * Np + i;
    double A[3][3] = {{0}}, B[3][3];
    for (int c = 0; c < dim; c++) {
      double x = 0;
      for (int j = 0; j < nho; j++) {
        x += L[i * nho + j] * xh[j * dim + c];
        for (int b = 0; b < dim; b++)
          A[c][b] += dL[(i * nho + j) * dim + b] * xh[j * dim + c];
      }
      d->X[c][n] = x;
    }
    double J = dg_geometry_invert(dim, A, B);
    if (!(J > 0) && bad < 0)
      bad = i;
    d->J[n] = J;
    for (int a = 0; a < dim; a++)
      for (int b = 0; b < dim; b++)
        d->G[a][b][n] = B[a][b];
  }
  return bad;
}

dg_error dg_geometry_curved_apply(dg_discretization *d) {
  const dg_mesh *m = d->mesh;
  const int dim = d->dim, Np = d->Np;
  d->curved = calloc((size_t)(d->K > 0 ? d->K : 1), sizeof *d->curved);
  DG_CHECK(d->curved != NULL, DG_ERR_MEMORY, "curved element flags: out of memory");
  d->ncurved = 0;
  if (m->geom_order <= 1)
    return DG_OK;
  int64_t nc = 0;
#pragma omp parallel for schedule(static) reduction(+ : nc)
  for (int64_t k = 0; k < d->K; k++) {
    d->curved[k] = !dg_mesh_element_affine(m, k);
    nc += d->curved[k];
  }
  d->ncurved = nc;
  if (nc == 0)
    return DG_OK;
  const int nho = dg_mesh_ho_count(dim, m->geom_order);
  double *L = malloc((size_t)(Np * nho) * sizeof *L);
  double *dL = malloc((size_t)(Np * nho * dim) * sizeof *dL);
  if (!L || !dL) {
    free(L);
    free(dL);
    DG_RAISE(DG_ERR_MEMORY, "curved geometry: out of memory");
  }
  const double *rst[3] = {d->re->r, d->re->s, d->re->t};
  for (int i = 0; i < Np; i++) {
    double r[3];
    for (int a = 0; a < dim; a++)
      r[a] = rst[a][i];
    dg_mesh_ho_basis(dim, m->geom_order, r, L + i * nho, dL + i * nho * dim);
  }
  int64_t bad = INT64_MAX; /* first node with J <= 0 */
#pragma omp parallel for schedule(static) reduction(min : bad)
  for (int64_t k = 0; k < d->K; k++) {
    if (!d->curved[k])
      continue;
    int i = curved_element(d, k, L, dL, nho);
    if (i >= 0 && k * Np + i < bad)
      bad = k * Np + i;
  }
  free(L);
  free(dL);
  DG_CHECK(bad == INT64_MAX, DG_ERR_INPUT,
           "curved element %" PRId64 " has Jacobian %g <= 0 at node %d (%g %g %g) of order "
           "N = %d: the element is tangled or inverted there (move its high-order nodes, e.g. "
           "Gmsh's Mesh.HighOrderOptimize, or refine near the curved boundary)",
           bad / Np, d->J[bad], (int)(bad % Np), d->X[0][bad], dim > 1 ? d->X[1][bad] : 0.0,
           dim > 2 ? d->X[2][bad] : 0.0, d->N);
  return DG_OK;
}

/* Lattice nodes of face f (barycentric coordinate of the opposite vertex
 * 0); returns their count. */
static int face_lattice(int dim, int k, int f, int *nodes) {
  int fv[DG_MESH_MAX_VERTS], opposite = 0, on[DG_MESH_MAX_VERTS] = {0, 0, 0, 0}, n = 0;
  dg_mesh_face_vertices(dim, f, fv);
  for (int i = 0; i < dim; i++)
    on[fv[i]] = 1;
  while (on[opposite])
    opposite++;
  for (int j = 0; j < dg_mesh_ho_count(dim, k); j++) {
    int b[DG_MESH_MAX_VERTS];
    dg_mesh_ho_bary(dim, k, j, b);
    if (b[opposite] == 0)
      nodes[n++] = j;
  }
  return n;
}

dg_error dg_geometry_curved_check_faces(const dg_discretization *d) {
  const dg_mesh *m = d->mesh;
  if (d->ncurved == 0)
    return DG_OK;
  const int dim = d->dim, Nfaces = d->Nfaces, k = m->geom_order;
  const int nho = dg_mesh_ho_count(dim, k);
  int fnodes[DG_MESH_MAX_FACES][28], nfn = 0; /* <= 28 face nodes for k <= 6 */
  for (int f = 0; f < Nfaces; f++)
    nfn = face_lattice(dim, k, f, fnodes[f]);
  int64_t bad = INT64_MAX; /* first face (k * Nfaces + f) whose nodes differ */
#pragma omp parallel for schedule(static) reduction(min : bad)
  for (int64_t face = 0; face < d->K * Nfaces; face++) {
    int64_t e = face / Nfaces, e2 = d->EToE[face];
    int f = (int)(face % Nfaces), f2 = d->EToF[face];
    if ((e2 == e && f2 == f) || (!d->curved[e] && !d->curved[e2]))
      continue;
    /* Round-off of the nodes' coordinates, far below their spacing h/k. */
    double tol = 1e-9 * fmin(dg_mesh_element_size(m, e), dg_mesh_element_size(m, e2));
    const double *s = d->face_shift + face * 3;
    for (int i = 0; i < nfn && face < bad; i++) {
      const double *x = m->XH + (e * nho + fnodes[f][i]) * dim;
      int found = 0;
      for (int j = 0; j < nfn && !found; j++) {
        const double *y = m->XH + (e2 * nho + fnodes[f2][j]) * dim;
        double dist = 0;
        for (int c = 0; c < dim; c++)
          dist = fmax(dist, fabs(x[c] + s[c] - y[c]));
        found = dist <= tol;
      }
      if (!found)
        bad = face;
    }
  }
  if (bad == INT64_MAX)
    return DG_OK;
  int64_t e = bad / Nfaces, e2 = d->EToE[bad];
  int f = (int)(bad % Nfaces), f2 = d->EToF[bad];
  DG_RAISE(DG_ERR_INPUT,
           "curved face %d of element %" PRId64 " and face %d of element %" PRId64
           " share their vertices but not their high-order nodes: the two elements' curved "
           "faces do not coincide (a high-order mesh must share the nodes of each face)",
           f, e, f2, e2);
}
