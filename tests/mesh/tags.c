/* meshes.tags: tags and element regions are added and found by name; a
 * duplicate is refused; an unknown or misspelt name is DG_ERR_INPUT naming
 * it, the known names and the likely intended one.  A new mesh has no
 * regions (region NULL); the first region puts every element in none; a
 * copy and a renumbering (dg_mesh_permute) carry each element's region. */
#include "tests/mesh/mesh_test.h"

int main(void) {
  dg_mesh *m = NULL;
  MUST(dg_mesh_create(2, 3, 1, &m));
  EXPECT(m->face_tag[0] == -1 && m->face_tag[1] == -1 && m->face_tag[2] == -1,
         "new faces must be untagged");
  int a = -1, b = -1, id = -1;
  MUST(dg_mesh_tag_add(m, "inflow", &a));
  MUST(dg_mesh_tag_add(m, "wall", &b));
  EXPECT(a == 0 && b == 1 && m->ntags == 2, "ids %d %d", a, b);
  MUST(dg_mesh_tag_find(m, "wall", &id));
  EXPECT(id == 1, "find wall = %d", id);
  MUST(dg_mesh_tag_find(m, "inflow", &id));
  EXPECT(id == 0, "find inflow = %d", id);
  EXPECT(dg_mesh_tag_add(m, "wall", NULL) == DG_ERR_INPUT, "duplicate tag accepted");
  EXPECT(strstr(dg_error_message(), "wall") != NULL, "message: %s", dg_error_message());
  EXPECT(dg_mesh_tag_find(m, "wal", &id) == DG_ERR_INPUT, "misspelt tag found");
  EXPECT(strstr(dg_error_message(), "'wal'") && strstr(dg_error_message(), "did you mean 'wall'")
             && strstr(dg_error_message(), "inflow"),
         "message: %s", dg_error_message());
  EXPECT(dg_mesh_tag_find(m, "outflow_far_away", &id) == DG_ERR_INPUT, "unknown tag found");
  EXPECT(strstr(dg_error_message(), "did you mean") == NULL, "message: %s", dg_error_message());
  dg_error_clear();
  dg_mesh_destroy(&m);
  EXPECT(m == NULL, "destroy clears");

  /* Regions, on 3 triangles (vertices need not be valid for names). */
  MUST(dg_mesh_create(2, 5, 3, &m));
  EXPECT(m->region == NULL && m->nregions == 0, "a new mesh has regions");
  EXPECT(dg_mesh_region_find(m, "glass", &id) == DG_ERR_INPUT &&
             strstr(dg_error_message(), "(regions: none)"),
         "message: %s", dg_error_message());
  EXPECT(dg_mesh_region_add(m, "", NULL) == DG_ERR_ARG && m->region == NULL,
         "empty region name accepted");
  dg_error_clear();
  MUST(dg_mesh_region_add(m, "glass", &a));
  EXPECT(a == 0 && m->nregions == 1 && m->region != NULL, "first region: id %d", a);
  for (int k = 0; k < 3; k++)
    EXPECT(m->region[k] == -1, "element %d starts in region %d", k, m->region[k]);
  MUST(dg_mesh_region_add(m, "air", &b));
  EXPECT(b == 1, "second region id %d", b);
  EXPECT(dg_mesh_region_add(m, "air", NULL) == DG_ERR_INPUT &&
             strstr(dg_error_message(), "region 'air' is defined twice"),
         "duplicate region: %s", dg_error_message());
  EXPECT(dg_mesh_region_find(m, "glas", &id) == DG_ERR_INPUT &&
             strstr(dg_error_message(), "no region 'glas' (did you mean 'glass'?)") &&
             strstr(dg_error_message(), "regions: glass, air"),
         "message: %s", dg_error_message());
  dg_error_clear();
  MUST(dg_mesh_region_find(m, "air", &id));
  EXPECT(id == 1, "find air = %d", id);
  m->region[0] = 1;
  m->region[2] = 0;
  for (int k = 0; k < 3; k++)
    m->EToV[k * 3] = k; /* to follow the elements */
  dg_mesh *c = NULL;
  MUST(dg_mesh_copy(m, &c));
  EXPECT(c->nregions == 2 && !strcmp(c->region_names[1], "air") && c->region[0] == 1 &&
             c->region[1] == -1 && c->region[2] == 0,
         "copy lost the regions");
  const int64_t perm[3] = {2, 0, 1}; /* element k becomes perm[k] */
  MUST(dg_mesh_permute(c, perm));
  for (int k = 0; k < 3; k++)
    EXPECT(c->EToV[perm[k] * 3] == k && c->region[perm[k]] == m->region[k],
           "element %d moved without its region", k);
  dg_mesh_destroy(&c);
  dg_mesh_destroy(&m);
  EXPECT(dg_mesh_create(4, 3, 1, &m) == DG_ERR_ARG && m == NULL, "dim 4 accepted");
  dg_error_clear();
  return expect_finish();
}
