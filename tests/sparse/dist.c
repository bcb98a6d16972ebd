/* core.sparse_dist (1 rank) / core.sparse_dist_mpi2, _mpi4 (mpiexec):
 * distributed y = A x against a long double product of the whole matrix,
 * which every rank builds from one shared seed.  Rows are split unevenly
 * (some ranks may own none); the matrices have empty rows, one dense row
 * and ghost-only rows (entries only in columns other ranks own); every
 * format, bsr on DG-structured block matrices split at element bounds.
 * The ghost count is checked against an independent count, and an error on
 * one rank (bad local matrix) must come back on all ranks, not hang. */
#include <math.h>
#include <float.h>
#include <string.h>

#include "core/comm.h"
#include "sptest.h"

static dg_comm *world;
static int rank, size;

/* A global matrix with the rows distributed SpMV gets wrong.  Row kinds by
 * i % 6: 0 empty; 1 only columns half the matrix away (ghosts on every
 * split into 2+ ranks); others random; row n / 3 dense. */
static dg_csr *awkward_matrix(int64_t n, uint64_t *rng) {
  int64_t cap = n * 12 + n;
  int64_t *r = malloc((size_t)cap * sizeof *r), *c = malloc((size_t)cap * sizeof *c);
  double *v = malloc((size_t)cap * sizeof *v);
  CHECK(r && c && v, "out of memory");
  int64_t k = 0;
  for (int64_t i = 0; i < n; i++) {
    if (i == n / 3) {
      for (int64_t j = 0; j < n; j++)
        r[k] = i, c[k] = j, v[k++] = dt_uniform(rng);
      continue;
    }
    int kind = (int)(i % 6);
    if (kind == 0)
      continue;
    for (int e = 0; e < 5; e++) {
      int64_t j = kind == 1 ? (i + n / 2 + e) % n
                            : (int64_t)((dt_uniform(rng) + 1) * 0.5 * n) % n;
      r[k] = i, c[k] = j, v[k++] = dt_uniform(rng);
    }
  }
  dg_csr *A;
  MUST(dg_sparse_csr_from_coo(n, n, k, r, c, v, &A));
  free(r);
  free(c);
  free(v);
  return A;
}

/* Uneven split of n rows in units of g: rank r gets a share growing with
 * r, rounded to units (small matrices leave ranks empty). */
static void split(int64_t n, int g, int64_t *start, int64_t *count) {
  int64_t units = n / g;
  double total = 0, below = 0;
  for (int q = 0; q < size; q++)
    total += q + 1.0;
  for (int q = 0; q < rank; q++)
    below += q + 1.0;
  int64_t u0 = (int64_t)floor(units * below / total);
  int64_t u1 = rank == size - 1
                   ? units
                   : (int64_t)floor(units * (below + rank + 1.0) / total);
  *start = u0 * g;
  *count = (u1 - u0) * g;
}

static void check_dist(dg_device *dev, const dg_csr *A, dg_sparse_format f,
                       int b, dg_dtype dtype, uint64_t *rng) {
  int g = f == DG_SPARSE_BSR ? b : 1;
  int64_t start, count;
  split(A->nrows, g, &start, &count);
  dg_csr *L = st_rows_of(A, start, count);
  /* Every rank draws the same x (same rng sequence). */
  double *x = st_random_vector(A->ncols, dtype, rng);
  dg_csr *Af = dtype == DG_FLOAT ? st_round_to_float(A) : NULL;
  const dg_csr *R = Af ? Af : A;
  double *ref = malloc((size_t)(A->nrows + 1) * sizeof *ref);
  double *bound = malloc((size_t)(A->nrows + 1) * sizeof *bound);
  double *got = malloc((size_t)(count + 1) * sizeof *got);
  CHECK(ref && bound && got, "out of memory");
  st_reference(R, x, ref, bound);

  dg_sparse_dist *D;
  MUST(dg_sparse_dist_create(world, dev, L, start, f, b, dtype, &D));
  /* Ghosts: distinct columns outside [start, start + count), counted in
   * units of g (whole blocks travel for bsr). */
  char *seen = calloc((size_t)(A->ncols / g + 1), 1);
  int64_t ghosts = 0;
  for (int64_t k = 0; k < L->nnz; k++) {
    int64_t cidx = L->colind[k];
    if ((cidx < start || cidx >= start + count) && !seen[cidx / g]) {
      seen[cidx / g] = 1;
      ghosts += g;
    }
  }
  free(seen);
  CHECK(dg_sparse_dist_ghosts(D) == ghosts, "rank %d: %lld ghosts, expected "
        "%lld", rank, (long long)dg_sparse_dist_ghosts(D), (long long)ghosts);
  CHECK(size > 1 || ghosts == 0, "one rank with ghosts");

  dg_array *dx, *dy;
  MUST(dg_array_create(dev, dtype, count, &dx));
  MUST(dg_array_create(dev, dtype, count, &dy));
  MUST(dg_array_upload_double(dx, x + start));
  for (int64_t i = 0; i < count; i++)
    got[i] = NAN;
  MUST(dg_array_upload_double(dy, got));
  /* Twice: the second product reuses the exchange buffers. */
  for (int rep = 0; rep < 2; rep++) {
    MUST(dg_sparse_dist_spmv(D, dx, dy));
    MUST(dg_array_download_double(dy, got));
    double eps = dtype == DG_FLOAT ? FLT_EPSILON : DBL_EPSILON;
    for (int64_t i = 0; i < count; i++) {
      int64_t gi = start + i;
      double len = (double)(A->rowptr[gi + 1] - A->rowptr[gi]);
      double tol = 2 * (len + 2) * eps * bound[gi];
      CHECK(fabs(got[i] - ref[gi]) <= tol,
            "rank %d/%d, %s %s: global row %lld (%lld entries): got %.17g, "
            "want %.17g", rank, size, dg_sparse_format_name(f),
            dg_dtype_name(dtype), (long long)gi, (long long)len, got[i],
            ref[gi]);
    }
  }
  dg_array_destroy(&dx);
  dg_array_destroy(&dy);
  dg_sparse_dist_destroy(&D);
  dg_sparse_csr_destroy(&L);
  dg_sparse_csr_destroy(&Af);
  free(x);
  free(ref);
  free(bound);
  free(got);
}

