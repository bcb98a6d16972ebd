/* operators.flux_inputs (and, with the argument 'lower', operators.flux_lower):
 *
 * flux_inputs: the sample flux files (tests/flux/inputs) parse
 * and check for their dimension (and only for it), declare what they say,
 * and their physics is right:
 *  - the exact solution at t = 0 equals the initial condition;
 *  - the exact solution satisfies du/dt = V(u) + S: V is evaluated from
 *    the file's rhs with every derivative D(g) computed by 4th-order
 *    central differences of g(exact(x +- h)), using the definitions of
 *    grad/div/curl/dx (2D curl rules of FLUX_LANGUAGE.md), and du/dt by
 *    central differences in t;
 *  - the Euler vortex matches an independent C implementation;
 *  - every boundary condition evaluates, and PEC/wall/outflow conditions
 *    give the exterior states they describe.
 *
 * flux_lower: on the same files, every component of every lowered tree
 * (dg_flux_lower_component) evaluates to that component of the original
 * tree and holds only scalar nodes; every rhs component split into
 * pointwise + sum coef * d/dx_j(arg) (dg_flux_lower_volume), evaluated with
 * differences of arg, reproduces du/dt of the exact solution. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "operators/flux.h"
#include "operators/flux_eval.h"
#include "tests/flux/flux_test.h"
#include "operators/flux_lower.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

enum { MAXC = DG_FLUX_MAX_COMPONENTS };

static int failures;
static const char *dir;


static dg_flux_program *load(const char *file, int dim) { return load_flux(dir, file, dim); }

static void fail(const char *file, const char *what) {
  printf("FAIL %s: %s\n", file, what);
  failures++;
}

/* Exact state of all fields at (x, t). */
static int exact_state(dg_flux_program *prog, const double *x, double t, double *u) {
  for (int f = 0; f < dg_flux_field_count(prog); f++)
    if (dg_flux_eval_exact(prog, f, x, t, u + dg_flux_field(prog, f)->offset) != DG_OK)
      return 0;
  return 1;
}

/* Partial derivatives dg/dx_j, j < dim, of the pointwise node g at x, t
 * with the exact state: 4th-order central differences,
 * (-g(x+2h) + 8g(x+h) - 8g(x-h) + g(x-2h)) / 12h, error O(h^4). */
static int partials(dg_flux_program *prog, const dg_flux_node *g, const double *x, double t,
                    double d[3][MAXC]) {
  int dim = dg_flux_program_dim(prog), size = dg_flux_shape_size(g->shape);
  const double h = 1e-3, w[4] = {-1, 8, -8, 1}, off[4] = {2, 1, -1, -2};
  double u[64], v[MAXC], xs[3];
  for (int j = 0; j < dim; j++) {
    for (int c = 0; c < size; c++)
      d[j][c] = 0;
    for (int k = 0; k < 4; k++) {
      memcpy(xs, x, sizeof xs);
      xs[j] += off[k] * h;
      dg_flux_point pt = {.x = xs, .t = t, .u = u};
      if (!exact_state(prog, xs, t, u) || dg_flux_eval(prog, g, &pt, v, MAXC) != DG_OK)
        return 0;
      for (int c = 0; c < size; c++)
        d[j][c] += w[k] * v[c] / (12 * h);
    }
  }
  return 1;
}

/* V(exact) at (x, t): the linear structure of a volume term evaluated
 * here, derivatives by differences, pointwise parts by dg_flux_eval. */
