#include "meshtest.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "core/fsutil.h"
#include "meshes/gmsh_reader.h"
#include "meshes/mesh_validate.h"

void mt_expect_error(dg_error got, dg_error code, const char *what, ...) {
  if (got != code) {
    fprintf(stderr, "%s: expected %s, got %s\n", what, dg_error_name(code), dg_error_name(got));
    dg_error_print(stderr);
    exit(1);
  }
  const char *msg = dg_error_message();
  va_list ap;
  va_start(ap, what);
  for (const char *s; (s = va_arg(ap, const char *)) != NULL;)
    if (!strstr(msg, s)) {
      fprintf(stderr, "%s: message lacks '%s':\n  %s\n", what, s, msg);
      exit(1);
    }
  va_end(ap);
  printf("ok (expected error): %s\n", msg);
  dg_error_clear();
}

static const double *X(const dg_mesh *m, int64_t v) { return m->VX + v * m->dim; }

/* |det| / d! of the edge vectors from p[0] (d = n - 1 points in dim). */
static double simplex_measure(int dim, int n, const double *p[4]) {
  double e[3][3] = {{0}};
  for (int i = 1; i < n; i++)
    for (int a = 0; a < dim; a++)
      e[i - 1][a] = p[i][a] - p[0][a];
  if (n == 1)
    return 1;
  if (n == 2)
    return sqrt(e[0][0] * e[0][0] + e[0][1] * e[0][1] + e[0][2] * e[0][2]);
  if (n == 3) { /* |cross| / 2, in 2D or 3D */
    double c0 = e[0][1] * e[1][2] - e[0][2] * e[1][1];
    double c1 = e[0][2] * e[1][0] - e[0][0] * e[1][2];
    double c2 = e[0][0] * e[1][1] - e[0][1] * e[1][0];
    return 0.5 * sqrt(c0 * c0 + c1 * c1 + c2 * c2);
  }
  double d = e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1]) -
             e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0]) +
             e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0]);
  return fabs(d) / 6;
}

double mt_element_measure(const dg_mesh *m, int64_t k) {
  const double *p[4];
  for (int i = 0; i <= m->dim; i++)
    p[i] = X(m, m->EToV[k * (m->dim + 1) + i]);
  if (m->dim == 1)
    return fabs(p[1][0] - p[0][0]);
  return simplex_measure(m->dim, m->dim + 1, p);
}

void mt_face_vertices(const dg_mesh *m, int64_t k, int f, int64_t v[3]) {
  int fv[4];
  dg_mesh_face_vertices(m->dim, f, fv);
  v[0] = v[1] = v[2] = -1;
  for (int i = 0; i < m->dim; i++)
    v[i] = m->EToV[k * (m->dim + 1) + fv[i]];
  for (int i = 0; i < m->dim; i++)
    for (int j = i + 1; j < m->dim; j++)
      if (v[j] < v[i]) {
        int64_t t = v[i];
        v[i] = v[j];
        v[j] = t;
      }
}

double mt_face_measure(const dg_mesh *m, int64_t k, int f, double c[3]) {
  int64_t v[3];
  mt_face_vertices(m, k, f, v);
  const double *p[4];
  for (int a = 0; a < 3; a++)
    c[a] = 0;
  for (int i = 0; i < m->dim; i++) {
    p[i] = X(m, v[i]);
    for (int a = 0; a < m->dim; a++)
      c[a] += p[i][a] / m->dim;
  }
  return simplex_measure(m->dim, m->dim, p);
}

int mt_face_count(const dg_mesh *m, int64_t k, int f) {
  int64_t v[3], w[3];
  mt_face_vertices(m, k, f, v);
  int n = 0;
  for (int64_t j = 0; j < m->K; j++)
    for (int g = 0; g <= m->dim; g++) {
      mt_face_vertices(m, j, g, w);
      n += v[0] == w[0] && v[1] == w[1] && v[2] == w[2];
    }
  return n;
}