int main(int argc, char **argv) {
  MUST(dg_comm_create_world(&world));
  rank = dg_comm_rank(world);
  size = dg_comm_size(world);
  const char *cache;
  dg_device *dev = st_open_device(argc, argv, &cache);
  /* One seed for all ranks (rank 0's, below 2^52 so a double holds it). */
  double s = rank == 0 ? (double)(dt_seed() & ((1ull << 52) - 1)) : 0.0;
  MUST(dg_comm_allreduce_max(world, &s, 1));
  uint64_t rng = (uint64_t)s;

  const int64_t sizes[] = {5, 48, 301};
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    dg_csr *A = awkward_matrix(sizes[k], &rng);
    for (int f = 0; f < DG_SPARSE_BSR; f++)
      check_dist(dev, A, (dg_sparse_format)f, 1, DG_DOUBLE, &rng);
    check_dist(dev, A, DG_SPARSE_CSR_VECTOR, 1, DG_FLOAT, &rng);
    dg_sparse_csr_destroy(&A);
  }
  const int blocks[] = {1, 3, 10};
  for (size_t k = 0; k < sizeof blocks / sizeof blocks[0]; k++) {
    dg_csr *A = st_block_matrix(30, blocks[k], 1.0, &rng);
    for (int f = 0; f < DG_SPARSE_NFORMATS; f++)
      check_dist(dev, A, (dg_sparse_format)f, blocks[k], DG_DOUBLE, &rng);
    dg_sparse_csr_destroy(&A);
  }

  /* A broken local matrix on the last rank: it reports its own error, the
   * others learn that it failed; nobody hangs. */
  dg_csr *A = awkward_matrix(40, &rng);
  int64_t start, count;
  split(40, 1, &start, &count);
  dg_csr *L = st_rows_of(A, start, count);
  int bad = rank == size - 1;
  int64_t saved = L->rowptr[count];
  if (bad)
    L->rowptr[count] = L->nnz + 1;
  dg_sparse_dist *D = NULL;
  dg_error err = dg_sparse_dist_create(world, dev, L, start,
                                       DG_SPARSE_CSR_SCALAR, 1, DG_DOUBLE, &D);
  CHECK(D == NULL && err == (bad ? DG_ERR_ARG : DG_ERR_PEER),
        "rank %d: error %s (%s)", rank, dg_error_name(err), dg_error_message());
  if (!bad)
    CHECK(strstr(dg_error_message(), "failed"), "rank %d: message '%s'",
          rank, dg_error_message());
  dg_error_clear();
  L->rowptr[count] = saved;
  /* Row ranges with a gap: every rank sees it (the data is global). */
  err = dg_sparse_dist_create(world, dev, L, start + (rank == size - 1),
                              DG_SPARSE_CSR_SCALAR, 1, DG_DOUBLE, &D);
  CHECK(err == DG_ERR_ARG && D == NULL, "rank %d: a gap in the row ranges "
        "gave %s", rank, dg_error_name(err));
  dg_error_clear();
  dg_sparse_csr_destroy(&L);
  dg_sparse_csr_destroy(&A);

  dg_device_destroy(&dev);
  dt_remove_dir(cache);
  MUST(dg_comm_barrier(world));
  if (rank == 0)
    printf("distributed SpMV on %d rank(s): all checks passed\n", size);
  dg_comm_destroy(&world);
  return 0;
}
