/* operators.flux_gradients: the second-order terms of the flux language
 * (FLUX_LANGUAGE.md, "Second-order terms").
 *
 * 1. The heat equation in 1D, 2D and 3D, advection-diffusion, viscous
 *    Burgers and compressible Navier-Stokes in 2D and 3D parse; their
 *    gradient tables (names, count, is_let/ref/comp, the differentiated
 *    scalar), the shapes of the GRADQ leaves, the printed volume terms,
 *    surface forms and numerical fluxes (ldg() lowered to
 *    avg - beta_n*jump) and the boundaries' grad_exterior are the ones
 *    written out by hand here.
 * 2. The lowered volume term of div(nu*grad(u)) is dim partials of the
 *    pointwise nu*Q[d].
 * 3. dg_flux_eval of GRADQ (volume node, both traces) and LDGB against
 *    hand values; ldg(e) = e.ext at beta_n = 1/2, e.int at -1/2.
 * 4. The matrix helpers transpose, trace and dot(M, v) against hand values.
 * 5. The consistency check on programs with gradients: a consistent viscous
 *    flux passes, a wrong factor on its viscous part is found.
 * 6. Every error of the rules, with its line:col.
 * 7. Bernstein refuses a program with gradients, with its reason. */
#include <stdio.h>
#include <string.h>

#include "operators/flux.h"
#include "operators/flux_affine.h"
#include "operators/flux_consistency.h"
#include "operators/flux_eval.h"
#include "operators/flux_lower.h"
#include "operators/physics.h"
#include "tests/flux/flux_test.h"

static int failures;

/* Parse text for dim (0: from the file); print the errors and return NULL
 * when it does not parse. */
static dg_flux_program *parse(const char *label, const char *text, int dim) {
  dg_flux_program *prog = NULL;
  dg_flux_diags diags;
  if (dg_flux_parse_buffer(text, strlen(text), "t.flux", dim, &prog, &diags) != DG_OK) {
    printf("FAIL [%s] does not parse:\n", label);
    for (int i = 0; i < diags.count; i++)
      printf("  %d:%d: %s\n", diags.items[i].loc.line, diags.items[i].loc.col,
             diags.items[i].message);
    dg_error_print(stdout);
    dg_error_clear();
    failures++;
    return NULL;
  }
  return prog;
}

static void expect_print(const dg_flux_program *prog, const dg_flux_node *n, const char *want,
                         const char *label) {
  char buf[8192];
  if (!n) {
    CHECK(0, "[%s] no tree (want %s)", label, want);
    return;
  }
  dg_flux_print(prog, n, buf, sizeof buf);
  CHECK(strcmp(buf, want) == 0, "[%s]\n  got  %s\n  want %s", label, buf, want);
}

/* The gradient table: names[j], and whether each is of a let, its index
 * and component. */
typedef struct want_grad {
  const char *name;
  int is_let, ref, comp;
} want_grad;

static void expect_gradients(const dg_flux_program *prog, const char *label, const want_grad *w,
                             int n) {
  CHECK(dg_flux_gradient_count(prog) == n, "[%s] %d gradients, want %d", label,
        dg_flux_gradient_count(prog), n);
  for (int j = 0; j < n && j < dg_flux_gradient_count(prog); j++) {
    const dg_flux_gradient_info *g = dg_flux_gradient(prog, j);
    CHECK(strcmp(g->name, w[j].name) == 0 && g->is_let == w[j].is_let && g->ref == w[j].ref &&
              g->comp == w[j].comp,
          "[%s] gradient %d is %s (let %d, ref %d, comp %d), want %s (%d, %d, %d)", label, j,
          g->name, g->is_let, g->ref, g->comp, w[j].name, w[j].is_let, w[j].ref, w[j].comp);
    /* the scalar differentiated: a side-NONE FIELD or LET leaf, comp set */
    const dg_flux_node *a = g->arg;
    CHECK(a && a->op == (w[j].is_let ? DG_FLUX_LET : DG_FLUX_FIELD) && a->ref == w[j].ref &&
              a->comp == w[j].comp && a->side == DG_FLUX_SIDE_NONE && a->shape.rank == 0,
          "[%s] gradient %d's arg is not the scalar %s", label, j, w[j].name);
  }
  CHECK(!dg_flux_gradient(prog, n) && !dg_flux_gradient(prog, -1), "[%s] index out of range",
        label);
}

/* --- 1. programs ------------------------------------------------------------------ */

