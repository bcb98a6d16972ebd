/* Element regions (issue 38): the physical groups of the mesh's dimension
 * read through Gmsh (.geo meshed at start, .msh) become mesh->region, each
 * element's checked against its centroid (x < 0: "left", x > 0: "right");
 * unnamed groups and elements in two groups are errors; copies, the
 * Hilbert order, sub-meshes, partition parts and HDF5 files (whole and per
 * part) keep each element's region; a file written before regions existed
 * (old_regions_square.h5, `dgrun import` of regions_square.geo --parts 2 at
 * commit 383ce39) still reads, without regions.
 * argv[1]: meshes/ directory; argv[2]: this directory. */
#include <string.h>

#include "meshes/gmsh_reader.h"
#include "meshes/mesh_h5.h"
#include "meshes/mesh_order.h"
#include "meshes/mesh_validate.h"
#include "meshes/partition.h"
#include "meshes/submesh.h"
#include "meshtest.h"

static double centroid_x(const dg_mesh *m, int64_t k) {
  double s = 0;
  for (int v = 0; v <= m->dim; v++)
    s += m->VX[m->EToV[k * (m->dim + 1) + v] * m->dim];
  return s / (m->dim + 1);
}

/* Every element is in "left" (centroid x < 0) or "right" (x > 0); a whole
 * mesh has both (a part may hold one side only). */
static void check_side(const dg_mesh *m, const char *label, int whole) {
  CHECK(m->nregions == 2 && m->region != NULL, "%s: %d regions", label, m->nregions);
  int left, right;
  MUST(dg_mesh_region_find(m, "left", &left));
  MUST(dg_mesh_region_find(m, "right", &right));
  int64_t n[2] = {0, 0};
  for (int64_t k = 0; k < m->K; k++) {
    double x = centroid_x(m, k);
    CHECK(m->region[k] == (x < 0 ? left : right), "%s: element %ld at x = %g has region %d",
          label, (long)k, x, m->region[k]);
    n[x > 0]++;
  }
  CHECK(!whole || (n[0] > 0 && n[1] > 0), "%s: %ld left, %ld right", label, (long)n[0],
        (long)n[1]);
  printf("%s: %ld elements, %ld left and %ld right by centroid: ok\n", label, (long)m->K,
         (long)n[0], (long)n[1]);
}

static void check_left_right(const dg_mesh *m, const char *label) { check_side(m, label, 1); }

/* A .geo text in the scratch directory, read back: the error it gives. */
static char *geo(const char *name, const char *physicals) {
  char text[2048];
  snprintf(text, sizeof text,
           "Point(1) = {-1, 0, 0, 0.5}; Point(2) = {0, 0, 0, 0.5}; Point(3) = {1, 0, 0, 0.5};\n"
           "Point(4) = {1, 1, 0, 0.5}; Point(5) = {0, 1, 0, 0.5}; Point(6) = {-1, 1, 0, 0.5};\n"
           "Line(1) = {1, 2}; Line(2) = {2, 3}; Line(3) = {3, 4}; Line(4) = {4, 5};\n"
           "Line(5) = {5, 6}; Line(6) = {6, 1}; Line(7) = {2, 5};\n"
           "Curve Loop(1) = {1, 7, 5, 6}; Plane Surface(1) = {1};\n"
           "Curve Loop(2) = {2, 3, 4, -7}; Plane Surface(2) = {2};\n"
           "Physical Curve(\"wall\") = {1, 2, 3, 4, 5, 6};\n%s\n",
           physicals);
  char *path = strdup(mt_path(name));
  mt_write(path, text);
  return path;
}

