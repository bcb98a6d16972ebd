/* The shipped sample meshes (.msh and .geo files in meshes/) read through Gmsh: element
 * and vertex counts against a plain parse of the ASCII .msh text, boundary
 * tags and their measures, total volume against the geometry, periodic face
 * pairs against a brute-force face search. */
#include <math.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#include <string.h>

#include "meshes/gmsh_reader.h"
#include "meshes/mesh_validate.h"
#include "meshtest.h"

/* Elements of Gmsh type `type` and the distinct nodes they use, by reading
 * the $Elements section of an ASCII .msh (2.2 or 4.1) by hand. */
static void count_msh(const char *path, int type, int64_t *K, int64_t *Nv) {
  FILE *f = fopen(path, "r");
  CHECK(f != NULL, "cannot open %s", path);
  char line[4096];
  double version = 0;
  while (fgets(line, sizeof line, f) && strncmp(line, "$MeshFormat", 11) != 0) {
  }
  CHECK(fscanf(f, "%lf", &version) == 1, "no version in %s", path);
  while (fgets(line, sizeof line, f) && strncmp(line, "$Elements", 9) != 0) {
  }
  static long nodes[1 << 16];
  long nn = 0;
  *K = 0;
  int nv = type == 4 ? 4 : type == 2 ? 3 : 2;
  if (version < 3) {
    long n;
    CHECK(fscanf(f, "%ld", &n) == 1, "bad 2.2 element count");
    for (long i = 0; i < n; i++) {
      long id, t, ntag, x;
      CHECK(fscanf(f, "%ld %ld %ld", &id, &t, &ntag) == 3, "bad element line");
      for (long j = 0; j < ntag; j++)
        CHECK(fscanf(f, "%ld", &x) == 1, "bad tag");
      int nnode = t == 15 ? 1 : t == 1 ? 2 : t == 2 ? 3 : 4;
      for (int j = 0; j < nnode; j++) {
        CHECK(fscanf(f, "%ld", &x) == 1, "bad node");
        if (t == type)
          nodes[nn++] = x;
      }
      *K += t == type;
    }
  } else {
    long nblocks, n, lo, hi;
    CHECK(fscanf(f, "%ld %ld %ld %ld", &nblocks, &n, &lo, &hi) == 4, "bad 4.1 header");
    for (long b = 0; b < nblocks; b++) {
      long edim, etag, t, ne, x;
      CHECK(fscanf(f, "%ld %ld %ld %ld", &edim, &etag, &t, &ne) == 4, "bad block");
      int nnode = t == 15 ? 1 : t == 1 ? 2 : t == 2 ? 3 : 4;
      for (long i = 0; i < ne; i++)
        for (int j = 0; j <= nnode; j++) {
          CHECK(fscanf(f, "%ld", &x) == 1, "bad element");
          if (j > 0 && t == type)
            nodes[nn++] = x;
        }
      if (t == type)
        *K += ne;
    }
  }
  fclose(f);
  (void)nv;
  /* distinct node tags (quadratic, the samples are small) */
  *Nv = 0;
  for (long i = 0; i < nn; i++) {
    int seen = 0;
    for (long j = 0; j < i && !seen; j++)
      seen = nodes[j] == nodes[i];
    *Nv += !seen;
  }
}

static double total_measure(const dg_mesh *m) {
  double s = 0;
  for (int64_t k = 0; k < m->K; k++)
    s += mt_element_measure(m, k);
  return s;
}

/* Square [-1,1]^2 minus a disc of radius 0.25 approximated by the polygon of
 * the "hole" faces: area = 4 - polygon area (summed from the origin). */
static void check_square_hole(const dg_mesh *m) {
  const double r = 0.25;
  int64_t nhole;
  CHECK(m->ntags == 4, "tags %d", m->ntags);
  double L = mt_tag_measure(m, "hole", &nhole), poly = 0;
  int id = -1;
  for (int t = 0; t < m->ntags; t++)
    id = strcmp(m->tag_names[t], "hole") == 0 ? t : id;
  for (int64_t i = 0; i < m->K * 3; i++) {
    if (m->face_tag[i] != id)
      continue;
    int64_t v[3];
    mt_face_vertices(m, i / 3, (int)(i % 3), v);
    const double *a = m->VX + 2 * v[0], *b = m->VX + 2 * v[1];
    poly += 0.5 * fabs(a[0] * b[1] - a[1] * b[0]);
    CHECK(fabs(hypot(a[0], a[1]) - r) < 1e-12 && fabs(hypot(b[0], b[1]) - r) < 1e-12,
          "hole vertex off the circle");
  }
  CHECK(nhole >= 8, "hole faces %ld", (long)nhole);
  /* An inscribed polygon is smaller than the disc, and close to it. */
  CHECK(poly < M_PI * r * r && poly > 0.85 * M_PI * r * r, "hole polygon area %g", poly);
  CHECK(L < 2 * M_PI * r && L > 0.9 * 2 * M_PI * r, "hole perimeter %g", L);
  double A = total_measure(m);
  /* Round-off of a sum of ~100 areas of size ~0.05: far below 1e-12. */
  CHECK(fabs(A - (4 - poly)) < 1e-12, "area %.17g vs %.17g", A, 4 - poly);
  CHECK(fabs(mt_tag_measure(m, "inflow", NULL) - 2) < 1e-12, "inflow length");
  CHECK(fabs(mt_tag_measure(m, "outflow", NULL) - 2) < 1e-12, "outflow length");
  CHECK(fabs(mt_tag_measure(m, "wall", NULL) - 4) < 1e-12, "wall length");
}

