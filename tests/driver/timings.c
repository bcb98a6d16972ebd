/* problems.timings: a run with --timings (dg_run_options.timings) records
 * every set-up phase it went through, nested in its parent: a parent's wall
 * time is at least the sum of its children's. */
#include <stdio.h>

#include "core/error.h"
#include "core/timing.h"
#include "problems/driver/run.h"

static int failures;

static double seconds(const char *name) {
  double s = dg_timing_seconds(name);
  if (s < 0) {
    printf("phase '%s' was not recorded\n", name);
    failures++;
  }
  return s;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: test_problems_timings problem.cfg\n");
    return 2;
  }
  const char *ov[] = {"backend.device=cpu", "output.enabled=false", "time.final=0.01"};
  dg_run_options opt = {.cfg_path = argv[1], .overrides = ov, .noverrides = 3, .timings = 1};
  if (dg_run(&opt, NULL) != DG_OK) {
    dg_error_print(stderr);
    return 1;
  }
  double setup = seconds("set-up"), load = seconds("problem load (config, flux, mesh)"),
         mesh = seconds("mesh (build or read)"), disc = seconds("discretization"),
         maps = seconds("node maps"), conn = seconds("connectivity"), solver = seconds("solver"),
         opdata = seconds("operator data"), gen = seconds("kernel generation"),
         upload = seconds("device allocation, upload");
  seconds("initial condition");
  seconds("first step");
  if (!(setup >= load + disc + solver && load >= mesh && disc >= maps + conn &&
        solver >= opdata + gen + upload)) {
    printf("a parent phase is shorter than its children\n");
    failures++;
  }
  if (dg_timing_seconds("no such phase") != -1) {
    printf("an unknown phase has a time\n");
    failures++;
  }
  printf(failures ? "FAILED\n" : "ok\n");
  return failures ? 1 : 0;
}
