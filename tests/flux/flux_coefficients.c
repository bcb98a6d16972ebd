/* operators.flux_coefficients: the `coefficients` statement.
 *
 * 1. A valid file declares coefficients with their bounds (table, find,
 *    ph->ncoef); a coefficient is read at the volume node in volume terms
 *    and integrals, from the interior or exterior trace in fluxes (also
 *    through a let of bare coefficients, which takes the side of its use),
 *    from the interior trace in boundary conditions and surface forms:
 *    values evaluated against hand computations, with the other sides'
 *    arrays absent (so a wrong side is an error, not a wrong number).
 * 2. Surface forms take coefficient factors on the interior trace
 *    (printed), lowering keeps a coefficient's side, the Bernstein check
 *    refuses coefficients.
 * 3. The consistency check draws each coefficient within its bounds, the
 *    same on both sides; the impedance-weighted upwind fluxes of Maxwell TM
 *    and acoustics across a material interface (tests/flux/inputs/
 *    *_interface.flux) pass, and each with one wrong factor fails naming
 *    its field; their face states satisfy the Riemann invariants of both
 *    media (they are the upwind fluxes, not just consistent ones).
 * 4. Each mistake is one error at its line and column with its message. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "operators/flux.h"
#include "operators/flux_affine.h"
#include "operators/flux_consistency.h"
#include "operators/flux_eval.h"
#include "operators/flux_lower.h"
#include "operators/physics.h"
#include "flux_test.h"

static int failures;


/* Every line correct; error cases replace one line. */
static const char *const base[] = {
    "dim 2",                                                  /* 1 */
    "fields u E[2]",                                          /* 2 */
    "params a = 2",                                           /* 3 */
    "coefficients kap > 0, sig >= -1 <= 1, wgt < 3, rho",     /* 4 */
    "let Zk = sqrt(kap)",                                     /* 5 */
    "let fk = kap*u",                                         /* 6 */
    "rhs u = -div(fk*[1, x[1]])/rho + sig*u",                 /* 7 */
    "rhs E = curl(u)/kap",                                    /* 8 */
    "flux u = -dot(n, avg(fk*[1, x[1]]))/rho.int",            /* 9 */
    "flux E = cross(n, avg(u))/kap.int - a*Zk.int*jump(E)",   /* 10 */
    "boundary wall { u = u.int*kap.int; E = -E.int }",        /* 11 */
    "initial u = 1 + x[0]",                                   /* 12 */
    "initial E = [x[1], 2]",                                  /* 13 */
    "integral ku = kap*u + wgt",                              /* 14 */
    NULL};

static dg_flux_program *parse(const char *text, const char *name, int dim) {
  dg_flux_program *prog = NULL;
  if (dg_flux_parse_string(text, name, dim, &prog) != DG_OK) {
    printf("FAIL parsing %s:\n", name);
    dg_error_print(stdout);
    dg_error_clear();
    failures++;
  }
  return prog;
}

static void close_to(const char *what, double got, double want) {
  CHECK(fabs(got - want) <= 1e-13 * fmax(1.0, fabs(want)), "%s = %.17g, want %.17g", what, got,
        want);
}

static void printed(const dg_flux_program *prog, const dg_flux_node *n, const char *want) {
  char buf[512];
  dg_flux_print(prog, n, buf, sizeof buf);
  CHECK(strcmp(buf, want) == 0, "printed '%s', want '%s'", buf, want);
}

