/* meshes.gmsh_curved: Gmsh's high-order simplices read into dgrun's node
 * lattice (meshes/mesh_curved.h).
 *  - Straight geometries meshed at orders 2..4 (2D) and 2, 3 (3D), from the
 *    .geo and from a .msh Gmsh wrote of it: every element is affine and its
 *    nodes are the affine lattice points of its vertices (a wrong Gmsh ->
 *    dgrun node order would break this), and .geo and .msh read the same.
 *  - The annulus (meshes/annulus.geo) at order 2 and 3: the high-order
 *    nodes of the faces tagged "inner" / "outer" lie on the circles to 1e-12,
 *    where the straight-sided mesh's face midpoints miss them by the chord
 *    error; sum J w approaches the area 3 pi at the geometry's order (far
 *    better than straight); the normals at the outer face nodes are radial.
 *  - The cylinder (meshes/cylinder.geo) at order 2: wall nodes on r = 0.5.
 *  - A 1D 3-node line mesh.
 *  - HDF5: a curved mesh written and read back whole and per part (against
 *    dg_partition_extract) keeps its order and nodes bitwise; `dgrun import`
 *    of an order-2 .msh keeps the nodes on the circles; a straight-sided
 *    file and an old file (written before high-order nodes) read as order 1. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dg/discretization.h"
#include "meshes/gmsh_reader.h"
#include "meshes/mesh_curved.h"
#include "meshes/mesh_h5.h"
#include "meshes/mesh_validate.h"
#include "meshes/partition.h"
#include "meshtest.h"
#include "tests/expect.h"

#ifdef DGRUN_HAVE_GMSH
#include <gmshc.h>

static const double PI = 3.14159265358979323846;

static dg_mesh *load(const char *path, double size, int order) {
  dg_mesh *m = NULL;
  MUST(dg_mesh_read_gmsh_order(path, size, order, &m));
  MUST(dg_mesh_validate(m, NULL, NULL));
  return m;
}

/* Mesh a .geo at order k with Gmsh itself and write it as a .msh. */
static void gmsh_write(const char *geo, double size, int k, const char *msh) {
  int ierr = 0;
  gmshInitialize(0, NULL, 0, &ierr);
  gmshOptionSetNumber("General.Terminal", 0, &ierr);
  gmshOptionSetNumber("General.NumThreads", 1, &ierr);
  gmshOpen(geo, &ierr);
  gmshOptionSetNumber("Mesh.MeshSizeMax", size, &ierr);
  gmshOptionSetNumber("Mesh.ElementOrder", k, &ierr);
  gmshOptionSetNumber("Mesh.HighOrderOptimize", 2, &ierr);
  gmshModelMeshGenerate(gmshModelGetDimension(&ierr), &ierr);
  gmshWrite(msh, &ierr);
  CHECK(ierr == 0, "gmsh could not write %s", msh);
  gmshFinalize(&ierr);
}

/* Max distance of the nodes from the affine lattice points. */
static double affine_error(const dg_mesh *m) {
  const int dim = m->dim, k = m->geom_order, n = dg_mesh_ho_count(dim, k);
  double err = 0;
  for (int64_t e = 0; e < m->K; e++)
    for (int j = 0; j < n; j++) {
      int b[4];
      dg_mesh_ho_bary(dim, k, j, b);
      for (int c = 0; c < dim; c++) {
        double x = 0;
        for (int v = 0; v <= dim; v++)
          x += (double)b[v] / k * m->VX[m->EToV[e * (dim + 1) + v] * dim + c];
        err = fmax(err, fabs(x - m->XH[(e * n + j) * dim + c]));
      }
    }
  return err;
}

