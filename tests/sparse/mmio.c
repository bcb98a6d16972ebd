/* core.mmio: Matrix Market.  A hand-written symmetric file with comments,
 * a repeated entry and integer values reads as the matrix written out by
 * hand; random general and symmetric matrices survive write + read bit for
 * bit; malformed files are refused with file:line:col. */
#include <string.h>
#include <unistd.h>

#include "core/fsutil.h"
#include "core/mmio.h"
#include "sptest.h"

static char dir[4096];

static const char *path_of(const char *name) {
  static char p[4200];
  snprintf(p, sizeof p, "%s/%s", dir, name);
  return p;
}

static void write_text(const char *name, const char *text) {
  MUST(dg_fsutil_write_file(path_of(name), text, strlen(text), 0600));
}

static void expect_error(const char *name, const char *text,
                         const char *where, const char *what) {
  write_text(name, text);
  dg_csr *A = NULL;
  CHECK(dg_mmio_read(path_of(name), &A) == DG_ERR_INPUT && A == NULL,
        "%s was accepted", name);
  char want[8300];
  snprintf(want, sizeof want, "%s:%s", path_of(name), where);
  CHECK(strstr(dg_error_message(), want) && strstr(dg_error_message(), what),
        "%s: message '%s' lacks '%s' / '%s'", name, dg_error_message(), want,
        what);
  dg_error_clear();
}

static void expect_equal(const dg_csr *A, const dg_csr *B, const char *what) {
  CHECK(A->nrows == B->nrows && A->ncols == B->ncols && A->nnz == B->nnz,
        "%s: shape or nnz differ (%lld vs %lld entries)", what,
        (long long)A->nnz, (long long)B->nnz);
  for (int64_t i = 0; i <= A->nrows; i++)
    CHECK(A->rowptr[i] == B->rowptr[i], "%s: row pointer %lld", what,
          (long long)i);
  for (int64_t k = 0; k < A->nnz; k++)
    CHECK(A->colind[k] == B->colind[k] &&
              memcmp(&A->values[k], &B->values[k], sizeof(double)) == 0,
          "%s: entry %lld: (%lld, %.17g) vs (%lld, %.17g)", what, (long long)k,
          (long long)A->colind[k], A->values[k], (long long)B->colind[k],
          B->values[k]);
}

int main(void) {
  uint64_t rng = dt_seed();
  const char *tmp = getenv("TMPDIR");
  snprintf(dir, sizeof dir, "%s/dgrun-mmio-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
  CHECK(mkdtemp(dir), "mkdtemp failed");

  /* By hand: [[4, 1, 0], [1, 5, 2.5], [0, 2.5, -3]] stored as the lower
   * triangle, (2,2) given as 3 + 2. */
  write_text("hand.mtx",
             "%%MatrixMarket matrix coordinate integer symmetric\n"
             "% a comment\n"
             "%\n"
             "3 3 6\n"
             "1 1 4\n"
             "2 1 1\n"
             "2 2 3\n"
             "% comments may sit between entries\n"
             "2 2 2\n"
             "3 2 2.5\n"
             "3 3 -3\n");
  dg_csr *H;
  MUST(dg_mmio_read(path_of("hand.mtx"), &H));
  const int64_t rp[] = {0, 2, 5, 7}, ci[] = {0, 1, 0, 1, 2, 1, 2};
  const double va[] = {4, 1, 1, 5, 2.5, 2.5, -3};
  CHECK(H->nrows == 3 && H->ncols == 3 && H->nnz == 7, "hand.mtx: %lld "
        "entries", (long long)H->nnz);
  for (int i = 0; i <= 3; i++)
    CHECK(H->rowptr[i] == rp[i], "hand.mtx rowptr[%d] = %lld", i,
          (long long)H->rowptr[i]);
  for (int k = 0; k < 7; k++)
    CHECK(H->colind[k] == ci[k] && H->values[k] == va[k],
          "hand.mtx entry %d: (%lld, %g)", k, (long long)H->colind[k],
          H->values[k]);

  /* Round trips. */
  dg_csr *G = st_random_csr(57, 31, 4, ST_EMPTY_ROWS | ST_DENSE_ROW, &rng);
  for (int64_t k = 0; k < G->nnz; k++)
    G->values[k] *= 1e-7 + 1e5 * (double)(k % 3); /* awkward magnitudes */
  MUST(dg_mmio_write(path_of("g.mtx"), G, 0));
  dg_csr *G2;
  MUST(dg_mmio_read(path_of("g.mtx"), &G2));
  expect_equal(G, G2, "general round trip");
  dg_csr *S = st_block_matrix(12, 3, 1.0, &rng);
  MUST(dg_mmio_write(path_of("s.mtx"), S, 1));
  void *text;
  size_t size;
  MUST(dg_fsutil_read_file(path_of("s.mtx"), &text, &size));
  CHECK(strstr(text, "coordinate real symmetric"), "symmetric banner missing");
  free(text);
  dg_csr *S2;
  MUST(dg_mmio_read(path_of("s.mtx"), &S2));
  expect_equal(S, S2, "symmetric round trip");
  CHECK(dg_mmio_write(path_of("bad.mtx"), G, 1) == DG_ERR_ARG,
        "a rectangular matrix was written as symmetric");
  dg_error_clear();
  dg_csr *Q = st_random_csr(20, 20, 3, 0, &rng); /* not symmetric */
  CHECK(dg_mmio_write(path_of("q.mtx"), Q, 1) == DG_ERR_ARG &&
            strstr(dg_error_message(), "not symmetric"),
        "an unsymmetric matrix was written as symmetric: %s",
        dg_error_message());
  dg_error_clear();
  dg_sparse_csr_destroy(&Q);
  dg_sparse_csr_destroy(&G);

  /* Errors with file:line:col. */
  expect_error("e1.mtx", "%%MatrixMarket matrix array real general\n2 2\n",
               "1:23", "coordinate");
  expect_error("e2.mtx", "%%MatrixMarket matrix coordinate complex general\n",
               "1:34", "complex");
  expect_error("e3.mtx",
               "%%MatrixMarket matrix coordinate real general\n2 2 2\n"
               "1 1 1.0\n3 1 2.0\n", "4:1", "row index 3 outside [1, 2]");
  expect_error("e4.mtx",
               "%%MatrixMarket matrix coordinate real general\n2 2 2\n"
               "1 1 1.0\n", "4:1", "ends after 1 of 2 entries");
  expect_error("e5.mtx",
               "%%MatrixMarket matrix coordinate real symmetric\n2 2 1\n"
               "1 2 1.0\n", "3:3", "above the diagonal");
  expect_error("e6.mtx",
               "%%MatrixMarket matrix coordinate real general\n2 2 1\n"
               "1 1 x\n", "3:5", "expected a value");
  expect_error("e7.mtx",
               "%%MatrixMarket matrix coordinate real general\n2 2 1\n"
               "1 1 1 7\n", "3:7", "unexpected '7'");
  dg_csr *none = NULL;
  CHECK(dg_mmio_read(path_of("missing.mtx"), &none) == DG_ERR_IO,
        "a missing file is not an I/O error");
  dg_error_clear();

  dg_sparse_csr_destroy(&H);
  dg_sparse_csr_destroy(&G2);
  dg_sparse_csr_destroy(&S);
  dg_sparse_csr_destroy(&S2);
  dt_remove_dir(dir);
  return 0;
}