static void gmsh_cases(const char *dir) {
  dg_mesh *m = mt_load(dir, "regions_square.geo", 0);
  check_left_right(m, "regions_square.geo");
  int id = -1;
  EXPECT_ERROR(dg_mesh_region_find(m, "lft", &id), DG_ERR_INPUT, "no region 'lft'",
               "did you mean 'left'", "regions: left, right");
  dg_mesh_destroy(&m);
  m = mt_load(dir, "regions_box.geo", 0);
  check_left_right(m, "regions_box.geo");
  dg_mesh_destroy(&m);
  /* .msh files: every element in their one top-dimensional group. */
  const char *msh[2] = {"box.msh", "square_hole.msh"}, *name[2] = {"solid", "fluid"};
  for (int f = 0; f < 2; f++) {
    m = mt_load(dir, msh[f], 0);
    CHECK(m->nregions == 1 && !strcmp(m->region_names[0], name[f]), "%s: regions", msh[f]);
    for (int64_t k = 0; k < m->K; k++)
      CHECK(m->region[k] == 0, "%s: element %ld in region %d", msh[f], (long)k, m->region[k]);
    printf("%s: every element in region '%s': ok\n", msh[f], name[f]);
    dg_mesh_destroy(&m);
  }
  /* Elements in no group: -1 (and still read). */
  char *half = geo("half.geo", "Physical Surface(\"left\") = {1};");
  MUST(dg_mesh_read_gmsh(half, 0, &m));
  CHECK(m->nregions == 1, "half.geo: %d regions", m->nregions);
  for (int64_t k = 0; k < m->K; k++)
    CHECK(m->region[k] == (centroid_x(m, k) < 0 ? 0 : -1), "half.geo: element %ld", (long)k);
  printf("half.geo: elements outside every group have region -1: ok\n");
  dg_mesh_destroy(&m);
  free(half);
  char *twice = geo("twice.geo", "Physical Surface(\"left\") = {1, 2};\n"
                                 "Physical Surface(\"right\") = {2};");
  EXPECT_ERROR(dg_mesh_read_gmsh(twice, 0, &m), DG_ERR_INPUT, twice,
               "in both physical groups 'left' and 'right'", "one region");
  CHECK(m == NULL, "no mesh on error");
  free(twice);
  char *unnamed = geo("unnamed.geo", "Physical Surface(\"left\") = {1};\n"
                                     "Physical Surface(7) = {2};");
  EXPECT_ERROR(dg_mesh_read_gmsh(unnamed, 0, &m), DG_ERR_INPUT, unnamed,
               "physical group 7 (dimension 2) has no name", "Physical Surface(\"glass\")");
  free(unnamed);
  printf("two groups, unnamed group: errors: ok\n");
}

/* Copy, Hilbert order, sub-mesh and partition parts keep the regions. */
static void derived(const dg_mesh *m, const char *label) {
  char what[128];
  dg_mesh *c;
  MUST(dg_mesh_copy(m, &c));
  char why[256];
  CHECK(mt_mesh_equal(m, c, why, sizeof why), "%s: copy: %s", label, why);
  int64_t *perm = malloc((size_t)m->K * sizeof *perm), moved = 0;
  MUST(dg_mesh_order_hilbert(c, perm));
  for (int64_t k = 0; k < m->K; k++)
    moved += perm[k] != k;
  CHECK(moved > 0, "%s: the Hilbert order moved nothing (test without force)", label);
  snprintf(what, sizeof what, "%s, Hilbert order (%ld moved)", label, (long)moved);
  check_left_right(c, what);
  free(perm);
  /* Every third element, with the connectivity dg/connectivity gives
   * (a boundary face is its own neighbour). */
  const int nf = m->dim + 1;
  int64_t *EToE = malloc((size_t)(c->K * nf) * sizeof *EToE), n = 0;
  int *EToF = malloc((size_t)(c->K * nf) * sizeof *EToF);
  double *shift = calloc((size_t)(c->K * nf * 3), sizeof *shift);
  int64_t *sel = malloc((size_t)c->K * sizeof *sel);
  MUST(dg_mesh_validate_neighbors(c, 1, EToE, EToF));
  for (int64_t i = 0; i < c->K * nf; i++)
    if (EToE[i] < 0)
      EToE[i] = i / nf, EToF[i] = (int)(i % nf);
  for (int64_t k = 0; k < c->K; k += 3)
    sel[n++] = k;
  dg_mesh *s;
  MUST(dg_mesh_submesh(c, EToE, EToF, shift, n, sel, "(cut)", &s));
  snprintf(what, sizeof what, "%s, sub-mesh of every third element", label);
  check_left_right(s, what);
  dg_mesh_destroy(&s);
  dg_partition *p;
  MUST(dg_partition_create(c, NULL, NULL, 3, NULL, &p));
  for (int r = 0; r < 3; r++) {
    dg_partition_local *L;
    MUST(dg_partition_extract(c, NULL, NULL, p, r, &L));
    snprintf(what, sizeof what, "%s, part %d of 3", label, r);
    check_side(L->mesh, what, 0);
    dg_partition_local_destroy(&L);
  }
  dg_partition_destroy(&p);
  free(EToE);
  free(EToF);
  free(shift);
  free(sel);
  dg_mesh_destroy(&c);
}

