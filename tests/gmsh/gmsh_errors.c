/* Malformed Gmsh input fails cleanly, with DG_ERR_INPUT (or DG_ERR_IO) and a
 * message naming the file and what is wrong: truncated files, element types
 * other than linear simplices (quads, second order, mixed), unnamed physical
 * groups, non-planar 2D meshes, garbage, missing files.  Without Gmsh the
 * reader says so and points to `dgrun import`. */
#include <string.h>

#include "core/fsutil.h"
#include "meshes/gmsh_reader.h"
#include "meshes/mesh_validate.h"
#include "meshtest.h"

static const char *HEAD = "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n";

/* Two unit squares side by side: 6 nodes. */
static const char *NODES6 = "$Nodes\n6\n1 0 0 0\n2 1 0 0\n3 2 0 0\n4 0 1 0\n5 1 1 0\n6 2 1 0\n"
                            "$EndNodes\n";

static char *msh(const char *name, const char *body1, const char *body2, const char *body3) {
  char text[4096];
  snprintf(text, sizeof text, "%s%s%s%s", HEAD, body1, body2, body3 ? body3 : "");
  char *path = strdup(mt_path(name));
  mt_write(path, text);
  return path;
}

int main(int argc, char **argv) {
  dg_mesh *m = NULL;
  if (!dg_gmsh_reader_available()) {
    EXPECT_ERROR(dg_mesh_read_gmsh("some.msh", 0, &m), DG_ERR_UNSUPPORTED, "some.msh",
                 "without the Gmsh SDK", "dgrun import");
    CHECK(m == NULL, "no mesh");
    printf("built without Gmsh: the reader says so\n");
    return 0;
  }
  CHECK(argc == 2, "usage: %s MESHES_DIR", argv[0]);

  /* Truncated: the first half of a shipped file. */
  char src[4096];
  snprintf(src, sizeof src, "%s/square_hole.msh", argv[1]);
  void *data;
  size_t n;
  MUST(dg_fsutil_read_file(src, &data, &n));
  char *trunc = strdup(mt_path("truncated.msh"));
  MUST(dg_fsutil_write_file(trunc, data, n / 2, 0600));
  free(data);
  EXPECT_ERROR(dg_mesh_read_gmsh(trunc, 0, &m), DG_ERR_INPUT, trunc, "Gmsh failed to read");
  CHECK(m == NULL, "no mesh on error");

  /* Quadrangles (Gmsh type 3). */
  char *quads = msh("quads.msh", NODES6,
                    "$Elements\n2\n1 3 2 0 1 1 2 5 4\n2 3 2 0 1 2 3 6 5\n$EndElements\n", NULL);
  EXPECT_ERROR(dg_mesh_read_gmsh(quads, 0, &m), DG_ERR_INPUT, quads,
               "2 elements of type 'Quadrilateral 4'", "Triangle 3");

  /* Mixed: two triangles and one quadrangle. */
  char *mixed = msh("mixed.msh", NODES6,
                    "$Elements\n3\n1 2 2 0 1 1 2 5\n2 2 2 0 1 1 5 4\n3 3 2 0 1 2 3 6 5\n"
                    "$EndElements\n",
                    NULL);
  EXPECT_ERROR(dg_mesh_read_gmsh(mixed, 0, &m), DG_ERR_INPUT, mixed,
               "1 elements of type 'Quadrilateral 4'");

  /* Second order: one 6-node triangle (Gmsh type 9) is read, its nodes in
   * dgrun's lattice order (v0, edge v0-v1, v1, edge v0-v2, edge v1-v2, v2). */
  char *second = msh("second.msh",
                     "$Nodes\n6\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0.5 0 0\n5 0.5 0.5 0\n6 0 0.5 0\n"
                     "$EndNodes\n",
                     "$Elements\n1\n1 9 2 0 1 1 2 3 4 5 6\n$EndElements\n", NULL);
  MUST(dg_mesh_read_gmsh(second, 0, &m));
  static const double lattice[12] = {0, 0, 0.5, 0, 1, 0, 0, 0.5, 0.5, 0.5, 0, 1};
  EXPECT(m->geom_order == 2 && m->Nv == 3 && memcmp(m->XH, lattice, sizeof lattice) == 0,
         "6-node triangle: order %d, %lld vertices", m->geom_order, (long long)m->Nv);
  dg_mesh_destroy(&m);
  /* Tangled: the same triangle with its v0-v1 edge node pulled to
   * x = 0.9, so that dx/dr changes sign along the edge (x'(1) = 3 - 4 a). */
  char *tangled = msh("tangled.msh",
                      "$Nodes\n6\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0.9 0 0\n5 0.5 0.5 0\n6 0 0.5 0\n"
                      "$EndNodes\n",
                      "$Elements\n1\n1 9 2 0 1 1 2 3 4 5 6\n$EndElements\n", NULL);
  MUST(dg_mesh_read_gmsh(tangled, 0, &m));
  EXPECT_ERROR(dg_mesh_validate(m, &(dg_mesh_validate_options){.default_tag = "wall"}, NULL),
               DG_ERR_INPUT, "curved element 0 is tangled", "<= 0 at reference point");
  dg_mesh_destroy(&m);
  /* Serendipity: a 9-node (incomplete cubic) triangle, Gmsh type 20. */
  char *incomplete = msh("incomplete.msh",
                         "$Nodes\n9\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0.33 0 0\n5 0.67 0 0\n"
                         "6 0.67 0.33 0\n7 0.33 0.67 0\n8 0 0.67 0\n9 0 0.33 0\n$EndNodes\n",
                         "$Elements\n1\n1 20 2 0 1 1 2 3 4 5 6 7 8 9\n$EndElements\n", NULL);
  EXPECT_ERROR(dg_mesh_read_gmsh(incomplete, 0, &m), DG_ERR_INPUT, incomplete,
               "1 elements of type 'Triangle 9'");

  /* A boundary physical group (number 7) without a name. */
  const char *two_tris = "$Elements\n4\n1 2 2 0 1 1 2 5\n2 2 2 0 1 1 5 4\n"
                         "3 1 2 7 2 1 2\n4 1 2 7 2 1 5\n$EndElements\n";
  char *noname = msh("noname.msh", NODES6, two_tris, NULL);
  EXPECT_ERROR(dg_mesh_read_gmsh(noname, 0, &m), DG_ERR_INPUT, noname, "physical group 7",
               "has no name");
  /* ... and with its name, it reads, with two tagged faces. */
  char *named = msh("named.msh", "$PhysicalNames\n1\n1 7 \"bottom\"\n$EndPhysicalNames\n",
                    NODES6, two_tris);
  MUST(dg_mesh_read_gmsh(named, 0, &m));
  int64_t nb;
  CHECK(m->K == 2 && m->Nv == 4 && m->ntags == 1 && !strcmp(m->tag_names[0], "bottom"),
        "named mesh: K %ld Nv %ld tags %d", (long)m->K, (long)m->Nv, m->ntags);
  CHECK(mt_tag_measure(m, "bottom", &nb) == 1 && nb == 1,
        "one face of length 1 tagged (the diagonal 1-5 is interior: no tag)");
  dg_mesh_destroy(&m);

  /* A 2D mesh off the plane z = 0. */
  char *tilted = msh("tilted.msh", "$Nodes\n3\n1 0 0 0\n2 1 0 0\n3 0 1 0.5\n$EndNodes\n",
                     "$Elements\n1\n1 2 2 0 1 1 2 3\n$EndElements\n", NULL);
  EXPECT_ERROR(dg_mesh_read_gmsh(tilted, 0, &m), DG_ERR_INPUT, tilted, "plane z = 0");

  /* (An element referring to an undefined node is not tested: Gmsh 4.8
   * itself crashes on that in a version 2.2 file, inside gmshOpen.) */

  /* Garbage and a missing file. */
  char *garbage = strdup(mt_path("garbage.msh"));
  mt_write(garbage, "hello, I am not a mesh\n");
  dg_error e = dg_mesh_read_gmsh(garbage, 0, &m);
  CHECK(e == DG_ERR_INPUT && m == NULL && strstr(dg_error_message(), garbage), "garbage: %s",
        dg_error_message());
  printf("ok (expected error): %s\n", dg_error_message());
  dg_error_clear();
  EXPECT_ERROR(dg_mesh_read_gmsh("/nonexistent/dir/mesh.msh", 0, &m), DG_ERR_IO,
               "/nonexistent/dir/mesh.msh");

  free(trunc);
  free(quads);
  free(mixed);
  free(second);
  free(tangled);
  free(incomplete);
  free(noname);
  free(named);
  free(tilted);
  free(garbage);
  mt_cleanup();
  return 0;
}