static void heat(int dim) {
  char text[1024], label[32];
  snprintf(label, sizeof label, "heat %dD", dim);
  snprintf(text, sizeof text,
           "dim %d\n"
           "fields u\n"
           "params nu = 1, tau = 1\n"
           "rhs u = div(nu*grad(u))\n"
           "flux u = dot(ldg(nu*grad(u)), n) - tau*jump(u)\n"
           "boundary dirichlet { u = -u.int; grad(u) = grad(u).int }\n"
           "boundary neumann { u = u.int; grad(u) = 2*0.5*n - grad(u).int }\n"
           "initial u = sin(pi*x[0])\n",
           dim);
  dg_flux_program *prog = parse(label, text, 0);
  if (!prog)
    return;
  const want_grad w[] = {{"u", 0, 0, 0}};
  expect_gradients(prog, label, w, 1);
  const dg_flux_field_info *u = dg_flux_field(prog, 0);
  expect_print(prog, u->rhs, "div((nu*grad(u)))", label);
  expect_print(prog, u->surface, "dot(n, (nu*grad(u).int))", label);
  expect_print(prog, u->flux,
               "(dot(((0.5*((nu*grad(u).int) + (nu*grad(u).ext))) - (beta_n*((nu*grad(u).int) - "
               "(nu*grad(u).ext)))), n) - (tau*(u.int - u.ext)))",
               label);
  /* grad(u) is a dim-vector leaf */
  const dg_flux_node *q = u->rhs->args[0]->args[1];
  CHECK(q->op == DG_FLUX_GRADQ && q->ref == 0 && q->comp == -1 && q->side == DG_FLUX_SIDE_NONE &&
            dg_flux_shape_equal(q->shape, dg_flux_shape_vector(dim)),
        "[%s] grad(u) is not the GRADQ dim-vector", label);
  const dg_flux_boundary_info *d = dg_flux_boundary(prog, 0), *nm = dg_flux_boundary(prog, 1);
  CHECK(d->grad_exterior && nm->grad_exterior, "[%s] no grad_exterior", label);
  if (d->grad_exterior && nm->grad_exterior) {
    expect_print(prog, d->grad_exterior[0], "grad(u).int", label);
    expect_print(prog, nm->grad_exterior[0], "(((2*0.5)*n) - grad(u).int)", label);
    CHECK(dg_flux_shape_equal(nm->grad_exterior[0]->shape, dg_flux_shape_vector(dim)),
          "[%s] the exterior gradient is not a dim-vector", label);
  }
  /* 2. lowered: the volume term is dim partials of nu*Q[d] */
  dg_flux_node *low;
  dg_flux_volume v;
  dg_flux_arena *a = dg_flux_program_arena(prog);
  if (dg_flux_lower_component(a, dim, u->rhs, 0, &low) != DG_OK ||
      dg_flux_lower_volume(a, low, &v) != DG_OK) {
    dg_error_print(stdout);
    dg_error_clear();
    CHECK(0, "[%s] lowering failed", label);
  } else {
    CHECK(v.nterms == dim && dg_flux_node_is_zero(v.pointwise), "[%s] %d terms, want %d", label,
          v.nterms, dim);
    for (int k = 0; k < v.nterms; k++) {
      char want[64];
      snprintf(want, sizeof want, "(nu*grad(u)[%d])", k);
      CHECK(v.terms[k].dir == k, "[%s] term %d differentiates along %d", label, k, v.terms[k].dir);
      expect_print(prog, v.terms[k].arg, want, label);
    }
  }
  dg_flux_program_destroy(&prog);
}

static void advection_diffusion(void) {
  const char *text = "dim 2\n"
                     "fields u\n"
                     "params nu = 0.01, tau = 1\n"
                     "let a = [1, 0.5]\n"
                     "rhs u = -div(a*u) + div(nu*grad(u))\n"
                     "flux u = -dot(a, n)*avg(u) - abs(dot(a, n))/2*jump(u) +\n"
                     "  dot(ldg(nu*grad(u)), n) - tau*jump(u)\n"
                     "boundary b { u = u.int; grad(u) = grad(u).int }\n"
                     "initial u = sin(pi*x[0])\n";
  dg_flux_program *prog = parse("advection-diffusion", text, 0);
  if (!prog)
    return;
  const want_grad w[] = {{"u", 0, 0, 0}};
  expect_gradients(prog, "advection-diffusion", w, 1);
  const dg_flux_field_info *u = dg_flux_field(prog, 0);
  expect_print(prog, u->rhs, "((-div((a*u))) + div((nu*grad(u))))", "advection-diffusion");
  expect_print(prog, u->surface, "((-dot(n, (a*u.int))) + dot(n, (nu*grad(u).int)))",
               "advection-diffusion");
  dg_flux_program_destroy(&prog);
}

