#include "meshes/mesh.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/suggest.h"
#include "meshes/mesh_curved.h"

dg_error dg_mesh_create(int dim, int64_t Nv, int64_t K, dg_mesh **out) {
  DG_CHECK(out != NULL, DG_ERR_ARG, "dg_mesh_create: out is NULL");
  *out = NULL;
  DG_CHECK(dim >= 1 && dim <= 3, DG_ERR_ARG, "mesh dimension %d must be 1, 2 or 3", dim);
  DG_CHECK(Nv > 0 && K > 0, DG_ERR_ARG,
           "mesh needs vertices and elements (Nv = %" PRId64 ", K = %" PRId64 ")", Nv, K);
  dg_mesh *m = calloc(1, sizeof *m);
  DG_CHECK(m != NULL, DG_ERR_MEMORY, "mesh: out of memory");
  m->dim = dim;
  m->Nv = Nv;
  m->K = K;
  m->geom_order = 1;
  m->VX = calloc((size_t)(Nv * dim), sizeof *m->VX);
  m->EToV = calloc((size_t)(K * (dim + 1)), sizeof *m->EToV);
  m->face_tag = malloc((size_t)(K * (dim + 1)) * sizeof *m->face_tag);
  if (!m->VX || !m->EToV || !m->face_tag) {
    dg_mesh_destroy(&m);
    DG_RAISE(DG_ERR_MEMORY, "mesh of %" PRId64 " elements: out of memory", K);
  }
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < K * (dim + 1); i++)
    m->face_tag[i] = -1;
  *out = m;
  return DG_OK;
}

void dg_mesh_destroy(dg_mesh **mesh) {
  if (!mesh || !*mesh)
    return;
  dg_mesh *m = *mesh;
  free(m->VX);
  free(m->EToV);
  free(m->face_tag);
  for (int i = 0; i < m->ntags; i++)
    free(m->tag_names[i]);
  free(m->tag_names);
  free(m->face_pairs);
  free(m->region);
  for (int i = 0; i < m->nregions; i++)
    free(m->region_names[i]);
  free(m->region_names);
  free(m->XH);
  free(m);
  *mesh = NULL;
}

dg_error dg_mesh_copy(const dg_mesh *mesh, dg_mesh **out) {
  dg_mesh *m = NULL;
  DG_CALL(dg_mesh_create(mesh->dim, mesh->Nv, mesh->K, &m));
  dg_error err = DG_OK;
  memcpy(m->VX, mesh->VX, (size_t)(mesh->Nv * mesh->dim) * sizeof *m->VX);
  memcpy(m->EToV, mesh->EToV, (size_t)(mesh->K * (mesh->dim + 1)) * sizeof *m->EToV);
  memcpy(m->face_tag, mesh->face_tag, (size_t)(mesh->K * (mesh->dim + 1)) * sizeof *m->face_tag);
  for (int i = 0; i < mesh->ntags; i++)
    DG_CALL_GOTO(err, fail, dg_mesh_tag_add(m, mesh->tag_names[i], NULL));
  memcpy(m->periodic, mesh->periodic, sizeof m->periodic);
  memcpy(m->lo, mesh->lo, sizeof m->lo);
  memcpy(m->hi, mesh->hi, sizeof m->hi);
  if (mesh->nface_pairs > 0) {
    m->face_pairs = malloc((size_t)mesh->nface_pairs * sizeof *m->face_pairs);
    DG_CHECK_GOTO(err, fail, m->face_pairs != NULL, DG_ERR_MEMORY, "mesh copy: out of memory");
    memcpy(m->face_pairs, mesh->face_pairs, (size_t)mesh->nface_pairs * sizeof *m->face_pairs);
    m->nface_pairs = mesh->nface_pairs;
  }
  for (int i = 0; i < mesh->nregions; i++)
    DG_CALL_GOTO(err, fail, dg_mesh_region_add(m, mesh->region_names[i], NULL));
  if (mesh->nregions > 0)
    memcpy(m->region, mesh->region, (size_t)mesh->K * sizeof *m->region);
  if (mesh->geom_order > 1) {
    DG_CALL_GOTO(err, fail, dg_mesh_ho_set_order(m, mesh->geom_order));
    memcpy(m->XH, mesh->XH,
           (size_t)(mesh->K * dg_mesh_ho_count(mesh->dim, mesh->geom_order) * mesh->dim) *
               sizeof *m->XH);
  }
  *out = m;
  return DG_OK;
fail:
  dg_mesh_destroy(&m);
  return err;
}