static void check_straight(const char *dir, const char *name, double size, int k) {
  char geo[4096];
  snprintf(geo, sizeof geo, "%s/%s", dir, name);
  dg_mesh *a = load(geo, size, k), *b = NULL;
  char *msh = mt_path("straight.msh");
  gmsh_write(geo, size, k, msh);
  b = load(msh, 0, 1);
  EXPECT(a->geom_order == k && b->geom_order == k, "%s k %d: orders %d %d", name, k,
         a->geom_order, b->geom_order);
  double ea = affine_error(a), eb = affine_error(b);
  printf("%s order %d: %lld elements, affine node error %.2e (.geo) %.2e (.msh)\n", name, k,
         (long long)a->K, ea, eb);
  EXPECT(dg_mesh_curved_count(a) == 0 && dg_mesh_curved_count(b) == 0 && ea < 1e-11 &&
             eb < 1e-11,
         "%s k %d: straight mesh has curved elements", name, k);
  EXPECT(a->K == b->K && memcmp(a->EToV, b->EToV, sizeof(int64_t) * (size_t)(a->K * (a->dim + 1))) == 0,
         "%s k %d: .geo and .msh differ", name, k);
  dg_mesh_destroy(&a);
  dg_mesh_destroy(&b);
}

/* Max | |x| - R | over the lattice nodes of faces tagged `tag`, and over
 * their straight-sided (affine) positions. */
static void circle_errors(const dg_mesh *m, const char *tag, double R, double *ho,
                          double *straight) {
  const int dim = m->dim, k = m->geom_order, n = dg_mesh_ho_count(dim, k), nf = dim + 1;
  int t;
  MUST(dg_mesh_tag_find(m, tag, &t));
  *ho = *straight = 0;
  for (int64_t e = 0; e < m->K; e++)
    for (int f = 0; f < nf; f++) {
      if (m->face_tag[e * nf + f] != t)
        continue;
      int fv[4], on[4] = {0, 0, 0, 0}, opp = 0;
      dg_mesh_face_vertices(dim, f, fv);
      for (int i = 0; i < dim; i++)
        on[fv[i]] = 1;
      while (on[opp])
        opp++;
      for (int j = 0; j < n; j++) {
        int b[4];
        dg_mesh_ho_bary(dim, k, j, b);
        if (b[opp] != 0)
          continue;
        double r2 = 0, s2 = 0;
        for (int c = 0; c < dim; c++) {
          double x = m->XH[(e * n + j) * dim + c], y = 0;
          for (int v = 0; v <= dim; v++)
            y += (double)b[v] / k * m->VX[m->EToV[e * nf + v] * dim + c];
          if (c < 2) { /* the distance from the z axis in 3D */
            r2 += x * x;
            s2 += y * y;
          }
        }
        *ho = fmax(*ho, fabs(sqrt(r2) - R));
        *straight = fmax(*straight, fabs(sqrt(s2) - R));
      }
    }
}

