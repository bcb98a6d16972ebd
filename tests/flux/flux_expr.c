/* operators.flux_expr: problem.cfg values as flux-language expressions.
 * Values of x, pi, functions and params (at their values when parsed, and
 * independent of the program afterwards); comparisons give 1 or 0; each
 * mistake is DG_ERR_INPUT "file:line:col: error: ..." with the column
 * counted in the cfg line (the value's own column plus the offset given),
 * the value and a caret under the mistake. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "operators/flux.h"
#include "operators/flux_expr.h"
#include "flux_test.h"

static int failures;


/* text's value at x (NAN when it does not parse) and whether it uses x. */
static double value(const char *text, int dim, const dg_flux_program *prog, const double *x,
                    int *uses_x) {
  dg_flux_expr *e = NULL;
  double v = NAN;
  if (dg_flux_expr_parse(text, "problem.cfg", 3, 7, dim, prog, &e) != DG_OK ||
      dg_flux_expr_eval(e, x, &v) != DG_OK) {
    printf("FAIL '%s':\n", text);
    dg_error_print(stdout);
    dg_error_clear();
    failures++;
  }
  if (uses_x)
    *uses_x = dg_flux_expr_uses_x(e);
  dg_flux_expr_destroy(&e);
  return v;
}

static void expect_value(const char *text, int dim, const dg_flux_program *prog,
                         const double *x, double want, int want_uses_x) {
  int ux = -1;
  double v = value(text, dim, prog, x, &ux);
  CHECK(fabs(v - want) <= 1e-14 * fmax(1, fabs(want)) && ux == want_uses_x,
        "'%s' = %.17g (uses x %d), want %.17g (%d)", text, v, ux, want, want_uses_x);
}

/* text at cfg line 12, column 9 fails with exactly `want` as the message
 * (want_first: only its first line is compared). */
static void expect_error(const char *text, int dim, const dg_flux_program *prog,
                         const char *want, int first_line_only) {
  dg_flux_expr *e = NULL;
  dg_error err = dg_flux_expr_parse(text, "problem.cfg", 12, 9, dim, prog, &e);
  const char *msg = dg_error_message();
  size_t n = first_line_only && strchr(msg, '\n') ? (size_t)(strchr(msg, '\n') - msg)
                                                  : strlen(msg);
  CHECK(err == DG_ERR_INPUT && !e && n == strlen(want) && strncmp(msg, want, n) == 0,
        "'%s': error %d\n  got  '%s'\n  want '%s'", text, (int)err, msg, want);
  dg_error_clear();
  dg_flux_expr_destroy(&e);
}

int main(void) {
  double x2[2] = {0.5, -0.25}, xm[2] = {-1, 2};
  /* values */
  expect_value("1 + 2*x[0]", 2, NULL, x2, 2.0, 1);
  expect_value("sin(pi/2) + 2^3 + max(1, 4, 2)", 2, NULL, NULL, 13.0, 0);
  expect_value("x[0] < 0 ? 1 : 2.25", 2, NULL, xm, 1.0, 1);
  expect_value("x[0] < 0 ? 1 : 2.25", 2, NULL, x2, 2.25, 1);
  expect_value("exp(-norm(x)^2)", 2, NULL, x2, exp(-(0.25 + 0.0625)), 1);
  expect_value("x[2]", 3, NULL, (double[3]){1, 2, 3}, 3.0, 1);
  /* comparisons: 1 or 0 */
  expect_value("x[0] > 0", 2, NULL, x2, 1.0, 1);
  expect_value("x[0] > 0", 2, NULL, xm, 0.0, 1);
  expect_value("x[0] > 0 && x[1] <= 0", 2, NULL, x2, 1.0, 1);
  expect_value("!(x[0] > 0) || x[1] == 2", 2, NULL, xm, 1.0, 1);
  /* params at their value when parsed; the expression outlives the program */
  dg_flux_program *prog = NULL;
  if (dg_flux_parse_string("fields u\nparams alpha = 3\ncoefficients eps > 0\n"
                           "rhs u = -dx(u)/eps\nflux u = -n[0]*u.int/eps.int\ninitial u = 1\n",
                           "p.flux", 1, &prog) != DG_OK) {
    dg_error_print(stdout);
    return 1;
  }
  double x1[1] = {0.5};
  expect_value("alpha*x[0]", 1, prog, x1, 1.5, 1);
  dg_flux_set_param(prog, "alpha", 5.0);
  dg_flux_expr *e = NULL;
  double v = 0;
  CHECK(dg_flux_expr_parse("alpha + 1", "problem.cfg", 1, 1, 1, prog, &e) == DG_OK, "alpha + 1");
  dg_flux_set_param(prog, "alpha", 7.0);
  /* errors */
  expect_error("1 + y", 2, prog,
               "problem.cfg:12:13: error: unknown name 'y'\n  1 + y\n      ^", 0);
  expect_error("sinn(x[0])", 2, prog,
               "problem.cfg:12:9: error: unknown function 'sinn'; did you mean 'sin'?", 1);
  expect_error("alpa + 1", 1, prog,
               "problem.cfg:12:9: error: unknown name 'alpa'; did you mean 'alpha'?", 1);
  expect_error("2*eps", 1, prog,
               "problem.cfg:12:11: error: 'eps' is a coefficient; a problem.cfg value can use "
               "only x, pi, params and functions of them", 1);
  expect_error("u + 1", 1, prog,
               "problem.cfg:12:9: error: 'u' is a field; a problem.cfg value can use only x, pi, "
               "params and functions of them", 1);
  expect_error("x", 2, NULL,
               "problem.cfg:12:9: error: a problem.cfg value must be a scalar, got a 2-vector "
               "(take a component, e.g. x[0])", 1);
  expect_error("x[0] + t", 2, NULL,
               "problem.cfg:12:16: error: 't' cannot be used in a problem.cfg value: "
               "coefficients and regions do not change in time (use x, pi, params and "
               "functions of them)", 1);
  expect_error("n[0]", 2, NULL,
               "problem.cfg:12:9: error: the normal n exists only on faces (flux and boundary "
               "expressions), not in a problem.cfg value", 1);
  expect_error("dx(x[0])", 2, NULL,
               "problem.cfg:12:9: error: derivatives ('dx') exist only in volume terms (rhs), "
               "let bindings, numerical fluxes and boundary conditions, not in a problem.cfg "
               "value", 1);
  expect_error("x[3]", 2, NULL,
               "problem.cfg:12:11: error: index 3 is out of range for a 2-vector (0 to 1)", 1);
  expect_error("1 2", 2, NULL,
               "problem.cfg:12:11: error: unexpected '2' after the end of the expression", 1);
  expect_error("", 2, NULL, "problem.cfg:12:9: error: expected an expression, found nothing", 1);
  expect_error("x[0] > 0 fields", 2, NULL,
               "problem.cfg:12:18: error: unexpected keyword 'fields' after the end of the "
               "expression", 1);
  dg_flux_program_destroy(&prog);
  CHECK(e && dg_flux_expr_eval(e, NULL, &v) == DG_OK && v == 6.0,
        "alpha + 1 after the program: %g, want 6 (alpha = 5 when parsed)", v);
  dg_flux_expr_destroy(&e);
  if (failures) {
    printf("%d failure%s\n", failures, failures == 1 ? "" : "s");
    return 1;
  }
  printf("flux_expr: all passed\n");
  return 0;
}
