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
#include "operators/flux_eval.h"
#include "operators/flux_lower.h"
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

int main(void) {
  for (int dim = 1; dim <= 3; dim++)
    heat(dim);
  advection_diffusion();
  burgers();
  navier_stokes(2);
  navier_stokes(3);
  if (failures)
    printf("%d failure%s\n", failures, failures == 1 ? "" : "s");
  else
    printf("ok\n");
  return failures ? 1 : 0;
}
