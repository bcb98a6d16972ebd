/* meshes.order: the Hilbert index is a bijection of the grid onto
 * 0 .. 2^(dim*bits)-1 whose consecutive indices are grid neighbours (1D, 2D,
 * 3D); dg_mesh_order_hilbert keeps every element (vertices and face tags,
 * through the returned numbering), renumbers the explicit periodic pairs,
 * and puts face neighbours near in number: in a 3D box numbered x fastest,
 * a third of the faces between cells join elements nx*ny*6 apart, along the
 * curve few do.  Distorted boxes with random periodicity; bad arguments. */
#include "tests/mesh/mesh_test.h"

#include "meshes/mesh_order.h"
#include "meshes/mesh_validate.h"

static void check_curve(int dim, int bits) {
  const uint64_t n = 1ull << (dim * bits);
  uint32_t *pt = malloc(n * dim * sizeof *pt);
  char *seen = calloc(n, 1);
  CHECK(pt && seen);
  for (uint64_t g = 0; g < n; g++) {
    uint32_t x[3];
    for (int a = 0; a < dim; a++)
      x[a] = (uint32_t)(g >> (a * bits)) & ((1u << bits) - 1);
    uint64_t h = dg_hilbert_index(dim, bits, x);
    CHECK(h < n, "%dD: index %llu out of range", dim, (unsigned long long)h);
    EXPECT(!seen[h], "%dD bits %d: index %llu taken twice", dim, bits, (unsigned long long)h);
    seen[h] = 1;
    memcpy(&pt[h * dim], x, sizeof(uint32_t) * (size_t)dim);
  }
  int steps_ok = 1;
  for (uint64_t h = 1; h < n; h++) {
    int dist = 0;
    for (int a = 0; a < dim; a++)
      dist += abs((int)pt[h * dim + a] - (int)pt[(h - 1) * dim + a]);
    steps_ok &= dist == 1;
  }
  EXPECT(steps_ok, "%dD bits %d: consecutive indices are not always grid neighbours", dim, bits);
  free(pt);
  free(seen);
}

/* Fraction of interior faces whose two elements are more than `far` apart
 * in number. */
static double far_fraction(const dg_mesh *m, int64_t far) {
  const int nv = m->dim + 1;
  int64_t *EToE = malloc((size_t)(m->K * nv) * sizeof *EToE);
  int *EToF = malloc((size_t)(m->K * nv) * sizeof *EToF);
  CHECK(EToE && EToF);
  MUST(dg_mesh_validate_neighbors(m, 1, EToE, EToF));
  int64_t faces = 0, n_far = 0;
  for (int64_t k = 0; k < m->K; k++)
    for (int f = 0; f < nv; f++) {
      int64_t j = EToE[k * nv + f];
      if (j < 0 || j == k)
        continue;
      faces++;
      n_far += llabs(j - k) > far;
    }
  free(EToE);
  free(EToF);
  return faces ? (double)n_far / (double)faces : 0;
}

