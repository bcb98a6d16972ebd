/* Shared helpers of the meshes.* and dg.discretization_* tests: mesh cases
 * (every dimension, several sizes, every combination of periodic axes),
 * random interior distortion, and geometry computed here independently of
 * meshes/ and dg/ (simplex volumes, face vertex sets written out from the
 * face definitions in dg/refelem.h). */
#ifndef DG_TESTS_MESH_TEST_H
#define DG_TESTS_MESH_TEST_H

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "meshes/builtin.h"
#include "tests/expect.h"

/* Side tag names of the built-in meshes: axis a lo, hi = [2a], [2a+1]. */
static const char *const test_sides[6] = {"left", "right", "bottom", "top", "front", "back"};

/* xorshift64*: fresh data each run, seed printed so a failure can be
 * replayed with DG_TEST_SEED. */
static uint64_t rng_state;
static inline void rng_seed(void) {
  const char *env = getenv("DG_TEST_SEED");
  rng_state = env ? strtoull(env, NULL, 10) : (uint64_t)time(NULL) * 2654435761u + 1;
  if (!rng_state)
    rng_state = 1;
  printf("seed %" PRIu64 "\n", rng_state);
}
static inline double rng_uniform(void) { /* in [-1, 1) */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  uint64_t r = rng_state * 2685821657736338717ull;
  return (double)(r >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

/* Faces of the reference simplices (dg/refelem.h) as vertex sets:
 * 2D face 0: s=-1 holds v0 (-1,-1), v1 (1,-1); face 1: r+s=0 holds v1, v2;
 * face 2: r=-1 holds v0, v2.  3D: t=-1 {0,1,2}, s=-1 {0,1,3},
 * r+s+t=-1 {1,2,3}, r=-1 {0,2,3}.  1D: r=-1 {0}, r=1 {1}. */
static const int test_face_verts[4][4][3] = {
    {{0}},
    {{0}, {1}},
    {{0, 1}, {1, 2}, {0, 2}},
    {{0, 1, 2}, {0, 1, 3}, {1, 2, 3}, {0, 2, 3}}};

/* The vertex opposite face f (the one not in it). */
static inline int test_opposite_vertex(int dim, int f) {
  for (int v = 0; v <= dim; v++) {
    int in = 0;
    for (int i = 0; i < dim; i++)
      in |= test_face_verts[dim][f][i] == v;
    if (!in)
      return v;
  }
  return -1;
}

/* Coordinates of vertex `local` of element k. */
static inline const double *test_vertex(const dg_mesh *m, int64_t k, int local) {
  return m->VX + m->EToV[k * (m->dim + 1) + local] * m->dim;
}

/* Signed measure of a simplex from its vertices: det[p1-p0, ...] / dim!. */
static inline double test_simplex_volume(int dim, const double *p[4]) {
  double e[3][3] = {{0}};
  for (int i = 0; i < dim; i++)
    for (int c = 0; c < dim; c++)
      e[i][c] = p[i + 1][c] - p[0][c];
  if (dim == 1)
    return e[0][0];
  if (dim == 2)
    return (e[0][0] * e[1][1] - e[0][1] * e[1][0]) / 2.0;
  return (e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1]) -
          e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0]) +
          e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0])) /
         6.0;
}

static inline double test_element_volume(const dg_mesh *m, int64_t k) {
  const double *p[4];
  for (int v = 0; v <= m->dim; v++)
    p[v] = test_vertex(m, k, v);
  return test_simplex_volume(m->dim, p);
}

/* Measure of face f of element k (1 for a point, length, area). */
static inline double test_face_measure(const dg_mesh *m, int64_t k, int f) {
  const int *fv = test_face_verts[m->dim][f];
  if (m->dim == 1)
    return 1.0;
  const double *a = test_vertex(m, k, fv[0]), *b = test_vertex(m, k, fv[1]);
  if (m->dim == 2)
    return hypot(b[0] - a[0], b[1] - a[1]);
  const double *c = test_vertex(m, k, fv[2]);
  double u[3], v[3];
  for (int i = 0; i < 3; i++) {
    u[i] = b[i] - a[i];
    v[i] = c[i] - a[i];
  }
  double x = u[1] * v[2] - u[2] * v[1], y = u[2] * v[0] - u[0] * v[2],
         z = u[0] * v[1] - u[1] * v[0];
  return 0.5 * sqrt(x * x + y * y + z * z); /* triangle: half the parallelogram */
}

