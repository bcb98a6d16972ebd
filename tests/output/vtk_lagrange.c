/* problems.vtk_lagrange: the VTK Lagrange point order of problems/io/vtk_lagrange.h.
 *
 * Checked against independently known values:
 *  - the tables of VTK 9.2 (vtkLagrangeTriangle/Tetra::GetParametricCoords times N,
 *    printed by ParaView 5.11's pvpython) for N = 2, 3 in 2D and 3D and N = 3 in 1D;
 *  - for N = 1..6 the rule's top level: a bijection onto the lattice; vertices,
 *    then edge, face and interior points (by how many barycentric coordinates are
 *    non-zero); edge points grouped by VTK's edge order, each walked from the
 *    edge's first vertex; the permutation to dgrun's nodes equals an
 *    independent walk of the H&W lattice order;
 *  - the interpolation matrix reproduces a polynomial of degree N at the
 *    equispaced points (to 1e-11: the rows of V V^{-1} at N <= 6 are
 *    accurate to a few hundred ulps).
 * The full recursion is compared with VTK itself in paraview.vtk_lagrange_order
 * (this program with --print). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "problems/io/vtk_lagrange.h"
#include "tests/expect.h"

static int np_of(int dim, int N) {
  return dim == 1 ? N + 1 : dim == 2 ? (N + 1) * (N + 2) / 2 : (N + 1) * (N + 2) * (N + 3) / 6;
}

/* VTK 9.2: (i, j) per point, N = 2 and 3 triangles; (i, j, k), tetrahedra. */
static const int tri2[6][2] = {{0, 0}, {2, 0}, {0, 2}, {1, 0}, {1, 1}, {0, 1}};
static const int tri3[10][2] = {{0, 0}, {3, 0}, {0, 3}, {1, 0}, {2, 0},
                                {2, 1}, {1, 2}, {0, 2}, {0, 1}, {1, 1}};
static const int tet2[10][3] = {{0, 0, 0}, {2, 0, 0}, {0, 2, 0}, {0, 0, 2}, {1, 0, 0},
                                {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {0, 1, 1}};
static const int tet3[20][3] = {{0, 0, 0}, {3, 0, 0}, {0, 3, 0}, {0, 0, 3}, {1, 0, 0},
                                {2, 0, 0}, {2, 1, 0}, {1, 2, 0}, {0, 2, 0}, {0, 1, 0},
                                {0, 0, 1}, {0, 0, 2}, {2, 0, 1}, {1, 0, 2}, {0, 2, 1},
                                {0, 1, 2}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}, {1, 1, 0}};

static void check_table(int dim, int N, const int *tab, int ncol) {
  int np = np_of(dim, N), ijk[3 * 20];
  MUST(dg_vtk_lagrange_points(dim, N, ijk));
  for (int p = 0; p < np; ++p)
    for (int a = 0; a < 3; ++a)
      EXPECT(ijk[3 * p + a] == (a < ncol ? tab[p * ncol + a] : 0),
             "dim %d N %d point %d coordinate %d: %d", dim, N, p, a, ijk[3 * p + a]);
}

/* Barycentric coordinates (times N) of lattice point p: vertex 0 first. */
static void bary(int N, const int *p, int *b) {
  b[0] = N - p[0] - p[1] - p[2];
  b[1] = p[0];
  b[2] = p[1];
  b[3] = p[2];
}