static int volume(dg_flux_program *prog, const dg_flux_node *n, const double *x, double t,
                  double *out) {
  int dim = dg_flux_program_dim(prog);
  if (!dg_flux_node_has_deriv(n)) {
    double u[64];
    dg_flux_point pt = {.x = x, .t = t, .u = u};
    return exact_state(prog, x, t, u) && dg_flux_eval(prog, n, &pt, out, MAXC) == DG_OK;
  }
  double a[MAXC], b[MAXC];
  int size = dg_flux_shape_size(n->shape);
  switch (n->op) {
  case DG_FLUX_DERIV: {
    const dg_flux_node *g = n->args[0];
    double d[3][MAXC];
    if (!partials(prog, g, x, t, d))
      return 0;
    switch ((dg_flux_deriv)n->ref) {
    case DG_FLUX_D_GRAD:
      for (int j = 0; j < dim; j++)
        out[j] = d[j][0];
      return 1;
    case DG_FLUX_D_DIV:
      if (g->shape.rank == 1) {
        out[0] = 0;
        for (int j = 0; j < dim; j++)
          out[0] += d[j][j];
      } else {
        for (int i = 0; i < g->shape.rows; i++) {
          out[i] = 0;
          for (int j = 0; j < dim; j++)
            out[i] += d[j][i * g->shape.cols + j];
        }
      }
      return 1;
    case DG_FLUX_D_CURL:
      if (dim == 3) {
        out[0] = d[1][2] - d[2][1];
        out[1] = d[2][0] - d[0][2];
        out[2] = d[0][1] - d[1][0];
      } else if (g->shape.rank == 0) { /* 2D, scalar: [dy f, -dx f] */
        out[0] = d[1][0];
        out[1] = -d[0][0];
      } else { /* 2D, vector: dx g1 - dy g0 */
        out[0] = d[0][1] - d[1][0];
      }
      return 1;
    default:
      for (int c = 0; c < size; c++)
        out[c] = d[n->ref - DG_FLUX_D_X][c];
      return 1;
    }
  }
  case DG_FLUX_NEG:
    if (!volume(prog, n->args[0], x, t, a))
      return 0;
    for (int c = 0; c < size; c++)
      out[c] = -a[c];
    return 1;
  case DG_FLUX_INDEX:
    if (!volume(prog, n->args[0], x, t, a))
      return 0;
    memcpy(out, a + n->ref * size, (size_t)size * sizeof *out);
    return 1;
  case DG_FLUX_VEC: {
    int at = 0;
    for (int i = 0; i < n->nargs; i++) {
      if (!volume(prog, n->args[i], x, t, out + at))
        return 0;
      at += dg_flux_shape_size(n->args[i]->shape);
    }
    return 1;
  }
  case DG_FLUX_ADD:
  case DG_FLUX_SUB:
  case DG_FLUX_MUL:
  case DG_FLUX_DIV: {
    if (!volume(prog, n->args[0], x, t, a) || !volume(prog, n->args[1], x, t, b))
      return 0;
    int sa = n->args[0]->shape.rank == 0, sb = n->args[1]->shape.rank == 0;
    for (int c = 0; c < size; c++) {
      double p = a[sa ? 0 : c], q = b[sb ? 0 : c];
      out[c] = n->op == DG_FLUX_ADD ? p + q : n->op == DG_FLUX_SUB ? p - q
               : n->op == DG_FLUX_MUL ? p * q : p / q;
    }
    return 1;
  }
  default:
    printf("unexpected node %d around a derivative\n", (int)n->op);
    return 0;
  }
}

/* du/dt of the exact solution = V(exact) + S at a few random points. */
static void check_pde(const char *file, dg_flux_program *prog, const double *lo,
                      const double *hi) {
  int ns = dg_flux_state_size(prog);
  for (int trial = 0; trial < 5; trial++) {
    double x[3] = {0, 0, 0}, t = uniform(0, 0.5), h = 1e-3;
    for (int i = 0; i < dg_flux_program_dim(prog); i++)
      x[i] = uniform(lo[i], hi[i]);
    double up2[64], up1[64], um1[64], um2[64];
    if (!exact_state(prog, x, t + 2 * h, up2) || !exact_state(prog, x, t + h, up1) ||
        !exact_state(prog, x, t - h, um1) || !exact_state(prog, x, t - 2 * h, um2)) {
      fail(file, "exact solution does not evaluate");
      return;
    }
    for (int f = 0; f < dg_flux_field_count(prog); f++) {
      const dg_flux_field_info *fi = dg_flux_field(prog, f);
      double v[MAXC], s[MAXC];
      if (!volume(prog, fi->rhs, x, t, v) ||
          dg_flux_eval_source(prog, f, x, t, s) != DG_OK) {
        fail(file, "volume term does not evaluate");
        return;
      }
      for (int c = 0; c < fi->ncomp; c++) {
        int k = fi->offset + c;
        double dudt = (-up2[k] + 8 * up1[k] - 8 * um1[k] + um2[k]) / (12 * h);
        /* differences of O(1)-O(10) smooth functions with h = 1e-3:
         * truncation ~ h^4 * |u^(5)| and rounding ~ 1e-16/h, both far
         * below 1e-6 */
        if (!(fabs(dudt - (v[c] + s[c])) <= 1e-6 * fmax(1, fabs(dudt)))) {
          printf("FAIL %s: at x = (%g, %g, %g), t = %g: d%s[%d]/dt = %.12g but rhs + source "
                 "= %.12g\n", file, x[0], x[1], x[2], t, fi->name, c, dudt, v[c] + s[c]);
          failures++;
          return;
        }
      }
    }
  }
  (void)ns;
}

