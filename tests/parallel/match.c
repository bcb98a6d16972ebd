/* problems.mpi_match_*: a partitioned run (every rank of mpiexec) gives the
 * same error norms (to 1e-12, relative) and the same final fields (to 1e-12
 * of their size) as the serial run of the same problem, which rank 0 does
 * afterwards on its own through the unpartitioned code path.
 *
 * usage: test_parallel_match problem.cfg workdir [--restart ckpt.h5]
 *                            [section.key=value ...]
 * With --restart the partitioned run continues from that checkpoint (written
 * by a run on another number of ranks) while the serial reference runs from
 * t = 0. */
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/comm.h"
#include "core/error.h"
#include "core/log.h"
#include "problems/driver/run.h"
#include "tests/output/compare.h"
#include "tests/run_state.h"

/* Remove the outputs of an earlier run of this test from dir. */
static void clear_dir(const char *dir) {
  const char *pats[] = {"%s/*.h5", "%s/*.xdmf"};
  for (int p = 0; p < 2; p++) {
    char pat[700];
    snprintf(pat, sizeof pat, pats[p], dir);
    glob_t g;
    if (glob(pat, 0, NULL, &g) == 0) {
      for (size_t i = 0; i < g.gl_pathc; i++)
        unlink(g.gl_pathv[i]);
      globfree(&g);
    }
  }
}

static int close_to(double a, double b, double tol) {
  return fabs(a - b) <= tol * fmax(fabs(b), 1e-300) || (a == b);
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s problem.cfg workdir [--restart ckpt] [overrides]\n", argv[0]);
    return 2;
  }
  const char *cfg = argv[1], *work = argv[2], *restart = NULL;
  int first = 3;
  if (argc > 4 && strcmp(argv[3], "--restart") == 0) {
    restart = argv[4];
    first = 5;
  }
  dg_log_set_level(DG_LOG_WARN);
  dg_comm *world = NULL;
  if (dg_comm_create_world(&world) != DG_OK) {
    dg_error_print(stderr);
    return 1;
  }
  int rank = dg_comm_rank(world), size = dg_comm_size(world);
  char dir[600];
  snprintf(dir, sizeof dir, "%s/ranks%d", work, size);
  if (rank == 0) {
    clear_dir(dir);
    char sdir[600];
    snprintf(sdir, sizeof sdir, "%s/serial_for%d", work, size);
    clear_dir(sdir);
  }
  if (dg_comm_barrier(world) != DG_OK) {
    dg_error_print(stderr);
    return 1;
  }
  /* the snapshots compared below are the XDMF format's .h5 files (not the
   * default): asked for first, so that an override given here still wins */
  char *over[64] = {"output.format=both"};
  int nover = 1;
  for (int i = first; i < argc && nover < 64; i++)
    over[nover++] = argv[i];
  dg_run_result par, ser;
  memset(&ser, 0, sizeof ser);
  /* always through the communicator: on one rank that is the partitioned
   * path with no neighbours, compared with the serial one below */
  dg_error err = run_state(cfg, dir, restart, world, nover, over, &par);
  if (err != DG_OK)
    dg_error_print(stderr);
  err = dg_comm_agree(world, err);
  int bad = err != DG_OK;
  if (!bad && rank == 0) {
    snprintf(dir, sizeof dir, "%s/serial_for%d", work, size);
    if (run_state(cfg, dir, NULL, NULL, nover, over, &ser) != DG_OK) {
      dg_error_print(stderr);
      bad = 1;
    }
  }
  if (!bad && rank == 0) {
    if (!par.have_norms || !ser.have_norms) {
      fprintf(stderr, "the problem has no exact solution to compare norms\n");
      bad = 1;
    }
    for (int f = 0; f < par.nfields && f < 16 && !bad; f++) {
      printf("field %d: L2 %.15e (serial %.15e)  max %.15e (serial %.15e)\n", f, par.l2[f],
             ser.l2[f], par.maxerr[f], ser.maxerr[f]);
      if (!close_to(par.l2[f], ser.l2[f], 1e-12) || !close_to(par.maxerr[f], ser.maxerr[f], 1e-12)) {
        fprintf(stderr, "FAIL: field %d norms differ from the serial run\n", f);
        bad = 1;
      }
    }
    if (!bad && (par.state_length != ser.state_length || par.state_length == 0)) {
      fprintf(stderr, "FAIL: state lengths %lld vs %lld\n", (long long)par.state_length,
              (long long)ser.state_length);
      bad = 1;
    }
    if (!bad) {
      state_diff sd = state_compare(&ser, &par);
      double dmax = sd.maxdiff, umax = sd.maxref;
      printf("%d ranks: %lld values, max |u_par - u_serial| = %.3e (max |u| = %.3e), "
             "%lld steps, halo exchanges %lld\n",
             size, (long long)ser.state_length, dmax, umax, (long long)par.steps,
             (long long)par.halo_exchanges);
      /* (adaptive steps: the error norm's sum is added in another order over
       * the ranks, so dt may differ in the last bits, the counts not) */
      if (par.steps != ser.steps || par.rejected_steps != ser.rejected_steps) {
        fprintf(stderr, "FAIL: %lld steps (%lld rejected), serial %lld (%lld rejected)\n",
                (long long)par.steps, (long long)par.rejected_steps, (long long)ser.steps,
                (long long)ser.rejected_steps);
        bad = 1;
      }
      if (par.rejected_steps || ser.rejected_steps || par.dt_last != ser.dt_last)
        printf("rejected steps %lld (serial %lld), last dt %.17g (serial %.17g)\n",
               (long long)par.rejected_steps, (long long)ser.rejected_steps, par.dt_last,
               ser.dt_last);
      if (!(dmax <= 1e-12 * umax)) {
        fprintf(stderr, "FAIL: the fields differ from the serial run\n");
        bad = 1;
      }
#if defined(DGRUN_HAVE_HDF5)
      char dp[600], ds[600];
      snprintf(dp, sizeof dp, "%s/ranks%d", work, size);
      snprintf(ds, sizeof ds, "%s/serial_for%d", work, size);
      if (compare_snapshots(dp, ds, 1e-12))
        bad = 1;
#endif
      if (size > 1 && par.halo_exchanges == 0) {
        fprintf(stderr, "FAIL: a partitioned run exchanged no halo\n");
        bad = 1;
      }
    }
  }
  free(par.state);
  free(ser.state);
  double v = bad;
  if (dg_comm_allreduce_max(world, &v, 1) != DG_OK)
    v = 1;
  dg_comm_destroy(&world);
  if (rank == 0)
    printf(v ? "FAILED\n" : "OK\n");
  return v ? 1 : 0;
}