/* One mesh case: the box [lo, hi] with n cells and periodic axes. */
typedef struct {
  int dim;
  double lo[3], hi[3];
  int64_t n[3];
  int periodic[3];
} mesh_case;

/* All cases: 1D K in {1, 3, 7}; 2D (1,1), (3,2); 3D (1,1,1), (2,3,2); each
 * with every subset of periodic axes; extents deliberately not unit and
 * not starting at 0.  Returns the count; cases[] holds at least 64. */
static inline int test_mesh_cases(mesh_case *cases, int max_dim) {
  static const int64_t sizes[4][3][3] = {
      {{0}}, {{1}, {3}, {7}}, {{1, 1}, {3, 2}}, {{1, 1, 1}, {2, 3, 2}}};
  static const int nsizes[4] = {0, 3, 2, 2};
  static const double lo[3] = {-1.0, 0.5, 2.0}, hi[3] = {2.0, 1.25, 2.5};
  int count = 0;
  for (int dim = 1; dim <= max_dim; dim++)
    for (int s = 0; s < nsizes[dim]; s++)
      for (int pmask = 0; pmask < (1 << dim); pmask++) {
        mesh_case *c = &cases[count++];
        memset(c, 0, sizeof *c);
        c->dim = dim;
        for (int a = 0; a < dim; a++) {
          c->lo[a] = lo[a];
          c->hi[a] = hi[a];
          c->n[a] = sizes[dim][s][a];
          c->periodic[a] = (pmask >> a) & 1;
        }
      }
  return count;
}

static inline void test_case_name(const mesh_case *c, char *buf, size_t size) {
  snprintf(buf, size, "%dD n=(%" PRId64 ",%" PRId64 ",%" PRId64 ") periodic=(%d,%d,%d)",
           c->dim, c->n[0], c->dim > 1 ? c->n[1] : 0, c->dim > 2 ? c->n[2] : 0,
           c->periodic[0], c->periodic[1], c->periodic[2]);
}

/* Move every vertex not on the boundary of the box by up to `amplitude`
 * times the smallest cell width in each coordinate, at random.  Boundary
 * vertices stay, so sides stay planar and periodic sides stay congruent. */
static inline void test_distort(dg_mesh *m, const mesh_case *c, double amplitude) {
  double hmin = INFINITY;
  for (int a = 0; a < c->dim; a++)
    hmin = fmin(hmin, (c->hi[a] - c->lo[a]) / (double)c->n[a]);
  for (int64_t v = 0; v < m->Nv; v++) {
    int interior = 1;
    for (int a = 0; a < c->dim; a++) {
      double x = m->VX[v * c->dim + a];
      interior &= x != c->lo[a] && x != c->hi[a];
    }
    if (!interior)
      continue;
    for (int a = 0; a < c->dim; a++)
      m->VX[v * c->dim + a] += amplitude * hmin * rng_uniform();
  }
}

static inline dg_mesh *test_make_mesh(const mesh_case *c, double distortion) {
  dg_mesh *m = NULL;
  MUST(dg_builtin_mesh(c->dim, c->lo, c->hi, c->n, c->periodic, &m));
  if (distortion > 0)
    test_distort(m, c, distortion);
  return m;
}

/* "<case> N=<N> <extra>" for messages. */
static inline void test_case_label(const mesh_case *c, int N, const char *extra, char *buf,
                                   size_t size) {
  test_case_name(c, buf, size);
  size_t len = strlen(buf);
  snprintf(buf + len, size - len, " N=%d %s", N, extra);
}

/* Seed the generator, then run check(case, N, variant) for every mesh case,
 * N = 1, 1 + Nstep, ... <= Nmax and variant = 0 .. nvariants-1. */
typedef void (*test_case_fn)(const mesh_case *c, int N, int variant);
static inline void test_run_cases(test_case_fn check, int Nmax, int Nstep, int nvariants) {
  rng_seed();
  mesh_case cases[64];
  int n = test_mesh_cases(cases, 3);
  for (int i = 0; i < n; i++)
    for (int N = 1; N <= Nmax; N += Nstep)
      for (int v = 0; v < nvariants; v++)
        check(&cases[i], N, v);
}

static inline double test_box_volume(const mesh_case *c) {
  double v = 1;
  for (int a = 0; a < c->dim; a++)
    v *= c->hi[a] - c->lo[a];
  return v;
}

#endif