static void check_annulus(const char *dir) {
  char geo[4096];
  snprintf(geo, sizeof geo, "%s/annulus.geo", dir);
  double area_err[2][3];
  for (int level = 0; level < 2; level++)
    for (int k = 1; k <= 3; k++) {
      dg_mesh *m = load(geo, level ? 0.25 : 0.5, k);
      if (k > 1) {
        double hi, si, ho, so;
        circle_errors(m, "inner", 1, &hi, &si);
        circle_errors(m, "outer", 2, &ho, &so);
        printf("annulus size %.2f order %d: %lld elements (%lld curved), circle error %.1e "
               "%.1e (straight chords %.1e %.1e)\n",
               level ? 0.25 : 0.5, k, (long long)m->K, (long long)dg_mesh_curved_count(m), hi,
               ho, si, so);
        EXPECT(hi < 1e-12 && ho < 1e-12 && si > 1e-3 && so > 1e-3,
               "order %d: boundary nodes off the circles", k);
      }
      dg_discretization *d = NULL;
      MUST(dg_discretization_create(m, 3, DG_DOUBLE, &d));
      area_err[level][k - 1] = fabs(d->volume - 3 * PI);
      if (k > 1) { /* outer normals radial to the geometry's accuracy */
        const int64_t *map;
        int64_t count;
        double nerr = 0;
        MUST(dg_discretization_boundary_nodes(d, "outer", &map, &count));
        for (int64_t i = 0; i < count; i++) {
          int64_t fn = map[i], vn = d->vmapM[fn];
          double r = hypot(d->x[vn], d->y[vn]);
          nerr = fmax(nerr, hypot(d->nx[fn] - d->x[vn] / r, d->ny[fn] - d->y[vn] / r));
        }
        printf("  N = 3: area error %.2e, outer normal error %.2e\n", area_err[level][k - 1],
               nerr);
        EXPECT(nerr < (k == 2 ? 1e-3 : 3e-4), "order %d: normal error %.2e", k, nerr);
      }
      dg_discretization_destroy(&d);
      dg_mesh_destroy(&m);
    }
  for (int k = 1; k <= 3; k++)
    printf("annulus area error order %d: %.2e -> %.2e (rate %.2f in h)\n", k, area_err[0][k - 1],
           area_err[1][k - 1], log2(area_err[0][k - 1] / area_err[1][k - 1]));
  /* Straight: O(h^2); order k: at least O(h^(k+1)) (Gmsh's meshes of the two sizes are
   * not nested: the rates are loose). */
  EXPECT(area_err[1][1] < 0.01 * area_err[1][0] && area_err[1][2] < area_err[1][1],
         "curved area not better than straight");
  EXPECT(log2(area_err[0][1] / area_err[1][1]) > 2.5, "order 2 area rate");
}

static void check_cylinder(const char *dir) {
  char geo[4096];
  snprintf(geo, sizeof geo, "%s/cylinder.geo", dir);
  dg_mesh *m = load(geo, 0, 2);
  double ho, so;
  circle_errors(m, "wall", 0.5, &ho, &so);
  printf("cylinder order 2: %lld tets (%lld curved), wall error %.1e (straight %.1e)\n",
         (long long)m->K, (long long)dg_mesh_curved_count(m), ho, so);
  EXPECT(m->geom_order == 2 && ho < 1e-12 && so > 1e-3);
  dg_discretization *d = NULL;
  MUST(dg_discretization_create(m, 2, DG_DOUBLE, &d));
  printf("  volume %.6f (exact %.6f)\n", d->volume, PI * 0.25);
  EXPECT(fabs(d->volume - PI * 0.25) < 2e-3, "cylinder volume %.6f", d->volume);
  dg_discretization_destroy(&d);
  dg_mesh_destroy(&m);
}

static void check_line(void) {
  char *geo = mt_path("line.geo");
  mt_write(geo, "Point(1) = {0, 0, 0, 0.3};\nPoint(2) = {1, 0, 0, 0.3};\nLine(1) = {1, 2};\n"
                "Physical Point(\"left\") = {1};\nPhysical Point(\"right\") = {2};\n"
                "Physical Curve(\"domain\") = {1};\n");
  dg_mesh *m = load(geo, 0, 2);
  EXPECT(m->geom_order == 2 && m->ntags == 2 && affine_error(m) < 1e-12,
         "1D: order %d, %d tags, affine error %.2e", m->geom_order, m->ntags, affine_error(m));
  dg_mesh_destroy(&m);
}

static size_t node_bytes(const dg_mesh *m) {
  return sizeof(double) * (size_t)(m->K * dg_mesh_ho_count(m->dim, m->geom_order) * m->dim);
}

