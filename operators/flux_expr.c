#include "operators/flux_expr.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "operators/flux_check_expr.h"
#include "operators/flux_eval.h"
#include "operators/flux_lexer.h"
#include "operators/flux_parser.h"

/* A checked expression and the program it is checked against: the
 * dimension and a copy of the params (values frozen at parse time), so the
 * expression outlives the flux program it was parsed for. */
struct dg_flux_expr {
  dg_flux_program *prog; /* owns the nodes (its arena) */
  const dg_flux_node *node;
  int uses_x;
};

static int uses_x(const dg_flux_node *n) {
  if (n->op == DG_FLUX_X)
    return 1;
  for (int i = 0; i < n->nargs; i++)
    if (uses_x(n->args[i]))
      return 1;
  return 0;
}

/* The reports, located in the cfg: line and column shifted to where the
 * value stands (its first line starts at column col), the value and a
 * caret as dg_flux_diag_format draws them. */
static dg_error report(const dg_flux_source *src, int line, int col) {
  char msg[1900];
  size_t at = 0;
  msg[0] = '\0';
  for (int i = 0; i < src->diags->count; i++) {
    const dg_flux_diag *d = &src->diags->items[i];
    char one[3 * DG_FLUX_MESSAGE_MAX], head[DG_FLUX_MESSAGE_MAX + 128];
    dg_flux_diag_format(src, d, one, sizeof one);
    const char *rest = strchr(one, '\n');
    int n = line < 1 /* a command-line value: no place in a file */
                ? snprintf(head, sizeof head, "%s: error: %s (column %d of the value)\n",
                           src->name, d->message, d->loc.col)
                : snprintf(head, sizeof head, "%s:%d:%d: error: %s\n", src->name,
                           line + d->loc.line - 1,
                           d->loc.line == 1 ? col + d->loc.col - 1 : d->loc.col, d->message);
    if (n < 0 || at + (size_t)n + strlen(rest ? rest + 1 : "") + 1 > sizeof msg)
      break;
    at += (size_t)snprintf(msg + at, sizeof msg - at, "%s%s", head, rest ? rest + 1 : "");
  }
  while (at > 0 && msg[at - 1] == '\n')
    msg[--at] = '\0';
  DG_RAISE(DG_ERR_INPUT, "%s", msg);
}

/* Check the syntax tree into e->node (errors to src->diags). */
static dg_error check(dg_flux_source *src, const dg_flux_syn *syn, dg_flux_program *scratch,
                      dg_flux_expr *e) {
  dg_flux_checker ck = {.src = src, .prog = scratch, .a = scratch->arena};
  dg_flux_scope sc = {.ctx = DG_FLUX_CTX_VALUE, .what = "a problem.cfg value"};
  dg_flux_node *n = dg_flux_check_expr(&ck, &sc, syn);
  DG_CHECK(!ck.oom, DG_ERR_MEMORY, "out of memory checking a value of %s", src->name);
  char b1[48];
  if (n && n->shape.rank != 0)
    dg_flux_check_error(&ck, syn->loc, "a problem.cfg value must be a scalar, got %s (take a "
                        "component, e.g. x[0])", dg_flux_check_a_shape(n->shape, b1));
  else if (n && dg_flux_check_height(&ck, n) > MAX_HEIGHT)
    dg_flux_check_error(&ck, syn->loc, "expression too large (more than %d levels of "
                        "operations)", MAX_HEIGHT);
  else if (n && dg_flux_check_cost(&ck, n) > MAX_COST)
    dg_flux_check_error(&ck, syn->loc, "expression too large (more than %d operations)",
                        MAX_COST);
  else if (n) {
    e->node = n;
    e->uses_x = uses_x(n);
  }
  return DG_OK;
}

/* The scratch program: dimension, params copied (names and current
 * values); the program's field and coefficient tables are borrowed while
 * checking, so that naming one is its own error. */