/* exact(x, 0) == initial(x, 0) */
static void check_initial(const char *file, dg_flux_program *prog) {
  for (int trial = 0; trial < 5; trial++) {
    double x[3] = {uniform(0, 1), uniform(0, 1), uniform(0, 1)}, a[MAXC], b[MAXC];
    for (int f = 0; f < dg_flux_field_count(prog); f++) {
      const dg_flux_field_info *fi = dg_flux_field(prog, f);
      if (!fi->exact)
        continue;
      if (dg_flux_eval_initial(prog, f, x, 0, a) != DG_OK ||
          dg_flux_eval_exact(prog, f, x, 0, b) != DG_OK) {
        fail(file, "initial/exact do not evaluate");
        return;
      }
      for (int c = 0; c < fi->ncomp; c++)
        if (!(fabs(a[c] - b[c]) <= 1e-14 * fmax(1, fabs(a[c])))) {
          printf("FAIL %s: initial %s[%d] = %.17g, exact at t = 0 = %.17g\n", file, fi->name, c,
                 a[c], b[c]);
          failures++;
          return;
        }
    }
  }
}

typedef struct expect {
  const char *file;
  int dim;
  const char *fields; /* "name:ncomp ..." */
  const char *params; /* "name=default ..." */
  const char *boundaries;
  double lo[3], hi[3]; /* where to test the PDE */
} expect;

static void check_declarations(const expect *e, dg_flux_program *prog) {
  char buf[512] = "";
  for (int f = 0; f < dg_flux_field_count(prog); f++) {
    const dg_flux_field_info *fi = dg_flux_field(prog, f);
    snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s:%d", f ? " " : "", fi->name,
             fi->ncomp);
    int want_offset = f == 0 ? 0 : dg_flux_field(prog, f - 1)->offset + dg_flux_field(prog, f - 1)->ncomp;
    if (fi->offset != want_offset)
      fail(e->file, "field offsets are not consecutive");
    if (!fi->rhs || !fi->flux || !fi->surface || !fi->initial)
      fail(e->file, "a field lacks an equation");
  }
  if (strcmp(buf, e->fields) != 0) {
    printf("FAIL %s: fields '%s', want '%s'\n", e->file, buf, e->fields);
    failures++;
  }
  buf[0] = '\0';
  for (int p = 0; p < dg_flux_param_count(prog); p++)
    snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s=%g", p ? " " : "",
             dg_flux_param(prog, p)->name, dg_flux_param(prog, p)->default_value);
  if (strcmp(buf, e->params) != 0) {
    printf("FAIL %s: params '%s', want '%s'\n", e->file, buf, e->params);
    failures++;
  }
  buf[0] = '\0';
  for (int b = 0; b < dg_flux_boundary_count(prog); b++)
    snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", b ? " " : "",
             dg_flux_boundary(prog, b)->name);
  if (strcmp(buf, e->boundaries) != 0) {
    printf("FAIL %s: boundaries '%s', want '%s'\n", e->file, buf, e->boundaries);
    failures++;
  }
}

