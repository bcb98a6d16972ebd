/* problems.mesh_order_run: a run on elements numbered along the Hilbert
 * curve ([mesh] order = hilbert, the default) is the run on the input
 * numbering, moved: the same error norms (to rounding of the sums) and the
 * same final state values, element for element (the sorted values agree
 * to rounding).  usage: test_problems_mesh_order_run problem.cfg [k=v ...] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/log.h"
#include "problems/driver/run.h"
#include "tests/expect.h"

static void run(const char *cfg, const char *order, char **extra, int nextra,
                dg_run_result *res) {
  const char *ov[32];
  int n = 0;
  ov[n++] = "output.enabled=false";
  ov[n++] = "backend.device=cpu";
  ov[n++] = order;
  for (int i = 0; i < nextra && n < 32; i++)
    ov[n++] = extra[i];
  dg_run_options opt = {.cfg_path = cfg, .overrides = ov, .noverrides = n, .quiet = 1,
                        .want_state = 1};
  memset(res, 0, sizeof *res);
  MUST(dg_run(&opt, res));
}

static int compare_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  CHECK(argc >= 2, "usage: %s problem.cfg [k=v ...]", argv[0]);
  dg_log_set_level(DG_LOG_WARN);
  dg_run_result in, hi;
  run(argv[1], "mesh.order=input", argv + 2, argc - 2, &in);
  run(argv[1], "mesh.order=hilbert", argv + 2, argc - 2, &hi);
  CHECK(in.have_norms && hi.have_norms && in.nfields == hi.nfields);
  CHECK(in.steps == hi.steps, "steps %lld vs %lld", (long long)in.steps, (long long)hi.steps);
  for (int c = 0; c < in.nfields; c++) {
    printf("field %d: L2 error %.6e (input order) %.6e (Hilbert order)\n", c, in.l2[c], hi.l2[c]);
    EXPECT(fabs(in.l2[c] - hi.l2[c]) <= 1e-12 * in.l2[c], "field %d: %.17g vs %.17g", c,
           in.l2[c], hi.l2[c]);
  }
  CHECK(in.state && hi.state && in.state_length == hi.state_length && in.state_length > 0);
  double diff = 0, scale = 0;
  int64_t moved = 0;
  for (int64_t i = 0; i < in.state_length; i++)
    moved += in.state[i] != hi.state[i];
  qsort(in.state, (size_t)in.state_length, sizeof *in.state, compare_double);
  qsort(hi.state, (size_t)hi.state_length, sizeof *hi.state, compare_double);
  for (int64_t i = 0; i < in.state_length; i++) {
    diff = fmax(diff, fabs(in.state[i] - hi.state[i]));
    scale = fmax(scale, fabs(in.state[i]));
  }
  printf("%lld values, %lld at another index, largest difference of the sorted values %.3e "
         "(of %.3e)\n", (long long)in.state_length, (long long)moved, diff, scale);
  EXPECT(moved > in.state_length / 4, "the Hilbert numbering moved few values");
  EXPECT(diff <= 1e-12 * scale, "the sorted final states differ by %.3e", diff);
  free(in.state);
  free(hi.state);
  return expect_finish();
}