static void check_rule(int dim, int N) {
  static const int edges2[3][2] = {{0, 1}, {1, 2}, {2, 0}};
  static const int edges3[6][2] = {{0, 1}, {1, 2}, {2, 0}, {0, 3}, {1, 3}, {2, 3}};
  int np = np_of(dim, N);
  int *ijk = malloc(sizeof(int) * 3 * (size_t)np), *perm = malloc(sizeof(int) * (size_t)np);
  int *seen = calloc((size_t)np, sizeof(int));
  CHECK(ijk && perm && seen);
  MUST(dg_vtk_lagrange_points(dim, N, ijk));
  MUST(dg_vtk_lagrange_order(dim, N, perm));
  /* H&W lattice order: t outer, s, r inner (dg/refelem.h) */
  int n = 0, last_class = 0, ne = dim == 1 ? 1 : dim == 2 ? 3 : 6;
  for (int k = 0; k <= (dim == 3 ? N : 0); ++k)
    for (int j = 0; j <= (dim >= 2 ? N - k : 0); ++j)
      for (int i = 0; i <= N - j - k; ++i, ++n)
        for (int p = 0; p < np; ++p)
          if (ijk[3 * p] == i && ijk[3 * p + 1] == j && ijk[3 * p + 2] == k) {
            EXPECT(perm[p] == n, "dim %d N %d: point %d is node %d, not %d", dim, N, p, perm[p], n);
            seen[n]++;
          }
  for (int q = 0; q < np; ++q)
    EXPECT(seen[q] == 1, "dim %d N %d: lattice node %d listed %d times", dim, N, q, seen[q]);
  for (int p = 0; p < np; ++p) {
    int b[4], nz = 0;
    bary(N, ijk + 3 * p, b);
    for (int a = 0; a <= dim; ++a)
      nz += b[a] != 0;
    EXPECT(nz >= last_class, "dim %d N %d: point %d (class %d) after class %d", dim, N, p, nz,
           last_class);
    last_class = nz;
    if (p <= dim)
      EXPECT(nz == 1 && b[p] == N, "dim %d N %d: point %d is not vertex %d", dim, N, p, p);
    if (nz == 2) {
      /* the e-th group of N - 1 edge points, walked away from the first vertex */
      int e = (p - dim - 1) / (N - 1), m = (p - dim - 1) % (N - 1) + 1;
      CHECK(e < ne, "dim %d N %d: edge point %d past the edges", dim, N, p);
      const int *ev = dim == 3 ? edges3[e] : edges2[e];
      EXPECT(b[ev[0]] == N - m && b[ev[1]] == m, "dim %d N %d: point %d is not step %d of edge %d",
             dim, N, p, m, e);
    }
  }
  free(ijk);
  free(perm);
  free(seen);
}

/* I times a degree-N polynomial at the nodes = the polynomial at the points. */
static void check_interp(int dim, int N) {
  dg_refelem *re;
  MUST(dg_refelem_create(dim, N, &re));
  int np = re->Np, *ijk = malloc(sizeof(int) * 3 * (size_t)np);
  double *I = malloc(sizeof(double) * (size_t)(np * np)), *u = malloc(sizeof(double) * (size_t)np);
  CHECK(ijk && I && u);
  MUST(dg_vtk_lagrange_interp(re, I));
  MUST(dg_vtk_lagrange_points(dim, N, ijk));
#define POLY(r, s, t) (pow(0.3 + 0.2 * (r)-0.4 * (s) + 0.1 * (t), N) + (N >= 2 ? (r) * (s) : (r)))
  for (int i = 0; i < np; ++i)
    u[i] = POLY(re->r[i], dim >= 2 ? re->s[i] : 0, dim >= 3 ? re->t[i] : 0);
  double worst = 0;
  for (int p = 0; p < np; ++p) {
    double x[3], v = 0;
    for (int a = 0; a < 3; ++a)
      x[a] = a < dim ? -1.0 + 2.0 * ijk[3 * p + a] / N : 0.0;
    for (int i = 0; i < np; ++i)
      v += I[p * np + i] * u[i];
    double d = fabs(v - POLY(x[0], x[1], x[2]));
    worst = d > worst ? d : worst;
  }
#undef POLY
  EXPECT(worst < 1e-11, "dim %d N %d: interpolation error %.3e", dim, N, worst);
  free(ijk);
  free(I);
  free(u);
  dg_refelem_destroy(&re);
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--print") == 0) {
    /* "dim N i j k i j k ..." per cell, for the comparison with VTK */
    for (int dim = 1; dim <= 3; ++dim)
      for (int N = 1; N <= 6; ++N) {
        int np = np_of(dim, N), ijk[3 * 84];
        MUST(dg_vtk_lagrange_points(dim, N, ijk));
        printf("%d %d", dim, N);
        for (int q = 0; q < 3 * np; ++q)
          printf(" %d", ijk[q]);
        printf("\n");
      }
    return 0;
  }
  EXPECT(dg_vtk_lagrange_type(1) == 68 && dg_vtk_lagrange_type(2) == 69 &&
         dg_vtk_lagrange_type(3) == 71 && dg_vtk_lagrange_type(4) == 0);
  static const int curve3[4] = {0, 3, 1, 2};
  check_table(1, 3, curve3, 1);
  check_table(2, 2, &tri2[0][0], 2);
  check_table(2, 3, &tri3[0][0], 2);
  check_table(3, 2, &tet2[0][0], 3);
  check_table(3, 3, &tet3[0][0], 3);
  for (int dim = 1; dim <= 3; ++dim)
    for (int N = 1; N <= 6; ++N) {
      check_rule(dim, N);
      check_interp(dim, N);
    }
  int ijk[3];
  EXPECT(dg_vtk_lagrange_points(4, 2, ijk) == DG_ERR_ARG);
  EXPECT(dg_vtk_lagrange_points(2, 0, ijk) == DG_ERR_ARG);
  return expect_finish();
}
