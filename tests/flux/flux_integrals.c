/* operators.flux_integrals: the `integral NAME = expr` statement.  A valid
 * file gives its integrals in declaration order with scalar integrands
 * (evaluated at a point against values computed by hand); each mistake
 * (duplicate, name taken, non-scalar, unknown name, derivative, trace,
 * normal, no name) is one error at its line and column with its message. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "operators/flux.h"
#include "operators/flux_eval.h"
#include "flux_test.h"

static int failures;

/* Euler 2D in short, every line correct; cases replace one line. */
static const char *const euler[] = {
    "fields rho m[2] E",                              /* 1 */
    "params g = 1.4",                                 /* 2 */
    "let p = (g - 1)*(E - 0.5*dot(m, m)/rho)",        /* 3 */
    "rhs rho = -div(m)",                              /* 4 */
    "rhs m = -grad(p)",                               /* 5 */
    "rhs E = -div((E + p)*m/rho)",                    /* 6 */
    "flux rho = -dot(n, avg(m))",                     /* 7 */
    "flux m = -avg(p)*n",                             /* 8 */
    "flux E = -dot(n, avg((E + p)*m/rho))",           /* 9 */
    "initial rho = 1 + x[0]",                         /* 10 */
    "initial m = [x[1], 2]",                          /* 11 */
    "initial E = 3",                                  /* 12 */
    "integral mass = rho",                            /* 13 */
    "integral ke = 0.5*dot(m, m)/rho",                /* 14 */
    "integral pw = p*x[0] + t",                       /* 15 */
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
  const char *names[] = {"mass", "ke", "pw"};
  int n = dg_flux_integral_count(prog);
  if (n != 3) {
    printf("FAIL %d integrals, want 3\n", n);
    failures++;
  }
  /* at x = (0.5, 2), t = 0.25, rho = 2, m = (1, 3), E = 4:
   * mass 2, ke 0.5*10/2 = 2.5, p = 0.4*(4 - 2.5) = 0.6, pw = 0.3 + 0.25 */
  const double want[] = {2.0, 2.5, 0.55};
  double u[4] = {2, 1, 3, 4};
  double x[2] = {0.5, 2};
  dg_flux_point pt = {0};
  pt.u = u;
  pt.x = x;
  pt.t = 0.25;
  for (int i = 0; i < n && i < 3; i++) {
    const dg_flux_integral_info *in = dg_flux_integral(prog, i);
    double v = NAN;
    if (dg_flux_eval(prog, in->integrand, &pt, &v, 1) != DG_OK)
      dg_error_print(stdout);
    if (strcmp(in->name, names[i]) != 0 || in->loc.line != 13 + i || in->loc.col != 10 ||
        in->integrand->shape.rank != 0 || fabs(v - want[i]) > 1e-14) {
      printf("FAIL integral %d: '%s' at %d:%d = %.17g (want '%s' at %d:10 = %.17g)\n", i,
             in->name, in->loc.line, in->loc.col, v, names[i], 13 + i, want[i]);
      failures++;
    }
  }
  if (dg_flux_integral(prog, 3) || dg_flux_integral(prog, -1)) {
    printf("FAIL an integral past the end\n");
    failures++;
  }
  dg_flux_program_destroy(&prog);
}

int main(void) {
  check_valid();
  expect_error(14, "integral mass = 2*rho", 14, 10,
               "duplicate integral 'mass' (the first is at 13:10)");
  expect_error(14, "integral rho = rho", 14, 10,
               "duplicate definition of 'rho' (already a field, at 1:8)");
  expect_error(14, "integral p = rho", 14, 10,
               "duplicate definition of 'p' (already a let binding, at 3:5)");
  expect_error(14, "integral mom = m", 14, 16,
               "'integral mom' must be a scalar, got a 2-vector (integrate one component, e.g. "
               "m[0], or a scalar of it, e.g. dot(m, m))");
  expect_error(14, "integral ke = rhoo", 14, 15, "unknown name 'rhoo'; did you mean 'rho'?");
  expect_error(14, "integral ke = dx(rho)", 14, 15,
               "derivatives ('dx') exist only in volume terms (rhs), let bindings, numerical "
               "fluxes and boundary conditions, not in an integral");
  expect_error(14, "integral ke = rho.int", 14, 18,
               "'.int' exists only on faces (flux and boundary expressions), not in an integral");
  expect_error(14, "integral ke = n[0]", 14, 15,
               "the normal n exists only on faces (flux and boundary expressions), not in an "
               "integral");
  expect_error(14, "integral = rho", 14, 10, "expected an integral name, found '='");
  expect_error(14, "integrl ke = rho", 14, 1,
               "unknown statement 'integrl'; did you mean 'integral'?");
  if (failures)
    printf("%d failures\n", failures);
  else
    printf("ok\n");
  return failures != 0;
}