/* Boundary values: every one evaluates; the named ones are checked. */
static void check_boundaries(const char *file, dg_flux_program *prog) {
  int dim = dg_flux_program_dim(prog), ns = dg_flux_state_size(prog);
  double u[64], x[3] = {0.3, 0.4, 0.5}, n[3] = {0, 0, 0}, out[MAXC];
  n[dim - 1] = 1; /* a unit normal along the last axis */
  for (int i = 0; i < ns; i++)
    u[i] = uniform(0.5, 1.5); /* positive: valid for Euler too */
  dg_flux_point pt = {.x = x, .t = 0.1, .n = n, .u_int = u};
  for (int b = 0; b < dg_flux_boundary_count(prog); b++) {
    const dg_flux_boundary_info *bi = dg_flux_boundary(prog, b);
    for (int f = 0; f < dg_flux_field_count(prog); f++) {
      const dg_flux_field_info *fi = dg_flux_field(prog, f);
      if (dg_flux_eval(prog, bi->exterior[f], &pt, out, MAXC) != DG_OK) {
        fail(file, "a boundary value does not evaluate");
        continue;
      }
      const double *ui = u + fi->offset;
      for (int c = 0; c < fi->ncomp; c++) {
        double want = ui[c];
        if (!strcmp(bi->name, "pec") && fi->name[0] == 'E')
          want = -ui[c];                                  /* E.ext = -E.int */
        else if (!strcmp(bi->name, "wall") && fi->ncomp > 1 && c == dim - 1)
          want = -ui[c];                                  /* normal component reflected */
        else if (strcmp(bi->name, "pec") && strcmp(bi->name, "wall") &&
                 strcmp(bi->name, "outflow"))
          continue;                                       /* inflow, farfield: data */
        if (fabs(out[c] - want) > 1e-15) {
          printf("FAIL %s: boundary %s gives %s[%d] = %g, want %g\n", file, bi->name, fi->name, c,
                 out[c], want);
          failures++;
        }
      }
    }
  }
}

/* The isentropic vortex written independently (Shu 1998), centred at
 * (5 + t, 0). */
static void vortex(const double *x, double t, int dim, double *u) {
  shu_vortex_state(x[0] - 5 - t, x[1], dim, u);
}

static void check_vortex(const char *file, dg_flux_program *prog, int dim) {
  for (int trial = 0; trial < 10; trial++) {
    double x[3] = {uniform(2, 8), uniform(-3, 3), uniform(0, 1)}, t = uniform(0, 2);
    double got[8], want[8];
    if (!exact_state(prog, x, t, got)) {
      fail(file, "exact does not evaluate");
      return;
    }
    vortex(x, t, dim, want);
    for (int i = 0; i < dim + 2; i++)
      if (!(fabs(got[i] - want[i]) <= 1e-14 * fmax(1, fabs(want[i])))) {
        printf("FAIL %s: vortex component %d = %.17g, want %.17g\n", file, i, got[i], want[i]);
        failures++;
        return;
      }
  }
}

/* Only scalar nodes, and no vector-only operations, in a lowered tree. */
static int all_scalar(const dg_flux_node *n) {
  if (n->shape.rank != 0 || n->op == DG_FLUX_VEC || n->op == DG_FLUX_INDEX ||
      (n->op == DG_FLUX_CALL && (n->ref == DG_FLUX_FN_DOT || n->ref == DG_FLUX_FN_CROSS ||
                                 n->ref == DG_FLUX_FN_NORM)) ||
      (n->op == DG_FLUX_DERIV && n->ref < DG_FLUX_D_X))
    return 0;
  for (int i = 0; i < n->nargs; i++)
    if (!all_scalar(n->args[i]))
      return 0;
  return 1;
}

static void check_lowered_node(const char *file, dg_flux_program *prog, const dg_flux_node *n,
                               const dg_flux_point *pt) {
  double whole[MAXC], one;
  if (dg_flux_eval(prog, n, pt, whole, MAXC) != DG_OK) {
    fail(file, "a tree does not evaluate");
    return;
  }
  for (int i = 0; i < dg_flux_shape_size(n->shape); i++) {
    dg_flux_node *c;
    if (dg_flux_lower_component(dg_flux_program_arena(prog), dg_flux_program_dim(prog), n, i,
                                &c) != DG_OK ||
        dg_flux_eval(prog, c, pt, &one, 1) != DG_OK) {
      fail(file, "a lowered component does not evaluate");
      return;
    }
    /* the same operations in the same order: equal up to rounding */
    if (!(fabs(one - whole[i]) <= 1e-14 * fmax(1, fabs(whole[i]))) || !all_scalar(c)) {
      char text[1024];
      dg_flux_print(prog, c, text, sizeof text);
      printf("FAIL %s: component %d lowered to %s = %.17g, want %.17g\n", file, i, text, one,
             whole[i]);
      failures++;
    }
  }
}

