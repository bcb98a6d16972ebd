#include "operators/flux.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fsutil.h"
#include "core/suggest.h"
#include "operators/flux_check.h"
#include "operators/flux_lexer.h"
#include "operators/flux_parser.h"

/* Larger than any sensible flux file; a bound keeps a wrong path (a mesh,
 * a binary) from being read whole. */
enum { MAX_FILE_SIZE = 4 << 20 };

/* The error message: as many whole diagnostics as fit in the error trace's
 * message (the caller's diags get all of them). */
static dg_error report(const dg_flux_source *src) {
  const dg_flux_diags *d = src->diags;
  char msg[1900];
  size_t at = 0;
  int shown = 0;
  msg[0] = '\0';
  for (int i = 0; i < d->count; i++) {
    size_t len = strlen(d->items[i].text);
    if (at + len + 64 > sizeof msg)
      break;
    memcpy(msg + at, d->items[i].text, len + 1);
    at += len;
    shown++;
  }
  int more = d->count - shown + d->dropped;
  if (more > 0)
    snprintf(msg + at, sizeof msg - at, "(%d more error%s not shown)\n", more,
             more == 1 ? "" : "s");
  DG_RAISE(DG_ERR_INPUT, "%d error%s in %s:\n%s", d->count + d->dropped,
           d->count + d->dropped == 1 ? "" : "s", src->name, msg);
}

dg_error dg_flux_parse_buffer(const char *data, size_t size, const char *name, int dim,
                              dg_flux_program **out, dg_flux_diags *diags) {
  DG_CHECK(out, DG_ERR_ARG, "out is NULL");
  *out = NULL;
  DG_CHECK(data || size == 0, DG_ERR_ARG, "data is NULL");
  DG_CHECK(dim >= 0 && dim <= 3, DG_ERR_ARG, "dimension %d is not 0 (from the file), 1, 2 or 3",
           dim);
  dg_flux_diags *d = diags ? diags : malloc(sizeof *d);
  DG_CHECK(d, DG_ERR_MEMORY, "cannot allocate diagnostics");
  memset(d, 0, sizeof *d);
  dg_flux_source src = {name ? name : "<string>", data ? data : "", size, d};
  dg_flux_token *toks = NULL;
  int ntoks = 0;
  dg_flux_arena *syntax = NULL;
  dg_flux_program *prog = NULL;
  dg_error err;
  DG_CALL_GOTO(err, done, dg_flux_lex(&src, &toks, &ntoks));
  DG_CALL_GOTO(err, done, dg_flux_arena_create(&syntax));
  dg_flux_stmt *stmts = NULL;
  DG_CALL_GOTO(err, done, dg_flux_parse_tokens(&src, toks, ntoks, syntax, &stmts));
  prog = calloc(1, sizeof *prog);
  DG_CHECK_GOTO(err, done, prog, DG_ERR_MEMORY, "cannot allocate a flux program");
  DG_CALL_GOTO(err, done, dg_flux_arena_create(&prog->arena));
  prog->name = dg_flux_arena_strndup(prog->arena, src.name, strlen(src.name));
  DG_CHECK_GOTO(err, done, prog->name, DG_ERR_MEMORY, "out of memory");
  prog->ldg_beta = 0.5; /* PyFR's ldg-beta default; FLUX_LANGUAGE.md */
  DG_CALL_GOTO(err, done, dg_flux_check(&src, stmts, dim, prog));
  /* In source order (syntax errors are found before the checker's). */
  for (int i = 1; i < d->count; i++)
    for (int j = i; j > 0 && (d->items[j].loc.line < d->items[j - 1].loc.line ||
                              (d->items[j].loc.line == d->items[j - 1].loc.line &&
                               d->items[j].loc.col < d->items[j - 1].loc.col));
         j--) {
      dg_flux_diag tmp = d->items[j];
      d->items[j] = d->items[j - 1];
      d->items[j - 1] = tmp;
    }
  for (int i = 0; i < d->count; i++)
    dg_flux_diag_format(&src, &d->items[i], d->items[i].text, sizeof d->items[i].text);
  if (d->count > 0) {
    err = report(&src);
    goto done;
  }
  *out = prog;
  prog = NULL;
done:
  dg_flux_program_destroy(&prog);
  dg_flux_arena_destroy(&syntax);
  free(toks);
  if (d != diags)
    free(d);
  return err;
}