/* The table: names, bounds, lookup. */
static void check_table(dg_flux_program *prog) {
  CHECK(dg_flux_coef_count(prog) == 4, "%d coefficients, want 4", dg_flux_coef_count(prog));
  const dg_flux_coef_info *k = dg_flux_coef(prog, 0), *s = dg_flux_coef(prog, 1),
                          *w = dg_flux_coef(prog, 2), *r = dg_flux_coef(prog, 3);
  if (!k || !s || !w || !r || dg_flux_coef(prog, 4)) {
    CHECK(0, "dg_flux_coef out of step with the count");
    return;
  }
  CHECK(!strcmp(k->name, "kap") && k->has_min && k->min_strict && k->min == 0 && !k->has_max,
        "kap > 0: %s min %d/%d %g max %d", k->name, k->has_min, k->min_strict, k->min,
        k->has_max);
  CHECK(!strcmp(s->name, "sig") && s->has_min && !s->min_strict && s->min == -1 && s->has_max &&
            !s->max_strict && s->max == 1,
        "sig >= -1 <= 1: %s", s->name);
  CHECK(!strcmp(w->name, "wgt") && !w->has_min && w->has_max && w->max_strict && w->max == 3,
        "wgt < 3: %s", w->name);
  CHECK(!strcmp(r->name, "rho") && !r->has_min && !r->has_max, "rho: %s", r->name);
  CHECK(k->loc.line == 4 && k->loc.col == 14 && r->loc.col == 48, "locations %d:%d, %d:%d",
        k->loc.line, k->loc.col, r->loc.line, r->loc.col);
  int i = -1;
  CHECK(dg_flux_coef_find(prog, "wgt", &i) == DG_OK && i == 2, "find wgt: %d", i);
  CHECK(dg_flux_coef_find(prog, "kapa", &i) == DG_ERR_INPUT &&
            strstr(dg_error_message(), "no coefficient 'kapa'; did you mean 'kap'?"),
        "find kapa: %s", dg_error_message());
  dg_error_clear();
  dg_physics ph = {0};
  dg_physics_tables *tab = NULL;
  if (dg_physics_from_program(prog, &ph, &tab) == DG_OK) {
    CHECK(ph.ncoef == 4, "ph.ncoef = %d", ph.ncoef);
    CHECK(dg_flux_check_affine(&ph, NULL, "b.flux") == DG_ERR_INPUT &&
              strstr(dg_error_message(), "uses a coefficient"),
          "the Bernstein check: %s", dg_error_message());
    dg_error_clear();
  } else {
    CHECK(0, "dg_physics_from_program failed");
  }
  dg_physics_tables_destroy(&tab);
}

/* Values on each side.  n = (0.6, 0.8), x = (0.3, 0.5); interior u = 2,
 * E = (1, -1), exterior u = 3, E = (0.5, 2); coefficients (kap, sig, wgt,
 * rho) at the volume node (1.5, 0.2, 0.7, 2), interior traces (1.25, 0.1,
 * 0.6, 2.5), exterior traces (4, -0.5, 1.1, 3). */
static void check_values(dg_flux_program *prog) {
  double n[2] = {0.6, 0.8}, x[2] = {0.3, 0.5};
  double ui[3] = {2, 1, -1}, ue[3] = {3, 0.5, 2};
  double c[4] = {1.5, 0.2, 0.7, 2}, ci[4] = {1.25, 0.1, 0.6, 2.5}, ce[4] = {4, -0.5, 1.1, 3};
  const dg_flux_field_info *u = dg_flux_field(prog, 0), *E = dg_flux_field(prog, 1);
  double out[2] = {0, 0};
  dg_flux_point face = {.x = x, .n = n, .u_int = ui, .u_ext = ue, .c_int = ci, .c_ext = ce};
  /* -dot(n, avg(kap*u)*[1, x1])/rho.int: avg = (1.25*2 + 4*3)/2, n.[1, 0.5] = 1 */
  CHECK(dg_flux_eval(prog, u->flux, &face, out, 2) == DG_OK, "flux u");
  close_to("flux u", out[0], -(0.5 * (1.25 * 2 + 4 * 3)) * 1.0 / 2.5);
  /* cross(n, 2.5)/kap.int - a*sqrt(kap.int)*jump(E), cross(n, s) = [n1 s, -n0 s] */
  CHECK(dg_flux_eval(prog, E->flux, &face, out, 2) == DG_OK, "flux E");
  close_to("flux E[0]", out[0], 0.8 * 2.5 / 1.25 - 2 * sqrt(1.25) * 0.5);
  close_to("flux E[1]", out[1], -0.6 * 2.5 / 1.25 - 2 * sqrt(1.25) * -3);
  /* interior side only: boundary values and surface forms */
  dg_flux_point inner = {.x = x, .n = n, .u_int = ui, .c_int = ci};
  CHECK(dg_flux_eval(prog, dg_flux_boundary(prog, 0)->exterior[0], &inner, out, 2) == DG_OK,
        "wall u");
  close_to("wall u", out[0], 2 * 1.25);
  CHECK(dg_flux_eval(prog, u->surface, &inner, out, 2) == DG_OK, "surface u");
  close_to("surface u", out[0], -(1.25 * 2) * 1.0 / 2.5);
  CHECK(dg_flux_eval(prog, E->surface, &inner, out, 2) == DG_OK, "surface E");
  close_to("surface E[0]", out[0], 0.8 * 2 / 1.25);
  close_to("surface E[1]", out[1], -0.6 * 2 / 1.25);
  /* the volume node: the integrand kap*u + wgt */
  double uv[3] = {2, 0, 0};
  dg_flux_point vol = {.x = x, .u = uv, .c = c};
  CHECK(dg_flux_eval(prog, dg_flux_integral(prog, 0)->integrand, &vol, out, 1) == DG_OK,
        "integral");
  close_to("integral ku", out[0], 1.5 * 2 + 0.7);
  /* the flux reads exterior coefficients: without them it cannot evaluate */
  dg_flux_point no_ext = {.x = x, .n = n, .u_int = ui, .u_ext = ue, .c_int = ci};
  CHECK(dg_flux_eval(prog, u->flux, &no_ext, out, 2) == DG_ERR_ARG &&
            strstr(dg_error_message(), "coefficient 'kap' on the exterior trace"),
        "flux u without exterior coefficients: %s", dg_error_message());
  dg_error_clear();
  /* lowered components evaluate as the whole flux, sides kept */
  for (int k = 0; k < 2; k++) {
    dg_flux_node *lc = NULL;
    double whole[2], one = 0;
    CHECK(dg_flux_lower_component(dg_flux_program_arena(prog), 2, E->flux, k, &lc) == DG_OK &&
              dg_flux_eval(prog, lc, &face, &one, 1) == DG_OK &&
              dg_flux_eval(prog, E->flux, &face, whole, 2) == DG_OK,
          "lowering flux E[%d]", k);
    close_to("lowered flux E", one, whole[k]);
  }
}

