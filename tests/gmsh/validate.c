/* dg_mesh_validate on small hand-built meshes whose defects are known:
 * inverted elements (reoriented, tags kept on the same geometric faces),
 * zero-volume elements, duplicate vertices (also at a random place in a
 * random mesh), a face shared by three elements, untagged boundary faces
 * (error, or the default tag), bad periodic pairs, axis-periodic meshes, and
 * tag names from problem.cfg checked with a did-you-mean. */
#include <math.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "meshes/builtin.h"
#include "meshes/mesh_validate.h"
#include "meshtest.h"

/* A 2D mesh from coordinates and triangles. */
static dg_mesh *tri_mesh(int nv, const double *xy, int K, const int *tri) {
  dg_mesh *m;
  MUST(dg_mesh_create(2, nv, K, &m));
  memcpy(m->VX, xy, (size_t)nv * 2 * sizeof *xy);
  for (int i = 0; i < 3 * K; i++)
    m->EToV[i] = tri[i];
  return m;
}

/* Tag every face that appears once with tag `id`. */
static void tag_boundary(dg_mesh *m, int id) {
  for (int64_t i = 0; i < m->K * 3; i++)
    if (mt_face_count(m, i / 3, (int)(i % 3)) == 1)
      m->face_tag[i] = id;
}

/* Sum over tagged faces of (tag + 1) * hash of the centroid: invariant under
 * renumbering of faces within elements. */
static double tag_signature(const dg_mesh *m) {
  double s = 0, c[3];
  for (int64_t i = 0; i < m->K * (m->dim + 1); i++)
    if (m->face_tag[i] >= 0) {
      mt_face_measure(m, i / (m->dim + 1), (int)(i % (m->dim + 1)), c);
      s += (m->face_tag[i] + 1) * (c[0] * 3.1 + c[1] * 7.3 + c[2] * 11.9 + 1);
    }
  return s;
}

static const double SQUARE[8] = {0, 0, 1, 0, 1, 1, 0, 1};