dg_error dg_flux_parse_string(const char *text, const char *name, int dim,
                              dg_flux_program **out) {
  DG_CHECK(text, DG_ERR_ARG, "text is NULL");
  DG_CALL(dg_flux_parse_buffer(text, strlen(text), name, dim, out, NULL));
  return DG_OK;
}

dg_error dg_flux_read_file(const char *path, char **text, size_t *len) {
  DG_CHECK(path && text && len, DG_ERR_ARG, "NULL argument");
  *text = NULL;
  FILE *f;
  DG_CALL(dg_fsutil_fopen_input(path, "flux file", &f));
  char *buf = malloc(MAX_FILE_SIZE + 1);
  if (!buf) {
    fclose(f);
    DG_RAISE(DG_ERR_MEMORY, "cannot allocate a buffer for '%s'", path);
  }
  size_t n = fread(buf, 1, MAX_FILE_SIZE + 1, f);
  int bad = ferror(f);
  fclose(f);
  if (bad || n > MAX_FILE_SIZE) {
    free(buf);
    DG_RAISE(bad ? DG_ERR_IO : DG_ERR_INPUT, bad ? "cannot read flux file '%s'"
             : "flux file '%s' is larger than %d bytes; is it really a flux file?",
             path, MAX_FILE_SIZE);
  }
  buf[n] = '\0';
  *text = buf;
  *len = n;
  return DG_OK;
}

dg_error dg_flux_parse_file(const char *path, int dim, dg_flux_program **out) {
  DG_CHECK(path && out, DG_ERR_ARG, "NULL argument");
  char *buf;
  size_t n;
  DG_CALL(dg_flux_read_file(path, &buf, &n));
  dg_error err = dg_flux_parse_buffer(buf, n, path, dim, out, NULL);
  free(buf);
  if (err != DG_OK)
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  return DG_OK;
}

void dg_flux_program_destroy(dg_flux_program **prog) {
  if (!prog || !*prog)
    return;
  dg_flux_arena_destroy(&(*prog)->arena);
  free(*prog);
  *prog = NULL;
}

int dg_flux_program_dim(const dg_flux_program *prog) { return prog->dim; }
dg_flux_arena *dg_flux_program_arena(dg_flux_program *prog) { return prog->arena; }

int dg_flux_field_count(const dg_flux_program *prog) { return prog->nfields; }
const dg_flux_field_info *dg_flux_field(const dg_flux_program *prog, int index) {
  return index >= 0 && index < prog->nfields ? &prog->fields[index] : NULL;
}
int dg_flux_state_size(const dg_flux_program *prog) { return prog->state_size; }

int dg_flux_param_count(const dg_flux_program *prog) { return prog->nparams; }
const dg_flux_param_info *dg_flux_param(const dg_flux_program *prog, int index) {
  return index >= 0 && index < prog->nparams ? &prog->params[index] : NULL;
}

int dg_flux_coef_count(const dg_flux_program *prog) { return prog->ncoefs; }
const dg_flux_coef_info *dg_flux_coef(const dg_flux_program *prog, int index) {
  return index >= 0 && index < prog->ncoefs ? &prog->coefs[index] : NULL;
}

int dg_flux_let_count(const dg_flux_program *prog) { return prog->nlets; }
const dg_flux_let_info *dg_flux_let(const dg_flux_program *prog, int index) {
  return index >= 0 && index < prog->nlets ? &prog->lets[index] : NULL;
}

const unsigned char *dg_flux_program_lets_bare(const dg_flux_program *prog) {
  return prog->lets_bare;
}

int dg_flux_boundary_count(const dg_flux_program *prog) { return prog->nboundaries; }
const dg_flux_boundary_info *dg_flux_boundary(const dg_flux_program *prog, int index) {
  return index >= 0 && index < prog->nboundaries ? &prog->boundaries[index] : NULL;
}

int dg_flux_gradient_count(const dg_flux_program *prog) { return prog->ngradients; }
const dg_flux_gradient_info *dg_flux_gradient(const dg_flux_program *prog, int index) {
  return index >= 0 && index < prog->ngradients ? &prog->gradients[index] : NULL;
}

