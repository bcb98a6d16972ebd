/* operators.flux_affine: which physics may run on Bernstein coefficients
 * (operators/flux_affine.h).
 *
 * 1. Small programs, each hitting one rule: rejected ones get the exact
 *    message, with the line and column found independently in the program
 *    text (a '$' marks the offending token, a '%' the use of the let it is
 *    in; both are removed before parsing); accepted ones (u times n, param
 *    times u, constant offsets, an upwind select on n, u^1, x in an initial
 *    condition, which is not checked) pass.
 * 2. The message with an origin (file:line:col: error: ...) and without
 *    field names.
 * 3. The shipped problems (problems/): Maxwell 2D/3D pass; the advection
 *    and acoustics files fail only through their x/t boundary values (the
 *    located x), and pass once the boundary conditions their cfg does not
 *    use are left out; Euler 2D/3D fail at the division by rho in a let,
 *    located by searching the file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "operators/flux.h"
#include "operators/flux_affine.h"
#include "operators/physics.h"
#include "tests/flux/flux_test.h"

static int failures;

/* The reasons, as documented in flux_affine.h. */
static const char *const WHY_X = "a Bernstein basis needs coefficients constant on each element";
static const char *const WHY_T = "the Bernstein path takes time-independent coefficients only";
static const char *const WHY_NL =
    "only a function affine in the state maps Bernstein coefficients to those of its "
    "interpolant";

/* Check prog with boundaries keep[b] != 0 only (keep NULL: all); return the
 * error code and copy the message into msg. */
static dg_error check_prog(const dg_flux_program *prog, const unsigned char *keep,
                           int with_names, const char *origin, char *msg, size_t size) {
  dg_physics ph = {0};
  dg_physics_tables *tab = NULL;
  msg[0] = '\0';
  if (dg_physics_from_program(prog, &ph, &tab) != DG_OK) {
    snprintf(msg, size, "dg_physics_from_program failed: %s", dg_error_message());
    dg_error_clear();
    return DG_ERR_INTERNAL;
  }
  int nf = ph.nfields, nb = ph.nboundaries;
  const dg_flux_node **bc = calloc((size_t)nb * nf + 1, sizeof *bc);
  const char **names = calloc((size_t)nf + 1, sizeof *names);
  if (!bc || !names) {
    free(bc);
    free(names);
    dg_physics_tables_destroy(&tab);
    snprintf(msg, size, "out of memory");
    return DG_ERR_MEMORY;
  }
  for (int i = 0; i < nb * nf; i++)
    bc[i] = !keep || keep[i / nf] ? ph.bc_ext[i] : NULL;
  ph.bc_ext = bc;
  for (int f = 0; f < nf; f++)
    names[f] = dg_flux_field(prog, f)->name;
  dg_error err = dg_flux_check_affine(&ph, with_names ? names : NULL, origin);
  if (err != DG_OK)
    snprintf(msg, size, "%s", dg_error_message());
  dg_error_clear();
  free(bc);
  free(names);
  dg_physics_tables_destroy(&tab);
  return err;
}

static void expect(const char *label, dg_error err, const char *got, const char *want) {
  if (!want && err != DG_OK) {
    printf("FAIL [%s] rejected, want accepted:\n  %s\n", label, got);
    failures++;
  } else if (want && (err != DG_ERR_INPUT || strcmp(got, want) != 0)) {
    printf("FAIL [%s]\n  want (input error): %s\n  got (%d): %s\n", label, want, (int)err, got);
    failures++;
  }
}

/* --- 1. one rule per program ---------------------------------------------- */

/* Advection 1D, affine throughout (the initial condition uses x: initial
 * conditions are evaluated at the nodes and not checked). */
static const char *const base[] = {
    "dim 1",                          /* 1 */
    "fields u",                       /* 2 */
    "params a = 2",                   /* 3 */
    "rhs u = -dx(a*u)",               /* 4 */
    "flux u = -a*n[0]*avg(u)",        /* 5 */
    "boundary b { u = u.int }",       /* 6 */
    "initial u = sin(x[0])",          /* 7 */
    "",                               /* 8: a slot for an extra statement */
    NULL};

