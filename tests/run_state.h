/* Runs of a problem that keep their final state (dg_run_result.state), and
 * the comparison of two such states: shared by the tests that compare runs
 * (problems.interrupt_bitwise: interrupted and restarted vs uninterrupted,
 * bitwise; problems.mpi_match_*: partitioned vs serial, to a tolerance). */
#ifndef DG_TESTS_RUN_STATE_H
#define DG_TESTS_RUN_STATE_H

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/comm.h"
#include "core/error.h"
#include "problems/driver/run.h"

/* cfg on the cpu backend with its outputs in dir, the overrides after
 * these, from restart (NULL: t = 0), on comm (NULL: the serial path). */
static inline dg_error run_state(const char *cfg, const char *dir, const char *restart,
                                 dg_comm *comm, int nover, char **over, dg_run_result *res) {
  const char *ov[64];
  int n = 0;
  char od[700];
  snprintf(od, sizeof od, "output.directory=%s", dir);
  ov[n++] = od;
  ov[n++] = "backend.device=cpu";
  for (int i = 0; i < nover && n < 64; i++)
    ov[n++] = over[i];
  dg_run_options opt = {.cfg_path = cfg, .overrides = ov, .noverrides = n, .quiet = 1,
                        .restart = restart, .comm = comm, .want_state = 1};
  memset(res, 0, sizeof *res);
  DG_CALL(dg_run(&opt, res));
  return DG_OK;
}

/* How got's state differs from ref's over their common length: values not
 * bitwise equal, the largest |difference| (NaN if one is NaN) and the
 * largest |value| of ref. */
typedef struct state_diff {
  int64_t ndiff;
  double maxdiff, maxref;
} state_diff;

static inline state_diff state_compare(const dg_run_result *ref, const dg_run_result *got) {
  state_diff s = {0, 0.0, 0.0};
  for (int64_t i = 0; i < ref->state_length && i < got->state_length; i++) {
    double d = fabs(got->state[i] - ref->state[i]);
    if (memcmp(&ref->state[i], &got->state[i], sizeof(double)) != 0)
      s.ndiff++;
    if (!(d <= s.maxdiff))
      s.maxdiff = d;
    s.maxref = fmax(s.maxref, fabs(ref->state[i]));
  }
  return s;
}

#endif