static void h5_cases(const char *dir, const char *here, const dg_mesh *m) {
  char *path = strdup(mt_path("regions.h5"));
  dg_partition *p, *q;
  MUST(dg_partition_create(m, NULL, NULL, 3, NULL, &p));
  MUST(dg_mesh_h5_write(path, m, p, NULL, NULL));
  dg_mesh *back;
  MUST(dg_mesh_h5_read(path, &back, &q));
  char why[256];
  CHECK(mt_mesh_equal(m, back, why, sizeof why), "h5 whole read: %s", why);
  check_left_right(back, "h5 whole read");
  for (int r = 0; r < 3; r++) {
    dg_partition_local *a, *b;
    MUST(dg_partition_extract(m, NULL, NULL, p, r, &a));
    MUST(dg_mesh_h5_read_part(path, r, &b));
    CHECK(mt_mesh_equal(a->mesh, b->mesh, why, sizeof why), "h5 part %d: %s", r, why);
    char what[64];
    snprintf(what, sizeof what, "h5 part %d of 3", r);
    check_side(b->mesh, what, 0);
    dg_partition_local_destroy(&a);
    dg_partition_local_destroy(&b);
  }
  dg_mesh_destroy(&back);
  dg_partition_destroy(&q);
  /* An id past the names (sealed and hashed as written): refused. */
  dg_mesh *bad;
  MUST(dg_mesh_copy(m, &bad));
  bad->region[1] = 2;
  MUST(dg_mesh_h5_write(path, bad, p, NULL, NULL));
  EXPECT_ERROR(dg_mesh_h5_read(path, &back, &q), DG_ERR_INPUT, path, "element 1 has region 2",
               "names 2 regions");
  int owner = p->part[1];
  dg_partition_local *L = NULL;
  EXPECT_ERROR(dg_mesh_h5_read_part(path, owner, &L), DG_ERR_INPUT, path,
               "element 1 has region 2");
  bad->region[1] = 0;
  free(bad->region_names[1]);
  bad->region_names[1] = strdup("left");
  MUST(dg_mesh_h5_write(path, bad, p, NULL, NULL));
  EXPECT_ERROR(dg_mesh_h5_read(path, &back, &q), DG_ERR_INPUT, path,
               "regions 0 and 1 are both named 'left'");
  EXPECT_ERROR(dg_mesh_h5_read_part(path, owner, &L), DG_ERR_INPUT, path, "both named 'left'");
  printf("h5: region id out of range, region names twice: refused (whole and per part): ok\n");
  dg_mesh_destroy(&bad);
  dg_partition_destroy(&p);
  /* `dgrun import` carries them. */
  char in[4096];
  snprintf(in, sizeof in, "%s/regions_box.geo", dir);
  MUST(dg_mesh_import(in, path, 2));
  MUST(dg_mesh_h5_read(path, &back, NULL));
  check_left_right(back, "import regions_box.geo --parts 2");
  dg_mesh_destroy(&back);
  /* Written before regions existed: no regions, whole and per part. */
  char old[4096];
  snprintf(old, sizeof old, "%s/old_regions_square.h5", here);
  MUST(dg_mesh_h5_read(old, &back, NULL));
  CHECK(back->K == 28 && back->nregions == 0 && back->region == NULL,
        "old file: %ld elements, %d regions", (long)back->K, back->nregions);
  dg_mesh_destroy(&back);
  for (int r = 0; r < 2; r++) {
    MUST(dg_mesh_h5_read_part(old, r, &L));
    CHECK(L->mesh->nregions == 0 && L->mesh->region == NULL, "old file part %d: regions", r);
    dg_partition_local_destroy(&L);
  }
  printf("old file without regions: reads as before: ok\n");
  free(path);
}

int main(int argc, char **argv) {
  if (!dg_gmsh_reader_available()) {
    printf("skipped: built without Gmsh\n");
    return 77;
  }
  CHECK(argc == 3, "usage: %s MESHES_DIR TEST_DIR", argv[0]);
  gmsh_cases(argv[1]);
  dg_mesh *m = mt_load(argv[1], "regions_square.geo", 0);
  derived(m, "regions_square.geo");
  dg_mesh_destroy(&m);
  m = mt_load(argv[1], "regions_box.geo", 0);
  derived(m, "regions_box.geo");
  if (dg_mesh_h5_available())
    h5_cases(argv[1], argv[2], m);
  else
    printf("HDF5 part skipped: built without HDF5\n");
  dg_mesh_destroy(&m);
  mt_cleanup();
  return expect_finish();
}