/* 2D with a vector field, for dot/cross. */
static const char *const base2[] = {
    "dim 2",                                     /* 1 */
    "fields v[2] s",                             /* 2 */
    "params c = 1",                              /* 3 */
    "rhs v = -grad(s)",                          /* 4 */
    "rhs s = -div(v)",                           /* 5 */
    "flux v = -n*avg(s)",                        /* 6 */
    "flux s = -dot(n, avg(v))",                  /* 7 */
    "boundary w { v = v.int; s = s.int }",       /* 8 */
    "initial v = [0, 0]",                        /* 9 */
    "initial s = 0",                             /* 10 */
    "",                                          /* 11 */
    NULL};

/* Text of b with line `line` replaced by repl, markers removed; the
 * positions of '$' and '%' (1-based line, column; 0 when absent). */
static void build(const char *const *b, int line, const char *repl, char *buf, size_t size,
                  int mark[2], int use[2]) {
  size_t at = 0;
  mark[0] = mark[1] = use[0] = use[1] = 0;
  for (int i = 0; b[i]; i++) {
    const char *l = i + 1 == line ? repl : b[i];
    int col = 1;
    for (const char *p = l; *p && at + 2 < size; p++) {
      if (*p == '$' || *p == '%') {
        int *m = *p == '$' ? mark : use;
        m[0] = i + 1;
        m[1] = col;
        continue;
      }
      buf[at++] = *p;
      col++;
    }
    buf[at++] = '\n';
  }
  buf[at] = '\0';
}

/* Replace line `line` of b (dimension dim) by repl; want_what is "<what>
 * <issue>" of the expected rejection (reason why), or NULL to accept. */
static void rule(const char *const *b, int dim, int line, const char *repl,
                 const char *want_what, const char *why) {
  char text[2048], got[1024], want[1024];
  int mark[2], use[2];
  build(b, line, repl, text, sizeof text, mark, use);
  dg_flux_program *prog = NULL;
  if (dg_flux_parse_string(text, "t.flux", dim, &prog) != DG_OK) {
    printf("FAIL [%s] does not parse:\n%s\n", repl ? repl : "base", dg_error_message());
    dg_error_clear();
    failures++;
    return;
  }
  if (want_what && !mark[0]) {
    printf("FAIL [%s] test has no '$' marker\n", repl);
    failures++;
  }
  if (use[0])
    snprintf(want, sizeof want, "%s (line %d, column %d, in a let used at line %d, column %d): %s",
             want_what, mark[0], mark[1], use[0], use[1], why);
  else
    snprintf(want, sizeof want, "%s (line %d, column %d): %s", want_what, mark[0], mark[1], why);
  dg_error err = check_prog(prog, NULL, 1, NULL, got, sizeof got);
  expect(repl ? repl : "base program", err, got, want_what ? want : NULL);
  dg_flux_program_destroy(&prog);
}