/* Box [0,1] x [0,2] x [0,0.5]: volume 1, side areas, each tag on its plane. */
static void check_box(const dg_mesh *m) {
  CHECK(m->ntags == 5, "tags %d", m->ntags);
  CHECK(fabs(total_measure(m) - 1) < 1e-12, "volume %.17g", total_measure(m));
  const char *name[5] = {"inlet", "outlet", "walls", "floor", "lid"};
  const double area[5] = {1, 1, 1, 2, 2};
  for (int t = 0; t < 5; t++)
    CHECK(fabs(mt_tag_measure(m, name[t], NULL) - area[t]) < 1e-12, "%s area %g", name[t],
          mt_tag_measure(m, name[t], NULL));
  for (int64_t i = 0; i < m->K * 4; i++) {
    if (m->face_tag[i] < 0)
      continue;
    double c[3];
    mt_face_measure(m, i / 4, (int)(i % 4), c);
    const char *t = m->tag_names[m->face_tag[i]];
    int ok = !strcmp(t, "inlet")    ? fabs(c[0]) < 1e-12
             : !strcmp(t, "outlet") ? fabs(c[0] - 1) < 1e-12
             : !strcmp(t, "walls")  ? fabs(c[1]) < 1e-12 || fabs(c[1] - 2) < 1e-12
             : !strcmp(t, "floor")  ? fabs(c[2]) < 1e-12
                                    : fabs(c[2] - 0.5) < 1e-12;
    CHECK(ok, "face tagged %s centred at (%g, %g, %g)", t, c[0], c[1], c[2]);
    CHECK(mt_face_count(m, i / 4, (int)(i % 4)) == 1, "tagged face is interior");
  }
}

/* Unit square periodic in x and y: every boundary face in exactly one pair,
 * the pair's faces congruent under its shift (a unit step along an axis). */
static void check_periodic(const dg_mesh *m) {
  CHECK(fabs(total_measure(m) - 1) < 1e-12, "area");
  int64_t nb = 0;
  for (int64_t i = 0; i < m->K * 3; i++)
    nb += mt_face_count(m, i / 3, (int)(i % 3)) == 1;
  CHECK(nb > 0 && m->nface_pairs * 2 == nb, "%ld pairs for %ld boundary faces",
        (long)m->nface_pairs, (long)nb);
  int *seen = calloc((size_t)m->K * 3, sizeof *seen);
  for (int64_t p = 0; p < m->nface_pairs; p++) {
    const dg_mesh_face_pair *fp = &m->face_pairs[p];
    CHECK(seen[fp->k1 * 3 + fp->f1]++ == 0 && seen[fp->k2 * 3 + fp->f2]++ == 0,
          "face in two pairs");
    double s0 = fabs(fp->shift[0]), s1 = fabs(fp->shift[1]);
    CHECK((fabs(s0 - 1) < 1e-9 && s1 < 1e-9) || (s0 < 1e-9 && fabs(s1 - 1) < 1e-9),
          "shift (%g, %g)", fp->shift[0], fp->shift[1]);
    int64_t a[3], b[3];
    mt_face_vertices(m, fp->k1, fp->f1, a);
    mt_face_vertices(m, fp->k2, fp->f2, b);
    /* Gmsh places the nodes of a periodic copy to ~1e-12 only (it maps the
     * master's curve parameters), hence 1e-9 here. */
    for (int i = 0; i < 2; i++) {
      int found = 0;
      for (int j = 0; j < 2; j++)
        found |= fabs(m->VX[2 * a[i]] + fp->shift[0] - m->VX[2 * b[j]]) < 1e-9 &&
                 fabs(m->VX[2 * a[i] + 1] + fp->shift[1] - m->VX[2 * b[j] + 1]) < 1e-9;
      CHECK(found, "pair %ld not congruent", (long)p);
    }
    CHECK(m->face_tag[fp->k1 * 3 + fp->f1] < 0 && m->face_tag[fp->k2 * 3 + fp->f2] < 0,
          "periodic face has a tag");
  }
  free(seen);
}