static void burgers(void) {
  const char *text =
      "dim 1\n"
      "fields u\n"
      "params nu = 0.01, tau = 1\n"
      "rhs u = -dx(u^2/2) + dx(nu*dx(u))\n"
      "flux u = -n[0]*avg(u^2/2) - max(abs(u.int), abs(u.ext))/2*jump(u) +\n"
      "  n[0]*ldg(nu*dx(u)) - tau*jump(u)\n"
      "boundary b { u = -u.int; grad(u) = grad(u).int }\n"
      "initial u = sin(pi*x[0])\n";
  dg_flux_program *prog = parse("burgers", text, 0);
  if (!prog)
    return;
  const want_grad w[] = {{"u", 0, 0, 0}};
  expect_gradients(prog, "burgers", w, 1);
  const dg_flux_field_info *u = dg_flux_field(prog, 0);
  expect_print(prog, u->rhs, "((-dx(((u^2)/2))) + dx((nu*grad(u)[0])))", "burgers");
  expect_print(prog, u->surface, "((-(n[0]*((u.int^2)/2))) + (n[0]*(nu*grad(u).int[0])))",
               "burgers");
  expect_print(prog, u->flux,
               "(((((-n[0])*(0.5*(((u.int^2)/2) + ((u.ext^2)/2)))) - ((max(abs(u.int), "
               "abs(u.ext))/2)*(u.int - u.ext))) + (n[0]*((0.5*((nu*grad(u).int[0]) + "
               "(nu*grad(u).ext[0]))) - (beta_n*((nu*grad(u).int[0]) - (nu*grad(u).ext[0]))))))"
               " - (tau*(u.int - u.ext)))",
               "burgers");
  dg_flux_program_destroy(&prog);
}

/* Compressible Navier-Stokes, conserved variables, primitive gradients of
 * the lets u and T (R = 1): common39.md's program. */
static void navier_stokes_text(int dim, char *buf, size_t size) {
  const char *I = dim == 2 ? "[[1, 0], [0, 1]]" : "[[1, 0, 0], [0, 1, 0], [0, 0, 1]]";
  const char *pI = dim == 2 ? "[m[0]*u + [p, 0], m[1]*u + [0, p]]"
                            : "[m[0]*u + [p, 0, 0], m[1]*u + [0, p, 0], m[2]*u + [0, 0, p]]";
  const char *m0 = dim == 2 ? "[sin(x[1]), 0]" : "[sin(x[1]), 0, 0.1*cos(x[0])]";
  snprintf(buf, size,
           "dim %d\n"                                                          /* 1 */
           "fields rho m[%d] E\n"                                              /* 2 */
           "params gamma = 1.4, mu = 6.25e-4, Pr = 0.71, tau = 0.1\n"         /* 3 */
           "let u = m/rho\n"                                                   /* 4 */
           "let p = (gamma - 1)*(E - 0.5*dot(m, u))\n"                         /* 5 */
           "let T = p/rho\n"                                                   /* 6 */
           "let S = mu*(grad(u) + transpose(grad(u))) - 2/3*mu*trace(grad(u))*%s\n" /* 7 */
           "let qh = mu*gamma/Pr/(gamma - 1)*grad(T)\n"                        /* 8 */
           "rhs rho = -div(m)\n"                                               /* 9 */
           "rhs m = -div(%s - S)\n"                                            /* 10 */
           "rhs E = -div((E + p)*u - dot(S, u) - qh)\n"                        /* 11 */
           "let un = dot(u, n)\n"                                              /* 12 */
           "let c = sqrt(gamma*p/rho)\n"                                       /* 13 */
           "let lam = max(abs(un.int) + c.int, abs(un.ext) + c.ext)\n"         /* 14 */
           "flux rho = -(avg(rho*un) + lam/2*jump(rho))\n"                     /* 15 */
           "flux m = -(avg(m*un + p*n) + lam/2*jump(m)) + dot(ldg(S), n) - tau*jump(m)\n"
           "flux E = -(avg((E + p)*un) + lam/2*jump(E)) + dot(ldg(dot(S, u) + qh), n)"
           " - tau*jump(E)\n"                                                  /* 17 */
           "boundary wall { rho = rho.int; m = -m.int; E = E.int\n"            /* 18 */
           "  grad(u) = grad(u).int; grad(T) = grad(T).int - 2*dot(grad(T).int, n)*n }\n"
           "initial rho = 1 + 0.1*sin(x[0])\n"                                 /* 20 */
           "initial m = %s\n"                                                  /* 21 */
           "initial E = 2.5 + 0.5*sin(x[1])^2\n",                             /* 22 */
           dim, dim, I, pI, m0);
}

static void navier_stokes(int dim) {
  char text[4096], label[32];
  snprintf(label, sizeof label, "Navier-Stokes %dD", dim);
  navier_stokes_text(dim, text, sizeof text);
  dg_flux_program *prog = parse(label, text, 0);
  if (!prog)
    return;
  /* first use: the let S (grad(u), row by row), then qh (grad(T)) */
  const want_grad w2[] = {{"u[0]", 1, 0, 0}, {"u[1]", 1, 0, 1}, {"T", 1, 2, 0}};
  const want_grad w3[] = {{"u[0]", 1, 0, 0}, {"u[1]", 1, 0, 1}, {"u[2]", 1, 0, 2}, {"T", 1, 2, 0}};
  expect_gradients(prog, label, dim == 2 ? w2 : w3, dim + 1);
  /* S, qh read gradients bare: their LET nodes take sides (lets_bare) */
  const unsigned char *bare = dg_flux_program_lets_bare(prog);
  CHECK(bare[3] && bare[4], "[%s] S and qh are not lets_bare", label);
  CHECK(dg_flux_shape_equal(dg_flux_let(prog, 3)->body->shape, dg_flux_shape_matrix(dim, dim)),
        "[%s] S is not %dx%d", label, dim, dim);
  const dg_flux_boundary_info *b = dg_flux_boundary(prog, 0);
  if (b->grad_exterior) {
    for (int i = 0; i < dim; i++) {
      char want[32];
      snprintf(want, sizeof want, "grad(u[%d]).int", i);
      expect_print(prog, b->grad_exterior[i], want, label);
    }
    expect_print(prog, b->grad_exterior[dim], "(grad(T).int - ((2*dot(grad(T).int, n))*n))",
                 label);
  } else {
    CHECK(0, "[%s] no grad_exterior", label);
  }
  const dg_flux_field_info *E = dg_flux_field(prog, 2);
  expect_print(prog, E->surface,
               dim == 2 ? "(-dot(n, ((((E.int + p.int)*u.int) - [dot(S.int[0], u.int), "
                          "dot(S.int[1], u.int)]) - qh.int)))"
                        : "(-dot(n, ((((E.int + p.int)*u.int) - [dot(S.int[0], u.int), "
                          "dot(S.int[1], u.int), dot(S.int[2], u.int)]) - qh.int)))",
               label);
  dg_flux_program_destroy(&prog);
}


