/* problems.ldg_one_side: with |ldg_beta| = 1/2 and every gradient trace of
 * the fluxes inside ldg(...), an interior face loads the gradient traces of
 * the side ldg takes only (operators/physics_ldg_side.h).
 *  1. The analysis: Navier-Stokes (tgv_ns) and the heat equation are one-
 *     sided at ldg_beta = +-1/2 and not at 1/4 or 0; the central flux
 *     avg(nu*dx(u)) (a gradient trace outside ldg) never is.
 *  2. The right-hand side of the one-sided kernels (and of the gradient
 *     pass, which skips the faces where beta_n = +1/2 lifts nothing,
 *     operators/gen_gradient.c) equals that of the two-sided ones at
 *     beta = 1/2 -+ 1e-9 (which load both sides, skip nothing) to the
 *     1e-9 change of beta, for beta = +1/2 and -1/2: a wrong side would
 *     differ at O(1).  The Taylor-Green vortex (NS 3D, periodic) and the
 *     heat equation (1D, Dirichlet and Neumann walls: boundary faces keep
 *     both sides), on the cpu backend; cuda = c is the emulation tests'.
 * usage: ldg_one_side TGV_CFG HEAT_CFG CENTRAL_FLUX */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "operators/physics_ldg_side.h"
#include "problems/bench/bench_case.h"
#include "tests/expect.h"

static double *rhs_at(const char *cfg, const char *beta, const char *const *extra, int nextra,
                      int *one_sided, size_t *n) {
  const char *ov[8] = {"backend.device=cpu", "output.enabled=false", beta};
  for (int i = 0; i < nextra; i++)
    ov[3 + i] = extra[i];
  dg_bench_case c;
  MUST(dg_bench_case_open(cfg, ov, 3 + nextra, &c));
  *one_sided = dg_physics_ldg_one_sided(&c.ph);
  dg_solver *s = NULL;
  MUST(dg_bench_case_solver(&c, &c.p->kernels, 0, &s));
  MUST(dg_solver_set_initial(s, 0.0));
  *n = (size_t)c.ph.ncomp * (size_t)c.disc->K * (size_t)c.disc->Np;
  double *f = malloc(*n * sizeof *f);
  CHECK(f != NULL);
  MUST(dg_solver_rhs(s, 0.0, f));
  dg_solver_destroy(&s);
  dg_bench_case_close(&c);
  return f;
}

static void compare(const char *name, const char *cfg, const char *const *extra, int nextra) {
  static const char *const pairs[2][2] = {
      {"problem.ldg_beta=0.5", "problem.ldg_beta=0.499999999"},
      {"problem.ldg_beta=-0.5", "problem.ldg_beta=-0.499999999"}};
  for (int p = 0; p < 2; p++) {
    int os1, os2;
    size_t n1, n2;
    double *a = rhs_at(cfg, pairs[p][0], extra, nextra, &os1, &n1);
    double *b = rhs_at(cfg, pairs[p][1], extra, nextra, &os2, &n2);
    CHECK(n1 == n2);
    double d = expect_reldiff(a, b, n1);
    printf("%s %s: one-sided %d / %d, RHS rel diff %.2e\n", name, pairs[p][0], os1, os2, d);
    CHECK(os1 == 1 && os2 == 0);
    CHECK(d < 1e-6);
    free(a);
    free(b);
  }
}

static int analysis(const char *cfg, const char *flux, const char *beta) {
  const char *ov[4] = {"backend.device=cpu", "output.enabled=false", beta, flux};
  dg_bench_case c;
  MUST(dg_bench_case_open(cfg, ov, flux ? 4 : 3, &c));
  int r = dg_physics_ldg_one_sided(&c.ph);
  dg_bench_case_close(&c);
  return r;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: ldg_one_side TGV_CFG HEAT_CFG CENTRAL_FLUX\n");
    return 2;
  }
  dg_log_set_level(DG_LOG_WARN);
  char central[1200];
  snprintf(central, sizeof central, "problem.flux=%s", argv[3]);
  CHECK(analysis(argv[1], NULL, "problem.ldg_beta=0.5") == 1);
  CHECK(analysis(argv[1], NULL, "problem.ldg_beta=-0.5") == 1);
  CHECK(analysis(argv[1], NULL, "problem.ldg_beta=0.25") == 0);
  CHECK(analysis(argv[1], NULL, "problem.ldg_beta=0") == 0);
  CHECK(analysis(argv[2], NULL, "problem.ldg_beta=0.5") == 1);
  CHECK(analysis(argv[2], central, "problem.ldg_beta=0.5") == 0);
  static const char *const tgv[] = {"mesh.cells=2 2 2", "discretization.order=2"};
  compare("tgv_ns", argv[1], tgv, 2);
  static const char *const heat[] = {"mesh.cells=6"};
  compare("heat1d", argv[2], heat, 1);
  return expect_finish();
}