static void rules(void) {
  /* accepted */
  rule(base, 1, 0, NULL, NULL, NULL);
  rule(base, 1, 5, "flux u = -(u.int*n[0])", NULL, NULL);                    /* u times n */
  rule(base, 1, 4, "rhs u = -a*dx(u) - a*u", NULL, NULL);                   /* param times u */
  rule(base, 1, 4, "rhs u = -dx(a*u + 1) + 3", NULL, NULL);                 /* constant offsets */
  rule(base, 1, 6, "boundary b { u = 2 - u.int/a }", NULL, NULL);           /* ... in a boundary */
  rule(base, 1, 5, "flux u = -(a*n[0] > 0 ? a*n[0]*u.int : a*n[0]*u.ext)",  /* upwind on n */
       NULL, NULL);
  rule(base, 1, 4, "rhs u = -dx(u^1*sqrt(a)^3)", NULL, NULL);                /* u^1, f(param) */
  rule(base, 1, 8, "source u = a^2/max(a, 1)", NULL, NULL);                  /* constant source */
  rule(base, 1, 4, "let q = a*u + 1; let r = q - u; rhs u = -dx(r)", NULL, NULL); /* affine lets */
  rule(base2, 2, 7, "flux s = -dot(n, avg(v)) + cross(n, jump(v))", NULL, NULL);
  rule(base2, 2, 8, "boundary w { v = v.int - 2*dot(v.int, n)*n; s = s.int }", NULL, NULL);

  /* x and t */
  rule(base, 1, 6, "boundary b { u = u.int + $x[0] }",
       "the exterior value of field u in the 1st boundary condition uses x", WHY_X);
  rule(base, 1, 8, "source u = $t", "the source of field u uses t", WHY_T);
  rule(base, 1, 8, "source u = sin(2*pi*$x[0])", "the source of field u uses x", WHY_X);
  rule(base, 1, 4, "rhs u = -$x[0]*dx(u)", "the volume term of field u uses x", WHY_X);
  rule(base, 1, 5, "flux u = -a*n[0]*avg(u)*(1 + $t)", "the numerical flux of field u uses t",
       WHY_T);
  rule(base, 1, 8, "boundary c { u = u.int*cos($t) }",
       "the exterior value of field u in the 2nd boundary condition uses t", WHY_T);

  /* nonlinear uses of the state */
  rule(base, 1, 4, "rhs u = -dx(a*u) + u$*u",
       "the volume term of field u multiplies two state-dependent factors", WHY_NL);
  rule(base, 1, 4, "rhs u = -dx(a*u) + 1$/u",
       "the volume term of field u divides by a state-dependent expression", WHY_NL);
  rule(base, 1, 5, "flux u = -a*n[0]*avg(u) + $sqrt(u.ext)",
       "the numerical flux of field u applies sqrt to the state", WHY_NL);
  rule(base, 1, 5, "flux u = -a*n[0]*avg(u) + $abs(jump(u))",
       "the numerical flux of field u applies abs to the state", WHY_NL);
  rule(base, 1, 4, "rhs u = -dx(u$^2)",
       "the volume term of field u raises the state to a power other than 1", WHY_NL);
  rule(base, 1, 4, "rhs u = -dx(u$^a)", /* a param may be changed at run time */
       "the volume term of field u raises the state to a power other than 1", WHY_NL);
  rule(base, 1, 4, "rhs u = -dx(a$^u)", "the volume term of field u uses the state in an exponent",
       WHY_NL);
  rule(base, 1, 5, "flux u = -(u.int $> 0 ? u.int : u.ext)",
       "the numerical flux of field u applies '>' to the state", WHY_NL);
  rule(base, 1, 5, "flux u = -(u.int $? u.int : u.ext)",
       "the numerical flux of field u chooses a branch by a condition on the state", WHY_NL);
  rule(base, 1, 5, "flux u = -($!u.int)*avg(u)",
       "the numerical flux of field u applies '!' to the state", WHY_NL);
  rule(base, 1, 6, "boundary b { u = $max(u.int, 0) }",
       "the exterior value of field u in the 1st boundary condition applies max to the state",
       WHY_NL);
  rule(base, 1, 4, "let q = u$*u; rhs u = -dx(%q)",
       "the volume term of field u multiplies two state-dependent factors", WHY_NL);
  rule(base, 1, 4, "let q = u$*u; let r = 2*q; rhs u = -dx(a*u) + %r",
       "the volume term of field u multiplies two state-dependent factors", WHY_NL);
  rule(base, 1, 5, "let q = a$/(1 + u); flux u = -avg(%q)*n[0]",
       "the numerical flux of field u divides by a state-dependent expression", WHY_NL);
  rule(base2, 2, 7, "flux s = -$dot(avg(v), avg(v))",
       "the numerical flux of field s takes dot of two state-dependent vectors", WHY_NL);
  rule(base2, 2, 7, "flux s = -$cross(v.int, v.ext)",
       "the numerical flux of field s takes cross of two state-dependent vectors", WHY_NL);
  rule(base2, 2, 4, "rhs v = -grad(s) + $norm(v)*[1, 0]",
       "the volume term of field v applies norm to the state", WHY_NL);
}

/* --- 2. message forms ------------------------------------------------------ */

