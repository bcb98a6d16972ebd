/* core.krylov_mpi2 / _mpi4 (mpiexec): distributed CG gives the solution of
 * a one-rank solve of the same system (every rank also solves the whole
 * system alone on its own communicator) to 1e-12 relative, with iteration
 * counts within 1, for each preconditioner; the whole matrix is built by
 * every rank from one shared seed, rows split at element bounds. */
#include <math.h>
#include <string.h>

#include "core/comm.h"
#include "core/krylov.h"
#include "tests/sparse/sptest.h"

/* Solve on comm with this rank's rows [start, start + count); x gets this
 * rank's part of the solution. */
static int solve(dg_comm *comm, dg_device *dev, const dg_csr *A, int64_t start,
                 int64_t count, int b, dg_sparse_format f, dg_krylov_pc pc,
                 const double *rhs, double *x) {
  dg_csr *L = st_rows_of(A, start, count);
  dg_sparse_dist *D;
  MUST(dg_sparse_dist_create(comm, dev, L, start, f, b, DG_DOUBLE, &D));
  dg_krylov_options opt = dg_krylov_defaults();
  opt.rtol = 1e-11;
  opt.pc = pc;
  opt.block = b;
  dg_krylov *k;
  MUST(dg_krylov_create(D, L, &opt, &k));
  dg_array *db, *dx;
  MUST(dg_array_create(dev, DG_DOUBLE, count, &db));
  MUST(dg_array_create(dev, DG_DOUBLE, count, &dx));
  MUST(dg_array_upload_double(db, rhs + start));
  MUST(dg_array_fill(dx, 0.0));
  dg_krylov_result res;
  MUST(dg_krylov_solve(k, db, dx, &res));
  MUST(dg_array_download_double(dx, x));
  dg_array_destroy(&db);
  dg_array_destroy(&dx);
  dg_krylov_destroy(&k);
  dg_sparse_dist_destroy(&D);
  dg_sparse_csr_destroy(&L);
  return res.iterations;
}

int main(int argc, char **argv) {
  dg_comm *world, *self;
  MUST(dg_comm_create_world(&world));
  MUST(dg_comm_create_self(&self));
  int rank = dg_comm_rank(world), size = dg_comm_size(world);
  const char *cache;
  dg_device *dev = st_open_device(argc, argv, &cache);
  double s = rank == 0 ? (double)(dt_seed() & ((1ull << 52) - 1)) : 0.0;
  MUST(dg_comm_allreduce_max(world, &s, 1));
  uint64_t rng = (uint64_t)s;

  const int b = 4;
  const int64_t K = 90;
  dg_csr *A = st_block_matrix(K, b, 1.0, &rng);
  double *rhs = st_random_vector(A->nrows, DG_DOUBLE, &rng);
  /* Element split: rank r owns elements [K r / size, K (r + 1) / size). */
  int64_t start = K * rank / size * b, end = K * (rank + 1) / size * b;
  double *xs = malloc((size_t)A->nrows * sizeof *xs);
  double *xd = malloc((size_t)(end - start + 1) * sizeof *xd);
  CHECK(xs && xd, "out of memory");
  const struct {
    dg_krylov_pc pc;
    dg_sparse_format f;
  } cases[] = {{DG_KRYLOV_PC_NONE, DG_SPARSE_CSR_VECTOR},
               {DG_KRYLOV_PC_JACOBI, DG_SPARSE_ELL},
               {DG_KRYLOV_PC_BLOCK_JACOBI, DG_SPARSE_BSR}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    int its = solve(self, dev, A, 0, A->nrows, b, cases[c].f, cases[c].pc,
                    rhs, xs);
    int itd = solve(world, dev, A, start, end - start, b, cases[c].f,
                    cases[c].pc, rhs, xd);
    double err = 0, xmax = 0;
    for (int64_t i = 0; i < A->nrows; i++)
      xmax = fmax(xmax, fabs(xs[i]));
    for (int64_t i = start; i < end; i++)
      err = fmax(err, fabs(xd[i - start] - xs[i]));
    double g[1] = {err};
    MUST(dg_comm_allreduce_max(world, g, 1));
    if (rank == 0)
      printf("%-12s on %d ranks: %d iterations (1 rank: %d), max |x - x1| / "
             "max |x1| = %.2e\n", dg_krylov_pc_name(cases[c].pc), size, itd,
             its, g[0] / xmax);
    CHECK(abs(itd - its) <= 1, "%s: %d iterations on %d ranks, %d on one",
          dg_krylov_pc_name(cases[c].pc), itd, size, its);
    CHECK(g[0] <= 1e-12 * xmax, "%s: max |x - x1| = %.3e, max |x1| = %.3e",
          dg_krylov_pc_name(cases[c].pc), g[0], xmax);
  }
  free(xs);
  free(xd);
  free(rhs);
  dg_sparse_csr_destroy(&A);
  dg_device_destroy(&dev);
  dt_remove_dir(cache);
  dg_comm_destroy(&self);
  dg_comm_destroy(&world);
  return 0;
}