double mt_tag_measure(const dg_mesh *m, const char *name, int64_t *nfaces) {
  int id = -1;
  for (int t = 0; t < m->ntags; t++)
    if (strcmp(m->tag_names[t], name) == 0)
      id = t;
  if (nfaces)
    *nfaces = 0;
  if (id < 0)
    return -1;
  double s = 0, c[3];
  for (int64_t i = 0; i < m->K * (m->dim + 1); i++)
    if (m->face_tag[i] == id) {
      s += mt_face_measure(m, i / (m->dim + 1), (int)(i % (m->dim + 1)), c);
      if (nfaces)
        (*nfaces)++;
    }
  return s;
}

static char *tmpdir;
static char pathbuf[4096];

const char *mt_tmpdir(void) {
  if (!tmpdir)
    MUST(dg_fsutil_make_temp_dir("dgrun-meshtest-", &tmpdir));
  return tmpdir;
}

char *mt_path(const char *name) {
  snprintf(pathbuf, sizeof pathbuf, "%s/%s", mt_tmpdir(), name);
  return pathbuf;
}

void mt_cleanup(void) {
  if (tmpdir)
    dg_fsutil_remove_tree(tmpdir);
  free(tmpdir);
  tmpdir = NULL;
}

void mt_write(const char *path, const char *text) {
  MUST(dg_fsutil_write_file(path, text, strlen(text), 0600));
}

int mt_mesh_equal(const dg_mesh *a, const dg_mesh *b, char *why, size_t n) {
#define DIFF(cond, ...)                                                       \
  if (cond) {                                                                 \
    snprintf(why, n, __VA_ARGS__);                                            \
    return 0;                                                                 \
  }
  DIFF(a->dim != b->dim || a->Nv != b->Nv || a->K != b->K, "sizes differ");
  DIFF(memcmp(a->VX, b->VX, (size_t)(a->Nv * a->dim) * sizeof *a->VX), "coordinates differ");
  DIFF(memcmp(a->EToV, b->EToV, (size_t)(a->K * (a->dim + 1)) * sizeof *a->EToV), "EToV differs");
  DIFF(memcmp(a->face_tag, b->face_tag, (size_t)(a->K * (a->dim + 1)) * sizeof *a->face_tag),
       "face tags differ");
  DIFF(a->ntags != b->ntags, "tag counts differ");
  for (int t = 0; t < a->ntags; t++)
    DIFF(strcmp(a->tag_names[t], b->tag_names[t]), "tag %d differs", t);
  DIFF(memcmp(a->periodic, b->periodic, sizeof a->periodic) || memcmp(a->lo, b->lo, sizeof a->lo) ||
           memcmp(a->hi, b->hi, sizeof a->hi),
       "axis periodicity differs");
  DIFF(a->nface_pairs != b->nface_pairs, "face pair counts differ");
  for (int64_t p = 0; p < a->nface_pairs; p++) {
    const dg_mesh_face_pair *x = &a->face_pairs[p], *y = &b->face_pairs[p];
    /* Shifts compare over the mesh's dimension to 1e-9 (absolute, meshes of
     * unit size): Gmsh's affine periodic transforms carry round-off of order
     * 1e-13 that depends on the path the file was read by. */
    int shift_differs = 0;
    for (int d = 0; d < a->dim; d++)
      shift_differs |= fabs(x->shift[d] - y->shift[d]) > 1e-9;
    DIFF(x->k1 != y->k1 || x->k2 != y->k2 || x->f1 != y->f1 || x->f2 != y->f2 ||
             shift_differs,
         "face pair %ld differs", (long)p);
  }
  DIFF(a->nregions != b->nregions || !a->region != !b->region, "region counts differ");
  for (int r = 0; r < a->nregions; r++)
    DIFF(strcmp(a->region_names[r], b->region_names[r]), "region %d differs", r);
  DIFF(a->region && memcmp(a->region, b->region, (size_t)a->K * sizeof *a->region),
       "element regions differ");
  return 1;
#undef DIFF
}

dg_mesh *mt_load(const char *dir, const char *name, double size) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  dg_mesh *m;
  MUST(dg_mesh_read_gmsh(path, size, &m));
  MUST(dg_mesh_validate(m, NULL, NULL));
  for (int64_t k = 0; k < m->K; k++)
    CHECK(dg_mesh_signed_volume(m, k) > 0, "%s: element %ld not positive", name, (long)k);
  return m;
}