static void check_printing(dg_flux_program *prog) {
  const dg_flux_field_info *u = dg_flux_field(prog, 0), *E = dg_flux_field(prog, 1);
  printed(prog, u->surface, "((-dot(n, (fk.int*[1, x[1]])))/rho.int)");
  printed(prog, E->surface, "(cross(n, u.int)/kap.int)");
  printed(prog, E->rhs, "(curl(u)/kap)");
  printed(prog, dg_flux_boundary(prog, 0)->exterior[0], "(u.int*kap.int)");
}

/* The file's text with `from` replaced by `to` (once); NULL if absent. */
static char *replaced(const char *dir, const char *file, const char *from, const char *to) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  char *text;
  size_t len;
  if (dg_flux_read_file(path, &text, &len) != DG_OK) {
    dg_error_clear();
    return NULL;
  }
  char *at = from ? strstr(text, from) : NULL;
  if (!from)
    return text;
  if (!at) {
    free(text);
    return NULL;
  }
  char *out = malloc(len + strlen(to) + 1);
  if (out)
    sprintf(out, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
  free(text);
  return out;
}

/* Every field of text consistent, or only `bad` inconsistent (the message
 * naming it). */
static void consistency(const char *label, const char *text, int dim, const char *bad) {
  if (!text) {
    CHECK(0, "%s: no text", label);
    return;
  }
  dg_flux_program *prog = parse(text, label, dim);
  if (!prog)
    return;
  double pts[6] = {0.1, 0.2, 0.7, 0.4, -0.3, 0.9};
  for (int f = 0; f < dg_flux_field_count(prog); f++) {
    const char *name = dg_flux_field(prog, f)->name;
    dg_flux_consistency_result res;
    char why[2048], want[96];
    CHECK(dg_flux_consistency_field(prog, f, pts, 3, &res, why, sizeof why) == DG_OK, "%s",
          label);
    snprintf(want, sizeof want, "the numerical flux of field '%s' is not consistent", name);
    if (bad && !strcmp(name, bad))
      CHECK(res == DG_FLUX_INCONSISTENT && strstr(why, want) && strstr(why, "on both sides"),
            "%s: field %s: result %d, %s", label, name, res, why);
    else
      CHECK(res == DG_FLUX_CONSISTENT, "%s: field %s: result %d, %s", label, name, res, why);
  }
  dg_flux_program_destroy(&prog);
}