int main(int argc, char **argv) {
  if (!dg_gmsh_reader_available()) {
    printf("skipped: built without Gmsh\n");
    return 77;
  }
  CHECK(argc == 2, "usage: %s MESHES_DIR", argv[0]);
  const char *dir = argv[1];
  char path[4096];
  struct {
    const char *name;
    int type;
    void (*check)(const dg_mesh *);
  } cases[] = {{"square_hole", 2, check_square_hole},
               {"box", 4, check_box},
               {"periodic_square", 2, check_periodic}};
  for (int c = 0; c < 3; c++) {
    char file[256];
    snprintf(file, sizeof file, "%s.msh", cases[c].name);
    dg_mesh *m = mt_load(dir, file, 0);
    int64_t K, Nv;
    snprintf(path, sizeof path, "%s/%s", dir, file);
    count_msh(path, cases[c].type, &K, &Nv);
    CHECK(m->K == K && m->Nv == Nv, "%s: K %ld Nv %ld, file has %ld %ld", file, (long)m->K,
          (long)m->Nv, (long)K, (long)Nv);
    cases[c].check(m);
    printf("%s: %ld elements, %ld vertices, %d tags, %ld pairs: ok\n", file, (long)m->K,
           (long)m->Nv, m->ntags, (long)m->nface_pairs);
    /* The .geo meshed here, once at the shipped size and once finer. */
    snprintf(file, sizeof file, "%s.geo", cases[c].name);
    dg_mesh *g = mt_load(dir, file, 0);
    cases[c].check(g);
    dg_mesh *fine = mt_load(dir, file, 0.1);
    cases[c].check(fine);
    double hmax = 0, hcoarse = 0;
    for (int64_t k = 0; k < fine->K; k++)
      hmax = fmax(hmax, dg_mesh_element_size(fine, k));
    for (int64_t k = 0; k < g->K; k++)
      hcoarse = fmax(hcoarse, dg_mesh_element_size(g, k));
    /* Gmsh aims at edge lengths near the size; the longest edge of a
     * tetrahedral mesh overshoots it, but never by 2.5x, and the mesh must be
     * finer than the shipped one (sizes 0.25 to 0.5). */
    CHECK(fine->K > 2 * g->K && hmax < 0.25 && hmax < hcoarse, "%s at size 0.1: K %ld (vs %ld), hmax %g (vs %g)",
          file, (long)fine->K, (long)g->K, hmax, hcoarse);
    printf("%s: %ld elements; at size 0.1: %ld elements, longest edge %.3f: ok\n", file,
           (long)g->K, (long)fine->K, hmax);
    dg_mesh_destroy(&m);
    dg_mesh_destroy(&g);
    dg_mesh_destroy(&fine);
  }
  /* 1D: an interval of length 2 meshed at size 0.25 (uniform: 8 elements),
   * with physical points as boundary tags. */
  char *line = mt_path("line.geo");
  mt_write(line, "Point(1) = {0, 0, 0, 1};\nPoint(2) = {2, 0, 0, 1};\nLine(1) = {1, 2};\n"
                 "Physical Point(\"left\") = {1};\nPhysical Point(\"right\") = {2};\n");
  dg_mesh *m = mt_load(mt_tmpdir(), "line.geo", 0.25);
  int64_t nl, nr;
  CHECK(m->dim == 1 && m->K == 8 && m->Nv == 9 && fabs(total_measure(m) - 2) < 1e-12 &&
            mt_tag_measure(m, "left", &nl) == 1 && mt_tag_measure(m, "right", &nr) == 1 &&
            nl == 1 && nr == 1,
        "1D: K %ld Nv %ld tags %d", (long)m->K, (long)m->Nv, m->ntags);
  for (int64_t i = 0; i < m->K * 2; i++)
    if (m->face_tag[i] >= 0) {
      double x = m->VX[m->EToV[i]]; /* face f of a line is vertex f */
      CHECK(x == (strcmp(m->tag_names[m->face_tag[i]], "left") ? 2.0 : 0.0), "1D tag at %g", x);
    }
  printf("line.geo (1D): 8 elements, tags left/right: ok\n");
  dg_mesh_destroy(&m);
  mt_cleanup();
  return 0;
}
