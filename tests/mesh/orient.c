/* meshes.orient: an element inverted on purpose is found and reoriented
 * (count 1, positive volume, face tags still on the same vertex sets, the
 * same vertices); a degenerate element is DG_ERR_INPUT naming its index and
 * a vertex coordinate.  In 1D, 2D and 3D, on a random element. */
#include "tests/mesh/mesh_test.h"

#include "core/error.h"

/* Tag of the face of element k whose vertex set is {set} (sorted ids). */
static int tag_of_vertex_set(const dg_mesh *m, int64_t k, const int64_t *set) {
  const int dim = m->dim;
  for (int f = 0; f <= dim; f++) {
    int match = 1;
    for (int i = 0; i < dim; i++) {
      int64_t v = m->EToV[k * (dim + 1) + test_face_verts[dim][f][i]], found = 0;
      for (int j = 0; j < dim; j++)
        found |= set[j] == v;
      match &= found != 0;
    }
    if (match)
      return m->face_tag[k * (dim + 1) + f];
  }
  return -99;
}

static void check_dim(int dim) {
  mesh_case c = {.dim = dim, .lo = {0, 0, 0}, .hi = {1, 2, 3}, .n = {3, 2, 2}};
  dg_mesh *m = test_make_mesh(&c, 0.0);
  const int nv = dim + 1;
  /* Pick an element with at least one tagged face, at random. */
  int64_t k;
  do {
    k = (int64_t)((rng_uniform() + 1.0) * 0.5 * (double)m->K) % m->K;
  } while (dim > 1 && m->face_tag[k * nv] < 0 && m->face_tag[k * nv + 1] < 0 &&
           m->face_tag[k * nv + 2] < 0 && (dim < 3 || m->face_tag[k * nv + 3] < 0));
  /* Record each face's (vertex set -> tag), then invert: swap v0 and v1. */
  int64_t sets[4][3];
  int tags[4];
  for (int f = 0; f < nv; f++) {
    for (int i = 0; i < dim; i++)
      sets[f][i] = m->EToV[k * nv + test_face_verts[dim][f][i]];
    tags[f] = m->face_tag[k * nv + f];
  }
  int64_t verts_before[4];
  memcpy(verts_before, m->EToV + k * nv, sizeof(int64_t) * (size_t)nv);
  int64_t t = m->EToV[k * nv];
  m->EToV[k * nv] = m->EToV[k * nv + 1];
  m->EToV[k * nv + 1] = t;
  /* Faces keep their vertex sets' tags under the swap in the input. */
  int tmp[4];
  for (int f = 0; f < nv; f++)
    tmp[f] = -98;
  for (int f = 0; f < nv; f++)
    for (int g = 0; g < nv; g++) {
      int same = 1;
      for (int i = 0; i < dim; i++) {
        int64_t v = m->EToV[k * nv + test_face_verts[dim][g][i]], found = 0;
        for (int j = 0; j < dim; j++)
          found |= sets[f][j] == v;
        same &= found != 0;
      }
      if (same)
        tmp[g] = tags[f];
    }
  memcpy(m->face_tag + k * nv, tmp, sizeof(int) * (size_t)nv);
  /* An explicit face pair on the inverted element's face 0 (in the inverted
   * order) must follow its vertex set through the reorientation too. */
  int64_t pair_set[3];
  for (int i = 0; i < dim; i++)
    pair_set[i] = m->EToV[k * nv + test_face_verts[dim][0][i]];
  const double shift[3] = {0.5, 0, 0};
  MUST(dg_mesh_face_pair_add(m, k, 0, (k + 1) % m->K, 1, shift));
  EXPECT(dg_mesh_face_pair_add(m, k, 0, k, 0, shift) == DG_ERR_INPUT, "self pair accepted");
  EXPECT(dg_mesh_face_pair_add(m, k, nv, 0, 0, shift) == DG_ERR_INPUT, "face %d accepted", nv);
  dg_error_clear();
  EXPECT(test_element_volume(m, k) < 0, "%dD: element %" PRId64 " not inverted", dim, k);

  int64_t flipped = -1;
  MUST(dg_mesh_orient(m, &flipped));
  EXPECT(flipped == 1, "%dD: %" PRId64 " elements flipped, want 1", dim, flipped);
  for (int64_t e = 0; e < m->K; e++)
    EXPECT(test_element_volume(m, e) > 0, "%dD: element %" PRId64 " volume %g", dim, e,
           test_element_volume(m, e));
  for (int f = 0; f < nv; f++)
    EXPECT(tag_of_vertex_set(m, k, sets[f]) == tags[f],
           "%dD: face with vertex set %d lost its tag %d", dim, f, tags[f]);
  EXPECT(m->nface_pairs == 1 && m->face_pairs[0].k1 == k &&
             m->face_pairs[0].k2 == (k + 1) % m->K && m->face_pairs[0].f2 == 1 &&
             m->face_pairs[0].shift[0] == 0.5,
         "%dD: face pair changed", dim);
  {
    int f1 = m->face_pairs[0].f1, all = 1;
    for (int i = 0; i < dim; i++) {
      int64_t v = m->EToV[k * nv + test_face_verts[dim][f1][i]], in = 0;
      for (int j = 0; j < dim; j++)
        in |= pair_set[j] == v;
      all &= in != 0;
    }
    EXPECT(all, "%dD: face pair now on face %d, another vertex set", dim, f1);
  }
  for (int i = 0; i < nv; i++) { /* same vertices, in some order */
    int found = 0;
    for (int j = 0; j < nv; j++)
      found |= m->EToV[k * nv + j] == verts_before[i];
    EXPECT(found, "%dD: vertex %" PRId64 " left element %" PRId64, dim, verts_before[i], k);
  }
  /* A second pass finds nothing to do. */
  MUST(dg_mesh_orient(m, &flipped));
  EXPECT(flipped == 0, "%dD: second pass flipped %" PRId64, dim, flipped);

  /* Degenerate: replace the last vertex of another element by the mean of
   * its other vertices (1D: a zero length; 2D: collinear; 3D: coplanar). */
  int64_t kd = (k + 1) % m->K;
  int64_t vd = m->Nv;
  double *VX = realloc(m->VX, (size_t)((m->Nv + 1) * dim) * sizeof *VX);
  m->VX = VX;
  m->Nv++;
  for (int a = 0; a < dim; a++) {
    double mean = 0;
    for (int i = 0; i < dim; i++)
      mean += test_vertex(m, kd, i)[a] / dim;
    VX[vd * dim + a] = mean;
  }
  m->EToV[kd * nv + nv - 1] = vd;
  dg_error e = dg_mesh_orient(m, NULL);
  EXPECT(e == DG_ERR_INPUT, "%dD: degenerate element gave %d", dim, (int)e);
  char want[64];
  snprintf(want, sizeof want, "element %" PRId64 " ", kd);
  EXPECT(strstr(dg_error_message(), want) != NULL, "%dD: message '%s' does not name %s", dim,
         dg_error_message(), want);
  char coord[64];
  snprintf(coord, sizeof coord, "%.17g", VX[vd * dim]);
  EXPECT(strstr(dg_error_message(), coord) != NULL, "%dD: message '%s' lacks coordinate %s",
         dim, dg_error_message(), coord);
  dg_error_clear();
  dg_mesh_destroy(&m);
}

int main(void) {
  rng_seed();
  for (int dim = 1; dim <= 3; dim++)
    check_dim(dim);
  return expect_finish();
}
