#include "meshes/mesh_hanging.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct cell_vertex {
  int64_t cell, v;
} cell_vertex;

typedef struct grid {
  const dg_mesh *m;
  double lo[3], h;
  int64_t G; /* cells per axis */
  cell_vertex *cv;
  int64_t n;
} grid;

static int compare_cv(const void *pa, const void *pb) {
  const cell_vertex *a = pa, *b = pb;
  if (a->cell != b->cell)
    return (a->cell > b->cell) - (a->cell < b->cell);
  return (a->v > b->v) - (a->v < b->v);
}

static int64_t cell_coord(const grid *g, int a, double x) {
  double c = floor((x - g->lo[a]) / g->h);
  return c < 0 ? 0 : c >= (double)g->G ? g->G - 1 : (int64_t)c;
}

static const double *vx(const dg_mesh *m, int64_t v) { return m->VX + v * m->dim; }

static void face_corners(const dg_mesh *m, int64_t i, int64_t v[3]) {
  int fv[DG_MESH_MAX_VERTS], nf = m->dim + 1;
  dg_mesh_face_vertices(m->dim, (int)(i % nf), fv);
  for (int c = 0; c < m->dim; c++)
    v[c] = m->EToV[(i / nf) * nf + fv[c]];
}

static double dot(const double *a, const double *b, int dim) {
  double s = 0;
  for (int c = 0; c < dim; c++)
    s += a[c] * b[c];
  return s;
}

static double dist(const double *a, const double *b, int dim) {
  double s = 0;
  for (int c = 0; c < dim; c++)
    s += (a[c] - b[c]) * (a[c] - b[c]);
  return sqrt(s);
}

/* Point p in the closed face (segment or triangle) with corners c, but
 * farther than tol from each corner. */
static int inside(const dg_mesh *m, const int64_t c[3], const double *p, double tol) {
  int dim = m->dim;
  const double *A = vx(m, c[0]), *B = vx(m, c[1]);
  double d0[3] = {0}, d1[3] = {0}, dp[3] = {0};
  for (int a = 0; a < dim; a++) {
    d0[a] = B[a] - A[a];
    dp[a] = p[a] - A[a];
  }
  if (dist(p, A, dim) <= tol || dist(p, B, dim) <= tol)
    return 0;
  if (dim == 2) {
    double L = sqrt(dot(d0, d0, 2));
    if (L <= tol)
      return 0;
    double s = dot(dp, d0, 2) / L, off = fabs(d0[0] * dp[1] - d0[1] * dp[0]) / L;
    return off <= tol && s > tol && s < L - tol;
  }
  const double *C = vx(m, c[2]);
  if (dist(p, C, dim) <= tol)
    return 0;
  for (int a = 0; a < 3; a++)
    d1[a] = C[a] - A[a];
  double nrm[3] = {d0[1] * d1[2] - d0[2] * d1[1], d0[2] * d1[0] - d0[0] * d1[2],
                   d0[0] * d1[1] - d0[1] * d1[0]};
  double area2 = sqrt(dot(nrm, nrm, 3));
  if (area2 <= tol * tol || fabs(dot(dp, nrm, 3)) / area2 > tol)
    return 0;
  /* barycentric coordinates of the projection, tolerance in length units */
  double d00 = dot(d0, d0, 3), d01 = dot(d0, d1, 3), d11 = dot(d1, d1, 3);
  double d20 = dot(dp, d0, 3), d21 = dot(dp, d1, 3), den = d00 * d11 - d01 * d01;
  double v = (d11 * d20 - d01 * d21) / den, w = (d00 * d21 - d01 * d20) / den;
  double eps = tol / sqrt(area2);
  return v >= -eps && w >= -eps && 1 - v - w >= -eps;
}

/* The first vertex of g in the box [bmin, bmax] lying inside face i. */
static int64_t find_in(const grid *g, int64_t i, const double *bmin, const double *bmax,
                       double tol) {
  const dg_mesh *m = g->m;
  int64_t c[3], lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0}, ncells = 1;
  face_corners(m, i, c);
  for (int a = 0; a < m->dim; a++) {
    lo[a] = cell_coord(g, a, bmin[a] - tol);
    hi[a] = cell_coord(g, a, bmax[a] + tol);
    ncells *= hi[a] - lo[a] + 1;
  }
  if (ncells > g->n) { /* a face far larger than the others: every vertex */
    for (int64_t j = 0; j < g->n; j++)
      if (inside(m, c, vx(m, g->cv[j].v), tol))
        return g->cv[j].v;
    return -1;
  }
  for (int64_t x = lo[0]; x <= hi[0]; x++)
    for (int64_t y = lo[1]; y <= hi[1]; y++)
      for (int64_t z = lo[2]; z <= hi[2]; z++) {
        int64_t cell = m->dim == 2 ? x * g->G + y : (x * g->G + y) * g->G + z;
        cell_vertex key = {cell, -1};
        int64_t a = 0, b = g->n; /* first entry of the cell */
        while (a < b) {
          int64_t mid = a + (b - a) / 2;
          if (compare_cv(&g->cv[mid], &key) < 0)
            a = mid + 1;
          else
            b = mid;
        }
        for (; a < g->n && g->cv[a].cell == cell; a++)
          if (inside(m, c, vx(m, g->cv[a].v), tol))
            return g->cv[a].v;
      }
  return -1;
}

