/* dg.discretization_errors: bad meshes are refused with DG_ERR_INPUT naming
 * what is wrong, and an inverted element is fixed by dg_mesh_orient:
 *  - an inverted element: create fails naming it; after dg_mesh_orient
 *    (count 1) create succeeds and every J > 0;
 *  - a boundary face stripped of its tag (a hole): names the element;
 *  - a periodic side whose partner is moved: names the face;
 *  - three elements on one face (non-conforming); a bad order N. */
#include "tests/mesh/mesh_test.h"

#include "dg/discretization.h"

static int64_t random_element(const dg_mesh *m) {
  return (int64_t)((rng_uniform() + 1.0) * 0.5 * (double)m->K) % m->K;
}

static int names_element(int64_t k) {
  char want[48];
  snprintf(want, sizeof want, "element %" PRId64, k);
  const char *msg = dg_error_message();
  const char *p = strstr(msg, want);
  /* "element 1" must not match "element 12" */
  return p && (p[strlen(want)] < '0' || p[strlen(want)] > '9');
}

static void check_inverted(int dim) {
  mesh_case c = {.dim = dim, .lo = {0, 0, 0}, .hi = {1, 1, 1}, .n = {3, 2, 2}};
  dg_mesh *m = test_make_mesh(&c, 0.0);
  int64_t k = random_element(m), nv = dim + 1;
  int64_t t = m->EToV[k * nv];
  m->EToV[k * nv] = m->EToV[k * nv + 1];
  m->EToV[k * nv + 1] = t;
  /* swapping v0, v1 exchanges the faces {v0,..} and {v1,..}: move tags */
  int tags[4], moved[4];
  for (int f = 0; f < nv; f++)
    tags[f] = m->face_tag[k * nv + f];
  for (int f = 0; f < nv; f++) /* face g of the new order = old face f */
    for (int g = 0; g < nv; g++) {
      int same = 1;
      for (int i = 0; i < dim; i++) {
        int v = test_face_verts[dim][g][i], mapped = v == 0 ? 1 : v == 1 ? 0 : v, in = 0;
        for (int j = 0; j < dim; j++)
          in |= test_face_verts[dim][f][j] == mapped;
        same &= in;
      }
      if (same)
        moved[g] = tags[f];
    }
  for (int f = 0; f < nv; f++)
    m->face_tag[k * nv + f] = moved[f];

  dg_discretization *d = NULL;
  dg_error e = dg_discretization_create(m, 2, DG_DOUBLE, &d);
  EXPECT(e == DG_ERR_INPUT && d == NULL && names_element(k),
         "%dD: inverted element %" PRId64 ": error %d '%s'", dim, k, (int)e, dg_error_message());
  dg_error_clear();
  int64_t flipped = 0;
  MUST(dg_mesh_orient(m, &flipped));
  EXPECT(flipped == 1, "%dD: flipped %" PRId64, dim, flipped);
  MUST(dg_discretization_create(m, 2, DG_DOUBLE, &d));
  for (int64_t i = 0; i < d->K * d->Np; i++)
    EXPECT(d->J[i] > 0, "%dD: J = %g after orienting", dim, d->J[i]);
  EXPECT(fabs(d->volume - 1.0) < 1e-12, "%dD: volume %g", dim, d->volume);
  dg_discretization_destroy(&d);

  /* A hole: untag a random boundary face. */
  int64_t kb = -1;
  int fb = -1;
  while (kb < 0) {
    int64_t kk = random_element(m);
    for (int f = 0; f < nv && kb < 0; f++)
      if (m->face_tag[kk * nv + f] >= 0) {
        kb = kk;
        fb = f;
      }
  }
  m->face_tag[kb * nv + fb] = -1;
  e = dg_discretization_create(m, 2, DG_DOUBLE, &d);
  EXPECT(e == DG_ERR_INPUT && d == NULL && names_element(kb), "%dD: hole: error %d '%s'", dim,
         (int)e, dg_error_message());
  dg_error_clear();
  dg_mesh_destroy(&m);
}

/* Move one vertex on a periodic side (in the plane of the side) so the
 * faces no longer match their partners: DG_ERR_INPUT. */
static void check_periodic_mismatch(int dim) {
  mesh_case c = {.dim = dim, .lo = {0, 0, 0}, .hi = {1, 1, 1}, .n = {2, 2, 2},
                 .periodic = {1, 0, 0}};
  dg_mesh *m = test_make_mesh(&c, 0.0);
  for (int64_t v = 0; v < m->Nv; v++)
    if (m->VX[v * dim] == 1.0 && (dim == 1 || m->VX[v * dim + 1] == 0.5)) {
      if (dim == 1)
        m->VX[v] = 1.1; /* the period no longer matches */
      else
        m->VX[v * dim + 1] += 0.1;
      break;
    }
  dg_discretization *d = NULL;
  dg_error e = dg_discretization_create(m, 2, DG_DOUBLE, &d);
  EXPECT(e == DG_ERR_INPUT && d == NULL && strstr(dg_error_message(), "periodic"),
         "%dD: mismatched periodic sides: error %d '%s'", dim, (int)e, dg_error_message());
  dg_error_clear();
  dg_mesh_destroy(&m);
}

int main(void) {
  rng_seed();
  for (int dim = 1; dim <= 3; dim++) {
    check_inverted(dim);
    check_periodic_mismatch(dim);
  }
  /* Three triangles on one edge: vertices 0 (0,0), 1 (1,0), and apexes. */
  dg_mesh *m = NULL;
  MUST(dg_mesh_create(2, 5, 3, &m));
  const double VX[10] = {0, 0, 1, 0, 0.5, 1, 0.5, -1, 0.5, 2};
  const int64_t EToV[9] = {0, 1, 2, 1, 0, 3, 0, 1, 4};
  memcpy(m->VX, VX, sizeof VX);
  memcpy(m->EToV, EToV, sizeof EToV);
  int tag;
  MUST(dg_mesh_tag_add(m, "wall", &tag));
  for (int i = 0; i < 9; i++)
    m->face_tag[i] = tag;
  dg_discretization *d = NULL;
  dg_error e = dg_discretization_create(m, 1, DG_DOUBLE, &d);
  EXPECT(e == DG_ERR_INPUT && strstr(dg_error_message(), "conforming"),
         "non-conforming: error %d '%s'", (int)e, dg_error_message());
  dg_error_clear();
  e = dg_discretization_create(m, 0, DG_DOUBLE, &d);
  EXPECT(e == DG_ERR_INPUT && d == NULL, "N = 0 accepted: %d", (int)e);
  dg_error_clear();
  dg_mesh_destroy(&m);
  return expect_finish();
}
