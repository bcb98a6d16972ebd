#include "meshes/mesh_validate.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "meshes/mesh_curved.h"
#include "meshes/mesh_hanging.h"

/* Geometric tolerance for "lies on a plane" / "coincides after a shift",
 * relative to the bounding-box diagonal: far above coordinate round-off,
 * far below element sizes of any mesh dgrun can run on. */
#define GEOM_RTOL 1e-8

/* ---- face keys ----------------------------------------------------------- */

void dg_mesh_validate_face_key(const int64_t *vertices, int nv, int64_t key[DG_MESH_MAX_DIM]) {
  for (int i = 0; i < DG_MESH_MAX_DIM; i++)
    key[i] = i < nv ? vertices[i] : -1;
  for (int i = 1; i < nv; i++) /* insertion sort of <= 3 ids */
    for (int j = i; j > 0 && key[j - 1] > key[j]; j--) {
      int64_t t = key[j];
      key[j] = key[j - 1];
      key[j - 1] = t;
    }
}

static int compare_keys(const int64_t *a, const int64_t *b) {
  for (int i = 0; i < DG_MESH_MAX_DIM; i++)
    if (a[i] != b[i])
      return a[i] < b[i] ? -1 : 1;
  return 0;
}

static int compare_faces(const void *pa, const void *pb) {
  const dg_mesh_face_key *a = pa, *b = pb;
  int c = compare_keys(a->v, b->v);
  if (c)
    return c;
  if (a->k != b->k)
    return a->k < b->k ? -1 : 1;
  return (a->f > b->f) - (a->f < b->f);
}

dg_error dg_mesh_validate_face_table(const dg_mesh *m, dg_mesh_face_key **keys, int64_t *n) {
  const int nf = m->dim + 1;
  int64_t count = m->K * nf;
  dg_mesh_face_key *t = malloc((size_t)count * sizeof *t);
  DG_CHECK(t != NULL, DG_ERR_MEMORY, "face table of %" PRId64 " faces: out of memory", count);
  for (int64_t k = 0; k < m->K; k++)
    for (int f = 0; f < nf; f++) {
      int fv[DG_MESH_MAX_VERTS];
      int64_t v[DG_MESH_MAX_DIM] = {0, 0, 0};
      dg_mesh_face_vertices(m->dim, f, fv);
      for (int i = 0; i < m->dim; i++)
        v[i] = m->EToV[k * nf + fv[i]];
      dg_mesh_face_key *e = &t[k * nf + f];
      dg_mesh_validate_face_key(v, m->dim, e->v);
      e->k = k;
      e->f = f;
    }
  qsort(t, (size_t)count, sizeof *t, compare_faces);
  *keys = t;
  *n = count;
  return DG_OK;
}