/* --- 3. evaluation ------------------------------------------------------------------- */

static double eval1(const dg_flux_program *prog, const dg_flux_node *n, const dg_flux_point *pt,
                    double *out, int nout) {
  if (dg_flux_eval(prog, n, pt, out, nout) != DG_OK) {
    dg_error_print(stdout);
    dg_error_clear();
    CHECK(0, "evaluation failed");
    return NAN;
  }
  return out[0];
}

static void near(double got, double want, const char *what) {
  /* a few roundings of O(1) terms */
  CHECK(fabs(got - want) <= 1e-14 * (1 + fabs(want)), "%s = %.17g, want %.17g", what, got, want);
}

static void evaluation(void) {
  char text[1024];
  snprintf(text, sizeof text, "dim 2\nfields u\nparams nu = 1, tau = 1\n"
                              "rhs u = div(nu*grad(u))\n"
                              "flux u = dot(ldg(nu*grad(u)), n) - tau*jump(u)\n"
                              "boundary b { u = -u.int; grad(u) = 2*0.5*n - grad(u).int }\n"
                              "initial u = sin(pi*x[0])\n");
  dg_flux_program *prog = parse("heat eval", text, 0);
  if (!prog)
    return;
  CHECK(dg_flux_set_param(prog, "nu", 2.0) == DG_OK, "set nu");
  CHECK(dg_flux_set_param(prog, "tau", 3.0) == DG_OK, "set tau");
  const dg_flux_field_info *u = dg_flux_field(prog, 0);
  double q[2] = {0.3, -0.7}, qi[2] = {0.25, 1.5}, qe[2] = {-1.0, 0.125};
  double ui = 0.75, ue = -0.5, n[2] = {0.6, 0.8}, x[2] = {0.1, 0.2}, out[8];
  /* the volume node: nu*Q */
  dg_flux_point pt = {.x = x, .q = q};
  eval1(prog, u->rhs->args[0], &pt, out, 8);
  near(out[0], 0.6, "nu*grad(u)[0]");
  near(out[1], -1.4, "nu*grad(u)[1]");
  /* the flux at beta_n = 0.5, -0.5, 0.2: dot(avg(nu*Q) - b*jump(nu*Q), n) - tau*(ui - ue) */
  const double betas[3] = {0.5, -0.5, 0.2};
  for (int k = 0; k < 3; k++) {
    double b = betas[k];
    dg_flux_point f = {.x = x, .n = n, .u_int = &ui, .u_ext = &ue, .q_int = qi, .q_ext = qe,
                       .ldgb = b};
    double want = 0;
    for (int d = 0; d < 2; d++)
      want += (0.5 * (2 * qi[d] + 2 * qe[d]) - b * (2 * qi[d] - 2 * qe[d])) * n[d];
    want -= 3.0 * (ui - ue);
    near(eval1(prog, u->flux, &f, out, 8), want, "the heat flux");
    if (k < 2) /* ldg at +1/2 is the exterior value, at -1/2 the interior one */
      near(want + 3.0 * (ui - ue), 2 * (b > 0 ? qe[0] * n[0] + qe[1] * n[1] : qi[0] * n[0] + qi[1] * n[1]),
           "ldg at |beta_n| = 1/2");
    /* the surface form reads the interior trace */
    near(eval1(prog, u->surface, &f, out, 8), 2 * (qi[0] * n[0] + qi[1] * n[1]), "surface");
  }
  /* the Neumann exterior gradient: n - Q.int */
  dg_flux_point bp = {.x = x, .n = n, .u_int = &ui, .q_int = qi};
  eval1(prog, dg_flux_boundary(prog, 0)->grad_exterior[0], &bp, out, 8);
  near(out[0], n[0] - qi[0], "grad(u).ext[0]");
  near(out[1], n[1] - qi[1], "grad(u).ext[1]");
  /* a missing gradient is an error naming it */
  dg_flux_point none = {.x = x};
  CHECK(dg_flux_eval(prog, u->rhs->args[0], &none, out, 8) == DG_ERR_ARG &&
            strstr(dg_error_message(), "grad(u)"),
        "reading a missing gradient: %s", dg_error_message());
  dg_error_clear();
  dg_flux_program_destroy(&prog);

  /* Navier-Stokes 2D: the viscous stress S and the adiabatic wall's T gradient */
  navier_stokes_text(2, text, sizeof text);
  if (!(prog = parse("Navier-Stokes eval", text, 0)))
    return;
  /* gradients u[0], u[1], T */
  double g[6] = {0.5, -0.25, 2.0, 0.75, 0.3, -0.4};
  dg_flux_point vp = {.x = x, .q = g};
  eval1(prog, dg_flux_let(prog, 3)->body, &vp, out, 8);
  double mu = 6.25e-4, div = g[0] + g[3];
  double S[4] = {mu * 2 * g[0] - 2.0 / 3 * mu * div, mu * (g[1] + g[2]), mu * (g[2] + g[1]),
                 mu * 2 * g[3] - 2.0 / 3 * mu * div};
  for (int i = 0; i < 4; i++)
    CHECK(fabs(out[i] - S[i]) <= 1e-18, "S[%d][%d] = %.17g, want %.17g", i / 2, i % 2, out[i],
          S[i]);
  vp = (dg_flux_point){.x = x, .n = n, .q_int = g};
  eval1(prog, dg_flux_boundary(prog, 0)->grad_exterior[2], &vp, out, 8);
  double gn = g[4] * n[0] + g[5] * n[1];
  near(out[0], g[4] - 2 * gn * n[0], "adiabatic grad(T).ext[0]");
  near(out[1], g[5] - 2 * gn * n[1], "adiabatic grad(T).ext[1]");
  CHECK(fabs(0.5 * ((out[0] + g[4]) * n[0] + (out[1] + g[5]) * n[1])) < 1e-15,
        "the adiabatic wall's average has a normal part");
  dg_flux_program_destroy(&prog);
}