static dg_error scratch_program(const char *file, int dim, const dg_flux_program *prog,
                                dg_flux_program **out) {
  dg_flux_program *s = calloc(1, sizeof *s);
  DG_CHECK(s, DG_ERR_MEMORY, "cannot allocate an expression");
  *out = s;
  DG_CALL(dg_flux_arena_create(&s->arena));
  s->dim = dim;
  s->name = dg_flux_arena_strndup(s->arena, file, strlen(file));
  int np = prog ? prog->nparams : 0;
  s->params = dg_flux_arena_alloc(s->arena, (size_t)(np > 0 ? np : 1) * sizeof *s->params);
  DG_CHECK(s->name && s->params, DG_ERR_MEMORY, "out of memory");
  for (int i = 0; i < np; i++) {
    s->params[i] = prog->params[i];
    s->params[i].name = dg_flux_arena_strndup(s->arena, prog->params[i].name,
                                              strlen(prog->params[i].name));
    DG_CHECK(s->params[i].name, DG_ERR_MEMORY, "out of memory");
  }
  s->nparams = np;
  if (prog) {
    s->nfields = prog->nfields;
    s->fields = prog->fields;
    s->ncoefs = prog->ncoefs;
    s->coefs = prog->coefs;
  }
  return DG_OK;
}

dg_error dg_flux_expr_parse(const char *text, const char *file, int line, int col, int dim,
                            const dg_flux_program *prog, dg_flux_expr **out) {
  DG_CHECK(out, DG_ERR_ARG, "out is NULL");
  *out = NULL;
  DG_CHECK(text && file, DG_ERR_ARG, "NULL argument");
  DG_CHECK(dim >= 1 && dim <= 3, DG_ERR_ARG, "dimension %d is not 1, 2 or 3", dim);
  DG_CHECK((line >= 1 && col >= 1) || (line == 0 && col == 0), DG_ERR_ARG,
           "location %d:%d is neither 1-based nor 0:0 (a command-line value)", line, col);
  dg_flux_diags *d = calloc(1, sizeof *d);
  dg_flux_expr *e = calloc(1, sizeof *e);
  dg_flux_source src = {file, text, strlen(text), d};
  dg_flux_token *toks = NULL;
  int ntoks = 0;
  dg_flux_arena *syntax = NULL;
  dg_error err = DG_OK;
  DG_CHECK_GOTO(err, done, d && e, DG_ERR_MEMORY, "cannot allocate an expression");
  DG_CALL_GOTO(err, done, scratch_program(file, dim, prog, &e->prog));
  DG_CALL_GOTO(err, done, dg_flux_lex(&src, &toks, &ntoks));
  DG_CALL_GOTO(err, done, dg_flux_arena_create(&syntax));
  dg_flux_syn *syn = NULL;
  DG_CALL_GOTO(err, done, dg_flux_parse_expression(&src, toks, ntoks, syntax, &syn));
  if (syn && d->count == 0)
    DG_CALL_GOTO(err, done, check(&src, syn, e->prog, e));
  /* the borrowed tables go back: the expression must not outlive them */
  e->prog->nfields = e->prog->ncoefs = 0;
  e->prog->fields = NULL;
  e->prog->coefs = NULL;
  if (d->count > 0 || !e->node) {
    err = d->count > 0 ? report(&src, line, col)
                       : dg_error_raise(DG_ERR_INTERNAL, __FILE__, __LINE__, __func__,
                                        "no expression and no error");
    goto done;
  }
  *out = e;
  e = NULL;
done:
  dg_flux_expr_destroy(&e);
  dg_flux_arena_destroy(&syntax);
  free(toks);
  free(d);
  return err;
}

dg_error dg_flux_expr_eval(const dg_flux_expr *e, const double *x, double *out) {
  DG_CHECK(e && out, DG_ERR_ARG, "NULL argument");
  DG_CHECK(x || !e->uses_x, DG_ERR_ARG, "the expression reads x, which was not given");
  dg_flux_point pt = {.x = x};
  DG_CALL(dg_flux_eval(e->prog, e->node, &pt, out, 1));
  return DG_OK;
}

int dg_flux_expr_uses_x(const dg_flux_expr *e) { return e ? e->uses_x : 0; }

void dg_flux_expr_destroy(dg_flux_expr **e) {
  if (!e || !*e)
    return;
  if ((*e)->prog)
    dg_flux_program_destroy(&(*e)->prog);
  free(*e);
  *e = NULL;
}
