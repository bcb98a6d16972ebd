/* meshes.builtin: the built-in interval/rectangle/box meshes are what they
 * claim: right counts, every element positively oriented, volumes summing to
 * the box, conforming (each face shared by at most two elements, boundary
 * face count as counted by hand), tags exactly on their sides, periodic axes
 * untagged and recorded. */
#include "tests/mesh/mesh_test.h"


typedef struct {
  int64_t v[3];
  int64_t k;
  int f;
} face_rec;

static int cmp_face(const void *pa, const void *pb) {
  const face_rec *a = pa, *b = pb;
  for (int i = 0; i < 3; i++)
    if (a->v[i] != b->v[i])
      return a->v[i] < b->v[i] ? -1 : 1;
  return 0;
}

static void check_case(const mesh_case *c) {
  char name[128];
  test_case_name(c, name, sizeof name);
  dg_mesh *m = test_make_mesh(c, 0.0);
  const int dim = c->dim, nv = dim + 1;
  int64_t cells = 1, verts = 1;
  for (int a = 0; a < dim; a++) {
    cells *= c->n[a];
    verts *= c->n[a] + 1;
  }
  const int64_t per_cell = dim == 1 ? 1 : dim == 2 ? 2 : 6;
  EXPECT(m->dim == dim && m->K == cells * per_cell && m->Nv == verts,
         "%s: K = %" PRId64 ", Nv = %" PRId64, name, m->K, m->Nv);

  /* Orientation and volume: every simplex has volume cell/dim! > 0. */
  double total = 0, cell_vol = test_box_volume(c) / (double)cells;
  for (int64_t k = 0; k < m->K; k++) {
    double v = test_element_volume(m, k);
    EXPECT(fabs(v - cell_vol / (double)per_cell) < 1e-12 * cell_vol,
           "%s: element %" PRId64 " volume %g, want %g", name, k, v, cell_vol / per_cell);
    total += v;
  }
  EXPECT(fabs(total - test_box_volume(c)) < 1e-12 * test_box_volume(c), "%s: volume %g", name,
         total);

  /* Conformity: sort faces by vertex set; no set more than twice; a face
   * seen once lies on the box boundary (all its vertices on one side). */
  int64_t nf = m->K * nv, once = 0;
  face_rec *fr = malloc((size_t)nf * sizeof *fr);
  for (int64_t k = 0; k < m->K; k++)
    for (int f = 0; f < nv; f++) {
      face_rec *r = &fr[k * nv + f];
      r->v[0] = r->v[1] = r->v[2] = -1;
      for (int i = 0; i < dim; i++)
        r->v[i] = m->EToV[k * nv + test_face_verts[dim][f][i]];
      for (int i = 0; i < dim; i++) /* bubble sort of 3 */
        for (int j = 0; j + 1 < dim; j++)
          if (r->v[j] > r->v[j + 1]) {
            int64_t t = r->v[j];
            r->v[j] = r->v[j + 1];
            r->v[j + 1] = t;
          }
      r->k = k;
      r->f = f;
    }
  qsort(fr, (size_t)nf, sizeof *fr, cmp_face);
  int64_t side_count[6] = {0};
  for (int64_t i = 0; i < nf;) {
    int64_t j = i + 1;
    while (j < nf && cmp_face(&fr[i], &fr[j]) == 0)
      j++;
    EXPECT(j - i <= 2, "%s: a face is shared by %" PRId64 " elements", name, j - i);
    int tag = m->face_tag[fr[i].k * nv + fr[i].f];
    if (j - i == 2) {
      EXPECT(tag < 0 && m->face_tag[fr[i + 1].k * nv + fr[i + 1].f] < 0,
             "%s: interior face tagged %d", name, tag);
    } else {
      once++;
      /* Which side is it on?  By coordinates, exactly. */
      int side = -1;
      for (int a = 0; a < dim; a++)
        for (int s = 0; s < 2; s++) {
          int on = 1;
          for (int q = 0; q < dim; q++)
            on &= m->VX[fr[i].v[q] * dim + a] == (s ? c->hi[a] : c->lo[a]);
          if (on)
            side = 2 * a + s;
        }
      EXPECT(side >= 0, "%s: unshared face of element %" PRId64 " not on the boundary", name,
             fr[i].k);
      if (side >= 0) {
        side_count[side]++;
        if (c->periodic[side / 2])
          EXPECT(tag == -1, "%s: periodic side face tagged %d", name, tag);
        else
          EXPECT(tag >= 0 && tag < m->ntags && strcmp(m->tag_names[tag], test_sides[side]) == 0,
                 "%s: face on side %s has tag %d (%s)", name, test_sides[side], tag,
                 tag >= 0 && tag < m->ntags ? m->tag_names[tag] : "-");
      }
    }
    i = j;
  }
  free(fr);

  /* Boundary faces counted by hand: a side normal to axis a is a grid of
   * prod_{b != a} n_b cells, each cut into (dim-1)! faces. */
  int64_t want_total = 0;
  for (int a = 0; a < dim; a++) {
    int64_t w = 1;
    for (int b = 0; b < dim; b++)
      if (b != a)
        w *= c->n[b];
    w *= dim == 3 ? 2 : 1;
    want_total += 2 * w;
    EXPECT(side_count[2 * a] == w && side_count[2 * a + 1] == w,
           "%s: axis %d sides have %" PRId64 " and %" PRId64 " faces, want %" PRId64, name, a,
           side_count[2 * a], side_count[2 * a + 1], w);
  }
  if (dim == 3) /* the brief's formula 2*2*(nx ny + ny nz + nx nz) */
    EXPECT(want_total == 4 * (c->n[0] * c->n[1] + c->n[1] * c->n[2] + c->n[0] * c->n[2]),
           "%s: hand count", name);
  EXPECT(once == want_total, "%s: %" PRId64 " unshared faces, want %" PRId64, name, once,
         want_total);
  /* Interior faces: (nv * K - boundary) / 2 shared pairs. */
  EXPECT((nf - once) % 2 == 0, "%s: odd interior face count", name);

  /* Tags: exactly the non-periodic sides, findable by name; periodicity and
   * extents recorded. */
  int want_tags = 0;
  for (int a = 0; a < dim; a++) {
    EXPECT(m->periodic[a] == c->periodic[a] && m->lo[a] == c->lo[a] && m->hi[a] == c->hi[a],
           "%s: axis %d periodicity/extent not recorded", name, a);
    for (int s = 0; s < 2; s++) {
      int id = -7;
      dg_error e = dg_mesh_tag_find(m, test_sides[2 * a + s], &id);
      if (c->periodic[a]) {
        EXPECT(e == DG_ERR_INPUT, "%s: periodic side %s has a tag", name, test_sides[2 * a + s]);
        dg_error_clear();
      } else {
        EXPECT(e == DG_OK && strcmp(m->tag_names[id], test_sides[2 * a + s]) == 0,
               "%s: tag %s not found", name, test_sides[2 * a + s]);
        want_tags++;
      }
    }
  }
  EXPECT(m->ntags == want_tags, "%s: %d tags, want %d", name, m->ntags, want_tags);
  dg_mesh_destroy(&m);
  EXPECT(m == NULL, "destroy must clear the pointer");
}

