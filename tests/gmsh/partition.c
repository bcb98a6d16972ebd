/* Partitions (METIS and coordinate bisection) of built-in and Gmsh meshes:
 * every element owned once, edge cut and imbalance against a brute-force
 * count, local meshes equal to the global one element by element, halo
 * faces consistent across ranks (same order on both sides, congruent faces
 * under the shift), and the same partition from a second, fresh run.
 * argv[1]: meshes/ directory; argv[2]: "consistency" or "determinism". */
#include <math.h>
#include <string.h>

#include "meshes/builtin.h"
#include "meshes/gmsh_reader.h"
#include "meshes/mesh_validate.h"
#include "meshes/partition.h"
#include "meshtest.h"

/* Faces shared by elements of different parts, by brute force over vertex
 * sets (plus explicit periodic pairs). */
static int64_t brute_cut(const dg_mesh *m, const int *part) {
  const int nf = m->dim + 1;
  int64_t cut = 0;
  for (int64_t i = 0; i < m->K * nf; i++) {
    int64_t v[3], w[3];
    mt_face_vertices(m, i / nf, (int)(i % nf), v);
    for (int64_t j = i + 1; j < m->K * nf; j++) {
      mt_face_vertices(m, j / nf, (int)(j % nf), w);
      if (v[0] == w[0] && v[1] == w[1] && v[2] == w[2])
        cut += part[i / nf] != part[j / nf];
    }
  }
  for (int64_t p = 0; p < m->nface_pairs; p++)
    cut += part[m->face_pairs[p].k1] != part[m->face_pairs[p].k2];
  return cut;
}

static void face_points(const dg_mesh *m, int64_t k, int f, double x[3][3]) {
  int fv[4];
  dg_mesh_face_vertices(m->dim, f, fv);
  for (int i = 0; i < m->dim; i++)
    for (int a = 0; a < 3; a++)
      x[i][a] = a < m->dim ? m->VX[m->EToV[k * (m->dim + 1) + fv[i]] * m->dim + a] : 0;
}

static void check_partition(const char *label, const dg_mesh *m, int P, dg_partition_method how) {
  dg_partition_options opt = {how, 0};
  dg_partition *p;
  MUST(dg_partition_create(m, NULL, NULL, P, &opt, &p));
  CHECK(p->nparts == P && p->K == m->K, "sizes");
  int64_t *count = calloc((size_t)P, sizeof *count), largest = 0;
  char *seen = calloc((size_t)m->K, 1);
  for (int r = 0; r < P; r++)
    for (int64_t i = p->offsets[r]; i < p->offsets[r + 1]; i++) {
      int64_t k = p->elements[i];
      CHECK(k >= 0 && k < m->K && !seen[k] && p->part[k] == r, "element %ld listed wrongly",
            (long)k);
      CHECK(i == p->offsets[r] || k > p->elements[i - 1], "part %d not increasing", r);
      CHECK(p->local[k] == i - p->offsets[r], "local index of %ld", (long)k);
      seen[k] = 1;
      count[r]++;
    }
  for (int r = 0; r < P; r++) {
    CHECK(count[r] > 0, "part %d empty", r);
    largest = count[r] > largest ? count[r] : largest;
  }
  CHECK(p->offsets[P] == m->K, "offsets end at %ld", (long)p->offsets[P]);
  int64_t cut = brute_cut(m, p->part);
  CHECK(p->edge_cut == cut, "%s: edge cut %ld, brute force %ld", label, (long)p->edge_cut,
        (long)cut);
  CHECK(fabs(p->imbalance - (double)largest * P / m->K) < 1e-12, "imbalance %g", p->imbalance);
  if (how == DG_PARTITION_RCB)
    CHECK(largest <= (m->K + P - 1) / P + 1, "RCB parts unbalanced (%ld of %ld)", (long)largest,
          (long)m->K);

  dg_partition_local **L = calloc((size_t)P, sizeof *L);
  int64_t nhalo = 0;
  for (int r = 0; r < P; r++) {
    MUST(dg_partition_extract(m, NULL, NULL, p, r, &L[r]));
    const dg_mesh *lm = L[r]->mesh;
    CHECK(lm->K == count[r] && lm->ntags == m->ntags, "local sizes");
    for (int64_t k = 0; k < lm->K; k++) {
      int64_t g = L[r]->global_element[k];
      CHECK(g == p->elements[p->offsets[r] + k], "global id");
      for (int i = 0; i <= m->dim; i++) {
        int64_t lv = lm->EToV[k * (m->dim + 1) + i], gv = m->EToV[g * (m->dim + 1) + i];
        CHECK(L[r]->global_vertex[lv] == gv, "vertex map");
        CHECK(!memcmp(lm->VX + lv * m->dim, m->VX + gv * m->dim, (size_t)m->dim * sizeof(double)),
              "coordinates differ");
        CHECK(lm->face_tag[k * (m->dim + 1) + i] == m->face_tag[g * (m->dim + 1) + i], "tag");
      }
    }
    nhalo += L[r]->nhalo;
  }
  CHECK(nhalo == 2 * cut, "%ld halo faces for a cut of %ld", (long)nhalo, (long)cut);
  /* Across every pair of ranks: the lists agree entry by entry. */
  for (int a = 0; a < P; a++)
    for (int b = 0; b < P; b++) {
      if (a == b)
        continue;
      int64_t ia = 0, ib = 0;
      while (ia < L[a]->nhalo && L[a]->halo[ia].rank != b)
        ia++;
      while (ib < L[b]->nhalo && L[b]->halo[ib].rank != a)
        ib++;
      for (; ia < L[a]->nhalo && L[a]->halo[ia].rank == b; ia++, ib++) {
        CHECK(ib < L[b]->nhalo && L[b]->halo[ib].rank == a, "halo lists %d/%d differ in length",
              a, b);
        const dg_partition_halo_face *x = &L[a]->halo[ia], *y = &L[b]->halo[ib];
        CHECK(x->remote_k == y->k && x->remote_f == y->f && y->remote_k == x->k &&
                  y->remote_f == x->f,
              "halo %d->%d entry %ld does not match", a, b, (long)ia);
        CHECK(x->global_k == L[b]->global_element[y->k] &&
                  y->global_k == L[a]->global_element[x->k],
              "halo global ids");
        double xa[3][3], xb[3][3];
        face_points(L[a]->mesh, x->k, x->f, xa);
        face_points(L[b]->mesh, y->k, y->f, xb);
        for (int i = 0; i < m->dim; i++) {
          int found = 0;
          for (int j = 0; j < m->dim; j++) {
            double d = 0;
            for (int c = 0; c < m->dim; c++)
              d = fmax(d, fabs(xa[i][c] + x->shift[c] - xb[j][c]));
            found |= d < 1e-9; /* Gmsh's periodic copies: ~1e-12 */
          }
          CHECK(found, "halo faces %d/%d not congruent", a, b);
        }
        for (int c = 0; c < 3; c++)
          CHECK(x->shift[c] == -y->shift[c] || fabs(x->shift[c] + y->shift[c]) < 1e-12,
                "shifts not opposite");
      }
      CHECK(ib == L[b]->nhalo || L[b]->halo[ib].rank != a, "halo lists %d/%d differ", a, b);
    }
  printf("%s: %d parts by %s: cut %ld, imbalance %.3f, %ld halo faces: ok\n", label, P,
         how == DG_PARTITION_RCB ? "RCB" : "METIS", (long)cut, p->imbalance, (long)nhalo);
  for (int r = 0; r < P; r++)
    dg_partition_local_destroy(&L[r]);
  free(L);
  free(count);
  free(seen);
  dg_partition_destroy(&p);
}