dg_error dg_mesh_face_pair_add(dg_mesh *mesh, int64_t k1, int f1, int64_t k2, int f2,
                               const double shift[DG_MESH_MAX_DIM]) {
  const int nf = mesh->dim + 1;
  DG_CHECK(k1 >= 0 && k1 < mesh->K && k2 >= 0 && k2 < mesh->K && f1 >= 0 && f1 < nf &&
               f2 >= 0 && f2 < nf && !(k1 == k2 && f1 == f2),
           DG_ERR_INPUT,
           "periodic face pair (element %" PRId64 " face %d, element %" PRId64
           " face %d) names a face that does not exist or pairs a face with itself",
           k1, f1, k2, f2);
  dg_mesh_face_pair *p =
      realloc(mesh->face_pairs, (size_t)(mesh->nface_pairs + 1) * sizeof *p);
  DG_CHECK(p != NULL, DG_ERR_MEMORY, "periodic face pairs: out of memory");
  mesh->face_pairs = p;
  p += mesh->nface_pairs++;
  *p = (dg_mesh_face_pair){.k1 = k1, .f1 = f1, .k2 = k2, .f2 = f2};
  for (int a = 0; a < mesh->dim; a++)
    p->shift[a] = shift[a];
  return DG_OK;
}

void dg_mesh_face_vertices(int dim, int f, int v[DG_MESH_MAX_VERTS]) {
  /* Hesthaven & Warburton (2008): fnodes of Connect1D/tiConnect2D/tiConnect3D,
   * matching the reference faces of dg/refelem.h. */
  static const int f1[2][1] = {{0}, {1}};
  static const int f2[3][2] = {{0, 1}, {1, 2}, {0, 2}};
  static const int f3[4][3] = {{0, 1, 2}, {0, 1, 3}, {1, 2, 3}, {0, 2, 3}};
  for (int i = 0; i < dim; i++)
    v[i] = dim == 1 ? f1[f][i] : dim == 2 ? f2[f][i] : f3[f][i];
}

/* Append a new, non-empty name to a list of names (tags or regions; `what`
 * names the kind in messages). */
static dg_error name_add(char ***names, int *n, const char *name, const char *what, int *id) {
  DG_CHECK(name && name[0], DG_ERR_ARG, "mesh %s name is empty", what);
  for (int i = 0; i < *n; i++)
    DG_CHECK(strcmp((*names)[i], name) != 0, DG_ERR_INPUT, "mesh %s '%s' is defined twice",
             what, name);
  char **grown = realloc(*names, (size_t)(*n + 1) * sizeof *grown);
  DG_CHECK(grown != NULL, DG_ERR_MEMORY, "mesh %s '%s': out of memory", what, name);
  *names = grown;
  grown[*n] = strdup(name);
  DG_CHECK(grown[*n] != NULL, DG_ERR_MEMORY, "mesh %s '%s': out of memory", what, name);
  if (id)
    *id = *n;
  (*n)++;
  return DG_OK;
}

/* Index of `name` in names; else DG_ERR_INPUT listing them and suggesting
 * the closest ("boundary tag" / "tags", "region" / "regions"). */
