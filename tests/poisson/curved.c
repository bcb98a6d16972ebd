/* poisson.curved_*: SIPG Poisson on the annulus 1 <= r <= 2 (issue 40,
 * problems/cases/poisson/annulus.cfg: u = exp(x) sin(2y), data given on the
 * true circles) at the Gmsh sizes given ([mesh] size); the L2 rate between
 * successive sizes, log(e1/e2)/log(h1/h2) with h = sqrt(area/K) (Gmsh's sizes
 * being nominal; K from the DOF count), must be >= MINRATE, or, MINRATE < 0,
 * below -MINRATE (the straight-sided twin, geometry_order = 1, which loses
 * the rate to the O(h^2) polygon).
 *
 * usage: test_poisson_curved CFG N "SIZE..." MINRATE [k=v ...] */
#include <math.h>
#include <string.h>

#include "core/log.h"
#include "tests/poisson/poisson_test.h"

int main(int argc, char **argv) {
  CHECK(argc >= 5, "usage: %s cfg N sizes minrate [k=v ...]", argv[0]);
  int N = atoi(argv[2]);
  double minrate = atof(argv[4]);
  dg_log_set_level(DG_LOG_WARN);
  dg_comm *self;
  if (dg_comm_create_world(&self) != DG_OK) {
    dg_error_print(stderr);
    return 1;
  }
  double err[8], h[8];
  int n = 0, fails = 0;
  char buf[256];
  snprintf(buf, sizeof buf, "%s", argv[3]);
  for (char *tok = strtok(buf, " "); tok && n < 8; tok = strtok(NULL, " "), n++) {
    char osize[64], oorder[64];
    snprintf(osize, sizeof osize, "mesh.size=%s", tok);
    snprintf(oorder, sizeof oorder, "discretization.order=%d", N);
    const char *ov[16] = {osize, oorder, "output.enabled=false", "backend.device=cpu"};
    int nov = 4;
    for (int i = 5; i < argc && nov < 16; i++)
      ov[nov++] = argv[i];
    dg_run_options opt = {.cfg_path = argv[1], .overrides = ov, .noverrides = nov, .quiet = 1};
    dg_poisson_result r;
    if (dg_poisson_solve(self, &opt, &r, NULL) != DG_OK) {
      dg_error_print(stderr);
      return 1;
    }
    CHECK(r.have_exact, "%s has no exact solution", argv[1]);
    double K = (double)r.dofs / ((N + 1) * (N + 2) / 2);
    err[n] = r.l2;
    h[n] = sqrt(3 * 3.14159265358979323846 / K); /* area 3 pi */
    printf("N %d size %s: K %.0f, %d CG its, L2 error %.4e\n", N, tok, K, r.iterations, err[n]);
  }
  for (int i = 1; i < n; i++) {
    double rate = log(err[i - 1] / err[i]) / log(h[i - 1] / h[i]);
    int ok = minrate >= 0 ? rate >= minrate : rate < -minrate;
    printf("N %d rate %.2f (wanted %s %.2f) %s\n", N, rate, minrate >= 0 ? ">=" : "<",
           fabs(minrate), ok ? "ok" : "FAIL");
    fails += !ok;
  }
  dg_comm_destroy(&self);
  return fails ? 1 : 0;
}