static void forms(void) {
  char text[2048], got[1024], want[1024];
  int mark[2], use[2];
  build(base, 4, "rhs u = -dx(a*u) + u$*u", text, sizeof text, mark, use);
  dg_flux_program *prog = NULL;
  if (dg_flux_parse_string(text, "t.flux", 1, &prog) != DG_OK) {
    printf("FAIL forms: does not parse\n%s\n", dg_error_message());
    dg_error_clear();
    failures++;
    return;
  }
  snprintf(want, sizeof want,
           "adv.flux:%d:%d: error: the volume term of field u multiplies two state-dependent "
           "factors: %s",
           mark[0], mark[1], WHY_NL);
  dg_error err = check_prog(prog, NULL, 1, "adv.flux", got, sizeof got);
  expect("origin", err, got, want);
  snprintf(want, sizeof want,
           "the volume term of field 0 multiplies two state-dependent factors (line %d, column "
           "%d): %s",
           mark[0], mark[1], WHY_NL);
  err = check_prog(prog, NULL, 0, NULL, got, sizeof got);
  expect("no field names", err, got, want);
  dg_flux_program_destroy(&prog);

  build(base, 4, "let q = u$*u; rhs u = -dx(%q)", text, sizeof text, mark, use);
  if (dg_flux_parse_string(text, "t.flux", 1, &prog) != DG_OK) {
    printf("FAIL forms: let program does not parse\n%s\n", dg_error_message());
    dg_error_clear();
    failures++;
    return;
  }
  snprintf(want, sizeof want,
           "adv.flux:%d:%d: error: the volume term of field u multiplies two state-dependent "
           "factors (in a let used at %d:%d): %s",
           mark[0], mark[1], use[0], use[1], WHY_NL);
  err = check_prog(prog, NULL, 1, "adv.flux", got, sizeof got);
  expect("origin, let", err, got, want);
  dg_flux_program_destroy(&prog);
}

/* --- 3. the shipped problems ----------------------------------------------- */

static char *read_text(const char *dir, const char *file) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  char *buf = calloc(1, 1 << 16);
  if (buf && fread(buf, 1, (1 << 16) - 1, f) == 0) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  return buf;
}

/* Line and column (1-based) of the first `tok` on the first line that
 * starts with `line_start`, plus `skip` columns; 0 when not found. */
static void find(const char *text, const char *line_start, const char *tok, int skip,
                 int *line, int *col) {
  *line = *col = 0;
  int ln = 1;
  for (const char *l = text; l && *l; ln++) {
    if (strncmp(l, line_start, strlen(line_start)) == 0) {
      const char *end = strchr(l, '\n'), *p = strstr(l, tok);
      if (p && (!end || p < end)) {
        *line = ln;
        *col = (int)(p - l) + 1 + skip;
      }
      return;
    }
    l = strchr(l, '\n');
    l = l ? l + 1 : NULL;
  }
}

/* want: NULL to accept, else "<what> <issue>" located at the first `tok`
 * (+skip) on the line starting with `line_start`; through a let when
 * use_start is given (its use at use_tok + use_skip). */
typedef struct shipped {
  const char *file;
  int dim;
  const char *keep; /* NULL: all boundaries, "": none, else one boundary's name */
  const char *want, *why;
  const char *line_start, *tok;
  int skip;
  const char *use_start, *use_tok;
  int use_skip;
} shipped;