static dg_error name_find(char *const *names, int n, const char *name, const char *what,
                          const char *plural, int *id) {
  for (int i = 0; i < n; i++) {
    if (strcmp(names[i], name) == 0) {
      *id = i;
      return DG_OK;
    }
  }
  char known[512] = "";
  size_t len = 0;
  for (int i = 0; i < n && len < sizeof known; i++)
    len += (size_t)snprintf(known + len, sizeof known - len, "%s%s", i ? ", " : "", names[i]);
  const char *close = dg_suggest_closest(name, (const char *const *)names, (size_t)n);
  DG_RAISE(DG_ERR_INPUT, "mesh has no %s '%s'%s%s%s (%s: %s)", what, name,
           close ? " (did you mean '" : "", close ? close : "", close ? "'?)" : "", plural,
           n ? known : "none");
}

dg_error dg_mesh_tag_add(dg_mesh *mesh, const char *name, int *id) {
  DG_CALL(name_add(&mesh->tag_names, &mesh->ntags, name, "tag", id));
  return DG_OK;
}

dg_error dg_mesh_tag_find(const dg_mesh *mesh, const char *name, int *id) {
  DG_CALL(name_find(mesh->tag_names, mesh->ntags, name, "boundary tag", "tags", id));
  return DG_OK;
}

dg_error dg_mesh_region_add(dg_mesh *mesh, const char *name, int *id) {
  /* region exists exactly while there are regions: allocated (every element
   * in none) with the first one. */
  if (!mesh->region && name && name[0]) {
    mesh->region = malloc((size_t)mesh->K * sizeof *mesh->region);
    DG_CHECK(mesh->region != NULL, DG_ERR_MEMORY, "mesh region '%s': out of memory", name);
    for (int64_t k = 0; k < mesh->K; k++)
      mesh->region[k] = -1;
  }
  dg_error err = name_add(&mesh->region_names, &mesh->nregions, name, "region", id);
  if (err != DG_OK && mesh->nregions == 0) {
    free(mesh->region);
    mesh->region = NULL;
  }
  if (err != DG_OK)
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  return DG_OK;
}

dg_error dg_mesh_region_find(const dg_mesh *mesh, const char *name, int *id) {
  DG_CALL(name_find(mesh->region_names, mesh->nregions, name, "region", "regions", id));
  return DG_OK;
}

dg_error dg_mesh_permute(dg_mesh *m, const int64_t *new_of_old) {
  const int nv = m->dim + 1;
  const size_t n = m->K > 0 ? (size_t)m->K : 1;
  int64_t *EToV = malloc(n * nv * sizeof *EToV);
  int *tags = malloc(n * nv * sizeof *tags);
  int *region = m->region ? malloc(n * sizeof *region) : NULL;
  const size_t nh = m->XH ? (size_t)dg_mesh_ho_count(m->dim, m->geom_order) * m->dim : 0;
  double *XH = m->XH ? malloc(n * nh * sizeof *XH) : NULL;
  if (!EToV || !tags || (m->region && !region) || (m->XH && !XH)) {
    free(EToV);
    free(tags);
    free(region);
    free(XH);
    DG_RAISE(DG_ERR_MEMORY, "element order: out of memory for %lld elements", (long long)m->K);
  }
  for (int64_t k = 0; k < m->K; k++) {
    int64_t j = new_of_old[k];
    memcpy(&EToV[j * nv], &m->EToV[k * nv], (size_t)nv * sizeof *EToV);
    memcpy(&tags[j * nv], &m->face_tag[k * nv], (size_t)nv * sizeof *tags);
    if (region)
      region[j] = m->region[k];
    if (XH)
      memcpy(&XH[j * nh], &m->XH[k * nh], nh * sizeof *XH);
  }
  free(m->EToV);
  free(m->face_tag);
  free(m->region);
  free(m->XH);
  m->EToV = EToV;
  m->face_tag = tags;
  m->region = region;
  m->XH = XH;
  for (int64_t p = 0; p < m->nface_pairs; p++) {
    m->face_pairs[p].k1 = new_of_old[m->face_pairs[p].k1];
    m->face_pairs[p].k2 = new_of_old[m->face_pairs[p].k2];
  }
  return DG_OK;
}