int64_t dg_mesh_validate_face_find(const dg_mesh_face_key *keys, int64_t n,
                                   const int64_t key[DG_MESH_MAX_DIM]) {
  int64_t lo = 0, hi = n; /* first entry >= key */
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (compare_keys(keys[mid].v, key) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < n && compare_keys(keys[lo].v, key) == 0 ? lo : -1;
}

/* "(x, y, z)" of vertex v. */
static void format_point(const dg_mesh *m, const double *x, char *buf, size_t size) {
  size_t len = (size_t)snprintf(buf, size, "(");
  for (int c = 0; c < m->dim && len < size; c++)
    len += (size_t)snprintf(buf + len, size - len, "%s%.10g", c ? ", " : "", x[c]);
  if (len < size)
    snprintf(buf + len, size - len, ")");
}

static int compare_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

void dg_mesh_validate_face_centroid(int dim, const int64_t *row, int f, const double *X,
                                    const int64_t *ids, int64_t nids, double c[3]) {
  int fv[DG_MESH_MAX_VERTS];
  int64_t v[DG_MESH_MAX_DIM] = {0, 0, 0}, key[DG_MESH_MAX_DIM];
  dg_mesh_face_vertices(dim, f, fv);
  for (int i = 0; i < dim; i++)
    v[i] = row[fv[i]];
  dg_mesh_validate_face_key(v, dim, key);
  for (int i = 0; ids && i < dim; i++) {
    const int64_t *at = bsearch(&key[i], ids, (size_t)nids, sizeof *ids, compare_i64);
    key[i] = at ? at - ids : 0;
  }
  for (int a = 0; a < 3; a++) {
    c[a] = 0;
    for (int i = 0; i < dim && a < dim; i++)
      c[a] += X[key[i] * dim + a];
    c[a] /= dim;
  }
}

static void face_centroid(const dg_mesh *m, int64_t k, int f, double c[3]) {
  dg_mesh_validate_face_centroid(m->dim, m->EToV + k * (m->dim + 1), f, m->VX, NULL, 0, c);
}

dg_error dg_mesh_validate_neighbors(const dg_mesh *m, int with_pairs, int64_t *EToE,
                                    int *EToF) {
  const int nf = m->dim + 1;
  for (int64_t i = 0; i < m->K * nf; i++) {
    EToE[i] = -1;
    EToF[i] = -1;
  }
  dg_mesh_face_key *t;
  int64_t n;
  DG_CALL(dg_mesh_validate_face_table(m, &t, &n));
  for (int64_t i = 0; i < n;) {
    int64_t j = i + 1;
    while (j < n && compare_keys(t[j].v, t[i].v) == 0)
      j++;
    if (j - i > 2) {
      char where[128];
      double c[DG_MESH_MAX_DIM];
      face_centroid(m, t[i].k, t[i].f, c);
      format_point(m, c, where, sizeof where);
      int64_t k0 = t[i].k, k1 = t[i + 1].k, k2 = t[i + 2].k, count = j - i;
      free(t);
      DG_RAISE(DG_ERR_INPUT,
               "mesh face centred at %s is shared by %" PRId64 " elements (%" PRId64
               ", %" PRId64 ", %" PRId64 "%s); a conforming mesh has at most two per face",
               where, count, k0, k1, k2, count > 3 ? ", ..." : "");
    }
    if (j - i == 2) {
      EToE[t[i].k * nf + t[i].f] = t[i + 1].k;
      EToF[t[i].k * nf + t[i].f] = t[i + 1].f;
      EToE[t[i + 1].k * nf + t[i + 1].f] = t[i].k;
      EToF[t[i + 1].k * nf + t[i + 1].f] = t[i].f;
    }
    i = j;
  }
  free(t);
  if (!with_pairs)
    return DG_OK;
  for (int64_t p = 0; p < m->nface_pairs; p++) {
    const dg_mesh_face_pair *fp = &m->face_pairs[p];
    DG_CHECK(fp->k1 >= 0 && fp->k1 < m->K && fp->k2 >= 0 && fp->k2 < m->K && fp->f1 >= 0 &&
                 fp->f1 < nf && fp->f2 >= 0 && fp->f2 < nf,
             DG_ERR_INPUT,
             "periodic face pair %" PRId64 " refers to element %" PRId64 " face %d and element %" PRId64
             " face %d (mesh has %" PRId64 " elements of %d faces)",
             p, fp->k1, fp->f1, fp->k2, fp->f2, m->K, nf);
    int64_t a = fp->k1 * nf + fp->f1, b = fp->k2 * nf + fp->f2;
    DG_CHECK(EToE[a] < 0 && EToE[b] < 0, DG_ERR_INPUT,
             "periodic face pair %" PRId64 " (element %" PRId64 " face %d, element %" PRId64
             " face %d) is not on the boundary, or its faces are paired twice",
             p, fp->k1, fp->f1, fp->k2, fp->f2);
    EToE[a] = fp->k2;
    EToF[a] = fp->f2;
    EToE[b] = fp->k1;
    EToF[b] = fp->f1;
  }
  return DG_OK;
}

/* ---- duplicate vertices ------------------------------------------------- */

typedef struct {
  int64_t q[DG_MESH_MAX_DIM]; /* cell of side tol holding the vertex */
  int64_t v;
} cell_entry;

static int compare_cells(const void *pa, const void *pb) {
  const cell_entry *a = pa, *b = pb;
  int c = compare_keys(a->q, b->q);
  return c ? c : (a->v > b->v) - (a->v < b->v);
}

static void bounding_box(const dg_mesh *m, double lo[3], double hi[3], double *diag) {
  double d2 = 0;
  for (int a = 0; a < m->dim; a++) {
    lo[a] = INFINITY;
    hi[a] = -INFINITY;
    for (int64_t v = 0; v < m->Nv; v++) {
      lo[a] = fmin(lo[a], m->VX[v * m->dim + a]);
      hi[a] = fmax(hi[a], m->VX[v * m->dim + a]);
    }
    d2 += (hi[a] - lo[a]) * (hi[a] - lo[a]);
  }
  *diag = sqrt(d2);
}

/* Vertices are binned into cells of side tol; two within tol of each other
 * (in every coordinate) lie in the same or adjacent cells, so each vertex is
 * compared with the 3^dim cells around it, found by bisection: O(Nv log Nv)
 * even on structured meshes where whole planes share a coordinate. */
static dg_error check_duplicates(const dg_mesh *m, double tol, const double lo[3]) {
  if (!(tol > 0))
    return DG_OK; /* all vertices coincide: the volume check reports it */
  for (int64_t i = 0; i < m->Nv * m->dim; i++)
    DG_CHECK(isfinite(m->VX[i]), DG_ERR_INPUT, "mesh vertex %" PRId64 " has coordinate %g",
             i / m->dim, m->VX[i]);
  cell_entry *c = malloc((size_t)m->Nv * sizeof *c);
  DG_CHECK(c != NULL, DG_ERR_MEMORY, "duplicate-vertex check: out of memory");
  for (int64_t v = 0; v < m->Nv; v++) {
    for (int a = 0; a < DG_MESH_MAX_DIM; a++)
      c[v].q[a] = a < m->dim ? (int64_t)floor((m->VX[v * m->dim + a] - lo[a]) / tol) : 0;
    c[v].v = v;
  }
  qsort(c, (size_t)m->Nv, sizeof *c, compare_cells);
  int ncell = m->dim == 1 ? 3 : m->dim == 2 ? 9 : 27;
  for (int64_t i = 0; i < m->Nv; i++) {
    const double *xi = m->VX + c[i].v * m->dim;
    for (int s = 0; s < ncell; s++) {
      cell_entry probe = {{0, 0, 0}, -1};
      for (int a = 0, r = s; a < m->dim; a++, r /= 3)
        probe.q[a] = c[i].q[a] + r % 3 - 1;
      int64_t lo_i = 0, hi_i = m->Nv; /* first entry of the probed cell */
      while (lo_i < hi_i) {
        int64_t mid = lo_i + (hi_i - lo_i) / 2;
        if (compare_cells(&c[mid], &probe) < 0)
          lo_i = mid + 1;
        else
          hi_i = mid;
      }
      for (int64_t j = lo_i; j < m->Nv && compare_keys(c[j].q, probe.q) == 0; j++) {
        if (c[j].v <= c[i].v)
          continue; /* each pair once, never a vertex with itself */
        const double *xj = m->VX + c[j].v * m->dim;
        double dmax = 0;
        for (int a = 0; a < m->dim; a++)
          dmax = fmax(dmax, fabs(xi[a] - xj[a]));
        if (dmax <= tol) {
          char p[128];
          format_point(m, xi, p, sizeof p);
          int64_t v1 = c[i].v, v2 = c[j].v;
          free(c);
          DG_RAISE(DG_ERR_INPUT,
                   "mesh vertices %" PRId64 " and %" PRId64 " are duplicates: both at %s "
                   "(within %.3g); remove duplicate nodes in the mesh generator "
                   "(Gmsh: Coherence Mesh;)",
                   v1, v2, p, tol);
        }
      }
    }
  }
  free(c);
  return DG_OK;
}

/* ---- the checks ---------------------------------------------------------- */

/* Is face (k, f) on the lo or hi plane of a periodic axis? */
static int on_periodic_plane(const dg_mesh *m, int64_t k, int f, double tol) {
  double c[DG_MESH_MAX_DIM];
  face_centroid(m, k, f, c);
  for (int a = 0; a < m->dim; a++)
    if (m->periodic[a] && (fabs(c[a] - m->lo[a]) <= tol || fabs(c[a] - m->hi[a]) <= tol))
      return 1;
  return 0;
}

/* Every vertex of face (k1, f1), shifted, is a vertex of face (k2, f2). */
static int pair_congruent(const dg_mesh *m, const dg_mesh_face_pair *fp, double tol) {
  const int nf = m->dim + 1;
  int fv1[DG_MESH_MAX_VERTS], fv2[DG_MESH_MAX_VERTS];
  dg_mesh_face_vertices(m->dim, fp->f1, fv1);
  dg_mesh_face_vertices(m->dim, fp->f2, fv2);
  for (int i = 0; i < m->dim; i++) {
    const double *x = m->VX + m->EToV[fp->k1 * nf + fv1[i]] * m->dim;
    int found = 0;
    for (int j = 0; j < m->dim && !found; j++) {
      const double *y = m->VX + m->EToV[fp->k2 * nf + fv2[j]] * m->dim;
      double d = 0;
      for (int a = 0; a < m->dim; a++)
        d = fmax(d, fabs(x[a] + fp->shift[a] - y[a]));
      found = d <= tol;
    }
    if (!found)
      return 0;
  }
  return 1;
}

/* An untagged face without a neighbour must be on the domain's boundary,
 * not one side of a hanging node's crack inside it (which a default tag
 * would make a wall): tagged faces are boundaries by the mesh's word. */
static dg_error check_untagged_conform(const dg_mesh *m, const int64_t *EToE, double tol) {
  const int nf = m->dim + 1;
  int64_t nopen = 0;
  for (int64_t i = 0; i < m->K * nf; i++)
    nopen += EToE[i] < 0;
  int64_t *open = malloc((size_t)(nopen + 1) * sizeof *open);
  unsigned char *check = malloc((size_t)(nopen + 1));
  dg_error err = DG_OK;
  DG_CHECK_GOTO(err, done, open && check, DG_ERR_MEMORY, "mesh validation: out of memory");
  nopen = 0;
  for (int64_t i = 0; i < m->K * nf; i++)
    if (EToE[i] < 0) {
      check[nopen] = m->face_tag[i] < 0 && !on_periodic_plane(m, i / nf, (int)(i % nf), tol);
      open[nopen++] = i;
    }
  DG_CALL_GOTO(err, done, dg_mesh_hanging_check(m, open, nopen, check, tol));
done:
  free(open);
  free(check);
  return err;
}

static dg_error check_boundary(dg_mesh *m, const int64_t *EToE, const char *default_tag,
                               double tol, dg_mesh_validate_report *rep) {
  const int nf = m->dim + 1;
  int64_t nuntagged = 0, first = -1;
  for (int64_t i = 0; i < m->K * nf; i++) {
    if (EToE[i] >= 0)
      continue;
    if (m->face_tag[i] >= 0) {
      DG_CHECK(m->face_tag[i] < m->ntags, DG_ERR_INPUT,
               "element %" PRId64 " face %d has tag id %d (mesh has %d tags)", i / nf,
               (int)(i % nf), m->face_tag[i], m->ntags);
      rep->nboundary++;
    } else if (on_periodic_plane(m, i / nf, (int)(i % nf), tol)) {
      rep->nperiodic++;
    } else {
      if (first < 0)
        first = i;
      nuntagged++;
    }
  }
  rep->nperiodic += 2 * m->nface_pairs;
  if (!nuntagged)
    return DG_OK;
  DG_CALL(check_untagged_conform(m, EToE, tol));
  if (!default_tag) {
    char where[128];
    double c[DG_MESH_MAX_DIM];
    face_centroid(m, first / nf, (int)(first % nf), c);
    format_point(m, c, where, sizeof where);
    DG_RAISE(DG_ERR_INPUT,
             "%" PRId64 " boundary faces have no tag (the first: element %" PRId64
             " face %d, centred at %s); put every boundary in a named physical group "
             "(Gmsh: Physical Curve/Surface(\"name\") = {...};) or configure a default "
             "boundary tag",
             nuntagged, first / nf, (int)(first % nf), where);
  }
  int id;
  if (dg_mesh_tag_find(m, default_tag, &id) != DG_OK) {
    dg_error_clear();
    DG_CALL(dg_mesh_tag_add(m, default_tag, &id));
  }
  for (int64_t i = 0; i < m->K * nf; i++)
    if (EToE[i] < 0 && m->face_tag[i] < 0 && !on_periodic_plane(m, i / nf, (int)(i % nf), tol))
      m->face_tag[i] = id;
  rep->ndefault_tagged = nuntagged;
  rep->nboundary += nuntagged;
  dg_info("mesh: %" PRId64 " untagged boundary faces get the default tag '%s'", nuntagged,
          default_tag);
  return DG_OK;
}

dg_error dg_mesh_validate(dg_mesh *m, const dg_mesh_validate_options *opt,
                          dg_mesh_validate_report *report) {
  DG_CHECK(m != NULL, DG_ERR_ARG, "dg_mesh_validate: mesh is NULL");
  dg_mesh_validate_report rep = {0, 0, 0, 0};
  const int nf = m->dim + 1;
  for (int64_t i = 0; i < m->K * nf; i++)
    DG_CHECK(m->EToV[i] >= 0 && m->EToV[i] < m->Nv, DG_ERR_INPUT,
             "element %" PRId64 " refers to vertex %" PRId64 " (mesh has %" PRId64
             " vertices)",
             i / nf, m->EToV[i], m->Nv);
  double lo[3], hi[3], diag;
  bounding_box(m, lo, hi, &diag);
  double rtol = opt && opt->duplicate_rtol > 0 ? opt->duplicate_rtol : 1e-10;
  DG_CALL(check_duplicates(m, rtol * diag, lo));

  DG_CALL(dg_mesh_orient(m, &rep.nflipped));
  DG_CALL(dg_mesh_curved_check(m));
  if (rep.nflipped)
    dg_warn("mesh: %" PRId64 " of %" PRId64 " elements were inverted (negative volume) "
            "and have been reoriented",
            rep.nflipped, m->K);

  int64_t *EToE = malloc((size_t)(m->K * nf) * sizeof *EToE);
  int *EToF = malloc((size_t)(m->K * nf) * sizeof *EToF);
  dg_error err = DG_OK;
  DG_CHECK_GOTO(err, done, EToE && EToF, DG_ERR_MEMORY, "mesh validation: out of memory");
  /* Vertex neighbours and explicit pairs: a pair's faces must be boundary
   * faces, each in one pair, and congruent under the shift. */
  DG_CALL_GOTO(err, done, dg_mesh_validate_neighbors(m, 1, EToE, EToF));
  const double tol = GEOM_RTOL * diag;
  for (int64_t p = 0; p < m->nface_pairs; p++) {
    const dg_mesh_face_pair *fp = &m->face_pairs[p];
    DG_CHECK_GOTO(err, done, pair_congruent(m, fp, tol), DG_ERR_INPUT,
                  "periodic face pair %" PRId64 ": element %" PRId64 " face %d shifted by "
                  "(%g, %g, %g) does not coincide with element %" PRId64 " face %d",
                  p, fp->k1, fp->f1, fp->shift[0], fp->shift[1], fp->shift[2], fp->k2, fp->f2);
  }
  DG_CALL_GOTO(err, done,
               check_boundary(m, EToE, opt ? opt->default_tag : NULL, tol, &rep));
done:
  free(EToE);
  free(EToF);
  if (err == DG_OK && report)
    *report = rep;
  return err;
}

dg_error dg_mesh_validate_tags(const dg_mesh *m, const char *const *names, int n,
                               const char *where) {
  for (int i = 0; i < n; i++) {
    int id;
    if (dg_mesh_tag_find(m, names[i], &id) == DG_OK)
      continue;
    char msg[1024]; /* dg_mesh_tag_find's list of tags and did-you-mean */
    snprintf(msg, sizeof msg, "%s", dg_error_message());
    DG_RAISE(DG_ERR_INPUT, "%s names boundary tag '%s', but the %s", where ? where : "the problem",
             names[i], msg);
  }
  return DG_OK;
}