static void check_shipped(const char *dir, const shipped *s) {
  char label[256], got[1024], want[1024];
  snprintf(label, sizeof label, "%s, boundaries: %s", s->file,
           !s->keep ? "all" : s->keep[0] ? s->keep : "none");
  dg_flux_program *prog = load_flux(dir, s->file, s->dim);
  char *text = read_text(dir, s->file);
  if (!prog || !text) {
    printf("FAIL [%s] cannot load\n", label);
    failures++;
    dg_flux_program_destroy(&prog);
    free(text);
    return;
  }
  unsigned char keep[64] = {0};
  if (s->keep) {
    int b;
    if (s->keep[0] && dg_flux_boundary_find(prog, s->keep, &b) == DG_OK && b < 64)
      keep[b] = 1;
    else if (s->keep[0]) {
      printf("FAIL [%s] no boundary '%s'\n", label, s->keep);
      failures++;
    }
    dg_error_clear();
  }
  if (s->want) {
    int l, c, ul = 0, uc = 0;
    find(text, s->line_start, s->tok, s->skip, &l, &c);
    if (s->use_start)
      find(text, s->use_start, s->use_tok, s->use_skip, &ul, &uc);
    if (!l || (s->use_start && !ul)) {
      printf("FAIL [%s] the test's search for '%s' found nothing\n", label, s->tok);
      failures++;
    }
    if (s->use_start)
      snprintf(want, sizeof want,
               "%s (line %d, column %d, in a let used at line %d, column %d): %s", s->want, l, c,
               ul, uc, s->why);
    else
      snprintf(want, sizeof want, "%s (line %d, column %d): %s", s->want, l, c, s->why);
  }
  dg_error err = check_prog(prog, s->keep ? keep : NULL, 1, NULL, got, sizeof got);
  expect(label, err, got, s->want ? want : NULL);
  printf("%-44s %s%s\n", label, err == DG_OK ? "affine" : "not affine: ", got);
  dg_flux_program_destroy(&prog);
  free(text);
}

static void shipped_problems(const char *dir) {
  const char *bc_u = "the exterior value of field u in the 1st boundary condition uses x";
  const char *euler = "the volume term of field m divides by a state-dependent expression";
  const shipped cases[] = {
      {.file = "maxwell3d/maxwell3d.flux", .dim = 3},
      {.file = "maxwell2d_tm/maxwell2d_tm.flux", .dim = 2},
      /* inflow values are the exact solution, a function of x and t */
      {.file = "advection1d/advection1d.flux", .dim = 1, .want = bc_u, .why = WHY_X,
       .line_start = "boundary inflow", .tok = "x[0]"},
      {.file = "advection1d/advection1d.flux", .dim = 1, .keep = "outflow"},
      {.file = "advection2d/advection2d.flux", .dim = 2, .want = bc_u, .why = WHY_X,
       .line_start = "boundary inflow", .tok = "x[0]"},
      /* its cfg: a periodic mesh, no boundary condition used */
      {.file = "advection2d/advection2d.flux", .dim = 2, .keep = ""},
      {.file = "advection2d/advection2d.flux", .dim = 2, .keep = "outflow"},
      {.file = "advection2d_gmsh/advection2d.flux", .dim = 2, .want = bc_u, .why = WHY_X,
       .line_start = "boundary inflow", .tok = "x[0]"},
      {.file = "advection3d/advection3d.flux", .dim = 3, .want = bc_u, .why = WHY_X,
       .line_start = "let xr", .tok = "x - t", .use_start = "boundary inflow",
       .use_tok = "xr[0]"},
      {.file = "advection3d/advection3d.flux", .dim = 3, .keep = ""},
      {.file = "acoustics2d/acoustics2d.flux", .dim = 2,
       .want = "the exterior value of field p in the 2nd boundary condition uses x",
       .why = WHY_X, .line_start = "boundary open", .tok = "x[0]"},
      {.file = "acoustics2d/acoustics2d.flux", .dim = 2, .keep = "wall"}, /* a slip wall */
      /* Euler: the first nonlinear term met is 1/rho in let irho, through u
       * in the momentum flux m[0]*u */
      {.file = "euler2d_vortex/euler2d_vortex.flux", .dim = 2, .keep = "", .want = euler,
       .why = WHY_NL, .line_start = "let irho", .tok = "/", .use_start = "rhs m",
       .use_tok = "*u", .use_skip = 1},
      {.file = "euler3d_vortex/euler3d_vortex.flux", .dim = 3, .keep = "wall", .want = euler,
       .why = WHY_NL, .line_start = "let irho", .tok = "/", .use_start = "rhs m",
       .use_tok = "*u", .use_skip = 1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
    check_shipped(dir, &cases[i]);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    printf("usage: %s PROBLEMS_DIR\n", argv[0]);
    return 2;
  }
  rules();
  forms();
  shipped_problems(argv[1]);
  if (failures == 0)
    printf("ok\n");
  return failures ? 1 : 0;
}