static void face_box(const dg_mesh *m, int64_t i, double bmin[3], double bmax[3]) {
  int64_t c[3];
  face_corners(m, i, c);
  for (int a = 0; a < m->dim; a++) {
    bmin[a] = bmax[a] = vx(m, c[0])[a];
    for (int k = 1; k < m->dim; k++) {
      double x = vx(m, c[k])[a];
      bmin[a] = fmin(bmin[a], x);
      bmax[a] = fmax(bmax[a], x);
    }
  }
}

dg_error dg_mesh_hanging_check(const dg_mesh *m, const int64_t *open, int64_t nopen,
                               const unsigned char *check, double tol) {
  if (m->dim < 2 || nopen == 0)
    return DG_OK;
  int dim = m->dim;
  grid g = {.m = m};
  g.cv = malloc((size_t)(nopen * dim) * sizeof *g.cv);
  DG_CHECK(g.cv, DG_ERR_MEMORY, "mesh validation: out of memory");
  /* cells about one face wide: a face's box meets a few of them */
  double hi[3], size = 0;
  for (int64_t i = 0; i < nopen; i++) {
    double bmin[3], bmax[3];
    face_box(m, open[i], bmin, bmax);
    for (int a = 0; a < dim; a++) {
      g.lo[a] = i ? fmin(g.lo[a], bmin[a]) : bmin[a];
      hi[a] = i ? fmax(hi[a], bmax[a]) : bmax[a];
      size += (bmax[a] - bmin[a]) / dim;
    }
  }
  double extent = 0;
  for (int a = 0; a < dim; a++)
    extent = fmax(extent, hi[a] - g.lo[a]);
  g.h = fmax(size / (double)nopen, extent * 1e-6);
  if (!(g.h > 0))
    g.h = 1;
  double G = ceil(extent / g.h) + 1;
  g.G = G < (dim == 2 ? 1e9 : 1e6) ? (int64_t)G : (dim == 2 ? 1000000000 : 1000000);
  g.h = fmax(g.h, extent / (double)(g.G - 1 > 0 ? g.G - 1 : 1));
  for (int64_t i = 0; i < nopen; i++) {
    int64_t c[3];
    face_corners(m, open[i], c);
    for (int k = 0; k < dim; k++) {
      const double *x = vx(m, c[k]);
      int64_t cell = cell_coord(&g, 0, x[0]) * g.G + cell_coord(&g, 1, x[1]);
      if (dim == 3)
        cell = cell * g.G + cell_coord(&g, 2, x[2]);
      g.cv[g.n++] = (cell_vertex){cell, c[k]};
    }
  }
  qsort(g.cv, (size_t)g.n, sizeof *g.cv, compare_cv);
  int64_t w = 0; /* each vertex once */
  for (int64_t j = 0; j < g.n; j++)
    if (!w || compare_cv(&g.cv[j], &g.cv[w - 1]) != 0)
      g.cv[w++] = g.cv[j];
  g.n = w;
  dg_error err = DG_OK;
  for (int64_t i = 0; i < nopen && err == DG_OK; i++) {
    if (!check[i])
      continue;
    double bmin[3], bmax[3];
    face_box(m, open[i], bmin, bmax);
    int64_t v = find_in(&g, open[i], bmin, bmax, tol);
    if (v < 0)
      continue;
    const double *x = vx(m, v);
    char at[96];
    if (dim == 2)
      snprintf(at, sizeof at, "(%.10g, %.10g)", x[0], x[1]);
    else
      snprintf(at, sizeof at, "(%.10g, %.10g, %.10g)", x[0], x[1], x[2]);
    int nf = dim + 1;
    err = DG_ERR_INPUT;
    dg_error_raise(DG_ERR_INPUT, __FILE__, __LINE__, __func__,
                   "the mesh is not conforming: vertex %" PRId64 " at %s "
                   "lies on face %d of element %" PRId64 " without being one of its corners "
                   "(a hanging node), so the faces there have no neighbour and would be a "
                   "boundary inside the domain; make the elements meet corner to corner "
                   "(Gmsh meshes a geometry conformingly; do not join separately meshed "
                   "parts)",
                   v, at, (int)(open[i] % nf), open[i] / nf);
  }
  free(g.cv);
  return err;
}
