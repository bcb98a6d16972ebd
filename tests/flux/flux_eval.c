/* operators.flux_eval: expressions parsed, checked and evaluated on the
 * host against values computed by hand (precedence, associativity, unary
 * minus, ternaries, functions, vectors, cross products in 2D and 3D,
 * traces, params and their overrides, let chains, initial conditions). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "operators/flux.h"
#include "operators/flux_eval.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static int failures;

/* The point every expression is evaluated at.  State layout: u (scalar)
 * at 0, v (3-vector) at 1..3. */
static const double X[3] = {0.1, 0.2, 0.3}, T = 0.5, N[3] = {0.6, 0.8, 0.0};
static const double U[4] = {1.5, 2.0, 3.0, 4.0};     /* volume state */
static const double UI[4] = {1.0, 1.0, 2.0, 3.0};    /* interior trace */
static const double UE[4] = {3.0, -1.0, 0.0, 5.0};   /* exterior trace */

/* A program whose let 'r' is the expression; returns NULL (and counts a
 * failure) if it does not check. */
static dg_flux_program *program(int dim, const char *expr) {
  char text[2048];
  snprintf(text, sizeof text,
           "fields u v[3]\n"
           "params a = 2, b = 3\n"
           "let r = %s\n"
           "rhs u = 0\nrhs v = [0, 0, 0]\n"
           "flux u = 0\nflux v = [0, 0, 0]\n"
           "initial u = 0\ninitial v = [0, 0, 0]\n",
           expr);
  dg_flux_program *prog = NULL;
  if (dg_flux_parse_string(text, "eval.flux", dim, &prog) != DG_OK) {
    printf("FAIL %dD '%s' does not check:\n", dim, expr);
    dg_error_print(stdout);
    dg_error_clear();
    failures++;
    return NULL;
  }
  return prog;
}

static void check_eval(int dim, const char *expr, int n, const double *want, double tol) {
  dg_flux_program *prog = program(dim, expr);
  if (!prog)
    return;
  const dg_flux_let_info *r = dg_flux_let(prog, 0);
  dg_flux_point pt = {.x = X, .t = T, .n = N, .u = U, .u_int = UI, .u_ext = UE};
  double got[DG_FLUX_MAX_COMPONENTS];
  int size = dg_flux_shape_size(r->body->shape);
  if (size != n) {
    printf("FAIL %dD '%s': %d components, want %d\n", dim, expr, size, n);
    failures++;
  } else if (dg_flux_eval(prog, r->body, &pt, got, DG_FLUX_MAX_COMPONENTS) != DG_OK) {
    printf("FAIL %dD '%s' does not evaluate\n", dim, expr);
    dg_error_print(stdout);
    failures++;
  } else {
    for (int i = 0; i < n; i++)
      if (!(fabs(got[i] - want[i]) <= tol * fmax(1.0, fabs(want[i])))) {
        printf("FAIL %dD '%s'[%d] = %.17g, want %.17g\n", dim, expr, i, got[i], want[i]);
        failures++;
      }
  }
  dg_flux_program_destroy(&prog);
}

/* Exact: integer arithmetic and exactly representable results. */
#define EXACT 0.0
/* libm's sin/cos/exp/... are within a few ulps of the true value. */
#define ULPS 4e-16

static void scalar(int dim, const char *expr, double want, double tol) {
  check_eval(dim, expr, 1, &want, tol);
}

static void vec(int dim, const char *expr, int n, const double *want) {
  check_eval(dim, expr, n, want, EXACT);
}

static void check_print(const char *expr, const char *want) {
  dg_flux_program *prog = program(3, expr);
  if (!prog)
    return;
  char got[512];
  dg_flux_print(prog, dg_flux_let(prog, 0)->body, got, sizeof got);
  if (strcmp(got, want) != 0) {
    printf("FAIL print '%s' = '%s', want '%s'\n", expr, got, want);
    failures++;
  }
  dg_flux_program_destroy(&prog);
}

