/* poisson.mpi_*: a Poisson solve distributed over the job's ranks (METIS
 * element partition, dg_sparse_dist SpMV with ghost exchange, allreduced
 * dots) gives the one-rank solution (every rank also solves the whole
 * problem alone on its own communicator) to 1e-10 relative, with the
 * iteration count within 1.  The whole solution comes back on rank 0 only
 * (gathered there, not summed over every rank).  With a workdir, both
 * solves also write their snapshot, and the partitioned one holds the same
 * coordinates and solution as the one-rank one.
 *
 * usage (under mpiexec): test_poisson_mpi problem.cfg dim N cells [backend [workdir]] */
#include <math.h>
#include <string.h>

#include "core/device.h"
#include "core/log.h"
#include "tests/output/compare.h"
#include "tests/poisson/poisson_test.h"

int main(int argc, char **argv) {
  CHECK(argc >= 5, "usage: %s cfg dim N cells [backend [workdir]]", argv[0]);
  const char *cfg = argv[1], *backend = argc > 5 ? argv[5] : "cpu";
  const char *work = argc > 6 ? argv[6] : NULL;
  int dim = atoi(argv[2]), N = atoi(argv[3]), cells = atoi(argv[4]);
  dg_comm *world, *self;
  if (dg_comm_create_world(&world) != DG_OK || dg_comm_create_self(&self) != DG_OK) {
    dg_error_print(stderr);
    return 1;
  }
  int rank = dg_comm_rank(world);
  if (strcmp(backend, "cuda") == 0 && !dg_device_cuda_available()) {
    if (rank == 0)
      printf("no usable CUDA device: skipped\n");
    dg_comm_destroy(&self);
    dg_comm_destroy(&world);
    return 77;
  }
  dg_log_set_level(DG_LOG_WARN);
  dg_poisson_result r1, rp;
  double *u1 = NULL, *up = NULL;
  char out1[700], outp[700], od1[720], odp[720];
  snprintf(out1, sizeof out1, "%s/one_rank_%d", work ? work : ".", rank);
  snprintf(outp, sizeof outp, "%s/ranks", work ? work : ".");
  snprintf(od1, sizeof od1, "output.directory=%s", out1);
  snprintf(odp, sizeof odp, "output.directory=%s", outp);
  /* (compare_snapshots reads the XDMF format's .h5 files) */
  const char *ov1[] = {"output.enabled=true", "output.format=both", od1};
  /* the ranks may share one GPU here (one rank per GPU is the rule) */
  const char *ovp[] = {"parallel.gpu_oversubscribe=true", "output.enabled=true",
                       "output.format=both", odp};
  if (pt_solve(self, cfg, dim, N, cells, backend, ov1, work && rank == 0 ? 3 : 0, &r1, &u1) !=
          DG_OK ||
      pt_solve(world, cfg, dim, N, cells, backend, ovp, work ? 4 : 1, &rp, &up) != DG_OK) {
    dg_error_print(stderr);
    dg_comm_abort(world, 1);
  }
  double diff = 0, umax = 0;
  int bad_place = rank == 0 ? up == NULL : up != NULL;
  for (int64_t i = 0; i < r1.dofs && rank == 0 && up; i++) {
    diff = fmax(diff, fabs(up[i] - u1[i]));
    umax = fmax(umax, fabs(u1[i]));
  }
  /* CG on several ranks differs from one rank by round-off: 1e-10 as above */
  int bad_snap = 0;
#if defined(DGRUN_HAVE_HDF5)
  if (work && rank == 0)
    bad_snap = compare_snapshots(outp, out1, 1e-10);
#endif
  double g[3] = {diff, bad_place, bad_snap};
  dg_comm_allreduce_max(world, g, 3);
  dg_comm_allreduce_max(world, &umax, 1);
  if (g[1] && rank == 0)
    fprintf(stderr, "FAIL: the solution is not on rank 0 alone\n");
  if (rank == 0)
    printf("%s on %d ranks: %d iterations (1 rank: %d), max |u - u1| / max |u1| = %.2e, "
           "L2 error %.3e (1 rank: %.3e)\n",
           cfg, rp.nranks, rp.iterations, r1.iterations, g[0] / umax, rp.l2, r1.l2);
  int ok = g[0] <= 1e-10 * umax && abs(rp.iterations - r1.iterations) <= 1 && !g[1] && !g[2];
  free(u1);
  free(up);
  dg_comm_destroy(&self);
  dg_comm_destroy(&world);
  if (!ok && rank == 0)
    fprintf(stderr, "FAIL: solutions or iteration counts differ\n");
  return ok ? 0 : 1;
}