double dg_flux_ldg_beta(const dg_flux_program *prog) { return prog->ldg_beta; }
dg_error dg_flux_set_ldg_beta(dg_flux_program *prog, double beta) {
  /* |beta_n| = 1/2 is the alternating (one-sided) choice of Cockburn & Shu
   * 1998; more would weight the far side above one */
  DG_CHECK(beta >= -0.5 && beta <= 0.5, DG_ERR_INPUT,
           "ldg_beta = %g for %s: the LDG switch takes values in [-0.5, 0.5] (0.5: one-sided, "
           "0: central)", beta, prog->name);
  prog->ldg_beta = beta;
  return DG_OK;
}

const dg_flux_node *dg_flux_wave_speed(const dg_flux_program *prog, dg_flux_loc *loc) {
  if (loc)
    *loc = prog->wave_speed_loc;
  return prog->wave_speed;
}

int dg_flux_rusanov_let(const dg_flux_program *prog) {
  for (int i = 0; i < prog->nlets; i++)
    if (strcmp(prog->lets[i].name, "lam") == 0)
      return i;
  return -1;
}

int dg_flux_integral_count(const dg_flux_program *prog) { return prog->nintegrals; }
const dg_flux_integral_info *dg_flux_integral(const dg_flux_program *prog, int index) {
  return index >= 0 && index < prog->nintegrals ? &prog->integrals[index] : NULL;
}

/* Find `name` among n names (stride bytes apart, each a const char *
 * member at the start of its struct); DG_ERR_INPUT with a suggestion. */
static dg_error find_named(const dg_flux_program *prog, const char *what, const char *name,
                           const void *table, size_t stride, int n, int *index) {
  DG_CHECK(name && index, DG_ERR_ARG, "NULL argument");
  const char *cand[256];
  size_t nc = 0;
  for (int i = 0; i < n; i++) {
    const char *s = *(const char *const *)((const char *)table + (size_t)i * stride);
    if (strcmp(s, name) == 0) {
      *index = i;
      return DG_OK;
    }
    if (nc < 256)
      cand[nc++] = s;
  }
  const char *near = dg_suggest_closest(name, cand, nc);
  if (near)
    DG_RAISE(DG_ERR_INPUT, "%s has no %s '%s'; did you mean '%s'?", prog->name, what, name,
             near);
  DG_RAISE(DG_ERR_INPUT, "%s has no %s '%s'", prog->name, what, name);
}

dg_error dg_flux_field_find(const dg_flux_program *prog, const char *name, int *index) {
  DG_CHECK(prog, DG_ERR_ARG, "prog is NULL");
  DG_CALL(find_named(prog, "field", name, prog->fields, sizeof *prog->fields, prog->nfields,
                     index));
  return DG_OK;
}

dg_error dg_flux_param_find(const dg_flux_program *prog, const char *name, int *index) {
  DG_CHECK(prog, DG_ERR_ARG, "prog is NULL");
  DG_CALL(find_named(prog, "param", name, prog->params, sizeof *prog->params, prog->nparams,
                     index));
  return DG_OK;
}

dg_error dg_flux_coef_find(const dg_flux_program *prog, const char *name, int *index) {
  DG_CHECK(prog, DG_ERR_ARG, "prog is NULL");
  DG_CALL(find_named(prog, "coefficient", name, prog->coefs, sizeof *prog->coefs, prog->ncoefs,
                     index));
  return DG_OK;
}

dg_error dg_flux_boundary_find(const dg_flux_program *prog, const char *name, int *index) {
  DG_CHECK(prog, DG_ERR_ARG, "prog is NULL");
  DG_CALL(find_named(prog, "boundary", name, prog->boundaries, sizeof *prog->boundaries,
                     prog->nboundaries, index));
  return DG_OK;
}

dg_error dg_flux_set_param(dg_flux_program *prog, const char *name, double value) {
  int i;
  DG_CALL(dg_flux_param_find(prog, name, &i));
  DG_CHECK(isfinite(value), DG_ERR_INPUT, "param '%s' of %s set to %g; it must be finite",
           name, prog->name, value);
  prog->params[i].value = value;
  return DG_OK;
}

/* --- printer ---------------------------------------------------------------- */

typedef struct printer {
  const dg_flux_program *prog;
  char *buf;
  size_t size, len;
} printer;