static dg_mesh *box(void) {
  const double lo[3] = {0, 0, 0}, hi[3] = {1, 2, 1};
  const int64_t n[3] = {4, 5, 3};
  dg_mesh *m;
  MUST(dg_builtin_box(lo, hi, n, NULL, &m));
  return m;
}

static int same_partition(const dg_mesh *a, const dg_mesh *b, int P, dg_partition_method how,
                          int seed) {
  dg_partition_options opt = {how, seed};
  dg_partition *p, *q;
  MUST(dg_partition_create(a, NULL, NULL, P, &opt, &p));
  MUST(dg_partition_create(b, NULL, NULL, P, &opt, &q));
  int same = p->K == q->K && !memcmp(p->part, q->part, (size_t)p->K * sizeof *p->part);
  dg_partition_destroy(&p);
  dg_partition_destroy(&q);
  return same;
}

int main(int argc, char **argv) {
  CHECK(argc == 3, "usage: %s MESHES_DIR consistency|determinism", argv[0]);
  const char *dir = argv[1];
  int gmsh = dg_gmsh_reader_available();
  dg_partition_method methods[2] = {DG_PARTITION_RCB, DG_PARTITION_METIS};
  int nmethods = 1;
#ifdef DGRUN_HAVE_METIS
  nmethods = 2;
#endif
  if (!strcmp(argv[2], "consistency")) {
    dg_mesh *b = box();
    for (int i = 0; i < nmethods; i++) {
      check_partition("builtin box", b, 4, methods[i]);
      check_partition("builtin box", b, 7, methods[i]);
      check_partition("builtin box", b, 1, methods[i]);
    }
    dg_mesh_destroy(&b);
    if (gmsh) {
      const char *files[3] = {"box.msh", "square_hole.msh", "periodic_square.msh"};
      for (int f = 0; f < 3; f++) {
        dg_mesh *m = mt_load(dir, files[f], 0);
        for (int i = 0; i < nmethods; i++)
          check_partition(files[f], m, 4, methods[i]);
        dg_mesh_destroy(&m);
      }
    } else {
      printf("no Gmsh: Gmsh meshes not partitioned\n");
    }
    /* More parts than elements is an input error. */
    dg_mesh *tiny;
    MUST(dg_builtin_interval(0, 1, 3, 0, &tiny));
    dg_partition *p = NULL;
    EXPECT_ERROR(dg_partition_create(tiny, NULL, NULL, 4, NULL, &p), DG_ERR_INPUT, "3 elements",
                 "4 parts");
    CHECK(p == NULL, "no partition on error");
    dg_mesh_destroy(&tiny);
    return 0;
  }
  /* determinism: two independently built copies of each mesh. */
  dg_mesh *a = box(), *b = box();
  for (int i = 0; i < nmethods; i++)
    for (int P = 2; P <= 8; P += 3)
      CHECK(same_partition(a, b, P, methods[i], 7), "builtin box, %d parts differ", P);
  dg_mesh_destroy(&a);
  dg_mesh_destroy(&b);
  if (gmsh) {
    a = mt_load(dir, "box.msh", 0);
    b = mt_load(dir, "box.msh", 0);
    for (int i = 0; i < nmethods; i++)
      CHECK(same_partition(a, b, 4, methods[i], 0), "box.msh partitions differ");
    dg_mesh_destroy(&a);
    dg_mesh_destroy(&b);
  }
  printf("partitions are reproducible: ok\n");
  return 0;
}