int main(void) {
  mesh_case cases[64];
  int n = test_mesh_cases(cases, 3);
  for (int i = 0; i < n; i++)
    check_case(&cases[i]);

  /* A larger box, not periodic: the brief's boundary count. */
  mesh_case big = {.dim = 3, .lo = {0, 0, 0}, .hi = {1, 2, 3}, .n = {4, 3, 5}};
  check_case(&big);

  /* Wrappers agree with the general form. */
  dg_mesh *m = NULL;
  MUST(dg_builtin_interval(0.0, 1.0, 4, 0, &m));
  EXPECT(m->dim == 1 && m->K == 4 && m->VX[4] == 1.0, "interval wrapper");
  dg_mesh_destroy(&m);
  const int per2[2] = {1, 0};
  MUST(dg_builtin_rectangle(0, 2, 0, 1, 3, 2, per2, &m));
  EXPECT(m->dim == 2 && m->K == 12 && m->periodic[0] && !m->periodic[1], "rectangle wrapper");
  dg_mesh_destroy(&m);
  const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
  const int64_t n3[3] = {2, 2, 2};
  MUST(dg_builtin_box(lo, hi, n3, NULL, &m));
  EXPECT(m->dim == 3 && m->K == 48 && m->ntags == 6, "box wrapper");
  dg_mesh_destroy(&m);

  /* Bad input is refused with DG_ERR_INPUT. */
  EXPECT(dg_builtin_interval(1.0, 1.0, 4, 0, &m) == DG_ERR_INPUT && m == NULL, "empty extent");
  EXPECT(dg_builtin_interval(0.0, 1.0, 0, 0, &m) == DG_ERR_INPUT && m == NULL, "zero cells");
  const int64_t bad[3] = {2, -1, 2};
  EXPECT(dg_builtin_box(lo, hi, bad, NULL, &m) == DG_ERR_INPUT && m == NULL, "negative cells");
  dg_error_clear();
  return expect_finish();
}
