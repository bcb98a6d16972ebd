/* core.sparse_choose: the structure heuristic picks bsr for full element
 * blocks, ell for uniform rows, csr-vector for long uneven rows and
 * csr-scalar for short uneven ones (matrices built to sit clearly on one
 * side of each threshold); DG_SPARSE_AUTO uses it; dg_sparse_tune times
 * only the formats that apply and returns the fastest it measured. */
#include <string.h>

#include "sptest.h"

/* A circulant with `width` entries in every row: no ELL padding at all. */
static dg_csr *uniform_rows(int64_t n, int width, uint64_t *rng) {
  int64_t *r = malloc((size_t)(n * width) * sizeof *r);
  int64_t *c = malloc((size_t)(n * width) * sizeof *c);
  double *v = malloc((size_t)(n * width) * sizeof *v);
  CHECK(r && c && v, "out of memory");
  for (int64_t i = 0; i < n; i++)
    for (int k = 0; k < width; k++) {
      r[i * width + k] = i;
      c[i * width + k] = (i + 7 * k) % n;
      v[i * width + k] = dt_uniform(rng);
    }
  dg_csr *A;
  MUST(dg_sparse_csr_from_coo(n, n, n * width, r, c, v, &A));
  free(r);
  free(c);
  free(v);
  return A;
}

static dg_sparse_format choose(dg_device *dev, const dg_csr *A, int b) {
  dg_sparse_format f;
  MUST(dg_sparse_choose(dev, A, b, &f));
  return f;
}

int main(int argc, char **argv) {
  const char *cache;
  dg_device *dev = st_open_device(argc, argv, &cache);
  uint64_t rng = dt_seed();

  dg_csr *blocks = st_block_matrix(50, 4, 1.0, &rng);
  dg_csr *uniform = uniform_rows(500, 5, &rng);
  dg_csr *short_rows = st_random_csr(500, 500, 3, ST_DENSE_ROW, &rng);
  dg_csr *long_rows = st_random_csr(500, 500, 30, ST_DENSE_ROW, &rng);
  /* Only the diagonal of each 4 x 4 block: blocks 1/4 full. */
  dg_csr *sparse_blocks = uniform_rows(400, 1, &rng);

  CHECK(choose(dev, blocks, 4) == DG_SPARSE_BSR, "full 4x4 blocks: %s",
        dg_sparse_format_name(choose(dev, blocks, 4)));
  CHECK(choose(dev, sparse_blocks, 4) != DG_SPARSE_BSR,
        "quarter-full blocks chose bsr");
  CHECK(choose(dev, blocks, 3) != DG_SPARSE_BSR,
        "block 3 does not divide 200 rows, yet bsr");
  CHECK(choose(dev, uniform, 1) == DG_SPARSE_ELL, "uniform rows: %s",
        dg_sparse_format_name(choose(dev, uniform, 1)));
  CHECK(choose(dev, short_rows, 1) == DG_SPARSE_CSR_SCALAR,
        "short uneven rows: %s",
        dg_sparse_format_name(choose(dev, short_rows, 1)));
  CHECK(choose(dev, long_rows, 1) == DG_SPARSE_CSR_VECTOR,
        "long uneven rows: %s",
        dg_sparse_format_name(choose(dev, long_rows, 1)));

  dg_sparse *M;
  MUST(dg_sparse_create(dev, blocks, DG_SPARSE_AUTO, 4, DG_DOUBLE, &M));
  CHECK(dg_sparse_get_format(M) == DG_SPARSE_BSR, "auto gave %s",
        dg_sparse_format_name(dg_sparse_get_format(M)));
  dg_sparse_destroy(&M);

  /* Tuning: bsr only with a block size, ell not with a dense row. */
  const struct {
    const dg_csr *A;
    int b;
    int bsr, ell;
  } tune[] = {{blocks, 4, 1, 1}, {short_rows, 1, 0, 0}, {uniform, 1, 0, 1}};
  for (size_t t = 0; t < sizeof tune / sizeof tune[0]; t++) {
    double ms[DG_SPARSE_NFORMATS];
    dg_sparse_format best;
    MUST(dg_sparse_tune(dev, tune[t].A, tune[t].b, DG_DOUBLE, 3, &best, ms));
    CHECK((ms[DG_SPARSE_BSR] >= 0) == tune[t].bsr, "case %zu: bsr time %g",
          t, ms[DG_SPARSE_BSR]);
    CHECK((ms[DG_SPARSE_ELL] >= 0) == tune[t].ell, "case %zu: ell time %g",
          t, ms[DG_SPARSE_ELL]);
    CHECK(ms[DG_SPARSE_CSR_SCALAR] >= 0 && ms[DG_SPARSE_CSR_VECTOR] >= 0,
          "case %zu: csr not timed", t);
    for (int f = 0; f < DG_SPARSE_NFORMATS; f++)
      CHECK(ms[f] < 0 || ms[best] <= ms[f],
            "case %zu: picked %s (%g ms) over %s (%g ms)", t,
            dg_sparse_format_name(best), ms[best],
            dg_sparse_format_name((dg_sparse_format)f), ms[f]);
  }
  dg_sparse_csr_destroy(&blocks);
  dg_sparse_csr_destroy(&uniform);
  dg_sparse_csr_destroy(&short_rows);
  dg_sparse_csr_destroy(&long_rows);
  dg_sparse_csr_destroy(&sparse_blocks);
  dg_device_destroy(&dev);
  dt_remove_dir(cache);
  return 0;
}
