/* operators.flux_wave_speed: the `wave_speed = expr` statement.  A valid
 * file gives its scalar tree (evaluated at a point against |u| + c by
 * hand); a file without one gives NULL and finds its Rusanov `lam`; each
 * mistake (not a scalar, a trace, the normal, a derivative, an unknown
 * name, a duplicate, no '=') is one error at its line and column with its
 * message. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "operators/flux.h"
#include "operators/flux_eval.h"
#include "flux_test.h"

static int failures;

/* Euler 2D in short, every line correct; cases replace one line. */
static const char *const euler[] = {
    "fields rho m[2] E",                                          /* 1 */
    "params g = 1.4",                                             /* 2 */
    "let u = m/rho",                                              /* 3 */
    "let p = (g - 1)*(E - 0.5*dot(m, u))",                        /* 4 */
    "let c = sqrt(g*p/rho)",                                      /* 5 */
    "rhs rho = -div(m)",                                          /* 6 */
    "rhs m = -grad(p)",                                           /* 7 */
    "rhs E = -div((E + p)*u)",                                    /* 8 */
    "let lam = max(norm(u.int) + c.int, norm(u.ext) + c.ext)",    /* 9 */
    "flux rho = -(dot(n, avg(m)) + lam/2*jump(rho))",             /* 10 */
    "flux m = -avg(p)*n",                                         /* 11 */
    "flux E = -dot(n, avg((E + p)*u))",                           /* 12 */
    "initial rho = 1 + x[0]",                                     /* 13 */
    "initial m = [x[1], 2]",                                      /* 14 */
    "initial E = 3",                                              /* 15 */
    "wave_speed = norm(u) + c",                                   /* 16 */
    NULL};

static void expect_error(int line, const char *repl, int wl, int wc, const char *message) {
  char text[4096];
  ft_build_text(euler, line, repl, text, sizeof text);
  if (!expect_one_error(repl, text, 2, wl, wc, message))
    failures++;
}

static void check_valid(void) {
  char text[4096];
  ft_build_text(euler, 0, NULL, text, sizeof text);
  dg_flux_program *prog = NULL;
  if (dg_flux_parse_string(text, "t.flux", 2, &prog) != DG_OK) {
    dg_error_print(stdout);
    failures++;
    return;
  }
  dg_flux_loc loc;
  const dg_flux_node *ws = dg_flux_wave_speed(prog, &loc);
  /* rho = 2, m = (1, 3), E = 4: u = (0.5, 1.5), p = 0.4*(4 - 0.5*5) = 0.6,
   * c = sqrt(1.4*0.6/2), |u| = sqrt(2.5) */
  double u[4] = {2, 1, 3, 4}, x[2] = {0.5, 2}, v = NAN;
  double want = sqrt(2.5) + sqrt(1.4 * 0.6 / 2);
  dg_flux_point pt = {0};
  pt.u = u;
  pt.x = x;
  if (!ws || dg_flux_eval(prog, ws, &pt, &v, 1) != DG_OK || fabs(v - want) > 1e-14 ||
      loc.line != 16 || loc.col != 1 || ws->shape.rank != 0) {
    dg_error_print(stdout);
    printf("FAIL wave_speed at %d:%d = %.17g (want 16:1 = %.17g)\n", loc.line, loc.col, v, want);
    failures++;
  }
  dg_flux_program_destroy(&prog);
  /* without the declaration: NULL, and the Rusanov let is found for the
   * message (not taken as the speed) */
  ft_build_text(euler, 16, "", text, sizeof text);
  if (dg_flux_parse_string(text, "t.flux", 2, &prog) != DG_OK) {
    dg_error_print(stdout);
    failures++;
    return;
  }
  int lam = dg_flux_rusanov_let(prog);
  if (dg_flux_wave_speed(prog, NULL) || lam < 0 || dg_flux_let(prog, lam)->loc.line != 9) {
    printf("FAIL no wave_speed: %p, lam %d\n", (const void *)dg_flux_wave_speed(prog, NULL),
           lam);
    failures++;
  }
  dg_flux_program_destroy(&prog);
}

int main(void) {
  check_valid();
  expect_error(16, "wave_speed = u", 16, 14,
               "'wave_speed' must be a scalar (the largest |eigenvalue| of the flux Jacobian, "
               "e.g. norm(u) + c), got a 2-vector");
  expect_error(16, "wave_speed = c.int", 16, 15,
               "'.int' exists only on faces (flux and boundary expressions), not in the wave "
               "speed");
  expect_error(16, "wave_speed = abs(n[0])", 16, 18,
               "the normal n exists only on faces (flux and boundary expressions), not in the "
               "wave speed");
  expect_error(16, "wave_speed = dx(rho)", 16, 14,
               "derivatives ('dx') exist only in volume terms (rhs), let bindings, numerical "
               "fluxes and boundary conditions, not in the wave speed");
  expect_error(16, "wave_speed = norm(uu)", 16, 19, "unknown name 'uu'; did you mean 'u'?");
  expect_error(16, "wave_speed = 1; wave_speed = 2", 16, 17,
               "duplicate 'wave_speed' (the first is at 16:1)");
  expect_error(16, "wave_speed norm(u)", 16, 12, "expected '=' after 'wave_speed', found 'norm'");
  expect_error(16, "wave_sped = 1", 16, 1,
               "unknown statement 'wave_sped'; did you mean 'wave_speed'?");
  if (failures)
    printf("%d failures\n", failures);
  else
    printf("ok\n");
  return failures != 0;
}
