/* VTK Lagrange point order of dgrun's simplices (see vtk_lagrange.h).
 *
 * The points are built geometrically on the integer lattice: a simplex is
 * its vertices (lattice points) and its order n; its points are listed by
 * the rule of the header, a face or interior recursing on the simplex
 * whose vertices are moved one lattice step towards each other vertex
 * (order n - 3 for a triangle, n - 4 for a tetrahedron). */
#include "problems/io/vtk_lagrange.h"

#include <stdlib.h>

#include "problems/io/subcells.h"

static const int tri_edges[3][2] = {{0, 1}, {1, 2}, {2, 0}};
static const int tet_edges[6][2] = {{0, 1}, {1, 2}, {2, 0}, {0, 3}, {1, 3}, {2, 3}};
static const int tet_faces[4][3] = {{0, 1, 3}, {2, 3, 1}, {0, 3, 2}, {0, 2, 1}};

int dg_vtk_lagrange_type(int dim) {
  return dim == 1   ? DG_VTK_LAGRANGE_CURVE
         : dim == 2 ? DG_VTK_LAGRANGE_TRIANGLE
         : dim == 3 ? DG_VTK_LAGRANGE_TETRAHEDRON
                    : 0;
}

static void put(int *ijk, int *n, const int *p) {
  for (int a = 0; a < 3; ++a)
    ijk[3 * *n + a] = p[a];
  ++*n;
}

/* One lattice step from vertex a towards vertex b of a simplex of order n. */
static void step(int v[4][3], int a, int b, int n, int *s) {
  for (int c = 0; c < 3; ++c)
    s[c] = (v[b][c] - v[a][c]) / n;
}

/* The vertices of the simplex nv (the vertices idx[0..m) of v) moved one
 * step towards each of the others. */
static void shrink(int v[4][3], const int *idx, int m, int n, int out[4][3]) {
  for (int a = 0; a < m; ++a) {
    for (int c = 0; c < 3; ++c)
      out[a][c] = v[idx[a]][c];
    for (int b = 0; b < m; ++b) {
      int s[3];
      if (b == a)
        continue;
      step(v, idx[a], idx[b], n, s);
      for (int c = 0; c < 3; ++c)
        out[a][c] += s[c];
    }
  }
}

/* The points of the dim-simplex with vertices v, of order n >= 0. */
static void list(int dim, int v[4][3], int n, int *ijk, int *count) {
  static const int ident[4] = {0, 1, 2, 3};
  if (n == 0) {
    put(ijk, count, v[0]);
    return;
  }
  for (int a = 0; a <= dim; ++a)
    put(ijk, count, v[a]);
  int ne = dim == 1 ? 1 : dim == 2 ? 3 : 6;
  const int(*edges)[2] = dim == 3 ? tet_edges : tri_edges;
  for (int e = 0; e < ne; ++e) {
    int s[3];
    step(v, edges[e][0], edges[e][1], n, s);
    for (int m = 1; m < n; ++m) {
      int p[3];
      for (int c = 0; c < 3; ++c)
        p[c] = v[edges[e][0]][c] + m * s[c];
      put(ijk, count, p);
    }
  }
  if (dim == 3 && n >= 3)
    for (int f = 0; f < 4; ++f) {
      int w[4][3];
      shrink(v, tet_faces[f], 3, n, w);
      list(2, w, n - 3, ijk, count);
    }
  if (dim >= 2 && n >= dim + 1) {
    int w[4][3];
    shrink(v, ident, dim + 1, n, w);
    list(dim, w, n - dim - 1, ijk, count);
  }
}

dg_error dg_vtk_lagrange_points(int dim, int N, int *ijk) {
  DG_CHECK(dim >= 1 && dim <= 3 && N >= 1 && ijk, DG_ERR_ARG,
           "VTK Lagrange cell: dimension %d, order %d", dim, N);
  /* the reference vertices of dg/refelem.h as lattice points */
  int v[4][3] = {{0, 0, 0}, {N, 0, 0}, {0, N, 0}, {0, 0, N}};
  int count = 0;
  list(dim, v, N, ijk, &count);
  return DG_OK;
}

dg_error dg_vtk_lagrange_order(int dim, int N, int *perm) {
  DG_CHECK(perm, DG_ERR_ARG, "VTK Lagrange cell: NULL permutation");
  int np = dim == 1 ? N + 1 : dim == 2 ? (N + 1) * (N + 2) / 2 : (N + 1) * (N + 2) * (N + 3) / 6;
  int *ijk = malloc(sizeof(int) * 3 * (size_t)(np > 0 ? np : 1));
  DG_CHECK(ijk, DG_ERR_MEMORY, "out of memory");
  dg_error err = dg_vtk_lagrange_points(dim, N, ijk);
  for (int p = 0; err == DG_OK && p < np; ++p)
    perm[p] = dg_subcells_node(dim, N, ijk[3 * p], ijk[3 * p + 1], ijk[3 * p + 2]);
  free(ijk);
  DG_CALL(err);
  return DG_OK;
}

dg_error dg_vtk_lagrange_interp(const dg_refelem *re, double *I) {
  DG_CHECK(re && I, DG_ERR_ARG, "VTK Lagrange cell: NULL argument");
  int np = re->Np;
  int *ijk = malloc(sizeof(int) * 3 * (size_t)np);
  double *r = malloc(sizeof(double) * 3 * (size_t)np);
  dg_error err = ijk && r ? DG_OK
                          : dg_error_raise(DG_ERR_MEMORY, __FILE__, __LINE__, __func__,
                                           "out of memory");
  if (err == DG_OK)
    err = dg_vtk_lagrange_points(re->dim, re->N, ijk);
  /* lattice point (i, j, k) of order N is r = -1 + 2i/N, ... */
  for (int p = 0; err == DG_OK && p < np; ++p)
    for (int a = 0; a < 3; ++a)
      r[a * np + p] = -1.0 + 2.0 * ijk[3 * p + a] / re->N;
  if (err == DG_OK)
    err = dg_refelem_interp(re, np, r, re->dim >= 2 ? r + np : NULL,
                            re->dim >= 3 ? r + 2 * np : NULL, I);
  free(ijk);
  free(r);
  DG_CALL(err);
  return DG_OK;
}