/* --- 4. matrix helpers ------------------------------------------------------------------ */

static void matrix_helpers(void) {
  const char *text = "dim 2\nfields u\n"
                     "let M = [[1, 2, 3], [4, 5, 6]]\n"
                     "let Mt = transpose(M)\n"
                     "let tr = trace([[1, 2], [3, 4]])\n"
                     "let Mv = dot(M, [1, 0, -1])\n"
                     "let Xv = dot([[x[0], 1], [0, x[1]]], [2, 3])\n"
                     "let Xt = trace(transpose([[x[0], 7], [5, x[1]]]))\n"
                     "rhs u = -dx(u)\nflux u = -n[0]*avg(u)\nboundary b { u = u.int }\n"
                     "initial u = Mt[2][1] + tr + Mv[0] + Xv[1] + Xt\n";
  dg_flux_program *prog = parse("matrix helpers", text, 0);
  if (!prog)
    return;
  double x[2] = {0.5, -2.0}, out[16];
  dg_flux_point pt = {.x = x};
  const double Mt[6] = {1, 4, 2, 5, 3, 6}, Mv[2] = {-2, -2}, Xv[2] = {2 * 0.5 + 3, 3 * -2.0};
  eval1(prog, dg_flux_let(prog, 1)->body, &pt, out, 16);
  CHECK(dg_flux_shape_equal(dg_flux_let(prog, 1)->body->shape, dg_flux_shape_matrix(3, 2)),
        "transpose of 2x3 is not 3x2");
  for (int i = 0; i < 6; i++)
    CHECK(out[i] == Mt[i], "transpose[%d] = %g, want %g", i, out[i], Mt[i]);
  CHECK(eval1(prog, dg_flux_let(prog, 2)->body, &pt, out, 16) == 5, "trace = %g", out[0]);
  eval1(prog, dg_flux_let(prog, 3)->body, &pt, out, 16);
  CHECK(out[0] == Mv[0] && out[1] == Mv[1], "dot(M, v) = (%g, %g)", out[0], out[1]);
  eval1(prog, dg_flux_let(prog, 4)->body, &pt, out, 16);
  CHECK(out[0] == Xv[0] && out[1] == Xv[1], "dot(X, v) = (%g, %g)", out[0], out[1]);
  CHECK(eval1(prog, dg_flux_let(prog, 5)->body, &pt, out, 16) == x[0] + x[1], "trace = %g",
        out[0]);
  double u0;
  CHECK(dg_flux_eval_initial(prog, 0, x, 0, &u0) == DG_OK && u0 == 6 + 5 - 2 - 6.0 - 1.5,
        "initial = %g", u0);
  expect_print(prog, dg_flux_let(prog, 2)->body, "(1 + 4)", "trace");
  dg_flux_program_destroy(&prog);
}


/* --- 5. consistency ------------------------------------------------------------------------ */