/* Edge vectors e_i = v_i - v_0 of element k (dim x dim, row i = edge i). */
static void edge_vectors(const dg_mesh *m, int64_t k, double e[3][3]) {
  const int64_t *v = m->EToV + k * (m->dim + 1);
  for (int i = 0; i < m->dim; i++)
    for (int c = 0; c < m->dim; c++)
      e[i][c] = m->VX[v[i + 1] * m->dim + c] - m->VX[v[0] * m->dim + c];
}

double dg_mesh_signed_volume(const dg_mesh *m, int64_t k) {
  double e[3][3];
  edge_vectors(m, k, e);
  /* Volume of a d-simplex = det[v1-v0, ..., vd-v0] / d!. */
  switch (m->dim) {
  case 1: return e[0][0];
  case 2: return 0.5 * (e[0][0] * e[1][1] - e[0][1] * e[1][0]);
  default:
    return (e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1]) -
            e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0]) +
            e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0])) /
           6.0;
  }
}

double dg_mesh_element_size(const dg_mesh *m, int64_t k) {
  const int64_t *v = m->EToV + k * (m->dim + 1);
  double hmax = 0;
  for (int i = 0; i <= m->dim; i++)
    for (int j = i + 1; j <= m->dim; j++) {
      double d2 = 0;
      for (int c = 0; c < m->dim; c++) {
        double d = m->VX[v[i] * m->dim + c] - m->VX[v[j] * m->dim + c];
        d2 += d * d;
      }
      hmax = fmax(hmax, sqrt(d2));
    }
  return hmax;
}

/* "(x, y), (x, y), (x, y)" for an error message. */
static void format_vertices(const dg_mesh *m, int64_t k, char *buf, size_t size) {
  const int64_t *v = m->EToV + k * (m->dim + 1);
  size_t len = 0;
  buf[0] = 0;
  for (int i = 0; i <= m->dim && len < size; i++) {
    len += (size_t)snprintf(buf + len, size - len, "%s%" PRId64 ":(", i ? ", " : "", v[i]);
    for (int c = 0; c < m->dim && len < size; c++)
      len += (size_t)snprintf(buf + len, size - len, "%s%.17g", c ? ", " : "",
                              m->VX[v[i] * m->dim + c]);
    if (len < size)
      len += (size_t)snprintf(buf + len, size - len, ")");
  }
}

/* After swapping the last two vertices of element k, old face f is new face
 * perm[f]: find the new face with the same vertex set. */
static void face_permutation(int dim, int perm[DG_MESH_MAX_FACES]) {
  int swap[DG_MESH_MAX_VERTS] = {0, 1, 2, 3};
  swap[dim - 1] = dim;
  swap[dim] = dim - 1;
  for (int f = 0; f <= dim; f++) {
    int vf[DG_MESH_MAX_VERTS];
    dg_mesh_face_vertices(dim, f, vf);
    unsigned old_set = 0; /* vertex positions of old face f, as a bit set */
    for (int i = 0; i < dim; i++)
      old_set |= 1u << vf[i];
    for (int g = 0; g <= dim; g++) {
      int vg[DG_MESH_MAX_VERTS];
      dg_mesh_face_vertices(dim, g, vg);
      unsigned new_set = 0; /* new face g holds old position swap[vg[i]] */
      for (int i = 0; i < dim; i++)
        new_set |= 1u << swap[vg[i]];
      if (new_set == old_set)
        perm[f] = g;
    }
  }
}

/* 0 when element k is fine or was flipped (*flipped set), 1 when it names a
 * vertex that does not exist, 2 when it is degenerate. */
