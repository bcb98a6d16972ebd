/* problems.subcells: for dim 1..3 and N = 1..8 the sub-cells tile the
 * reference simplex.  Node coordinates come from an independent walk of the
 * Hesthaven & Warburton equispaced lattice order (t outer, s, r inner).
 * Checked: the count is N^dim; every index is a node and distinct within a
 * cell; every signed volume is positive; the volumes sum to the reference
 * volume (2, 2, 4/3); and the cells are conforming: every facet is shared
 * by at most two cells, and a facet of only one cell lies on the boundary
 * of the reference simplex.  Positive cells of the right total volume whose
 * unshared facets all lie on the boundary cannot overlap or leave a gap. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "problems/io/subcells.h"
#include "tests/expect.h"

/* Lattice integer coordinates of each node, in H&W order. */
static int lattice(int dim, int N, int (*ijk)[3]) {
  int n = 0;
  for (int k = 0; k <= (dim == 3 ? N : 0); ++k)
    for (int j = 0; j <= (dim >= 2 ? N - k : 0); ++j)
      for (int i = 0; i <= N - j - k; ++i) {
        ijk[n][0] = i;
        ijk[n][1] = j;
        ijk[n][2] = k;
        n++;
      }
  return n;
}

static int cmp_int(const void *a, const void *b) {
  return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

/* Is the facet (nv nodes) on the reference boundary: all its nodes on one of
 * the faces i = 0, j = 0, k = 0 (beyond dim ignored) or i + j + k = N? */
static int on_boundary(int dim, int N, const int (*ijk)[3], const int *f, int nv) {
  for (int face = 0; face <= dim; ++face) {
    int all = 1;
    for (int a = 0; a < nv; ++a) {
      const int *p = ijk[f[a]];
      int on = face < dim ? p[face] == 0 : p[0] + p[1] + p[2] == N;
      all = all && on;
    }
    if (all)
      return 1;
  }
  return 0;
}

static void check(int dim, int N) {
  static int ijk[1000][3];
  int Np = lattice(dim, N, ijk);
  int n = dg_subcells_count(dim, N), nv = dim + 1;
  int want = 1;
  for (int d = 0; d < dim; ++d)
    want *= N;
  EXPECT(n == want, "dim %d N %d: count %d, want %d", dim, N, n, want);
  for (int a = 0; a < Np; ++a)
    EXPECT(dg_subcells_node(dim, N, ijk[a][0], ijk[a][1], ijk[a][2]) == a,
           "dim %d N %d: node(%d,%d,%d) != %d", dim, N, ijk[a][0], ijk[a][1], ijk[a][2], a);
  int *conn = malloc(sizeof(int) * (size_t)(n * nv + 1));
  for (int a = 0; a < n * nv + 1; ++a)
    conn[a] = -7; /* poison; the last entry must stay untouched */
  dg_error err = dg_subcells_build(dim, N, conn);
  EXPECT(err == DG_OK, "dim %d N %d: build failed: %s", dim, N, dg_error_message());
  EXPECT(conn[n * nv] == -7, "dim %d N %d: wrote past the end", dim, N);

  double total = 0.0, h = 2.0 / N;
  /* facets as sorted node tuples, with the number of cells holding them */
  int nf = n * nv, fsz = dim;
  int *facets = malloc(sizeof(int) * (size_t)(nf * (fsz + 1)));
  for (int c = 0; c < n; ++c) {
    const int *v = conn + c * nv;
    int ok = 1;
    for (int a = 0; a < nv; ++a) {
      ok = ok && v[a] >= 0 && v[a] < Np;
      for (int b = 0; b < a; ++b)
        ok = ok && v[a] != v[b];
    }
    EXPECT(ok, "dim %d N %d: cell %d has a bad or repeated index", dim, N, c);
    if (!ok)
      continue;
    double x[4][3];
    for (int a = 0; a < nv; ++a)
      for (int d = 0; d < 3; ++d)
        x[a][d] = -1.0 + h * ijk[v[a]][d];
    double vol;
    if (dim == 1) {
      vol = x[1][0] - x[0][0];
    } else if (dim == 2) {
      vol = 0.5 * ((x[1][0] - x[0][0]) * (x[2][1] - x[0][1]) -
                   (x[1][1] - x[0][1]) * (x[2][0] - x[0][0]));
    } else {
      double e[3][3];
      for (int a = 0; a < 3; ++a)
        for (int d = 0; d < 3; ++d)
          e[a][d] = x[a + 1][d] - x[0][d];
      vol = (e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1]) -
             e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0]) +
             e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0])) / 6.0;
    }
    EXPECT(vol > 0.0, "dim %d N %d: cell %d has volume %g", dim, N, c, vol);
    total += vol;
    for (int skip = 0; skip < nv; ++skip) {
      int *f = facets + (c * nv + skip) * (fsz + 1);
      int m = 0;
      for (int a = 0; a < nv; ++a)
        if (a != skip)
          f[m++] = v[a];
      qsort(f, (size_t)fsz, sizeof(int), cmp_int);
      f[fsz] = 0;
    }
  }
  double ref = dim == 1 ? 2.0 : dim == 2 ? 2.0 : 4.0 / 3.0;
  /* sums of a few hundred exact-ish binary fractions: 1e-12 relative */
  EXPECT(fabs(total - ref) < 1e-12 * ref, "dim %d N %d: volume %.17g, want %.17g", dim, N,
         total, ref);

  /* count multiplicities by brute force (nf <= 4 * 512) */
  for (int a = 0; a < nf; ++a) {
    int *fa = facets + a * (fsz + 1);
    int count = 0;
    for (int b = 0; b < nf; ++b)
      if (memcmp(fa, facets + b * (fsz + 1), sizeof(int) * (size_t)fsz) == 0)
        count++;
    EXPECT(count <= 2, "dim %d N %d: a facet is shared by %d cells", dim, N, count);
    if (count == 1)
      EXPECT(on_boundary(dim, N, (const int (*)[3])ijk, fa, fsz),
             "dim %d N %d: an unshared facet lies inside the element", dim, N);
  }
  free(facets);
  free(conn);
}

int main(void) {
  for (int dim = 1; dim <= 3; ++dim)
    for (int N = 1; N <= 8; ++N)
      check(dim, N);
  int dummy[4];
  EXPECT(dg_subcells_build(4, 2, dummy) == DG_ERR_ARG, "dim 4 accepted");
  EXPECT(dg_subcells_build(2, 0, dummy) == DG_ERR_ARG, "N 0 accepted");
  EXPECT(dg_subcells_count(2, 0) == 0, "count(2, 0) != 0");
  return expect_finish();
}
