/* meshes.hanging_3d: a 3D mesh with a hanging node is refused, with or
 * without a default boundary tag, naming the vertex and the element face it
 * lies on: one tetrahedron's face (z = 0) is met from above by two
 * tetrahedra split at the midpoint of one of its edges (an edge-hanging
 * node), or by three split at its centroid (a face-hanging node).  The
 * same tetrahedron met by one conforming tetrahedron is accepted. */
#include <stdio.h>
#include <string.h>

#include "core/log.h"
#include "meshes/mesh.h"
#include "meshes/mesh_validate.h"
#include "tests/expect.h"

/* Tetrahedron 0 below z = 0 on the face (0, 1, 2); vertex 3 its apex, 4
 * the apex of those above, 5 the extra vertex (x5, y5, 0) when any. */
static dg_mesh *make(int64_t K, const int64_t (*tets)[4], int nv, double x5, double y5) {
  const double X[6][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0.25, 0.25, -1},
                          {0.25, 0.25, 1}, {x5, y5, 0}};
  dg_mesh *m = NULL;
  MUST(dg_mesh_create(3, nv, K, &m));
  memcpy(m->VX, X, (size_t)nv * 3 * sizeof(double));
  for (int64_t k = 0; k < K; k++)
    for (int v = 0; v < 4; v++)
      m->EToV[k * 4 + v] = tets[k][v];
  return m;
}

/* The mesh validated with default_tag (or NULL): refused as a hanging node
 * at `at`, naming the face of element 0 (the tetrahedron below). */
static void expect_hanging(dg_mesh *m, const char *default_tag, const char *what,
                           const char *at) {
  dg_mesh_validate_options opt = {default_tag, 0};
  dg_error err = dg_mesh_validate(m, &opt, NULL);
  const char *msg = dg_error_message();
  EXPECT(err == DG_ERR_INPUT, "%s: got %d (%s), want DG_ERR_INPUT", what, err, msg);
  EXPECT(strstr(msg, "not conforming") && strstr(msg, "hanging node"), "%s: %s", what, msg);
  EXPECT(strstr(msg, "vertex 5 at ") && strstr(msg, at), "%s: does not name vertex 5 at %s: %s",
         what, at, msg);
  EXPECT(strstr(msg, "of element 0") != NULL, "%s: does not name element 0: %s", what, msg);
  printf("%s: %s\n", what, msg);
  dg_error_clear();
}

int main(void) {
  dg_log_set_level(DG_LOG_QUIET); /* reorientation warnings, default-tag notes */
  const char *tags[2] = {NULL, "wall"};

  /* conforming: the control (the checks below would pass on any refusal) */
  const int64_t one[2][4] = {{0, 1, 2, 3}, {0, 1, 2, 4}};
  dg_mesh *m = make(2, one, 5, 0, 0);
  dg_mesh_validate_options opt = {"wall", 0};
  dg_mesh_validate_report rep;
  EXPECT(dg_mesh_validate(m, &opt, &rep) == DG_OK, "conforming mesh refused: %s",
         dg_error_message());
  EXPECT(rep.ndefault_tagged == 6, "conforming mesh: %lld faces tagged, want 6",
         (long long)rep.ndefault_tagged);
  dg_mesh_destroy(&m);

  for (int t = 0; t < 2; t++) {
    /* edge-hanging: vertex 5 at the midpoint of edge (0, 1) */
    const int64_t edge[3][4] = {{0, 1, 2, 3}, {0, 5, 2, 4}, {5, 1, 2, 4}};
    m = make(3, edge, 6, 0.5, 0);
    expect_hanging(m, tags[t], t ? "edge node, default tag" : "edge node",
                   "(0.5, 0, 0)");
    dg_mesh_destroy(&m);
    /* face-hanging: vertex 5 at the centroid of face (0, 1, 2) */
    const int64_t face[4][4] = {{0, 1, 2, 3}, {0, 1, 5, 4}, {1, 2, 5, 4}, {2, 0, 5, 4}};
    m = make(4, face, 6, 0.25, 0.25);
    expect_hanging(m, tags[t], t ? "face node, default tag" : "face node",
                   "(0.25, 0.25, 0)");
    dg_mesh_destroy(&m);
  }
  return expect_finish();
}
