#include "meshes/submesh.h"

#include <stdlib.h>
#include <string.h>

#include "meshes/mesh_curved.h"

/* Whether face f1 of k1 and face f2 of k2 have the same vertex set. */
static int same_vertices(const dg_mesh *m, int64_t k1, int f1, int64_t k2, int f2) {
  int nv = m->dim + 1, a[DG_MESH_MAX_VERTS], b[DG_MESH_MAX_VERTS];
  dg_mesh_face_vertices(m->dim, f1, a);
  dg_mesh_face_vertices(m->dim, f2, b);
  for (int i = 0; i < m->dim; i++) {
    int found = 0;
    for (int j = 0; j < m->dim; j++)
      found |= m->EToV[k1 * nv + a[i]] == m->EToV[k2 * nv + b[j]];
    if (!found)
      return 0;
  }
  return 1;
}

static dg_error build(const dg_mesh *m, const int64_t *EToE, const int *EToF,
                      const double *shift, int64_t n, const int64_t *sel, const char *cut_tag,
                      int64_t *sub_of, int64_t *vmap, dg_mesh **out) {
  int nv = m->dim + 1;
  for (int64_t k = 0; k < m->K; k++)
    sub_of[k] = -1;
  for (int64_t i = 0; i < n; i++) {
    DG_CHECK(sel[i] >= 0 && sel[i] < m->K && sub_of[sel[i]] < 0, DG_ERR_ARG,
             "sub-mesh: element %lld is out of range or selected twice", (long long)sel[i]);
    sub_of[sel[i]] = i;
  }
  for (int64_t v = 0; v < m->Nv; v++)
    vmap[v] = -1;
  for (int64_t i = 0; i < n; i++)
    for (int c = 0; c < nv; c++)
      vmap[m->EToV[sel[i] * nv + c]] = 0;
  int64_t Nv = 0;
  for (int64_t v = 0; v < m->Nv; v++)
    if (vmap[v] == 0)
      vmap[v] = Nv++;
  dg_mesh *s;
  DG_CALL(dg_mesh_create(m->dim, Nv, n, &s));
  *out = s;
  for (int64_t v = 0; v < m->Nv; v++)
    if (vmap[v] >= 0)
      memcpy(s->VX + vmap[v] * m->dim, m->VX + v * m->dim, sizeof(double) * (size_t)m->dim);
  for (int t = 0; t < m->ntags; t++) {
    int id;
    DG_CALL(dg_mesh_tag_add(s, m->tag_names[t], &id));
  }
  int cut;
  DG_CALL(dg_mesh_tag_add(s, cut_tag, &cut));
  for (int r = 0; r < m->nregions; r++)
    DG_CALL(dg_mesh_region_add(s, m->region_names[r], NULL));
  for (int64_t i = 0; i < n && m->region; i++)
    s->region[i] = m->region[sel[i]];
  if (m->geom_order > 1) {
    const size_t nh = (size_t)dg_mesh_ho_count(m->dim, m->geom_order) * m->dim;
    DG_CALL(dg_mesh_ho_set_order(s, m->geom_order));
    for (int64_t i = 0; i < n; i++)
      memcpy(s->XH + i * nh, m->XH + sel[i] * nh, nh * sizeof *s->XH);
  }
  for (int a = 0; a < m->dim; a++) {
    s->lo[a] = m->lo[a];
    s->hi[a] = m->hi[a];
  }
  for (int64_t i = 0; i < n; i++) {
    int64_t k = sel[i];
    for (int c = 0; c < nv; c++)
      s->EToV[i * nv + c] = vmap[m->EToV[k * nv + c]];
    for (int f = 0; f < nv; f++) {
      int64_t k2 = EToE[k * nv + f];
      int f2 = EToF[k * nv + f];
      if (k2 == k && f2 == f) { /* boundary */
        s->face_tag[i * nv + f] = m->face_tag[k * nv + f];
      } else if (sub_of[k2] < 0) {
        s->face_tag[i * nv + f] = cut;
      } else {
        s->face_tag[i * nv + f] = -1;
        /* A periodic link becomes an explicit pair, listed once. */
        if (!same_vertices(m, k, f, k2, f2) && k * nv + f < k2 * nv + f2) {
          double sh[DG_MESH_MAX_DIM] = {0, 0, 0};
          for (int a = 0; a < m->dim; a++)
            sh[a] = shift[(k * nv + f) * 3 + a];
          DG_CALL(dg_mesh_face_pair_add(s, i, f, sub_of[k2], f2, sh));
        }
      }
    }
  }
  return DG_OK;
}

dg_error dg_mesh_submesh(const dg_mesh *mesh, const int64_t *EToE, const int *EToF,
                         const double *shift, int64_t n, const int64_t *sel,
                         const char *cut_tag, dg_mesh **out) {
  *out = NULL;
  DG_CHECK(mesh && EToE && EToF && shift && sel && cut_tag && n >= 1, DG_ERR_ARG,
           "dg_mesh_submesh: bad argument");
  int64_t *sub_of = malloc(sizeof(int64_t) * (size_t)mesh->K);
  int64_t *vmap = malloc(sizeof(int64_t) * (size_t)mesh->Nv);
  dg_error err = sub_of && vmap ? build(mesh, EToE, EToF, shift, n, sel, cut_tag, sub_of, vmap, out)
                                : dg_error_raise(DG_ERR_MEMORY, __FILE__, __LINE__, __func__,
                                                 "sub-mesh of %lld elements: out of memory",
                                                 (long long)n);
  free(sub_of);
  free(vmap);
  if (err != DG_OK) {
    dg_mesh_destroy(out);
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  }
  return DG_OK;
}
