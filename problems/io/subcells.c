/* Split of the equispaced node lattice of an order-N simplex into linear
 * sub-cells.  2D: each lattice square with i + j <= N - 1 holds an upright
 * triangle, and one with i + j <= N - 2 also an inverted one
 * (N(N+1)/2 + N(N-1)/2 = N^2).  3D: the standard decomposition of the
 * tetrahedral lattice (what N-fold uniform red refinement produces; Bey,
 * "Simplicial grid refinement", Numer. Math. 85, 2000): each lattice
 * cube with i + j + k <= N - 1 holds an upright tet, one with
 * i + j + k <= N - 2 an octahedron (split into 4 tets about one diagonal),
 * one with i + j + k <= N - 3 an inverted tet;
 * C(N+2,3) + 4 C(N+1,3) + C(N,3) = N^3. */
#include "problems/io/subcells.h"

#include <stddef.h>

int dg_subcells_count(int dim, int N) {
  if (dim < 1 || dim > 3 || N < 1)
    return 0;
  int n = 1;
  for (int d = 0; d < dim; ++d)
    n *= N;
  return n;
}

/* Nodes of the order-M triangle and tetrahedron lattices. */
static int np2(int M) { return (M + 1) * (M + 2) / 2; }
static int np3(int M) { return (M + 1) * (M + 2) * (M + 3) / 6; }

int dg_subcells_node(int dim, int N, int i, int j, int k) {
  switch (dim) {
  case 1:
    return i;
  case 2:
    /* rows of increasing s; the rows j.. form a triangle of order N - j */
    return np2(N) - np2(N - j) + i;
  default:
    /* layers of increasing t; the layers k.. form a tet of order N - k, and
     * layer k is a triangle of order N - k laid out as in 2D */
    return np3(N) - np3(N - k) + np2(N - k) - np2(N - k - j) + i;
  }
}

/* Lattice offsets of a sub-cell's vertices relative to its cube (i, j, k). */
typedef struct {
  int v[4][3];
} lattice_cell;

typedef struct {
  int dim, N, n;
  int *conn;
} builder;

/* Append the cell at cube (i, j, k), swapping two vertices if needed so
 * that its signed volume in lattice coordinates (a positive multiple of
 * the reference coordinates) is positive. */
static void emit(builder *b, const lattice_cell *c, int i, int j, int k) {
  int p[4][3];
  int nv = b->dim + 1;
  for (int a = 0; a < nv; ++a) {
    p[a][0] = i + c->v[a][0];
    p[a][1] = j + c->v[a][1];
    p[a][2] = k + c->v[a][2];
  }
  long det;
  if (b->dim == 2) {
    det = (long)(p[1][0] - p[0][0]) * (p[2][1] - p[0][1]) -
          (long)(p[1][1] - p[0][1]) * (p[2][0] - p[0][0]);
  } else {
    int e[3][3];
    for (int a = 0; a < 3; ++a)
      for (int d = 0; d < 3; ++d)
        e[a][d] = p[a + 1][d] - p[0][d];
    det = (long)e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1]) -
          (long)e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0]) +
          (long)e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0]);
  }
  int order[4] = {0, 1, 2, 3};
  if (det < 0) {
    order[nv - 2] = nv - 1;
    order[nv - 1] = nv - 2;
  }
  int *out = b->conn + (ptrdiff_t)b->n * nv;
  for (int a = 0; a < nv; ++a) {
    const int *q = p[order[a]];
    out[a] = dg_subcells_node(b->dim, b->N, q[0], q[1], q[2]);
  }
  b->n++;
}

static void build2(builder *b) {
  static const lattice_cell up = {{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}};
  static const lattice_cell down = {{{1, 0, 0}, {1, 1, 0}, {0, 1, 0}}};
  int N = b->N;
  for (int j = 0; j < N; ++j)
    for (int i = 0; i + j < N; ++i) {
      emit(b, &up, i, j, 0);
      if (i + j <= N - 2)
        emit(b, &down, i, j, 0);
    }
}

static void build3(builder *b) {
  static const lattice_cell up = {{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
  static const lattice_cell down = {{{1, 1, 0}, {1, 0, 1}, {0, 1, 1}, {1, 1, 1}}};
  /* The octahedron between them has vertices at lattice offsets of sum 1
   * and 2; split it about the diagonal (1,0,0)-(0,1,1) into 4 tets, each
   * the diagonal plus one edge of the ring around it. */
  static const int ring[4][3] = {{0, 1, 0}, {1, 1, 0}, {1, 0, 1}, {0, 0, 1}};
  lattice_cell octa[4];
  for (int m = 0; m < 4; ++m) {
    const int *r0 = ring[m], *r1 = ring[(m + 1) % 4];
    lattice_cell c = {{{1, 0, 0}, {0, 1, 1}, {r0[0], r0[1], r0[2]}, {r1[0], r1[1], r1[2]}}};
    octa[m] = c;
  }
  int N = b->N;
  for (int k = 0; k < N; ++k)
    for (int j = 0; j + k < N; ++j)
      for (int i = 0; i + j + k < N; ++i) {
        emit(b, &up, i, j, k);
        if (i + j + k <= N - 2)
          for (int m = 0; m < 4; ++m)
            emit(b, &octa[m], i, j, k);
        if (i + j + k <= N - 3)
          emit(b, &down, i, j, k);
      }
}

dg_error dg_subcells_build(int dim, int N, int *conn) {
  DG_CHECK(dim >= 1 && dim <= 3, DG_ERR_ARG, "sub-cells: dimension %d is not 1, 2 or 3", dim);
  DG_CHECK(N >= 1, DG_ERR_ARG, "sub-cells: order %d must be >= 1", N);
  DG_CHECK(conn != NULL, DG_ERR_ARG, "sub-cells: NULL connectivity buffer");
  builder b = {dim, N, 0, conn};
  if (dim == 1) {
    for (int i = 0; i < N; ++i) {
      conn[2 * i] = i;
      conn[2 * i + 1] = i + 1;
    }
    b.n = N;
  } else if (dim == 2) {
    build2(&b);
  } else {
    build3(&b);
  }
  DG_CHECK(b.n == dg_subcells_count(dim, N), DG_ERR_INTERNAL,
           "sub-cells: built %d cells for dim %d, N %d, expected %d", b.n, dim, N,
           dg_subcells_count(dim, N));
  return DG_OK;
}
