/* problems.flux_consistency: the load-time check of the numerical fluxes
 * (operators/flux_consistency.h, [problem] check_flux_consistency).
 *
 * usage: test_problems_flux_consistency twice.cfg shipped.cfg...
 * 1. Twice the consistent upwind flux of advection (flux u = -2*dot(a, n)*
 *    avg(u)) is refused at load, the message naming the field and giving
 *    both values (the surface form -(a.n) u and the flux -2 (a.n) u); with
 *    check_flux_consistency = warn and = off it loads.
 * 2. dg_flux_consistency_field tells that field INCONSISTENT, and a field
 *    whose flux and surface form are never finite SKIPPED, with a reason.
 * 3. Every shipped problem loads (its fluxes pass the check). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/log.h"
#include "operators/flux_consistency.h"
#include "operators/flux_eval.h"
#include "problems/driver/problem.h"
#include "tests/expect.h"

static void refused_twice(const char *cfg) {
  dg_problem *p = NULL;
  dg_error e = dg_problem_load(cfg, NULL, 0, &p);
  const char *msg = dg_error_message();
  EXPECT(e == DG_ERR_INPUT, "twice the flux loaded (%s)", dg_error_name(e));
  EXPECT(msg && strstr(msg, "field 'u'") && strstr(msg, "not consistent") &&
             strstr(msg, "check_flux_consistency"),
         "message: %s", msg ? msg : "(none)");
  printf("refused: %s\n", msg ? msg : "");
  dg_error_clear();
  dg_problem_destroy(&p);
  const char *warn[] = {"problem.check_flux_consistency=warn"};
  EXPECT(dg_problem_load(cfg, warn, 1, &p) == DG_OK, "warn mode does not load");
  dg_problem_destroy(&p);
  const char *off[] = {"problem.check_flux_consistency=off"};
  EXPECT(dg_problem_load(cfg, off, 1, &p) == DG_OK, "off mode does not load");
  /* the field-level answer, and its values: flux / surface = 2 */
  dg_flux_consistency_result res;
  char why[1024];
  double pts[4] = {0.3, 0.2, 0.7, 0.6};
  CHECK(p != NULL);
  MUST(dg_flux_consistency_field(p->program, 0, pts, 2, &res, why, sizeof why));
  EXPECT(res == DG_FLUX_INCONSISTENT, "result %d: %s", (int)res, why);
  const char *a = strstr(why, "flux u = "), *b = strstr(why, "gives ");
  double fl = a ? atof(a + 9) : 0, sf = b ? atof(b + 6) : 0;
  EXPECT(a && b && fabs(fl - 2 * sf) <= 1e-12 * fabs(fl) && fl != 0,
         "flux %g, surface %g: %s", fl, sf, why);
  dg_problem_destroy(&p);
}

/* A flux that is NaN wherever it is evaluated: nothing to compare. */
static void skipped(void) {
  dg_flux_program *prog = NULL;
  MUST(dg_flux_parse_string("dim 1\nfields u\nrhs u = -dx(u)\n"
                            "flux u = -n[0]*avg(u) + 0*sqrt(-1 - avg(u)^2)\ninitial u = x[0]\n",
                            "skip.flux", 1, &prog));
  dg_flux_consistency_result res;
  char why[1024];
  double pts[2] = {0.25, 0.75};
  MUST(dg_flux_consistency_field(prog, 0, pts, 2, &res, why, sizeof why));
  EXPECT(res == DG_FLUX_SKIPPED && strstr(why, "not checked") && strstr(why, "'u'"),
         "result %d: %s", (int)res, why);
  dg_flux_program_destroy(&prog);
}

int main(int argc, char **argv) {
  CHECK(argc >= 2, "usage: %s twice.cfg shipped.cfg...", argv[0]);
  setvbuf(stdout, NULL, _IONBF, 0);
  dg_log_set_level(DG_LOG_WARN);
  refused_twice(argv[1]);
  skipped();
  for (int i = 2; i < argc; i++) {
    dg_problem *p = NULL;
    dg_error e = dg_problem_load(argv[i], NULL, 0, &p);
    EXPECT(e == DG_OK, "%s: %s", argv[i], dg_error_message());
    dg_error_clear();
    dg_problem_destroy(&p);
  }
  printf("%s\n", failures ? "FAIL" : "ok");
  return failures ? 1 : 0;
}
