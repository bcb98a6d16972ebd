/* problems.interrupt_bitwise{,_mpi2}: a run stopped by SIGTERM at a chosen
 * step (the real handler: $DGRUN_TEST_SIGNAL_STEP makes the process signal
 * itself after that step, see problems/driver/signals.h) and restarted from
 * the checkpoint it wrote ends with bitwise the state of the uninterrupted
 * run, at every interruption point tried: inside a segment of equal steps,
 * on its first and last step, and at a landing time (an output time).
 * Before the fix, restarts from inside a segment re-planned the rest of it
 * from the checkpoint time and differed by ~1e-14.
 * usage: test_interrupt_bitwise problem.cfg workdir [--mpi | --alone] [overrides]
 * With --alone the restarts are given neither the cfg nor an override but
 * the output directory and the cpu backend (dgrun --restart ckpt.h5: the
 * problem the checkpoint stores), at every other interruption point.
 * With --mpi the run is partitioned over the ranks of mpiexec and the
 * signal reaches rank 1 only at every other point (all ranks must stop at
 * the same step). */
#include <glob.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/comm.h"
#include "core/error.h"
#include "core/log.h"
#include "problems/driver/run.h"
#include "tests/run_state.h"

static const char *cfg;
static dg_comm *comm;
static int rank, nover, alone;
static char **over;

static dg_error run(const char *dir, const char *restart, dg_run_result *res) {
  if (restart && alone) /* the checkpoint's own problem: no cfg, no overrides of ours */
    return run_state(NULL, dir, restart, comm, 0, over, res);
  return run_state(cfg, dir, restart, comm, nover, over, res);
}

/* The one checkpoint of dir (malloc'd), or NULL. */
static char *checkpoint_of(const char *dir) {
  char pat[700];
  snprintf(pat, sizeof pat, "%s/*_checkpoint_*.h5", dir);
  glob_t g;
  char *p = NULL;
  if (glob(pat, 0, NULL, &g) == 0) {
    if (g.gl_pathc == 1)
      p = strdup(g.gl_pathv[0]);
    globfree(&g);
  }
  return p;
}

/* Interrupt at step s, restart, compare with the uninterrupted state
 * (rank 0).  0: bitwise equal. */
static int interrupt_at(const char *work, int64_t s, int one_rank, const dg_run_result *full) {
  char dir[600], step[32];
  snprintf(dir, sizeof dir, "%s/stop_%lld", work, (long long)s);
  snprintf(step, sizeof step, "%lld", (long long)s);
  setenv("DGRUN_TEST_SIGNAL_STEP", step, 1);
  if (one_rank)
    setenv("DGRUN_TEST_SIGNAL_RANK", "1", 1);
  dg_run_result res;
  dg_error err = run(dir, NULL, &res);
  unsetenv("DGRUN_TEST_SIGNAL_STEP");
  unsetenv("DGRUN_TEST_SIGNAL_RANK");
  free(res.state);
  if (err != DG_ERR_INTERRUPTED && !(rank != 0 && err == DG_ERR_PEER)) {
    printf("step %lld: the run was not interrupted (%s)\n", (long long)s, dg_error_name(err));
    dg_error_print(stdout);
    return 1;
  }
  dg_error_clear();
  if (rank == 0 && res.interrupted_by != SIGTERM) {
    printf("step %lld: interrupted by %d, not SIGTERM\n", (long long)s, res.interrupted_by);
    return 1;
  }
  if (comm)
    dg_comm_barrier(comm);
  char *ck = checkpoint_of(dir);
  if (!ck) {
    printf("step %lld: not exactly one checkpoint in %s\n", (long long)s, dir);
    return 1;
  }
  err = run(dir, ck, &res);
  free(ck);
  if (err != DG_OK) {
    dg_error_print(stdout);
    return 1;
  }
  int bad = 0;
  if (rank == 0) {
    state_diff sd = state_compare(full, &res);
    bad = sd.ndiff > 0 || res.state_length != full->state_length || res.steps != full->steps ||
          res.rejected_steps != full->rejected_steps ||
          res.t_final != full->t_final;
    printf("%s: stopped after step %lld%s, restarted: %lld steps, t = %.17g; %lld of %lld "
           "values differ (max %.3g)\n",
           bad ? "FAIL" : "ok", (long long)s, one_rank ? " (signal on rank 1)" : "",
           (long long)res.steps, res.t_final, (long long)sd.ndiff, (long long)res.state_length,
           sd.maxdiff);
  }
  free(res.state);
  return bad;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s problem.cfg workdir [--mpi] [overrides]\n", argv[0]);
    return 2;
  }
  cfg = argv[1];
  const char *work = argv[2];
  int first = 3;
  if (argc > 3 && strcmp(argv[3], "--mpi") == 0) {
    first = 4;
    if (dg_comm_create_world(&comm) != DG_OK) {
      dg_error_print(stderr);
      return 1;
    }
    rank = dg_comm_rank(comm);
  } else if (argc > 3 && strcmp(argv[3], "--alone") == 0) {
    first = 4;
    alone = 1;
  }
  over = argv + first;
  nover = argc - first;
  dg_log_set_level(DG_LOG_WARN);
  if (rank == 0) { /* the outputs of an earlier run of this test */
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", work);
    if (system(cmd) != 0)
      return 1;
    mkdir(work, 0755);
  }
  if (comm)
    dg_comm_barrier(comm);
  char dir[600];
  snprintf(dir, sizeof dir, "%s/full", work);
  dg_run_result full;
  if (run(dir, NULL, &full) != DG_OK) {
    dg_error_print(stdout);
    return 1;
  }
  /* full.steps over [output] interval = final / 3: three segments */
  int64_t n = full.steps, seg = n / 3;
  /* the first and last steps, a landing time (seg) and the steps around
   * it, and points inside the segments (without the fix 5 of these 8
   * differed: steps 22, 30, 41, 58 and 68 of 69 at the default cells) */
  int64_t at[8] = {1, seg - 1, seg, seg + 1, n - 1};
  int npts = 5;
  for (int k = 5; k <= 10; k += k == 5 ? 2 : 3)
    at[npts++] = k * n / 12 + k % 3;
  int fails = 0;
  for (int i = 0; i < npts; i += alone ? 2 : 1) {
    int seen = at[i] <= 0 || at[i] >= n;
    for (int j = 0; j < i; j++)
      seen |= at[j] == at[i];
    if (!seen)
      fails += interrupt_at(work, at[i], comm && dg_comm_size(comm) > 1 && i % 2 == 1, &full);
  }
  if (rank == 0)
    printf("%lld steps in the uninterrupted run; %d interruption point(s) differ\n",
           (long long)n, fails);
  free(full.state);
  double v = fails;
  if (comm) {
    dg_comm_allreduce_max(comm, &v, 1);
    dg_comm_destroy(&comm);
  }
  return v != 0;
}