static void consistency(void) {
  const double pts[6] = {0.1, 0.2, 0.7, 0.4, 0.35, 0.9};
  char text[4096], why[2048];
  dg_flux_consistency_result res;
  navier_stokes_text(2, text, sizeof text);
  dg_flux_program *prog = parse("Navier-Stokes consistency", text, 0);
  for (int f = 0; prog && f < dg_flux_field_count(prog); f++) {
    CHECK(dg_flux_consistency_field(prog, f, pts, 3, &res, why, sizeof why) == DG_OK &&
              res == DG_FLUX_CONSISTENT,
          "Navier-Stokes field %d: %d %s", f, (int)res, why);
  }
  dg_flux_program_destroy(&prog);
  /* twice the viscous flux: found, and the message gives the gradients */
  const char *bad = "dim 2\nfields u\nparams nu = 1, tau = 1\n"
                    "rhs u = div(nu*grad(u))\n"
                    "flux u = dot(ldg(2*nu*grad(u)), n) - tau*jump(u)\n"
                    "boundary b { u = -u.int; grad(u) = grad(u).int }\n"
                    "initial u = sin(pi*x[0])\n";
  if (!(prog = parse("heat, twice the flux", bad, 0)))
    return;
  CHECK(dg_flux_consistency_field(prog, 0, pts, 3, &res, why, sizeof why) == DG_OK &&
            res == DG_FLUX_INCONSISTENT && strstr(why, " and gradients (") &&
            strstr(why, ", beta_n = "),
        "twice the viscous flux: %d %s", (int)res, why);
  dg_flux_program_destroy(&prog);
}

/* --- 7. Bernstein ------------------------------------------------------------------------------ */

static void bernstein(void) {
  const char *text = "dim 2\nfields u\nparams nu = 1, tau = 1\n"
                     "rhs u = div(nu*grad(u))\n"
                     "flux u = dot(ldg(nu*grad(u)), n) - tau*jump(u)\n"
                     "boundary b { u = -u.int; grad(u) = grad(u).int }\n"
                     "initial u = sin(pi*x[0])\n";
  dg_flux_program *prog = parse("heat bernstein", text, 0);
  if (!prog)
    return;
  dg_physics ph;
  dg_physics_tables *tab = NULL;
  if (dg_physics_from_program(prog, &ph, &tab) == DG_OK) {
    CHECK(ph.ngrad == 1 && ph.grad_arg[0] == dg_flux_gradient(prog, 0)->arg &&
              ph.bc_grad[0] == dg_flux_boundary(prog, 0)->grad_exterior[0] &&
              ph.ldg_beta == 0.5,
          "the physics' gradient tables");
    dg_error err = dg_flux_check_affine(&ph, NULL, "t.flux");
    CHECK(err == DG_ERR_INPUT &&
              strcmp(dg_error_message(),
                     "t.flux:4:16: error: a lifted gradient (second-order terms, 1 in all): "
                     "the Bernstein path has no gradient pass for second-order terms (the lifted "
                     "gradients are nodal)") == 0,
          "Bernstein: %d %s", (int)err, dg_error_message());
    dg_error_clear();
  }
  dg_physics_tables_destroy(&tab);
  dg_flux_program_destroy(&prog);
}


/* --- 6. errors ------------------------------------------------------------------------------ */

/* The heat equation in 2D, every line correct; cases replace one line. */
static const char *const heat2[] = {
    "dim 2",                                              /* 1 */
    "fields u",                                           /* 2 */
    "params nu = 1, tau = 1",                             /* 3 */
    "let a = u*u",                                        /* 4 */
    "rhs u = div(nu*grad(u))",                            /* 5 */
    "flux u = dot(ldg(nu*grad(u)), n) - tau*jump(u)",     /* 6 */
    "boundary b { u = -u.int; grad(u) = grad(u).int }",   /* 7 */
    "initial u = sin(pi*x[0])",                           /* 8 */
    NULL};

/* Advection 1D: a first-order program. */
static const char *const advection[] = {
    "dim 1", "fields u", "rhs u = -dx(u)", "flux u = -n[0]*avg(u)", "boundary b { u = u.int }",
    "initial u = sin(x[0])", NULL};

typedef struct error_case {
  const char *const *base;
  int line;
  const char *repl;
  int wl, wc;
  const char *message;
} error_case;

static const char *const ANON =
    " of an expression inside a derivative, a let, a flux or a boundary: a second-order term "
    "differentiates a name; write let q = ... and ";
static const char *const PURE =
    "a second-order term differentiates fields and lets of fields and params";
static const char *const WHERE =
    "exist only in volume terms (rhs), let bindings, numerical fluxes and boundary conditions";