static void check_h5(const char *dir) {
  if (!dg_mesh_h5_available())
    return;
  char geo[4096], old[4096];
  snprintf(geo, sizeof geo, "%s/annulus.geo", dir);
  dg_mesh *m = load(geo, 0.5, 3), *b = NULL;
  dg_partition *p = NULL;
  MUST(dg_partition_create(m, NULL, NULL, 2, NULL, &p));
  char *h5 = mt_path("curved.h5");
  MUST(dg_mesh_h5_write(h5, m, p, NULL, NULL));
  MUST(dg_mesh_h5_read(h5, &b, NULL));
  EXPECT(b->geom_order == 3 && memcmp(b->XH, m->XH, node_bytes(m)) == 0, "h5 round trip");
  dg_mesh_destroy(&b);
  for (int r = 0; r < 2; r++) {
    dg_partition_local *L = NULL, *E = NULL;
    MUST(dg_mesh_h5_read_part(mt_path("curved.h5"), r, &L));
    MUST(dg_partition_extract(m, NULL, NULL, p, r, &E));
    EXPECT(L->mesh->geom_order == 3 && L->mesh->K == E->mesh->K &&
               memcmp(L->mesh->XH, E->mesh->XH, node_bytes(E->mesh)) == 0,
           "part %d of the curved file differs from the extracted one", r);
    dg_partition_local_destroy(&L);
    dg_partition_local_destroy(&E);
  }
  dg_partition_destroy(&p);
  /* dgrun import of a Gmsh order-2 .msh (Hilbert-reordered, partitioned). */
  char msh[4096], imported[4096]; /* (mt_path: one static buffer) */
  snprintf(msh, sizeof msh, "%s", mt_path("annulus2.msh"));
  snprintf(imported, sizeof imported, "%s", mt_path("imported.h5"));
  gmsh_write(geo, 0.5, 2, msh);
  MUST(dg_mesh_import(msh, imported, 2));
  MUST(dg_mesh_h5_read(imported, &b, NULL));
  MUST(dg_mesh_validate(b, NULL, NULL));
  double hi, si, ho, so;
  circle_errors(b, "inner", 1, &hi, &si);
  circle_errors(b, "outer", 2, &ho, &so);
  EXPECT(b->geom_order == 2 && hi < 1e-12 && ho < 1e-12 && dg_mesh_curved_count(b) > 0,
         "imported: order %d, circle errors %.1e %.1e", b->geom_order, hi, ho);
  dg_mesh_destroy(&b);
  /* dgrun import --geometry-order 3 of the .geo. */
  snprintf(imported, sizeof imported, "%s", mt_path("imported3.h5"));
  MUST(dg_mesh_import_order(geo, imported, 1, 3));
  MUST(dg_mesh_h5_read(imported, &b, NULL));
  circle_errors(b, "outer", 2, &ho, &so);
  EXPECT(b->geom_order == 3 && ho < 1e-12, "import at order 3: order %d", b->geom_order);
  dg_mesh_destroy(&b);
  dg_mesh_destroy(&m);
  /* Straight-sided files: no nodes, order 1; also one written before them. */
  m = load(geo, 0.5, 1);
  MUST(dg_mesh_h5_write(mt_path("straight.h5"), m, NULL, NULL, NULL));
  MUST(dg_mesh_h5_read(mt_path("straight.h5"), &b, NULL));
  EXPECT(b->geom_order == 1 && b->XH == NULL);
  dg_mesh_destroy(&b);
  dg_mesh_destroy(&m);
  snprintf(old, sizeof old, "%s/../tests/gmsh/old_regions_square.h5", dir);
  MUST(dg_mesh_h5_read(old, &b, NULL));
  EXPECT(b->geom_order == 1 && b->XH == NULL);
  dg_mesh_destroy(&b);
}

#endif

int main(int argc, char **argv) {
#ifndef DGRUN_HAVE_GMSH
  (void)argc, (void)argv;
  printf("skipped: built without Gmsh\n");
  return 77;
#else
  CHECK(argc == 2, "usage: %s MESH_DIR", argv[0]);
  check_straight(argv[1], "regions_square.geo", 0.3, 2);
  check_straight(argv[1], "regions_square.geo", 0.3, 4);
  check_straight(argv[1], "box.geo", 0.5, 2);
  check_straight(argv[1], "box.geo", 0.5, 3);
  check_line();
  check_annulus(argv[1]);
  check_cylinder(argv[1]);
  check_h5(argv[1]);
  mt_cleanup();
  return expect_finish();
#endif
}