static int orient_element(dg_mesh *m, int64_t k, const int perm[DG_MESH_MAX_FACES],
                          const int *node_perm, int *flipped) {
  const int nv = m->dim + 1;
  int64_t *v = m->EToV + k * nv;
  *flipped = 0;
  for (int i = 0; i < nv; i++)
    if (!(v[i] >= 0 && v[i] < m->Nv))
      return 1;
  double vol = dg_mesh_signed_volume(m, k);
  double h = dg_mesh_element_size(m, k);
  if (!(fabs(vol) > 1e-10 * pow(h, m->dim)))
    return 2;
  if (vol > 0)
    return 0;
  int64_t tmp = v[nv - 1];
  v[nv - 1] = v[nv - 2];
  v[nv - 2] = tmp;
  int *tag = m->face_tag + k * nv, old[DG_MESH_MAX_FACES];
  memcpy(old, tag, (size_t)nv * sizeof *old);
  for (int f = 0; f < nv; f++)
    tag[perm[f]] = old[f];
  if (node_perm) { /* new node j is old node node_perm[j] */
    const int dim = m->dim, nho = dg_mesh_ho_count(dim, m->geom_order);
    double *x = m->XH + k * nho * dim, tmpx[84 * 3];
    memcpy(tmpx, x, (size_t)(nho * dim) * sizeof *x);
    for (int j = 0; j < nho; j++)
      memcpy(x + j * dim, tmpx + node_perm[j] * dim, (size_t)dim * sizeof *x);
  }
  *flipped = 1;
  return 0;
}

dg_error dg_mesh_orient(dg_mesh *m, int64_t *nflipped) {
  const int nv = m->dim + 1;
  int perm[DG_MESH_MAX_FACES], node_perm[84];
  face_permutation(m->dim, perm);
  if (m->XH)
    dg_mesh_ho_flip_permutation(m->dim, m->geom_order, node_perm);
  /* Elements on their own, in parallel; the face pairs of flipped elements
   * follow in one pass.  The first bad element is reported. */
  unsigned char *was_flipped = m->nface_pairs > 0 ? calloc((size_t)m->K, 1) : NULL;
  DG_CHECK(was_flipped || m->nface_pairs == 0, DG_ERR_MEMORY, "mesh orientation: out of memory");
  int64_t flipped = 0, bad = m->K;
#pragma omp parallel for schedule(static) reduction(+ : flipped) reduction(min : bad)
  for (int64_t k = 0; k < m->K; k++) {
    int f = 0;
    if (orient_element(m, k, perm, m->XH ? node_perm : NULL, &f) != 0 && k < bad)
      bad = k;
    flipped += f;
    if (f && was_flipped)
      was_flipped[k] = 1;
  }
  for (int64_t p = 0; p < m->nface_pairs; p++) {
    dg_mesh_face_pair *fp = &m->face_pairs[p];
    if (fp->k1 >= 0 && fp->k1 < m->K && was_flipped[fp->k1])
      fp->f1 = perm[fp->f1];
    if (fp->k2 >= 0 && fp->k2 < m->K && was_flipped[fp->k2])
      fp->f2 = perm[fp->f2];
  }
  free(was_flipped);
  if (bad < m->K) {
    const int64_t k = bad, *v = m->EToV + k * nv;
    for (int i = 0; i < nv; i++)
      DG_CHECK(v[i] >= 0 && v[i] < m->Nv, DG_ERR_INPUT,
               "element %" PRId64 " refers to vertex %" PRId64 " (mesh has %" PRId64
               " vertices)",
               k, v[i], m->Nv);
    char buf[512];
    format_vertices(m, k, buf, sizeof buf);
    DG_RAISE(DG_ERR_INPUT,
             "element %" PRId64 " is degenerate (signed volume %.3g, longest edge %.3g); "
             "vertices %s",
             k, dg_mesh_signed_volume(m, k), dg_mesh_element_size(m, k), buf);
  }
  if (flipped)
    dg_info("mesh: reoriented %" PRId64 " of %" PRId64 " elements (negative volume)", flipped,
            m->K);
  if (nflipped)
    *nflipped = flipped;
  return DG_OK;
}