int main(void) {
  /* precedence and associativity */
  scalar(3, "1 + 2*3", 7, EXACT);
  scalar(3, "(1 + 2)*3", 9, EXACT);
  scalar(3, "10 - 4 - 3", 3, EXACT);  /* left: (10-4)-3 */
  scalar(3, "8/4/2", 1, EXACT);       /* left: (8/4)/2 */
  scalar(3, "2^3^2", 512, EXACT);     /* right: 2^(3^2) */
  scalar(3, "-2^2", -4, EXACT);       /* -(2^2) */
  scalar(3, "2^-1", 0.5, EXACT);
  scalar(3, "2*3^2", 18, EXACT);
  scalar(3, "-3 + 5", 2, EXACT);
  scalar(3, "- -3", 3, EXACT);
  scalar(3, "+4", 4, EXACT);
  scalar(3, "6/2*3", 9, EXACT);       /* (6/2)*3 */
  scalar(3, "1e3 + .5 + 2.5e-1", 1000.75, EXACT);
  /* comparisons and logic: 1 or 0 */
  scalar(3, "1 < 2", 1, EXACT);
  scalar(3, "2 <= 1", 0, EXACT);
  scalar(3, "2 >= 2", 1, EXACT);
  scalar(3, "3 > 4", 0, EXACT);
  scalar(3, "3 == 3", 1, EXACT);
  scalar(3, "3 != 3", 0, EXACT);
  scalar(3, "1 < 2 && 2 < 1", 0, EXACT);
  scalar(3, "1 < 2 || 2 < 1", 1, EXACT);
  scalar(3, "!0", 1, EXACT);
  scalar(3, "!(2 > 1)", 0, EXACT);
  scalar(3, "1 + 2 < 4", 1, EXACT);   /* (1+2) < 4 */
  /* ternaries: lowest precedence, right-associative */
  scalar(3, "1 ? 2 : 3", 2, EXACT);
  scalar(3, "0 ? 2 : 3", 3, EXACT);
  scalar(3, "0 ? 1 : 0 ? 2 : 3", 3, EXACT);
  scalar(3, "1 ? 0 ? 5 : 6 : 7", 6, EXACT);
  scalar(3, "1 + 2 < 4 ? 10 : 20", 10, EXACT);
  scalar(3, "x[0] < 0.15 ? -1 : 1", -1, EXACT);
  /* functions */
  scalar(3, "sin(pi/6)", 0.5, ULPS);
  scalar(3, "cos(0)", 1, EXACT);
  scalar(3, "tan(pi/4)", 1, 2 * ULPS);
  scalar(3, "exp(1)", 2.718281828459045, ULPS);
  scalar(3, "log(exp(2))", 2, ULPS);
  scalar(3, "sqrt(16)", 4, EXACT);
  scalar(3, "abs(-3)", 3, EXACT);
  scalar(3, "min(3, 1, 2)", 1, EXACT);
  scalar(3, "max(3, 1, 2)", 3, EXACT);
  scalar(3, "max(-1, -2)", -1, EXACT);
  scalar(3, "pow(2, 10)", 1024, EXACT);
  scalar(3, "tanh(0)", 0, EXACT);
  scalar(3, "atan2(1, 1)", M_PI / 4, ULPS);
  scalar(3, "atan2(-1, 0)", -M_PI / 2, ULPS);
  scalar(3, "floor(-1.5)", -2, EXACT);
  scalar(3, "floor(2.7)", 2, EXACT);
  scalar(3, "pi", M_PI, EXACT);
  /* params, position, time */
  scalar(3, "a*b", 6, EXACT);
  scalar(3, "a - b/2", 0.5, EXACT);
  scalar(3, "x[0] + 10*x[1] + 100*t", 0.1 + 10 * 0.2 + 100 * 0.5, 1e-15);
  scalar(2, "x[1]", 0.2, EXACT);
  scalar(1, "x[0]*2", 0.2, EXACT);
  /* vectors */
  vec(3, "[1, 2, 3] + [4, 5, 6]", 3, (double[]){5, 7, 9});
  vec(3, "[1, 2, 3] - [4, 5, 6]", 3, (double[]){-3, -3, -3});
  vec(3, "2*[1, 2, 3]", 3, (double[]){2, 4, 6});
  vec(3, "[1, 2, 3]*2", 3, (double[]){2, 4, 6});
  vec(3, "[1, 2, 3]/2", 3, (double[]){0.5, 1, 1.5});
  vec(3, "-[1, 2]", 2, (double[]){-1, -2});
  vec(3, "[a, b, a*b]", 3, (double[]){2, 3, 6});
  vec(3, "x", 3, X);
  vec(2, "x", 2, X);
  vec(3, "n", 3, N);
  scalar(3, "[1, 2, 3][2]", 3, EXACT);
  scalar(3, "([1, 2, 3] + [1, 1, 1])[0]", 2, EXACT);
  scalar(3, "dot([1, 2, 3], [4, 5, 6])", 32, EXACT);
  scalar(3, "norm([3, 4])", 5, EXACT);
  scalar(3, "dot(n, [1, 1, 1])", 1.4, 1e-15);
  vec(3, "1 < 2 ? [1, 2] : [3, 4]", 2, (double[]){1, 2});
  /* matrices (lists of rows) */
  scalar(3, "[[1, 2], [3, 4]][1][0]", 3, EXACT);
  vec(3, "([[1, 2], [3, 4]] + [[1, 1], [1, 1]])[0]", 2, (double[]){2, 3});
  vec(3, "2*[[1, 2], [3, 4]]", 4, (double[]){2, 4, 6, 8});
  /* cross products: 3D; 2D with the rules of FLUX_LANGUAGE.md */
  vec(3, "cross([1, 2, 3], [4, 5, 6])", 3, (double[]){2 * 6 - 3 * 5, 3 * 4 - 1 * 6, 1 * 5 - 2 * 4});
  vec(3, "cross([1, 0, 0], [0, 1, 0])", 3, (double[]){0, 0, 1});
  scalar(2, "cross([1, 2], [3, 4])", 1 * 4 - 2 * 3, EXACT); /* z component */
  vec(2, "cross([1, 2], 3)", 2, (double[]){2 * 3, -1 * 3}); /* a x (s e_z) */
  vec(2, "cross(3, [1, 2])", 2, (double[]){-3 * 2, 3 * 1}); /* (s e_z) x a */
  /* fields and traces (state layout: u, v[0..2]) */
  scalar(3, "u", 1.5, EXACT);
  scalar(3, "u*v[1]", 1.5 * 3.0, EXACT);
  vec(3, "v", 3, (double[]){2, 3, 4});
  vec(3, "u*v", 3, (double[]){3, 4.5, 6});
  scalar(3, "u.int", 1.0, EXACT);
  scalar(3, "u.ext", 3.0, EXACT);
  scalar(3, "avg(u)", 2.0, EXACT);   /* (1 + 3)/2 */
  scalar(3, "jump(u)", -2.0, EXACT); /* int - ext = 1 - 3 */
  scalar(3, "v.int[2]", 3.0, EXACT);
  scalar(3, "v[2].ext", 5.0, EXACT);
  vec(3, "avg(v)", 3, (double[]){0, 1, 4});
  vec(3, "jump(v)", 3, (double[]){2, 2, -2});
  scalar(3, "avg(u*v[0])", (1.0 * 1.0 + 3.0 * -1.0) / 2, EXACT);
  scalar(3, "jump(u)*n[1] + avg(dot(v, n))",
         -2 * 0.8 + ((1 * 0.6 + 2 * 0.8 + 3 * 0.0) + (-1 * 0.6 + 0 * 0.8 + 5 * 0.0)) / 2, 1e-15);

  /* precedence is visible in the tree */
  check_print("1 + 2*3", "(1 + (2*3))");
  check_print("2^3^2", "(2^(3^2))");
  check_print("-2^2", "(-(2^2))");
  check_print("a - b - 1", "((a - b) - 1)");
  check_print("a < b ? 1 : 0 ? 2 : 3", "((a < b) ? 1 : (0 ? 2 : 3))");
  check_print("v.int[1] + jump(u)", "(v.int[1] + (u.int - u.ext))");

  /* params: default, override (and a bad override), lets, initial states */
  const char *text =
      "dim 2\n"
      "fields p v[2]\n"
      "params c0 = 2, k = pi/2\n"
      "let w = c0*k\n"
      "let s = sin(k*x[0] - w*t)\n"
      "let s2 = s*s + s\n"
      "rhs p = -div(v)\nrhs v = -grad(p)\n"
      "flux p = -dot(n, avg(v))\nflux v = -n*avg(p)\n"
      "initial p = s2\n"
      "initial v = [s, -s]/c0\n"
      "exact p = s2\n"
      "source v = [t, x[1]]\n";
  dg_flux_program *prog = NULL;
  if (dg_flux_parse_string(text, "lets.flux", 0, &prog) != DG_OK) {
    dg_error_print(stdout);
    return 1;
  }
  int ip;
  double x[2] = {0.3, 0.7}, t = 0.25, out[3], u[3];
  if (dg_flux_param_find(prog, "k", &ip) != DG_OK || dg_flux_param(prog, ip)->value != M_PI / 2 ||
      dg_flux_param(prog, 0)->default_value != 2) {
    printf("FAIL params\n");
    failures++;
  }
  for (int pass = 0; pass < 2; pass++) {
    double c0 = pass == 0 ? 2.0 : 3.0, k = M_PI / 2;
    double s = sin(k * x[0] - c0 * k * t);
    if (dg_flux_eval_initial_state(prog, x, t, u) != DG_OK) {
      dg_error_print(stdout);
      return 1;
    }
    double want[3] = {s * s + s, s / c0, -s / c0};
    for (int i = 0; i < 3; i++)
      if (fabs(u[i] - want[i]) > 1e-15) {
        printf("FAIL initial state (c0 = %g)[%d] = %.17g, want %.17g\n", c0, i, u[i], want[i]);
        failures++;
      }
    if (dg_flux_eval_exact(prog, 0, x, t, out) != DG_OK || fabs(out[0] - want[0]) > 1e-15) {
      printf("FAIL exact p\n");
      failures++;
    }
    if (dg_flux_set_param(prog, "c0", 3.0) != DG_OK) {
      printf("FAIL set_param c0\n");
      failures++;
    }
  }
  if (dg_flux_eval_source(prog, 1, x, t, out) != DG_OK || out[0] != t || out[1] != x[1] ||
      dg_flux_eval_source(prog, 0, x, t, out) != DG_OK || out[0] != 0) {
    printf("FAIL sources\n");
    failures++;
  }
  if (dg_flux_eval_exact(prog, 1, x, t, out) != DG_ERR_INPUT) {
    printf("FAIL exact v should be missing\n");
    failures++;
  }
  dg_error_clear();
  if (dg_flux_set_param(prog, "c00", 1.0) != DG_ERR_INPUT ||
      !strstr(dg_error_message(), "has no param 'c00'; did you mean 'c0'?")) {
    printf("FAIL unknown param: %s\n", dg_error_message());
    failures++;
  }
  if (dg_flux_set_param(prog, "k", NAN) != DG_ERR_INPUT) {
    printf("FAIL NaN param accepted\n");
    failures++;
  }
  dg_error_clear();
  /* A derivative has no pointwise value; a missing state is an error. */
  dg_flux_point pt = {.x = x, .t = t};
  if (dg_flux_eval(prog, dg_flux_field(prog, 0)->rhs, &pt, out, 3) != DG_ERR_ARG ||
      dg_flux_eval(prog, dg_flux_field(prog, 0)->flux, &pt, out, 3) != DG_ERR_ARG ||
      dg_flux_eval(prog, dg_flux_field(prog, 1)->initial, &pt, out, 1) != DG_ERR_ARG) {
    printf("FAIL evaluation errors not reported\n");
    failures++;
  }
  dg_error_clear();
  dg_flux_program_destroy(&prog);
  if (prog) {
    printf("FAIL destroy does not clear the pointer\n");
    failures++;
  }

  if (failures == 0)
    printf("ok\n");
  return failures ? 1 : 0;
}