static void errors(void) {
  char m[64][256];
  int k = 0;
#define MSG(...) (snprintf(m[k], sizeof m[k], __VA_ARGS__), m[k++])
  const error_case cases[] = {
      /* what a lifted derivative differentiates */
      {heat2, 5, "rhs u = div(nu*grad(2*u))", 5, 16, MSG("grad%sgrad(q)", ANON)},
      {heat2, 5, "rhs u = dx(dx(dx(u)))", 5, 12, MSG("dx%sdx(q)", ANON)},
      {heat2, 6, "flux u = dot(ldg(nu*grad(u.int)), n) - tau*jump(u)", 6, 27,
       "a trace goes outside a lifted gradient: write grad(u).int"},
      {heat2, 5, "rhs u = div(nu*curl(u))", 5, 16,
       "curl of a lifted gradient (inside a derivative, a let, a flux or a boundary) is not "
       "available; write it with dx, dy and dz"},
      {heat2, 5, "let b = u*x[0]\nrhs u = div(nu*grad(b))", 6, 21,
       MSG("cannot take grad(b): let 'b' reads the position x (at 5:11); %s", PURE)},
      {heat2, 5, "let b = a*t\nrhs u = div(nu*grad(b))", 6, 21,
       MSG("cannot take grad(b): let 'b' reads the time t (at 5:11); %s", PURE)},
      {heat2, 5, "coefficients k > 0\nlet b = u*k\nrhs u = div(nu*grad(b))", 7, 21,
       MSG("cannot take grad(b): let 'b' reads coefficient 'k' (at 6:11); %s", PURE)},
      {heat2, 5, "let b = u*n[0]\nrhs u = div(nu*grad(b))", 6, 21,
       MSG("cannot take grad(b): let 'b' reads the normal n (at 5:11); %s", PURE)},
      {heat2, 5, "let b = avg(u)\nrhs u = div(nu*grad(b))", 6, 21,
       MSG("cannot take grad(b): let 'b' reads traces (.int, .ext, avg, jump) (at 5:13); %s",
           PURE)},
      {heat2, 5, "rhs u = div(grad(nu))", 5, 18,
       MSG("cannot take grad(nu): 'nu' is a param; %s", PURE)},
      {heat2, 5, "rhs u = div(grad(x[0]))", 5, 18,
       MSG("cannot take grad(x): 'x' is the position; %s", PURE)},
      {heat2, 5, "rhs u = div(grad(uu))", 5, 18, "unknown name 'uu'; did you mean 'u'?"},
      {heat2, 4, "let q = grad(b)\nlet b = u", 4, 14,
       "'b' is defined below (at 5:5); a let can use only names defined above it"},
      {heat2, 5, "rhs u = div(div(u))", 5, 13, "div in 2D needs a 2-vector, got a scalar 'u'"},
      {heat2, 4, "let M = [[u, u], [u, u]]\nlet q = dx(M)", 5, 12,
       "cannot take dx(M) of a matrix; differentiate its rows"},
      {heat2, 5, "rhs u = div(nu*dz(u))", 5, 16,
       "'dz' needs dimension 3 or more; this is a 2D problem"},
      /* traces */
      {heat2, 6, "flux u = dot(nu*grad(u), n) - tau*jump(u)", 6, 17,
       "grad(u) needs a trace in a numerical flux: write grad(u).int, grad(u).ext, or avg, "
       "jump or ldg of it"},
      {heat2, 7, "boundary b { u = -u.int; grad(u) = grad(u).ext }", 7, 43,
       "'.ext' of a gradient in a boundary condition: the boundary gives the exterior gradient "
       "itself (grad(NAME) = ...); use grad(...).int"},
      {heat2, 7, "boundary b { u = -grad(u)[0]; grad(u) = grad(u).int }", 7, 19,
       "grad(u) needs a trace in a boundary condition: write grad(u).int"},
      {heat2, 4, "let q = grad(u)[0] + avg(u)", 4, 5,
       "let 'q' mixes gradients with and without traces; bind the pointwise part and apply "
       ".int/.ext/avg/jump where it is used"},
      /* where gradients cannot stand */
      {heat2, 8, "initial u = dx(u)", 8, 13,
       MSG("derivatives ('dx') %s, not in an initial condition", WHERE)},
      {heat2, 4, "let q = grad(u)\nexact u = q[0]", 5, 11,
       "'q' depends on gradients, which an exact solution cannot use"},
      {heat2, 4, "let q = grad(u)\nintegral e = q[0]", 5, 14,
       "'q' depends on gradients, which an integral cannot use"},
      {heat2, 3, "params nu = dx(1), tau = 1", 3, 13,
       MSG("derivatives ('dx') %s, not in a param default", WHERE)},
      /* ldg */
      {heat2, 4, "let q = ldg(u)", 4, 9,
       "ldg(...) exists only in numerical fluxes (the LDG flux of a second-order term), not in "
       "a let binding"},
      {heat2, 7, "boundary b { u = ldg(u); grad(u) = grad(u).int }", 7, 18,
       "ldg(...) exists only in numerical fluxes (the LDG flux of a second-order term), not in "
       "a boundary condition"},
      {heat2, 5, "rhs u = ldg(u)", 5, 9,
       "ldg(...) exists only in numerical fluxes (the LDG flux of a second-order term), not in "
       "a volume term (rhs)"},
      /* matrix helpers */
      {heat2, 4, "let q = transpose([1, 2])", 4, 9, "transpose needs a matrix, got a 2-vector"},
      {heat2, 4, "let q = trace([[1, 2, 3], [4, 5, 6]])", 4, 9,
       "trace needs a square matrix, got a 2x3 matrix"},
      {heat2, 4, "let q = dot([[1, 2, 3], [4, 5, 6]], [1, 2])", 4, 9,
       "dot(M, v) of a 2x3 matrix needs a 3-vector v, got a 2-vector"},
      /* boundaries */
      {heat2, 7, "boundary b { u = -u.int }", 7, 10,
       "boundary 'b' does not give grad(u) (each differentiated name's exterior gradient is "
       "needed; 'grad(u) = grad(u).int' keeps the interior one)"},
      {heat2, 7, "boundary b { u = -u.int; grad(u) = grad(u).int; grad(a) = grad(a).int }", 7, 54,
       "boundary 'b' gives grad(a), but no term uses a gradient of 'a'; remove it"},
      {advection, 5, "boundary b { u = u.int; grad(u) = [0] }", 5, 30,
       "boundary 'b' gives grad(u), but the program has no second-order terms (no gradient is "
       "lifted); remove it"},
      {heat2, 7, "boundary b { u = -u.int; grad(u) = grad(u).int; grad(u) = grad(u).int }", 7, 54,
       "grad(u) is given twice in boundary 'b' (first at 7:31)"},
      {heat2, 7, "boundary b { u = -u.int; grad(u) = 0 }", 7, 36,
       "the exterior gradient of 'u' in boundary 'b' is a scalar, but grad(u) is a 2-vector"},
      {heat2, 7, "boundary b { u = -u.int; grad(u) = grad(a).int }", 7, 43,
       "the exterior gradient of 'u' in boundary 'b' reads grad(a), a gradient that no term of "
       "the equations lifts"},
      {heat2, 7, "boundary b { u = -u.int; grad(uu) = grad(u).int }", 7, 31,
       "unknown name 'uu'; did you mean 'u'?"},
      {heat2, 7, "boundary b { u = -u.int; grad(u = u.int }", 7, 33,
       "expected ')' to close the '(' at 7:30, found '='"},
      /* the built-in names */
      {heat2, 3, "params nu = 1, tau = 1, ldg = 2", 3, 25,
       "'ldg' is a built-in name and cannot be redefined"},
      {heat2, 4, "let transpose = u", 4, 5, "'transpose' is a built-in name and cannot be redefined"},
      {heat2, 2, "fields u trace", 2, 10, "'trace' is a built-in name and cannot be redefined"},
  };
#undef MSG
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    const error_case *c = &cases[i];
    if (!c->message)
      continue;
    char text[4096];
    ft_build_text(c->base, c->line, c->repl, text, sizeof text);
    if (!expect_one_error(c->repl, text, 0, c->wl, c->wc, c->message))
      failures++;
  }
  /* a third derivative: the gradient of a let of a gradient */
  char text[4096];
  ft_build_text(heat2, 5, "rhs u = div(nu*grad(u)) + dx(dx(q))", text, sizeof text);
  char with_q[4200];
  snprintf(with_q, sizeof with_q, "let q = dx(u)\n%s", text);
  if (!expect_one_error("dx(dx(q))", with_q, 0, 6, 33,
                        "cannot take dx(q): let 'q' reads the gradient grad(u) (at 1:9); a "
                        "lifted gradient is not differentiated again (a third derivative)"))
    failures++;
  /* a let of gradients traced in a flux parses; used bare it is an error */
  ft_build_text(heat2, 6, "flux u = dot(q, n) - tau*jump(u)", text, sizeof text);
  snprintf(with_q, sizeof with_q, "let q = nu*grad(u)\n%s", text);
  if (!expect_one_error("bare q", with_q, 0, 7, 14,
                        "'q' depends on gradients; in a numerical flux write q.int, q.ext, "
                        "avg(q) or jump(q)"))
    failures++;
  /* Navier-Stokes: a boundary without the gradients names both NAMEs once */
  navier_stokes_text(2, text, sizeof text);
  char *g = strstr(text, "  grad(u) = grad(u).int; grad(T) = grad(T).int - 2*dot(grad(T).int, n)*n }");
  if (g) {
    strcpy(g, "}\ninitial rho = 1\ninitial m = [0, 0]\ninitial E = 2.5\n");
    if (!expect_one_error("NS without grad(...)", text, 0, 18, 10,
                          "boundary 'wall' does not give grad(u), grad(T) (each differentiated "
                          "name's exterior gradient is needed; 'grad(u) = grad(u).int' keeps the "
                          "interior one)"))
      failures++;
  } else {
    CHECK(0, "the Navier-Stokes text has no gradient boundary line");
  }
}

int main(void) {
  for (int dim = 1; dim <= 3; dim++)
    heat(dim);
  advection_diffusion();
  burgers();
  navier_stokes(2);
  navier_stokes(3);
  evaluation();
  matrix_helpers();
  consistency();
  bernstein();
  errors();
  if (failures)
    printf("%d failure%s\n", failures, failures == 1 ? "" : "s");
  else
    printf("ok\n");
  return failures ? 1 : 0;
}