static void check_consistency(const char *dir) {
  char text[4096];
  ft_build_text(base, 0, NULL, text, sizeof text);
  consistency("base.flux", text, 2, NULL);
  char *t;
  consistency("maxwell2d_interface.flux", t = replaced(dir, "maxwell2d_interface.flux", NULL, ""),
              2, NULL);
  free(t);
  consistency("acoustics2d_interface.flux",
              t = replaced(dir, "acoustics2d_interface.flux", NULL, ""), 2, NULL);
  free(t);
  /* the permeability where the permittivity belongs */
  consistency("maxwell, mu.int for eps.int",
              t = replaced(dir, "maxwell2d_interface.flux", "(Z.int + Z.ext)*eps.int)",
                           "(Z.int + Z.ext)*mu.int)"),
              2, "Ez");
  free(t);
  /* the sound speed where the density belongs */
  consistency("acoustics, c.int for rho.int",
              t = replaced(dir, "acoustics2d_interface.flux", "(Z.int + Z.ext)*rho.int)",
                           "(Z.int + Z.ext)*c.int)"),
              2, "v");
  free(t);
  /* an impedance weight missing: Z.int*q.int + q.ext */
  consistency("maxwell, unweighted exterior",
              t = replaced(dir, "maxwell2d_interface.flux", "Z.ext*q.ext", "q.ext"), 2, "Ez");
  free(t);
  /* The draws: lower + 0.5..2, upper - 0.5..2, the middle 80 % of a closed
   * interval, 0.5..2 unbounded, the same on both sides.  The flux is
   * consistent exactly when every drawn value is where it belongs. */
  consistency("bounds.flux",
              "fields u\n"
              "coefficients lo > 1, hi < 3, both >= 5 <= 6, none\n"
              "rhs u = -dx(u)\n"
              "flux u = -n[0]*u.int*(lo.int >= 1.5 && lo.int <= 3 && hi.int >= 1 && "
              "hi.int <= 2.5 && both.int >= 5.1 && both.int <= 5.9 && none.int >= 0.5 && "
              "none.int <= 2 && lo.ext == lo.int && hi.ext == hi.int && both.ext == both.int && "
              "none.ext == none.int ? 1 : 2)\n"
              "initial u = 1 + x[0]\n",
              1, NULL);
}

/* The interface fluxes are the upwind (Godunov) fluxes of the two media:
 * the states they imply on the face satisfy the Riemann invariants of
 * both sides, w* - Z.int u* = w.int - Z.int u.int carried out of the
 * interior and w* + Z.ext u* = w.ext + Z.ext u.ext out of the exterior
 * (Maxwell: w = Ez, u = q = cross(n, H), Z = sqrt(mu/eps); acoustics:
 * w = p, u = -vn, Z = rho*c).  The face states are recovered from the
 * fluxes: q* = eps.int*flux Ez, Ez* = -mu.int*flux H . [n1, -n0];
 * vn* = -flux p/(rho.int c.int^2), p* = -rho.int*dot(flux v, n).  Random
 * states, normals and media (seed 38). */