/* V(exact) from the lowered split, differences of each arg. */
static int lowered_volume(dg_flux_program *prog, const dg_flux_field_info *fi, int c,
                          const double *x, double t, double *out) {
  dg_flux_node *sc;
  dg_flux_volume v;
  if (dg_flux_lower_component(dg_flux_program_arena(prog), dg_flux_program_dim(prog), fi->rhs,
                              c, &sc) != DG_OK ||
      dg_flux_lower_volume(dg_flux_program_arena(prog), sc, &v) != DG_OK)
    return 0;
  double u[64], val;
  dg_flux_point pt = {.x = x, .t = t, .u = u};
  if (!exact_state(prog, x, t, u) || dg_flux_eval(prog, v.pointwise, &pt, &val, 1) != DG_OK)
    return 0;
  *out = val;
  for (int k = 0; k < v.nterms; k++) {
    double d[3][MAXC], coef;
    if (!partials(prog, v.terms[k].arg, x, t, d) ||
        dg_flux_eval(prog, v.terms[k].coef, &pt, &coef, 1) != DG_OK ||
        dg_flux_node_reads_side(v.terms[k].coef, DG_FLUX_SIDE_NONE, NULL))
      return 0;
    *out += coef * d[v.terms[k].dir][0];
  }
  return 1;
}

static void check_lowering(const char *file, dg_flux_program *prog, const double *lo,
                           const double *hi) {
  int dim = dg_flux_program_dim(prog), ns = dg_flux_state_size(prog);
  for (int trial = 0; trial < 5; trial++) {
    double x[3] = {0, 0, 0}, n[3] = {0, 0, 0}, ui[64], ue[64], len = 0;
    for (int i = 0; i < dim; i++) {
      x[i] = uniform(lo[i], hi[i]);
      n[i] = uniform(-1, 1);
      len += n[i] * n[i];
    }
    for (int i = 0; i < dim; i++)
      n[i] /= sqrt(len);
    double t = uniform(0, 0.5);
    /* states near the exact one, so Euler's pressure stays positive */
    if (!exact_state(prog, x, t, ui) || !exact_state(prog, x, t + 0.1, ue)) {
      fail(file, "exact does not evaluate");
      return;
    }
    for (int i = 0; i < ns; i++)
      ui[i] *= uniform(0.9, 1.1);
    dg_flux_point pt = {.x = x, .t = t, .n = n, .u_int = ui, .u_ext = ue};
    /* the emitter's recipe for a let local: LET(i, side) component c is
     * lower_component(trace(body, side), c) */
    dg_flux_arena *arena = dg_flux_program_arena(prog);
    for (int l = 0; l < dg_flux_let_count(prog); l++) {
      const dg_flux_let_info *li = dg_flux_let(prog, l);
      if (li->reads_traces || (li->reads_normal && !li->reads_fields))
        continue; /* face-only values need no side */
      for (int side = DG_FLUX_SIDE_INT; side <= DG_FLUX_SIDE_EXT; side++) {
        dg_flux_node *ref = dg_flux_node_new(arena, DG_FLUX_LET, li->body->shape, li->loc, 0);
        dg_flux_node *body;
        double whole[MAXC], one;
        if (!ref || dg_flux_ast_trace(arena, li->body, (dg_flux_side)side,
                                      dg_flux_program_lets_bare(prog), &body) != DG_OK) {
          fail(file, "cannot build a let reference");
          return;
        }
        ref->ref = l;
        ref->side = li->reads_fields ? (dg_flux_side)side : DG_FLUX_SIDE_NONE;
        if (dg_flux_eval(prog, ref, &pt, whole, MAXC) != DG_OK) {
          fail(file, "a let does not evaluate");
          return;
        }
        for (int c = 0; c < dg_flux_shape_size(li->body->shape); c++) {
          dg_flux_node *lc;
          if (dg_flux_lower_component(arena, dim, body, c, &lc) != DG_OK ||
              dg_flux_eval(prog, lc, &pt, &one, 1) != DG_OK ||
              !(fabs(one - whole[c]) <= 1e-14 * fmax(1, fabs(whole[c])))) {
            printf("FAIL %s: let %s component %d side %d lowers to %.17g, want %.17g\n", file,
                   li->name, c, side, one, whole[c]);
            failures++;
          }
        }
      }
    }
    for (int f = 0; f < dg_flux_field_count(prog); f++) {
      const dg_flux_field_info *fi = dg_flux_field(prog, f);
      const dg_flux_node *nodes[] = {fi->surface, fi->flux, fi->initial, fi->exact, fi->source};
      for (size_t k = 0; k < sizeof nodes / sizeof *nodes; k++)
        if (nodes[k])
          check_lowered_node(file, prog, nodes[k], &pt);
      for (int b = 0; b < dg_flux_boundary_count(prog); b++)
        check_lowered_node(file, prog, dg_flux_boundary(prog, b)->exterior[f], &pt);
      double v[MAXC];
      if (!volume(prog, fi->rhs, x, t, v)) {
        fail(file, "volume term does not evaluate");
        return;
      }
      for (int c = 0; c < fi->ncomp; c++) {
        double lv;
        if (!lowered_volume(prog, fi, c, x, t, &lv)) {
          fail(file, "the lowered volume term does not evaluate");
          return;
        }
        /* both are sums of the same differences, in another order */
        if (!(fabs(lv - v[c]) <= 1e-9 * fmax(1, fabs(v[c])))) {
          printf("FAIL %s: lowered volume term of %s[%d] = %.15g, want %.15g\n", file,
                 fi->name, c, lv, v[c]);
          failures++;
        }
      }
    }
  }
}