static void out(printer *p, const char *s) {
  size_t n = strlen(s);
  if (p->size > 0 && p->len + 1 < p->size) {
    size_t room = p->size - 1 - p->len;
    memcpy(p->buf + p->len, s, n < room ? n : room);
    p->buf[p->len + (n < room ? n : room)] = '\0';
  }
  p->len += n;
}

static void outf(printer *p, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void outf(printer *p, const char *fmt, ...) {
  char tmp[128];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  out(p, tmp);
}

static const char *side_suffix(dg_flux_side s) {
  return s == DG_FLUX_SIDE_INT ? ".int" : s == DG_FLUX_SIDE_EXT ? ".ext" : "";
}

static const char *const deriv_names[] = {"grad", "div", "curl", "dx", "dy", "dz"};

static void print(printer *p, const dg_flux_node *n) {
  static const char *const binops[] = {
      [DG_FLUX_ADD] = " + ", [DG_FLUX_SUB] = " - ", [DG_FLUX_MUL] = "*",
      [DG_FLUX_DIV] = "/",   [DG_FLUX_POW] = "^",   [DG_FLUX_LT] = " < ",
      [DG_FLUX_LE] = " <= ", [DG_FLUX_GT] = " > ",  [DG_FLUX_GE] = " >= ",
      [DG_FLUX_EQ] = " == ", [DG_FLUX_NE] = " != ", [DG_FLUX_AND] = " && ",
      [DG_FLUX_OR] = " || "};
  switch (n->op) {
  case DG_FLUX_NUM: outf(p, "%.17g", n->value); return;
  case DG_FLUX_PARAM: out(p, p->prog->params[n->ref].name); return;
  case DG_FLUX_T: out(p, "t"); return;
  case DG_FLUX_LDGB: out(p, "beta_n"); return;
  case DG_FLUX_GRADQ:
    outf(p, "grad(%s)", p->prog->gradients[n->ref].name);
    out(p, side_suffix(n->side));
    if (n->comp >= 0)
      outf(p, "[%d]", n->comp);
    return;
  case DG_FLUX_COEF:
    out(p, p->prog->coefs[n->ref].name);
    out(p, side_suffix(n->side));
    return;
  case DG_FLUX_X:
  case DG_FLUX_NORMAL:
  case DG_FLUX_FIELD:
  case DG_FLUX_LET:
    out(p, n->op == DG_FLUX_X        ? "x"
           : n->op == DG_FLUX_NORMAL ? "n"
           : n->op == DG_FLUX_FIELD  ? p->prog->fields[n->ref].name
                                     : p->prog->lets[n->ref].name);
    out(p, side_suffix(n->side));
    if (n->comp >= 0)
      outf(p, "[%d]", n->comp);
    return;
  case DG_FLUX_NEG:
  case DG_FLUX_NOT:
    out(p, n->op == DG_FLUX_NEG ? "(-" : "(!");
    print(p, n->args[0]);
    out(p, ")");
    return;
  case DG_FLUX_SELECT:
    out(p, "(");
    print(p, n->args[0]);
    out(p, " ? ");
    print(p, n->args[1]);
    out(p, " : ");
    print(p, n->args[2]);
    out(p, ")");
    return;
  case DG_FLUX_CALL:
  case DG_FLUX_DERIV:
  case DG_FLUX_VEC:
    out(p, n->op == DG_FLUX_CALL    ? dg_flux_fn_name(n->ref)
           : n->op == DG_FLUX_DERIV ? deriv_names[n->ref]
                                    : "");
    out(p, n->op == DG_FLUX_VEC ? "[" : "(");
    for (int i = 0; i < n->nargs; i++) {
      if (i)
        out(p, ", ");
      print(p, n->args[i]);
    }
    out(p, n->op == DG_FLUX_VEC ? "]" : ")");
    return;
  case DG_FLUX_INDEX:
    print(p, n->args[0]);
    outf(p, "[%d]", n->ref);
    return;
  default:
    out(p, "(");
    print(p, n->args[0]);
    out(p, binops[n->op]);
    print(p, n->args[1]);
    out(p, ")");
    return;
  }
}

size_t dg_flux_print(const dg_flux_program *prog, const dg_flux_node *node, char *buf,
                     size_t size) {
  printer p = {prog, buf, size, 0};
  if (size > 0)
    buf[0] = '\0';
  if (prog && node)
    print(&p, node);
  return p.len;
}