static void check_riemann(const char *dir) {
  char *mx = replaced(dir, "maxwell2d_interface.flux", NULL, "");
  char *ac = replaced(dir, "acoustics2d_interface.flux", NULL, "");
  dg_flux_program *pm = mx ? parse(mx, "maxwell2d_interface.flux", 2) : NULL;
  dg_flux_program *pa = ac ? parse(ac, "acoustics2d_interface.flux", 2) : NULL;
  free(mx);
  free(ac);
  CHECK(pm && pa, "the interface files");
  srand(38);
  for (int trial = 0; pm && pa && trial < 20; trial++) {
    double th = uniform(0, 6.283185307179586), n[2] = {cos(th), sin(th)}, x[2] = {0.3, 0.1};
    double ui[3], ue[3], ci[2], ce[2], f0[2], f1[2];
    for (int i = 0; i < 3; i++)
      ui[i] = uniform(-1, 1), ue[i] = uniform(-1, 1);
    for (int i = 0; i < 2; i++)
      ci[i] = uniform(0.5, 4), ce[i] = uniform(0.5, 4);
    dg_flux_point pt = {.x = x, .n = n, .u_int = ui, .u_ext = ue, .c_int = ci, .c_ext = ce};
    /* Maxwell: state (Ez, Hx, Hy), coefficients (eps, mu) */
    if (dg_flux_eval(pm, dg_flux_field(pm, 0)->flux, &pt, f0, 2) != DG_OK ||
        dg_flux_eval(pm, dg_flux_field(pm, 1)->flux, &pt, f1, 2) != DG_OK) {
      CHECK(0, "evaluating the Maxwell fluxes");
      break;
    }
    double Zi = sqrt(ci[1] / ci[0]), Ze = sqrt(ce[1] / ce[0]);
    double qi = n[0] * ui[2] - n[1] * ui[1], qe = n[0] * ue[2] - n[1] * ue[1];
    double qs = ci[0] * f0[0], Es = -ci[1] * (f1[0] * n[1] - f1[1] * n[0]);
    close_to("Maxwell, interior invariant", Es - Zi * qs, ui[0] - Zi * qi);
    close_to("Maxwell, exterior invariant", Es + Ze * qs, ue[0] + Ze * qe);
    /* acoustics: state (p, vx, vy), coefficients (rho, c) */
    if (dg_flux_eval(pa, dg_flux_field(pa, 0)->flux, &pt, f0, 2) != DG_OK ||
        dg_flux_eval(pa, dg_flux_field(pa, 1)->flux, &pt, f1, 2) != DG_OK) {
      CHECK(0, "evaluating the acoustics fluxes");
      break;
    }
    Zi = ci[0] * ci[1], Ze = ce[0] * ce[1];
    double vi = n[0] * ui[1] + n[1] * ui[2], ve = n[0] * ue[1] + n[1] * ue[2];
    double vs = -f0[0] / (ci[0] * ci[1] * ci[1]), ps = -ci[0] * (f1[0] * n[0] + f1[1] * n[1]);
    close_to("acoustics, interior invariant", ps + Zi * vs, ui[0] + Zi * vi);
    close_to("acoustics, exterior invariant", ps - Ze * vs, ue[0] - Ze * ve);
    /* the flux of v is normal: its tangential part vanishes */
    close_to("acoustics, tangential flux of v", f1[0] * n[1] - f1[1] * n[0], 0.0);
  }
  dg_flux_program_destroy(&pm);
  dg_flux_program_destroy(&pa);
}

static void expect_text_error(const char *label, const char *text, int wl, int wc,
                              const char *message) {
  if (!expect_one_error(label, text, 2, wl, wc, message))
    failures++;
}

static void expect_error(int line, const char *repl, int wl, int wc, const char *message) {
  char text[4096];
  ft_build_text(base, line, repl, text, sizeof text);
  expect_text_error(repl, text, wl, wc, message);
}