int main(int argc, char **argv) {
  if (argc < 2) {
    printf("usage: %s INPUT_DIR\n", argv[0]);
    return 2;
  }
  dir = argv[1];
  int lower = argc > 2 && strcmp(argv[2], "lower") == 0;
  unsigned seed = (unsigned)time(NULL);
  printf("seed %u\n", seed);
  srand(seed);
  const expect files[] = {
      {"maxwell3d.flux", 3, "E:3 H:3", "eps=1 mu=1 alpha=1", "pec", {0, 0, 0}, {1, 1, 1}},
      {"maxwell2d_tm.flux", 2, "H:2 Ez:1", "eps=1 mu=1 alpha=1 mx=1 my=1", "pec", {0, 0}, {1, 1}},
      {"advection1d.flux", 1, "u:1", "a=1", "inflow outflow", {0}, {1}},
      {"advection2d.flux", 2, "u:1", "ax=1 ay=0.5", "inflow outflow", {0, 0}, {1, 1}},
      {"advection3d.flux", 3, "u:1", "ax=1 ay=0.5 az=-0.25", "inflow outflow", {0, 0, 0}, {1, 1, 1}},
      {"acoustics2d.flux", 2, "p:1 v:2", "rho0=1 K=1", "wall open", {0, 0}, {1, 1}},
      {"euler2d_vortex.flux", 2, "rho:1 m:2 E:1", "gamma=1.4 beta=5 x0=5 y0=0 u0=1 v0=0",
       "farfield wall", {3, -2}, {7, 2}},
      {"euler3d_vortex.flux", 3, "rho:1 m:3 E:1", "gamma=1.4 beta=5 x0=5 y0=0 u0=1 v0=0",
       "farfield wall", {3, -2, 0}, {7, 2, 1}},
  };
  for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
    const expect *e = &files[i];
    dg_flux_program *prog = load(e->file, e->dim), *from_file = load(e->file, 0);
    if (!prog || !from_file) {
      fail(e->file, "does not check");
      dg_flux_program_destroy(&prog);
      dg_flux_program_destroy(&from_file);
      continue;
    }
    if (dg_flux_program_dim(from_file) != e->dim)
      fail(e->file, "'dim' statement not honoured");
    dg_flux_program_destroy(&from_file);
    /* the file states its dimension: any other is refused */
    dg_flux_program *other = NULL;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, e->file);
    if (dg_flux_parse_file(path, e->dim == 3 ? 2 : 3, &other) != DG_ERR_INPUT ||
        !strstr(dg_error_message(), "this file is written for dimension"))
      fail(e->file, "accepted for another dimension");
    dg_error_clear();
    if (lower) {
      check_lowering(e->file, prog, e->lo, e->hi);
    } else {
      check_declarations(e, prog);
      check_initial(e->file, prog);
      check_pde(e->file, prog, e->lo, e->hi);
      check_boundaries(e->file, prog);
      if (strstr(e->file, "euler"))
        check_vortex(e->file, prog, e->dim);
    }
    dg_flux_program_destroy(&prog);
  }
  if (failures == 0)
    printf("ok\n");
  return failures ? 1 : 0;
}