/* far: the distance in number that counts as far (0: no locality check) */
static void check_mesh(int dim, const int64_t n[3], int64_t far) {
  mesh_case c = {.dim = dim, .lo = {0, -1, 2}, .hi = {1, 1, 5}};
  for (int a = 0; a < 3; a++) {
    c.n[a] = n[a];
    c.periodic[a] = rng_uniform() > 0;
  }
  dg_mesh *m = test_make_mesh(&c, 0.2);
  const int nv = dim + 1;
  double f0 = far ? far_fraction(m, far) : 0;
  /* two explicit pairs between random elements (only renumbered here) */
  double shift[3] = {0.5, 0, 0};
  int64_t pk[2][2];
  for (int p = 0; p < 2; p++) {
    for (int s = 0; s < 2; s++)
      pk[p][s] = (int64_t)((rng_uniform() + 1.0) * 0.5 * (double)m->K) % m->K;
    MUST(dg_mesh_face_pair_add(m, pk[p][0], 0, pk[p][1], 1, shift));
  }
  dg_mesh *before = NULL;
  MUST(dg_mesh_copy(m, &before));
  int64_t *new_of_old = malloc((size_t)m->K * sizeof *new_of_old);
  char *hit = calloc((size_t)m->K, 1);
  CHECK(new_of_old && hit);
  MUST(dg_mesh_order_hilbert(m, new_of_old));
  CHECK(m->K == before->K && m->Nv == before->Nv);
  int rows_ok = 1, moved = 0;
  for (int64_t k = 0; k < m->K; k++) {
    int64_t j = new_of_old[k];
    CHECK(j >= 0 && j < m->K && !hit[j], "%dD: element %lld's new number %lld is bad or taken",
          dim, (long long)k, (long long)j);
    hit[j] = 1;
    moved += j != k;
    for (int i = 0; i < nv; i++)
      rows_ok &= m->EToV[j * nv + i] == before->EToV[k * nv + i] &&
                 m->face_tag[j * nv + i] == before->face_tag[k * nv + i];
  }
  EXPECT(rows_ok, "%dD: an element's vertices or face tags changed in the move", dim);
  if (dim > 1) /* an interval is numbered along x already */
    EXPECT(moved > m->K / 2, "%dD: only %d of %lld elements moved", dim, moved, (long long)m->K);
  EXPECT(memcmp(m->VX, before->VX, sizeof(double) * (size_t)(m->Nv * dim)) == 0,
         "%dD: vertices changed", dim);
  CHECK(m->nface_pairs == before->nface_pairs && m->nface_pairs >= 2);
  for (int64_t p = m->nface_pairs - 2; p < m->nface_pairs; p++) {
    const dg_mesh_face_pair *q = &m->face_pairs[p], *o = &before->face_pairs[p];
    EXPECT(q->k1 == new_of_old[o->k1] && q->k2 == new_of_old[o->k2] && q->f1 == o->f1 &&
               q->f2 == o->f2 && q->shift[0] == 0.5,
           "%dD: face pair %lld not renumbered", dim, (long long)p);
  }
  /* drop the two made-up pairs before the neighbour search */
  m->nface_pairs -= 2;
  before->nface_pairs -= 2;
  if (far) {
    /* the input numbers x fastest: a face across the slowest axis joins
     * elements a whole layer apart, more than `far` */
    double f1 = far_fraction(m, far);
    printf("%dD %lld elements: faces joining elements > %lld apart: input %.3f, Hilbert %.3f\n",
           dim, (long long)m->K, (long long)far, f0, f1);
    EXPECT(f0 > 0.12, "%dD: the input order was expected to have far faces (%.3f)", dim, f0);
    EXPECT(f1 < 0.4 * f0, "%dD: along the curve %.3f of the faces join far elements (input %.3f)",
           dim, f1, f0);
  }
  free(new_of_old);
  free(hit);
  dg_mesh_destroy(&before);
  dg_mesh_destroy(&m);
}

int main(void) {
  rng_seed();
  check_curve(1, 6);
  check_curve(2, 4);
  check_curve(3, 3);
  check_curve(3, 4);
  /* the same point twice gives the same index (no hidden state) */
  uint32_t x[3] = {5, 9, 2};
  EXPECT(dg_hilbert_index(3, 21, x) == dg_hilbert_index(3, 21, x));
  check_mesh(3, (const int64_t[3]){16, 16, 16}, 1000); /* layers of 1,536 */
  check_mesh(3, (const int64_t[3]){5, 7, 30}, 0);
  check_mesh(2, (const int64_t[3]){64, 64, 1}, 100); /* rows of 128 */
  check_mesh(1, (const int64_t[3]){300, 1, 1}, 0);
  EXPECT(dg_mesh_order_hilbert(NULL, NULL) == DG_ERR_ARG);
  dg_error_clear();
  return expect_finish();
}
