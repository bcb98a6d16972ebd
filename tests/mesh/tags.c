/* meshes.tags: tags are added and found by name; a duplicate is refused; an
 * unknown or misspelt name is DG_ERR_INPUT naming it, the known tags and the
 * likely intended one. */
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
  EXPECT(dg_mesh_create(4, 3, 1, &m) == DG_ERR_ARG && m == NULL, "dim 4 accepted");
  dg_error_clear();
  return expect_finish();
}