int main(void) {
  unsigned seed = (unsigned)time(NULL) ^ (unsigned)getpid();
  printf("seed %u\n", seed);
  srand(seed);
  dg_mesh_validate_report rep;

  /* Inverted: the second triangle is clockwise. */
  {
    const int tri[6] = {0, 1, 2, 0, 3, 2};
    dg_mesh *m = tri_mesh(4, SQUARE, 2, tri);
    int a, b;
    MUST(dg_mesh_tag_add(m, "wall", &a));
    MUST(dg_mesh_tag_add(m, "top", &b));
    tag_boundary(m, a);
    double c[3];
    for (int f = 0; f < 3; f++) { /* the face on y = 1 gets "top" */
      mt_face_measure(m, 1, f, c);
      if (fabs(c[1] - 1) < 1e-15)
        m->face_tag[3 + f] = b;
    }
    double before = tag_signature(m);
    MUST(dg_mesh_validate(m, NULL, &rep));
    CHECK(rep.nflipped == 1 && rep.nboundary == 4, "flipped %ld, boundary %ld",
          (long)rep.nflipped, (long)rep.nboundary);
    for (int k = 0; k < 2; k++)
      CHECK(dg_mesh_signed_volume(m, k) > 0, "element %d still inverted", k);
    CHECK(tag_signature(m) == before, "tags moved to other faces");
    printf("inverted element reoriented, tags kept: ok\n");
    dg_mesh_destroy(&m);
  }
  /* Zero volume: three collinear vertices. */
  {
    const double xy[8] = {0, 0, 1, 0, 2, 0, 0, 1};
    const int tri[6] = {0, 1, 3, 0, 1, 2};
    dg_mesh *m = tri_mesh(4, xy, 2, tri);
    tag_boundary(m, 0);
    MUST(dg_mesh_tag_add(m, "wall", NULL));
    EXPECT_ERROR(dg_mesh_validate(m, NULL, &rep), DG_ERR_INPUT, "element 1", "degenerate",
                 "(2, 0)");
    dg_mesh_destroy(&m);
  }
  /* Duplicate vertices: vertex 4 sits on vertex 1 (up to 1e-14). */
  {
    const double xy[10] = {0, 0, 1, 0, 1, 1, 0, 1, 1 + 1e-14, 0};
    const int tri[6] = {0, 1, 2, 0, 2, 3};
    dg_mesh *m = tri_mesh(5, xy, 2, tri);
    EXPECT_ERROR(dg_mesh_validate(m, NULL, &rep), DG_ERR_INPUT, "vertices 1 and 4",
                 "duplicates", "(1, 0)");
    /* 1e-6 apart is not a duplicate (tolerance 1e-10 of the diagonal). */
    m->VX[8] = 1 + 1e-6;
    MUST(dg_mesh_tag_add(m, "wall", NULL));
    tag_boundary(m, 0);
    MUST(dg_mesh_validate(m, NULL, &rep));
    dg_mesh_destroy(&m);
  }
  /* ... and in a random 3D mesh, a copy of a random vertex appended. */
  {
    const double lo[3] = {0, 0, 0}, hi[3] = {1, 2, 3};
    const int64_t n[3] = {4, 3, 5};
    dg_mesh *b;
    MUST(dg_builtin_box(lo, hi, n, NULL, &b));
    dg_mesh *m;
    MUST(dg_mesh_create(3, b->Nv + 1, b->K, &m));
    memcpy(m->VX, b->VX, (size_t)b->Nv * 3 * sizeof(double));
    memcpy(m->EToV, b->EToV, (size_t)b->K * 4 * sizeof(int64_t));
    int64_t v = rand() % b->Nv;
    memcpy(m->VX + 3 * b->Nv, b->VX + 3 * v, 3 * sizeof(double));
    char want[64];
    snprintf(want, sizeof want, "vertices %ld and %ld", (long)v, (long)b->Nv);
    EXPECT_ERROR(dg_mesh_validate(m, NULL, &rep), DG_ERR_INPUT, want, "duplicates");
    dg_mesh_destroy(&m);
    MUST(dg_mesh_validate(b, NULL, &rep)); /* the original is fine */
    CHECK(rep.nflipped == 0 && rep.nperiodic == 0, "builtin box report");
    dg_mesh_destroy(&b);
  }
  /* A face shared by three triangles (edge 0-1). */
  {
    const double xy[10] = {0, 0, 1, 0, 0.5, 1, 0.5, -1, 0.5, 2};
    const int tri[9] = {0, 1, 2, 1, 0, 3, 0, 1, 4};
    dg_mesh *m = tri_mesh(5, xy, 3, tri);
    EXPECT_ERROR(dg_mesh_validate(m, NULL, &rep), DG_ERR_INPUT, "shared by 3 elements",
                 "(0.5, 0)");
    dg_mesh_destroy(&m);
  }
  /* Untagged boundary: an error, or the default tag. */
  {
    const int tri[6] = {0, 1, 2, 0, 2, 3};
    dg_mesh *m = tri_mesh(4, SQUARE, 2, tri);
    int in;
    MUST(dg_mesh_tag_add(m, "inflow", &in));
    m->face_tag[0] = in; /* face 0 of element 0: y = 0 */
    EXPECT_ERROR(dg_mesh_validate(m, NULL, &rep), DG_ERR_INPUT, "3 boundary faces have no tag");
    dg_mesh_validate_options opt = {"wall", 0};
    MUST(dg_mesh_validate(m, &opt, &rep));
    CHECK(rep.ndefault_tagged == 3 && rep.nboundary == 4 && m->ntags == 2 &&
              !strcmp(m->tag_names[1], "wall"),
          "default tag: %ld faces, %d tags", (long)rep.ndefault_tagged, m->ntags);
    int64_t nw;
    CHECK(mt_tag_measure(m, "wall", &nw) == 3 && nw == 3, "wall faces");
    CHECK(mt_tag_measure(m, "inflow", &nw) == 1 && nw == 1, "inflow kept");

    /* Tags named by the problem. */
    const char *good[2] = {"wall", "inflow"}, *typo[2] = {"wall", "inflw"};
    MUST(dg_mesh_validate_tags(m, good, 2, "problem.cfg"));
    EXPECT_ERROR(dg_mesh_validate_tags(m, typo, 2, "problem.cfg"), DG_ERR_INPUT, "problem.cfg",
                 "'inflw'", "did you mean 'inflow'", "wall");
    dg_mesh_destroy(&m);
  }
  /* Periodic pairs: a good one, a wrong shift, a pair on an interior face. */
  {
    const int tri[6] = {0, 1, 2, 0, 2, 3};
    dg_mesh *m = tri_mesh(4, SQUARE, 2, tri);
    int id;
    MUST(dg_mesh_tag_add(m, "wall", &id));
    m->face_tag[0] = id; /* y = 0 */
    m->face_tag[4] = id; /* element 1 face 1: (2,3), y = 1 */
    /* x = 1 (element 0 face 1) pairs with x = 0 (element 1 face 2). */
    const double shift[3] = {-1, 0, 0};
    MUST(dg_mesh_face_pair_add(m, 0, 1, 1, 2, shift));
    MUST(dg_mesh_validate(m, NULL, &rep));
    CHECK(rep.nperiodic == 2 && rep.nboundary == 2, "periodic %ld", (long)rep.nperiodic);
    m->face_pairs[0].shift[0] = -0.5;
    EXPECT_ERROR(dg_mesh_validate(m, NULL, &rep), DG_ERR_INPUT, "periodic face pair 0",
                 "does not coincide");
    m->face_pairs[0].shift[0] = -1;
    m->face_pairs[0].f2 = 0; /* element 1 face 0 = (0,2): the interior diagonal */
    EXPECT_ERROR(dg_mesh_validate(m, NULL, &rep), DG_ERR_INPUT, "periodic face pair 0",
                 "not on the boundary");
    dg_mesh_destroy(&m);
  }
  /* Axis periodicity (built-in): periodic sides need no tag. */
  {
    const int per[2] = {1, 0};
    dg_mesh *m;
    MUST(dg_builtin_rectangle(0, 2, 0, 1, 4, 3, per, &m));
    MUST(dg_mesh_validate(m, NULL, &rep));
    CHECK(rep.nperiodic == 2 * 3 && rep.nboundary == 2 * 4, "periodic %ld boundary %ld",
          (long)rep.nperiodic, (long)rep.nboundary);
    dg_mesh_destroy(&m);
  }
  printf("all validation checks: ok\n");
  return 0;
}
