/* dg.discretization_face_pairs: periodicity given as explicit face pairs
 * (the form a Gmsh reader will produce) gives the same connectivity and
 * node maps as the same periodicity given by axis: for every dimension and
 * axis, the sides of a non-periodic mesh are untagged and their faces paired
 * here by exact vertex coordinates; EToE, EToF, face_shift, vmapP, mapP must
 * equal those of the mesh built periodic in that axis. */
#include "tests/mesh/mesh_test.h"

#include "dg/discretization.h"

/* Does face f of element k, shifted by s, have the vertices of face g of
 * element l?  (Exact: built-in coordinates are exact on the sides.) */
static int same_face(const dg_mesh *m, int64_t k, int f, int64_t l, int g, const double *s) {
  const int dim = m->dim;
  for (int i = 0; i < dim; i++) {
    const double *p = test_vertex(m, k, test_face_verts[dim][f][i]);
    int found = 0;
    for (int j = 0; j < dim; j++) {
      const double *q = test_vertex(m, l, test_face_verts[dim][g][j]);
      int eq = 1;
      for (int a = 0; a < dim; a++)
        eq &= fabs(p[a] + s[a] - q[a]) < 1e-12;
      found |= eq;
    }
    if (!found)
      return 0;
  }
  return 1;
}

static void check(const mesh_case *c, int N, int axis) {
  if (axis >= c->dim || c->periodic[0] || c->periodic[1] || c->periodic[2])
    return; /* start from each non-periodic case, one axis at a time */
  char name[160];
  test_case_label(c, N, axis == 0 ? "x pairs" : axis == 1 ? "y pairs" : "z pairs", name,
                  sizeof name);
  mesh_case pc = *c;
  pc.periodic[axis] = 1;
  dg_mesh *ref = test_make_mesh(&pc, 0.0), *m = test_make_mesh(c, 0.0);
  const int nf = c->dim + 1;
  int tlo, thi;
  MUST(dg_mesh_tag_find(m, test_sides[2 * axis], &tlo));
  MUST(dg_mesh_tag_find(m, test_sides[2 * axis + 1], &thi));
  double s[3] = {0, 0, 0};
  s[axis] = c->hi[axis] - c->lo[axis];
  int64_t npairs = 0;
  for (int64_t k = 0; k < m->K; k++)
    for (int f = 0; f < nf; f++) {
      if (m->face_tag[k * nf + f] != tlo)
        continue;
      for (int64_t l = 0; l < m->K; l++)
        for (int g = 0; g < nf; g++)
          if (m->face_tag[l * nf + g] == thi && same_face(m, k, f, l, g, s)) {
            MUST(dg_mesh_face_pair_add(m, k, f, l, g, s));
            npairs++;
          }
    }
  for (int64_t i = 0; i < m->K * nf; i++)
    if (m->face_tag[i] == tlo || m->face_tag[i] == thi)
      m->face_tag[i] = -1;
  dg_discretization *dr = NULL, *dp = NULL;
  MUST(dg_discretization_create(ref, N, DG_DOUBLE, &dr));
  MUST(dg_discretization_create(m, N, DG_DOUBLE, &dp));
  EXPECT(npairs > 0, "%s: no pairs", name);
  const int64_t nfaces = m->K * nf, nfn = nfaces * dr->Nfp;
  int64_t diff = 0;
  for (int64_t i = 0; i < nfaces; i++) {
    diff += dr->EToE[i] != dp->EToE[i] || dr->EToF[i] != dp->EToF[i];
    for (int a = 0; a < 3; a++)
      diff += dr->face_shift[i * 3 + a] != dp->face_shift[i * 3 + a];
  }
  for (int64_t i = 0; i < nfn; i++)
    diff += dr->vmapP[i] != dp->vmapP[i] || dr->mapP[i] != dp->mapP[i];
  EXPECT(diff == 0, "%s: %" PRId64 " entries differ", name, diff);
  EXPECT(dp->nmapB == dr->nmapB, "%s: %" PRId64 " boundary nodes, want %" PRId64, name,
         dp->nmapB, dr->nmapB);
  dg_discretization_destroy(&dr);
  dg_discretization_destroy(&dp);
  dg_mesh_destroy(&ref);
  dg_mesh_destroy(&m);
}

int main(void) {
  test_run_cases(check, 4, 3, 3);
  return expect_finish();
}
