/* The same mesh from every .msh flavour: each shipped mesh is rewritten by
 * the Gmsh API as MSH 2.2 and 4.1, ASCII and binary, and every copy must
 * read as the same mesh (counts, tags, element set, coordinates bitwise
 * for binary files, to the 16 digits Gmsh prints for ASCII ones). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "meshes/gmsh_reader.h"
#include "meshes/mesh_validate.h"
#include "meshtest.h"

#ifdef DGRUN_HAVE_GMSH
#include <gmshc.h>

static void convert(const char *in, const char *out, double version, int binary) {
  int ierr = 0;
  gmshInitialize(0, NULL, 0, &ierr);
  gmshOptionSetNumber("General.Terminal", 0, &ierr);
  gmshOpen(in, &ierr);
  CHECK(!ierr, "gmsh cannot open %s", in);
  gmshOptionSetNumber("Mesh.MshFileVersion", version, &ierr);
  gmshOptionSetNumber("Mesh.Binary", binary, &ierr);
  gmshWrite(out, &ierr);
  CHECK(!ierr, "gmsh cannot write %s", out);
  gmshFinalize(&ierr);
}

/* Elements as sorted lists of vertex coordinates, sorted: independent of
 * node and element numbering. */
typedef struct {
  double x[12];
} elem;

static int compare_elem(const void *a, const void *b) {
  const double *x = ((const elem *)a)->x, *y = ((const elem *)b)->x;
  for (int i = 0; i < 12; i++)
    if (x[i] != y[i])
      return x[i] < y[i] ? -1 : 1;
  return 0;
}

static int compare_point(const void *a, const void *b) {
  const double *x = a, *y = b;
  for (int i = 0; i < 3; i++)
    if (x[i] != y[i])
      return x[i] < y[i] ? -1 : 1;
  return 0;
}

static elem *canonical(const dg_mesh *m) {
  elem *e = calloc((size_t)m->K, sizeof *e);
  for (int64_t k = 0; k < m->K; k++) {
    for (int i = 0; i <= m->dim; i++)
      for (int a = 0; a < m->dim; a++)
        e[k].x[3 * i + a] = m->VX[m->EToV[k * (m->dim + 1) + i] * m->dim + a];
    qsort(e[k].x, (size_t)m->dim + 1, 3 * sizeof(double), compare_point);
  }
  qsort(e, (size_t)m->K, sizeof *e, compare_elem);
  return e;
}

static void compare(const dg_mesh *a, const dg_mesh *b, int exact, const char *label) {
  CHECK(a->K == b->K && a->Nv == b->Nv && a->ntags == b->ntags &&
            a->nface_pairs == b->nface_pairs,
        "%s: sizes differ", label);
  for (int t = 0; t < a->ntags; t++) {
    int64_t na, nb;
    double la = mt_tag_measure(a, a->tag_names[t], &na), lb = mt_tag_measure(b, a->tag_names[t], &nb);
    CHECK(na == nb && fabs(la - lb) < 1e-12, "%s: tag %s differs", label, a->tag_names[t]);
  }
  elem *x = canonical(a), *y = canonical(b);
  for (int64_t k = 0; k < a->K; k++)
    for (int i = 0; i < 12; i++) /* %.16g ASCII: relative 1e-15 */
      CHECK(exact ? x[k].x[i] == y[k].x[i] : fabs(x[k].x[i] - y[k].x[i]) <= 1e-15 * (1 + fabs(x[k].x[i])),
            "%s: element sets differ", label);
  free(x);
  free(y);
}
#endif

int main(int argc, char **argv) {
#ifndef DGRUN_HAVE_GMSH
  (void)argc, (void)argv;
  printf("skipped: built without Gmsh\n");
  return 77;
#else
  CHECK(argc == 2, "usage: %s MESHES_DIR", argv[0]);
  const char *names[3] = {"square_hole.msh", "box.msh", "periodic_square.msh"};
  const double versions[2] = {2.2, 4.1};
  for (int f = 0; f < 3; f++) {
    char in[4096];
    snprintf(in, sizeof in, "%s/%s", argv[1], names[f]);
    dg_mesh *ref;
    MUST(dg_mesh_read_gmsh(in, 0, &ref));
    for (int v = 0; v < 2; v++)
      for (int bin = 0; bin < 2; bin++) {
        /* This Gmsh build writes no periodic section in MSH 2.2 (it lacks
         * ANN), so the periodic square is compared in 4.1 only. */
        if (ref->nface_pairs && versions[v] < 3)
          continue;
        char *out = strdup(mt_path("copy.msh")), label[256];
        convert(in, out, versions[v], bin);
        snprintf(label, sizeof label, "%s as MSH %.1f %s", names[f], versions[v],
                 bin ? "binary" : "ASCII");
        dg_mesh *m;
        MUST(dg_mesh_read_gmsh(out, 0, &m));
        compare(ref, m, bin, label);
        MUST(dg_mesh_validate(m, NULL, NULL));
        printf("%s: same mesh: ok\n", label);
        dg_mesh_destroy(&m);
        free(out);
      }
    dg_mesh_destroy(&ref);
  }
  mt_cleanup();
  return 0;
#endif
}
