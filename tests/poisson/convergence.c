/* poisson.convergence_*: the shipped Poisson problems (manufactured
 * solutions, Dirichlet and Neumann sides) at two mesh sizes per order; the
 * observed L2 rate log2(e_coarse / e_fine) (cells doubled) must be at
 * least N + margin (the SIPG rate is N + 1 for smooth solutions: Arnold
 * et al. 2002; margin 0.7 as the issue asks).
 *
 * usage: test_poisson_convergence problem.cfg dim margin "N1 N2 .." "c1 c2" [backend]
 * Backend cuda exits 77 (skipped) without a usable GPU. */
#include <math.h>
#include <string.h>

#include "core/device.h"
#include "core/log.h"
#include "tests/poisson/poisson_test.h"

int main(int argc, char **argv) {
  CHECK(argc >= 6, "usage: %s cfg dim margin orders cells [backend]", argv[0]);
  const char *cfg = argv[1], *backend = argc > 6 ? argv[6] : "cpu";
  int dim = atoi(argv[2]);
  double margin = atof(argv[3]);
  int orders[8], no = 0, cells[2];
  for (char *s = argv[4], *e; no < 8; s = e) {
    long v = strtol(s, &e, 10);
    if (e == s)
      break;
    orders[no++] = (int)v;
  }
  CHECK(sscanf(argv[5], "%d %d", &cells[0], &cells[1]) == 2 && cells[1] == 2 * cells[0],
        "cells '%s': two counts, the second twice the first", argv[5]);
  if (strcmp(backend, "cuda") == 0 && !dg_device_cuda_available()) {
    printf("no usable CUDA device: skipped\n");
    return 77;
  }
  dg_log_set_level(DG_LOG_WARN);
  dg_comm *self;
  if (dg_comm_create_world(&self) != DG_OK) {
    dg_error_print(stderr);
    return 1;
  }
  int fails = 0;
  for (int o = 0; o < no; o++) {
    double e[2];
    int its[2];
    for (int c = 0; c < 2; c++) {
      dg_poisson_result r;
      if (pt_solve(self, cfg, dim, orders[o], cells[c], backend, NULL, 0, &r, NULL) != DG_OK) {
        dg_error_print(stderr);
        return 1;
      }
      CHECK(r.have_exact, "%s has no exact solution", cfg);
      e[c] = r.l2;
      its[c] = r.iterations;
    }
    double rate = log2(e[0] / e[1]);
    int ok = rate >= orders[o] + margin;
    printf("N=%d: L2 error %.3e (%d cells, %d its) -> %.3e (%d cells, %d its): rate %.2f "
           "(want >= %.1f) %s\n",
           orders[o], e[0], cells[0], its[0], e[1], cells[1], its[1], rate,
           orders[o] + margin, ok ? "ok" : "FAIL");
    fails += !ok;
  }
  dg_comm_destroy(&self);
  return fails ? 1 : 0;
}