static void check_errors(void) {
  /* names */
  expect_error(4, "coefficients kap > 0, sig >= -1 <= 1, wgt < 3, rho, u", 4, 53,
               "duplicate definition of 'u' (already a field, at 2:8)");
  expect_error(4, "coefficients a, kap > 0, sig >= -1 <= 1, wgt < 3, rho", 4, 14,
               "duplicate definition of 'a' (already a param, at 3:8)");
  expect_error(4, "coefficients kap > 0, sig >= -1 <= 1, wgt < 3, rho, kap", 4, 53,
               "duplicate definition of 'kap' (already a coefficient, at 4:14)");
  expect_error(4, "coefficients kap > 0, sig >= -1 <= 1, wgt < 3, rho, x", 4, 53,
               "'x' is a built-in name and cannot be redefined");
  expect_error(14, "let wgt = 2", 14, 5,
               "duplicate definition of 'wgt' (already a coefficient, at 4:39)");
  expect_error(14, "integral rho = u", 14, 10,
               "duplicate definition of 'rho' (already a coefficient, at 4:48)");
  expect_text_error("no names",
                    "fields u\ncoefficients\nrhs u = -dx(u)\nflux u = -n[0]*u.int\n"
                    "initial u = 1\n",
                    2, 1, "'coefficients' needs at least one name, e.g. 'coefficients eps > 0'");
  /* a mistake in one entry leaves the others declared: one error */
  expect_error(4, "coefficients kap = 1, sig, wgt, rho", 4, 18,
               "expected '>', '>=', '<', '<=', ',' or the end of the line after coefficient "
               "'kap', found '=' (coefficient values are given in problem.cfg, [coefficients])");
  expect_error(4, "coefficients kap, 3, sig, wgt, rho", 4, 19,
               "expected a coefficient name, found '3'");
  /* bounds */
  expect_error(4, "coefficients kap > 2 < 1, sig, wgt, rho", 4, 20,
               "coefficient 'kap' has no allowed value: its lower bound 2 is not below its "
               "upper bound 1");
  expect_error(4, "coefficients kap > 1 < 1, sig, wgt, rho", 4, 20,
               "coefficient 'kap' has no allowed value: its lower bound 1 is not below its "
               "upper bound 1");
  expect_error(4, "coefficients kap < 1 > 0, sig, wgt, rho", 4, 22,
               "coefficient 'kap' has a lower bound after its upper bound; write the lower "
               "bound first and each bound once, e.g. 'kap > 0 < 10'");
  expect_error(4, "coefficients kap > a, sig, wgt, rho", 4, 20,
               "'a' is a param; a coefficient bound can use only numbers, pi and functions of "
               "them");
  expect_error(4, "coefficients kap > [1, 2], sig, wgt, rho", 4, 20,
               "the lower bound of coefficient 'kap' must be a scalar, got a 2-vector");
  /* where a coefficient may stand */
  expect_error(9, "flux u = -dot(n, avg(fk*[1, x[1]]))/rho", 9, 37,
               "coefficient 'rho' needs a trace in a numerical flux: write rho.int, rho.ext, "
               "avg(rho) or jump(rho)");
  expect_error(10, "flux E = cross(n, avg(u))/kap.int - a*Zk*jump(E)", 10, 39,
               "'Zk' depends on coefficients; in a numerical flux write Zk.int, Zk.ext, avg(Zk) "
               "or jump(Zk)");
  expect_error(11, "boundary wall { u = u.int*kap; E = -E.int }", 11, 27,
               "coefficient 'kap' needs a trace in a boundary condition: write kap.int");
  expect_error(11, "boundary wall { u = u.int*kap.ext; E = -E.int }", 11, 30,
               "'.ext' of coefficient 'kap' in a boundary condition: a boundary face's exterior "
               "coefficient is its interior one; write kap.int");
  expect_error(12, "initial u = 1 + kap", 12, 17,
               "coefficient 'kap' cannot be used in an initial condition, which is a function of "
               "x and t (and params) only; write the material's value as an expression of x");
  expect_error(12, "initial u = 1 + Zk", 12, 17,
               "'Zk' depends on coefficients, which an initial condition cannot use (it is a "
               "function of x and t)");
  expect_error(4, "coefficients kap > 0, sig >= kap, wgt, rho", 4, 30,
               "'kap' is a coefficient; a coefficient bound can use only numbers, pi and "
               "functions of them");
  expect_error(6, "let fk = kap*u.int", 6, 5,
               "let 'fk' mixes coefficients with and without traces; bind the pointwise part "
               "and apply .int/.ext/avg/jump where it is used");
  expect_error(8, "rhs E = curl(u)/kap.int", 8, 20,
               "'.int' exists only on faces (flux and boundary expressions), not in a volume "
               "term (rhs)");
  expect_error(8, "rhs E = curl(u)/kapp", 8, 17, "unknown name 'kapp'; did you mean 'kap'?");
  expect_error(8, "rhs E = curl(u)/kap(2)", 8, 17,
               "'kap' is not a function; write '*' for a product");
  expect_error(8, "rhs E = curl(u)/kap[0]", 8, 20, "cannot index a scalar");
  expect_text_error("declared below",
                    "fields u\nrhs u = -dx(u)*kap\nflux u = -n[0]*u.int\ninitial u = 1\n"
                    "coefficients kap\n",
                    2, 16, "coefficient 'kap' is declared below (at 5:14); declare coefficients "
                    "before using them");
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s INPUTS_DIR\n", argv[0]);
    return 2;
  }
  char text[4096];
  ft_build_text(base, 0, NULL, text, sizeof text);
  dg_flux_program *prog = parse(text, "base.flux", 2);
  if (prog) {
    check_table(prog);
    check_values(prog);
    check_printing(prog);
    dg_flux_program_destroy(&prog);
  }
  check_consistency(argv[1]);
  check_riemann(argv[1]);
  check_errors();
  if (failures) {
    printf("%d failure%s\n", failures, failures == 1 ? "" : "s");
    return 1;
  }
  printf("flux_coefficients: all passed\n");
  return 0;
}
