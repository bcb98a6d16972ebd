#include "operators/flux_check_expr.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/suggest.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif


static const char *const builtin_names[] = {
    "pi",  "x",    "t",    "n",     "sin",   "cos",   "tan",  "exp",  "log",
    "sqrt", "abs", "tanh", "floor", "min",   "max",   "pow",  "atan2", "dot",
    "cross", "norm", "avg", "jump", "grad",  "div",   "curl", "dx",   "dy",
    "dz",  "int",  "ext",  "ldg", "transpose", "trace"};
enum { NBUILTIN = sizeof builtin_names / sizeof *builtin_names };

/* Callable names: [0, NFUNC).  arity -1 = at least 2. */
typedef enum fn_kind {
  F_MATH1,
  F_MATH2,
  F_MINMAX,
  F_DOT,
  F_CROSS,
  F_NORM,
  F_TRACE,
  F_DERIV,
  F_MATRIX
} fn_kind;
typedef struct fn_info {
  const char *name;
  fn_kind kind;
  int arity;
  int id; /* dg_flux_fn, dg_flux_deriv, 0 avg / 1 jump / 2 ldg, 0 transpose / 1 trace;
             pow: -1 */
} fn_info;
static const fn_info functions[] = {
    {"sin", F_MATH1, 1, DG_FLUX_FN_SIN},     {"cos", F_MATH1, 1, DG_FLUX_FN_COS},
    {"tan", F_MATH1, 1, DG_FLUX_FN_TAN},     {"exp", F_MATH1, 1, DG_FLUX_FN_EXP},
    {"log", F_MATH1, 1, DG_FLUX_FN_LOG},     {"sqrt", F_MATH1, 1, DG_FLUX_FN_SQRT},
    {"abs", F_MATH1, 1, DG_FLUX_FN_ABS},     {"tanh", F_MATH1, 1, DG_FLUX_FN_TANH},
    {"floor", F_MATH1, 1, DG_FLUX_FN_FLOOR}, {"pow", F_MATH2, 2, -1},
    {"atan2", F_MATH2, 2, DG_FLUX_FN_ATAN2}, {"min", F_MINMAX, -1, DG_FLUX_FN_MIN},
    {"max", F_MINMAX, -1, DG_FLUX_FN_MAX},   {"dot", F_DOT, 2, DG_FLUX_FN_DOT},
    {"cross", F_CROSS, 2, DG_FLUX_FN_CROSS}, {"norm", F_NORM, 1, DG_FLUX_FN_NORM},
    {"avg", F_TRACE, 1, 0},                  {"jump", F_TRACE, 1, 1},
    {"grad", F_DERIV, 1, DG_FLUX_D_GRAD},    {"div", F_DERIV, 1, DG_FLUX_D_DIV},
    {"curl", F_DERIV, 1, DG_FLUX_D_CURL},    {"dx", F_DERIV, 1, DG_FLUX_D_X},
    {"dy", F_DERIV, 1, DG_FLUX_D_Y},         {"dz", F_DERIV, 1, DG_FLUX_D_Z},
    {"ldg", F_TRACE, 1, 2},                  {"transpose", F_MATRIX, 1, 0},
    {"trace", F_MATRIX, 1, 1},
};
enum { NFUNC = sizeof functions / sizeof *functions };

int dg_flux_check_name_is(const char *name, int len, const char *word) {
  return (size_t)len == strlen(word) && memcmp(name, word, (size_t)len) == 0;
}

void dg_flux_check_error(dg_flux_checker *ck, dg_flux_loc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  dg_flux_diag_verror(ck->src, loc, fmt, ap);
  va_end(ap);
}

/* "; did you mean 'H'?" when there is a suggestion, else "". */
const char *dg_flux_check_did_you_mean(const char *near, char *buf, size_t size) {
  if (!near)
    return "";
  snprintf(buf, size, "; did you mean '%s'?", near);
  return buf;
}

static const char *shape_name(dg_flux_shape s, char *buf) {
  return dg_flux_shape_name(s, buf, 32);
}

/* "a scalar", "a 3-vector", "a 2x2 matrix" */
const char *dg_flux_check_a_shape(dg_flux_shape s, char *buf) {
  char tmp[32];
  snprintf(buf, 40, "a %s", shape_name(s, tmp));
  return buf;
}

static dg_flux_node *oom(dg_flux_checker *ck) {
  ck->oom = 1;
  return NULL;
}

/* --- name lookup ------------------------------------------------------------ */

int dg_flux_check_find_field(const dg_flux_checker *ck, const char *name, int len) {
  for (int i = 0; i < ck->prog->nfields; i++)
    if (dg_flux_check_name_is(name, len, ck->prog->fields[i].name))
      return i;
  return -1;
}
int dg_flux_check_find_param(const dg_flux_checker *ck, const char *name, int len) {
  for (int i = 0; i < ck->prog->nparams; i++)
    if (dg_flux_check_name_is(name, len, ck->prog->params[i].name))
      return i;
  return -1;
}
int dg_flux_check_find_coef(const dg_flux_checker *ck, const char *name, int len) {
  for (int i = 0; i < ck->prog->ncoefs; i++)
    if (dg_flux_check_name_is(name, len, ck->prog->coefs[i].name))
      return i;
  return -1;
}
int dg_flux_check_find_let(const dg_flux_checker *ck, const char *name, int len) {
  for (int i = 0; i < ck->prog->nlets; i++)
    if (dg_flux_check_name_is(name, len, ck->prog->lets[i].name))
      return i;
  return -1;
}
static const fn_info *find_function(const char *name, int len) {
  for (int i = 0; i < NFUNC; i++)
    if (dg_flux_check_name_is(name, len, functions[i].name))
      return &functions[i];
  return NULL;
}

/* Closest known name (fields, params, visible lets, then the built-ins
 * chosen by `functions`) to the unknown `word`. */
static const char *suggest(const dg_flux_checker *ck, const char *word, int want_functions) {
  if (strlen(word) < 2)
    return NULL; /* every one-letter name is one edit from every other */
  const char *cand[512];
  size_t n = 0;
  if (want_functions) {
    for (int i = 0; i < NFUNC; i++)
      cand[n++] = functions[i].name;
  } else {
    for (int i = 0; i < ck->prog->nfields && n < 400; i++)
      cand[n++] = ck->prog->fields[i].name;
    for (int i = 0; i < ck->prog->nparams && n < 450; i++)
      cand[n++] = ck->prog->params[i].name;
    for (int i = 0; i < ck->prog->ncoefs && n < 475; i++)
      cand[n++] = ck->prog->coefs[i].name;
    for (int i = 0; i < ck->nlets_visible && n < 500; i++)
      cand[n++] = ck->prog->lets[i].name;
    const char *consts[] = {"pi", "x", "t", "n"};
    for (int i = 0; i < 4; i++)
      cand[n++] = consts[i];
  }
  return dg_suggest_closest(word, cand, n);
}

/* The field name closest to word, if one is plausibly meant. */
const char *dg_flux_check_closest_field(const dg_flux_checker *ck, const char *word) {
  const char *cand[256];
  size_t n = 0;
  for (int k = 0; k < ck->prog->nfields && n < 256; k++)
    cand[n++] = ck->prog->fields[k].name;
  return dg_suggest_closest(word, cand, n);
}

/* --- node helpers ------------------------------------------------------------- */

static dg_flux_node *leaf(dg_flux_checker *ck, dg_flux_op op, dg_flux_shape shape,
                          dg_flux_loc loc) {
  dg_flux_node *n = dg_flux_node_new(ck->a, op, shape, loc, 0);
  return n ? n : oom(ck);
}

static dg_flux_node *traced(dg_flux_checker *ck, const dg_flux_node *n, dg_flux_side side) {
  dg_flux_node *out;
  if (dg_flux_ast_trace(ck->a, n, side, ck->let_bare, &out) != DG_OK)
    return oom(ck);
  return out;
}

int dg_flux_check_reads_fields(const dg_flux_checker *ck, const dg_flux_node *n) {
  if (n->op == DG_FLUX_FIELD || n->op == DG_FLUX_GRADQ) /* a lifted gradient is of fields */
    return 1;
  if (n->op == DG_FLUX_LET) {
    const dg_flux_let_info *l = &ck->prog->lets[n->ref];
    return l->reads_fields || l->reads_traces || ck->let_grad[n->ref];
  }
  for (int i = 0; i < n->nargs; i++)
    if (dg_flux_check_reads_fields(ck, n->args[i]))
      return 1;
  return 0;
}

int dg_flux_check_height(const dg_flux_checker *ck, const dg_flux_node *n) {
  if (n->op == DG_FLUX_LET)
    return 1 + ck->let_height[n->ref];
  int h = 0;
  for (int i = 0; i < n->nargs; i++) {
    int c = dg_flux_check_height(ck, n->args[i]);
    if (c > h)
      h = c;
  }
  return h + 1;
}

/* Upper bound on the operations emit_expr writes for one component of n,
 * lets expanded in place (their costs memoised: linear in the file).
 * Saturates at MAX_FILE_COST + 1, past every limit. */
int64_t dg_flux_check_cost(const dg_flux_checker *ck, const dg_flux_node *n) {
  if (n->op == DG_FLUX_LET)
    return ck->let_cost[n->ref];
  int64_t sum = 0, widest = 0, len = n->nargs ? dg_flux_shape_size(n->args[0]->shape) : 1;
  for (int i = 0; i < n->nargs; i++) {
    int64_t c = dg_flux_check_cost(ck, n->args[i]);
    sum += c;
    widest = c > widest ? c : widest;
  }
  int64_t total = 1 + sum;
  if (n->op == DG_FLUX_VEC || n->op == DG_FLUX_INDEX)
    total = widest; /* one element of one argument */
  else if (n->op == DG_FLUX_POW)
    total = 1 + 4 * sum; /* x^k, |k| <= 4, is written as k copies of x */
  else if (n->op == DG_FLUX_CALL && n->ref == DG_FLUX_FN_DOT)
    total = 1 + len * sum; /* every component of both arguments */
  else if (n->op == DG_FLUX_CALL && n->ref == DG_FLUX_FN_NORM)
    total = 1 + 2 * len * sum;
  else if (n->op == DG_FLUX_CALL && n->ref == DG_FLUX_FN_CROSS)
    total = 1 + 2 * sum;
  else if (n->op == DG_FLUX_DERIV)
    total = 1 + 3 * sum; /* up to DIM partials of the argument */
  return total > MAX_FILE_COST ? MAX_FILE_COST + 1 : total;
}

/* --- expressions ---------------------------------------------------------------- */

static const char *trace_hint(const dg_flux_scope *sc) {
  return sc->ctx == DG_FLUX_CTX_BC ? "write %s.int" : "write %s.int, %s.ext, avg(%s) or jump(%s)";
}

/* What a constant (param default, bound) or a problem.cfg value may use. */
static const char *only_what(const dg_flux_scope *sc) {
  return sc->ctx == DG_FLUX_CTX_CONST ? "numbers, pi and functions of them"
                                      : "x, pi, params and functions of them";
}

/* A field named in an expression: where it needs a trace, or cannot stand. */
static dg_flux_node *check_field_name(dg_flux_checker *ck, dg_flux_scope *sc,
                                      const dg_flux_syn *s, int f, const char *word,
                                      const char *hint) {
  const dg_flux_field_info *fi = &ck->prog->fields[f];
  switch (sc->ctx) {
  case DG_FLUX_CTX_CONST:
    dg_flux_check_error(ck, s->loc,
                        "'%s' is a field; %s can use only numbers, pi and functions of them", word,
                        sc->what);
    return NULL;
  case DG_FLUX_CTX_POINT:
    dg_flux_check_error(ck, s->loc,
                        "field '%s' cannot be used in %s, which depends only on x, t and params",
                        word, sc->what);
    return NULL;
  case DG_FLUX_CTX_VALUE:
    dg_flux_check_error(ck, s->loc, "'%s' is a field; %s can use only %s", word, sc->what,
                        only_what(sc));
    return NULL;
  case DG_FLUX_CTX_FLUX:
  case DG_FLUX_CTX_BC:
    if (!sc->in_trace) {
      dg_flux_check_error(ck, s->loc, "field '%s' needs a trace in %s: %s", word, sc->what, hint);
      return NULL;
    }
    break;
  case DG_FLUX_CTX_LET:
    if (!sc->in_trace)
      sc->uses_bare = 1;
    break;
  case DG_FLUX_CTX_RHS:
  case DG_FLUX_CTX_INTEGRAL: break;
  }
  dg_flux_node *n = leaf(ck, DG_FLUX_FIELD, fi->shape, s->loc);
  if (n)
    n->ref = f;
  return n;
}

/* A let named in an expression: what its body reads must be allowed here. */
static dg_flux_node *check_let_name(dg_flux_checker *ck, dg_flux_scope *sc, const dg_flux_syn *s,
                                    int l, const char *word, const char *hint) {
  const dg_flux_let_info *li = &ck->prog->lets[l];
  if (ck->let_broken[l])
    return NULL; /* its error is reported; its uses would only echo it */
  switch (sc->ctx) {
  case DG_FLUX_CTX_CONST:
  case DG_FLUX_CTX_POINT:
  case DG_FLUX_CTX_VALUE:
    if (ck->let_coef[l]) {
      dg_flux_check_error(ck, s->loc, "'%s' depends on coefficients, which %s cannot use%s",
                          word, sc->what,
                          sc->ctx == DG_FLUX_CTX_POINT ? " (it is a function of x and t)" : "");
      return NULL;
    }
    if (li->reads_fields || li->reads_traces || ck->let_grad[l]) {
      dg_flux_check_error(ck, s->loc, "'%s' depends on %s, which %s cannot use", word,
                          ck->let_grad[l] ? "gradients" : "fields", sc->what);
      return NULL;
    }
    if (li->reads_normal) {
      dg_flux_check_error(ck, s->loc,
                          "'%s' uses the normal n, which exists only on faces (flux and "
                          "boundary expressions)",
                          word);
      return NULL;
    }
    if (sc->ctx != DG_FLUX_CTX_POINT) {
      dg_flux_check_error(ck, s->loc, "'%s' is a let binding; %s can use only %s", word,
                          sc->what, only_what(sc));
      return NULL;
    }
    break;
  case DG_FLUX_CTX_RHS:
  case DG_FLUX_CTX_INTEGRAL:
    if (sc->ctx == DG_FLUX_CTX_INTEGRAL && ck->let_grad[l]) {
      dg_flux_check_error(ck, s->loc, "'%s' depends on gradients, which %s cannot use", word,
                          sc->what);
      return NULL;
    }
    if (li->reads_traces || li->reads_normal) {
      dg_flux_check_error(
          ck, s->loc,
          "'%s' uses %s, which exist only on faces (flux and boundary "
          "expressions), not in %s",
          word, li->reads_traces ? "traces (.int, .ext, avg, jump)" : "the normal n", sc->what);
      return NULL;
    }
    break;
  case DG_FLUX_CTX_FLUX:
  case DG_FLUX_CTX_BC:
  case DG_FLUX_CTX_LET:
    if ((li->reads_fields || ck->let_bare[l]) && !sc->in_trace && sc->ctx != DG_FLUX_CTX_LET) {
      dg_flux_check_error(ck, s->loc, "'%s' depends on %s; in %s %s", word,
                          li->reads_fields    ? "fields"
                          : ck->let_grad[l] ? "gradients"
                                              : "coefficients",
                          sc->what, hint);
      return NULL;
    }
    if (li->reads_traces && sc->in_trace) {
      dg_flux_check_error(ck, s->loc,
                          "nested trace: '%s' already uses traces (.int, .ext, avg, jump)", word);
      return NULL;
    }
    if (sc->ctx == DG_FLUX_CTX_BC && ck->let_ext[l]) {
      dg_flux_check_error(ck, s->loc,
                          "'%s' uses the exterior state, which a boundary condition defines; "
                          "use .int traces only",
                          word);
      return NULL;
    }
    if (sc->ctx == DG_FLUX_CTX_LET) {
      sc->uses_bare |= li->reads_fields && !sc->in_trace;
      sc->uses_coef_bare |= ck->let_bare[l] && !li->reads_fields && !ck->let_grad[l] &&
                            !sc->in_trace;
      sc->uses_coef |= ck->let_coef[l];
      sc->uses_trace |= li->reads_traces;
      sc->uses_normal |= li->reads_normal;
      sc->uses_ext |= ck->let_ext[l];
      sc->uses_grad |= ck->let_grad[l];
      sc->uses_grad_bare |= ck->let_grad[l] && ck->let_bare[l] && !li->reads_fields &&
                            !sc->in_trace;
    }
    break;
  }
  dg_flux_node *n = leaf(ck, DG_FLUX_LET, li->body->shape, s->loc);
  if (n)
    n->ref = l;
  return n;
}

/* A coefficient named in an expression: material data at the volume node
 * (rhs, integrals, lets), or its traces on a face, under the rules of a
 * field; never in what is a function of x and t alone. */
static dg_flux_node *check_coef_name(dg_flux_checker *ck, dg_flux_scope *sc, const dg_flux_syn *s,
                                     int c, const char *word, const char *hint) {
  const dg_flux_coef_info *ci = &ck->prog->coefs[c];
  int later = ci->loc.line > s->loc.line ||
              (ci->loc.line == s->loc.line && ci->loc.col > s->loc.col);
  if (later && sc->ctx != DG_FLUX_CTX_VALUE) { /* a cfg value is another file */
    dg_flux_check_error(ck, s->loc,
                        "coefficient '%s' is declared below (at %d:%d); declare coefficients "
                        "before using them",
                        word, ci->loc.line, ci->loc.col);
    return NULL;
  }
  switch (sc->ctx) {
  case DG_FLUX_CTX_CONST:
  case DG_FLUX_CTX_VALUE:
    dg_flux_check_error(ck, s->loc, "'%s' is a coefficient; %s can use only %s", word,
                        sc->what, only_what(sc));
    return NULL;
  case DG_FLUX_CTX_POINT:
    dg_flux_check_error(ck, s->loc,
                        "coefficient '%s' cannot be used in %s, which is a function of x and t "
                        "(and params) only; write the material's value as an expression of x",
                        word, sc->what);
    return NULL;
  case DG_FLUX_CTX_FLUX:
  case DG_FLUX_CTX_BC:
    if (!sc->in_trace) {
      dg_flux_check_error(ck, s->loc, "coefficient '%s' needs a trace in %s: %s", word, sc->what,
                          hint);
      return NULL;
    }
    break;
  case DG_FLUX_CTX_LET:
    sc->uses_coef = 1;
    if (!sc->in_trace)
      sc->uses_coef_bare = 1;
    break;
  case DG_FLUX_CTX_RHS:
  case DG_FLUX_CTX_INTEGRAL: break;
  }
  dg_flux_node *n = leaf(ck, DG_FLUX_COEF, dg_flux_shape_scalar(), s->loc);
  if (n)
    n->ref = c;
  return n;
}

/* pi, x, t, n, or a name that is none of the file's: the error says which. */
static dg_flux_node *check_builtin_name(dg_flux_checker *ck, dg_flux_scope *sc,
                                        const dg_flux_syn *s, const char *word) {
  int dim = ck->prog->dim;
  if (dg_flux_check_name_is(s->name, s->len, "pi")) {
    dg_flux_node *n = dg_flux_node_num(ck->a, M_PI, s->loc);
    return n ? n : oom(ck);
  }
  if (dg_flux_check_name_is(s->name, s->len, "x") || dg_flux_check_name_is(s->name, s->len, "t")) {
    if (sc->ctx == DG_FLUX_CTX_CONST) {
      dg_flux_check_error(ck, s->loc,
                          "'%s' is not a constant; %s can use only numbers, pi and functions of "
                          "them",
                          word, sc->what);
      return NULL;
    }
    if (sc->ctx == DG_FLUX_CTX_VALUE && word[0] == 't') {
      dg_flux_check_error(ck, s->loc,
                          "'t' cannot be used in %s: coefficients and regions do not change in "
                          "time (use x, pi, params and functions of them)",
                          sc->what);
      return NULL;
    }
    return word[0] == 'x' ? leaf(ck, DG_FLUX_X, dg_flux_shape_vector(dim), s->loc)
                          : leaf(ck, DG_FLUX_T, dg_flux_shape_scalar(), s->loc);
  }
  if (dg_flux_check_name_is(s->name, s->len, "n")) {
    if (sc->ctx != DG_FLUX_CTX_FLUX && sc->ctx != DG_FLUX_CTX_BC && sc->ctx != DG_FLUX_CTX_LET) {
      dg_flux_check_error(ck, s->loc,
                          "the normal n exists only on faces (flux and boundary expressions), "
                          "not in %s",
                          sc->what);
      return NULL;
    }
    sc->uses_normal = 1;
    return leaf(ck, DG_FLUX_NORMAL, dg_flux_shape_vector(dim), s->loc);
  }
  if (find_function(s->name, s->len)) {
    dg_flux_check_error(ck, s->loc, "'%s' is a function: call it as %s(...)", word, word);
    return NULL;
  }
  char dym[96];
  dg_flux_check_error(ck, s->loc, "unknown name '%s'%s", word,
                      dg_flux_check_did_you_mean(suggest(ck, word, 0), dym, sizeof dym));
  return NULL;
}

static dg_flux_node *check_name(dg_flux_checker *ck, dg_flux_scope *sc, const dg_flux_syn *s) {
  char word[80], hint[160];
  snprintf(word, sizeof word, "%.*s", s->len, s->name);
  snprintf(hint, sizeof hint, trace_hint(sc), word, word, word, word);
  int f = dg_flux_check_find_field(ck, s->name, s->len);
  if (f >= 0)
    return check_field_name(ck, sc, s, f, word, hint);
  int p = dg_flux_check_find_param(ck, s->name, s->len);
  if (p >= 0) {
    if (sc->ctx == DG_FLUX_CTX_CONST) {
      dg_flux_check_error(ck, s->loc,
                          "'%s' is a param; %s can use only numbers, pi and functions of them",
                          word, sc->what);
      return NULL;
    }
    dg_flux_node *n = leaf(ck, DG_FLUX_PARAM, dg_flux_shape_scalar(), s->loc);
    if (n)
      n->ref = p;
    return n;
  }
  int c = dg_flux_check_find_coef(ck, s->name, s->len);
  if (c >= 0)
    return check_coef_name(ck, sc, s, c, word, hint);
  int l = dg_flux_check_find_let(ck, s->name, s->len);
  if (l >= 0 && l < ck->nlets_visible)
    return check_let_name(ck, sc, s, l, word, hint);
  if (l >= 0) {
    dg_flux_check_error(ck, s->loc,
                        "'%s' is defined below (at %d:%d); a let can use only names defined "
                        "above it",
                        word, ck->prog->lets[l].loc.line, ck->prog->lets[l].loc.col);
    return NULL;
  }
  return check_builtin_name(ck, sc, s, word);
}

/* The body of a trace operator (E.int, avg(e), ...): checked once with
 * bare fields allowed; the caller applies the sides. */
static dg_flux_node *check_trace_body(dg_flux_checker *ck, dg_flux_scope *sc,
                                      const dg_flux_syn *body, dg_flux_loc loc, const char *op,
                                      int uses_ext) {
  if (sc->ctx != DG_FLUX_CTX_FLUX && sc->ctx != DG_FLUX_CTX_BC && sc->ctx != DG_FLUX_CTX_LET) {
    dg_flux_check_error(ck, loc,
                        "'%s' exists only on faces (flux and boundary expressions), not in %s", op,
                        sc->what);
    return NULL;
  }
  if (sc->ctx == DG_FLUX_CTX_BC && uses_ext && body->kind == DG_FLUX_SYN_NAME &&
      dg_flux_check_find_coef(ck, body->name, body->len) >= 0) {
    dg_flux_check_error(ck, loc,
                        "'%s' of coefficient '%.*s' in a boundary condition: a boundary face's "
                        "exterior coefficient is its interior one; write %.*s.int",
                        op, body->len, body->name, body->len, body->name);
    return NULL;
  }
  const fn_info *inner = body->kind == DG_FLUX_SYN_CALL ? find_function(body->name, body->len)
                                                         : NULL;
  if (sc->ctx == DG_FLUX_CTX_BC && uses_ext && inner && inner->kind == F_DERIV) {
    dg_flux_check_error(ck, loc,
                        "'%s' of a gradient in a boundary condition: the boundary gives the "
                        "exterior gradient itself (grad(NAME) = ...); use %.*s(...).int",
                        op, body->len, body->name);
    return NULL;
  }
  if (sc->ctx == DG_FLUX_CTX_BC && uses_ext) {
    dg_flux_check_error(ck, loc,
                        "'%s' reads the exterior state, which a boundary condition defines; use "
                        ".int traces only",
                        op);
    return NULL;
  }
  if (sc->in_trace) {
    dg_flux_check_error(ck, loc, "nested trace: '%s' inside another trace (.int, .ext, avg, jump)",
                        op);
    return NULL;
  }
  sc->in_trace = 1;
  dg_flux_node *e = dg_flux_check_expr(ck, sc, body);
  sc->in_trace = 0;
  if (sc->ctx == DG_FLUX_CTX_LET && e) {
    sc->uses_trace = 1;
    sc->uses_ext |= uses_ext;
  }
  return e;
}

static int is_scalar(const dg_flux_node *n) { return n->shape.rank == 0; }

static dg_flux_node *check_call(dg_flux_checker *ck, dg_flux_scope *sc, const dg_flux_syn *s) {
  char word[80], b1[48], b2[48];
  snprintf(word, sizeof word, "%.*s", s->len, s->name);
  const fn_info *fi = find_function(s->name, s->len);
  if (!fi) {
    if (dg_flux_check_find_field(ck, s->name, s->len) >= 0 ||
        dg_flux_check_find_param(ck, s->name, s->len) >= 0 ||
        dg_flux_check_find_let(ck, s->name, s->len) >= 0 ||
        dg_flux_check_find_coef(ck, s->name, s->len) >= 0) {
      dg_flux_check_error(ck, s->loc, "'%s' is not a function; write '*' for a product", word);
      return NULL;
    }
    char dym[96];
    dg_flux_check_error(ck, s->loc, "unknown function '%s'%s", word,
                        dg_flux_check_did_you_mean(suggest(ck, word, 1), dym, sizeof dym));
    return NULL;
  }
  if (fi->arity > 0 && s->nargs != fi->arity) {
    dg_flux_check_error(ck, s->loc, "'%s' takes %d argument%s, got %d", word, fi->arity,
                        fi->arity == 1 ? "" : "s", s->nargs);
    return NULL;
  }
  if (fi->arity < 0 && s->nargs < 2) {
    dg_flux_check_error(ck, s->loc, "'%s' takes at least 2 arguments, got %d", word, s->nargs);
    return NULL;
  }
  if (fi->kind == F_DERIV)
    return dg_flux_check_deriv(ck, sc, s, fi->name, fi->id);
  if (fi->kind == F_TRACE) {
    if (fi->id == 2 && sc->ctx != DG_FLUX_CTX_FLUX) {
      dg_flux_check_error(ck, s->loc,
                          "ldg(...) exists only in numerical fluxes (the LDG flux of a "
                          "second-order term), not in %s",
                          sc->what);
      return NULL;
    }
    dg_flux_node *e = check_trace_body(ck, sc, s->args[0], s->loc, word, 1);
    if (!e)
      return NULL;
    dg_flux_node *i = traced(ck, e, DG_FLUX_SIDE_INT), *x = traced(ck, e, DG_FLUX_SIDE_EXT);
    if (!i || !x)
      return NULL;
    if (fi->id == 2)
      return dg_flux_check_ldg(ck, i, x, s->loc);
    if (fi->id == 1) { /* jump(e) = e.int - e.ext */
      dg_flux_node *n = dg_flux_node_binary(ck->a, DG_FLUX_SUB, e->shape, s->loc, i, x);
      return n ? n : oom(ck);
    }
    /* avg(e) = 0.5*(e.int + e.ext) */
    dg_flux_node *half = dg_flux_node_num(ck->a, 0.5, s->loc);
    dg_flux_node *sum = dg_flux_node_binary(ck->a, DG_FLUX_ADD, e->shape, s->loc, i, x);
    dg_flux_node *n = half && sum ? dg_flux_node_binary(ck->a, DG_FLUX_MUL, e->shape, s->loc,
                                                        half, sum)
                                  : NULL;
    return n ? n : oom(ck);
  }
  dg_flux_node *args[DG_FLUX_MAX_COMPONENTS];
  int bad = 0;
  for (int i = 0; i < s->nargs; i++)
    if (!(args[i] = dg_flux_check_expr(ck, sc, s->args[i])))
      bad = 1;
  if (bad)
    return NULL;
  int dim = ck->prog->dim;
  if (fi->kind == F_MATRIX || (fi->kind == F_DOT && args[0]->shape.rank == 2))
    return dg_flux_check_matrix_fn(ck, fi->kind == F_DOT ? 2 : fi->id, args, s->loc);
  switch (fi->kind) {
  case F_MATH1:
  case F_MATH2:
  case F_MINMAX: {
    for (int i = 0; i < s->nargs; i++)
      if (!is_scalar(args[i])) {
        dg_flux_check_error(ck, s->args[i]->loc, "'%s' needs scalar arguments, got %s%s", word,
                            dg_flux_check_a_shape(args[i]->shape, b1),
                            fi->id == DG_FLUX_FN_ABS ? " (norm(v) is the length of a vector)" : "");
        return NULL;
      }
    if (fi->id < 0) { /* pow(a, b) is a ^ b */
      dg_flux_node *n = dg_flux_node_binary(ck->a, DG_FLUX_POW, dg_flux_shape_scalar(),
                                            s->loc, args[0], args[1]);
      return n ? n : oom(ck);
    }
    /* min(a, b, c) = min(min(a, b), c): binary, as the emitters' fmin. */
    dg_flux_node *n = dg_flux_node_new(ck->a, DG_FLUX_CALL, dg_flux_shape_scalar(), s->loc,
                                       fi->kind == F_MATH1 ? 1 : 2);
    if (!n)
      return oom(ck);
    n->ref = fi->id;
    n->args[0] = args[0];
    if (fi->kind != F_MATH1)
      n->args[1] = args[1];
    for (int i = 2; i < s->nargs; i++) {
      dg_flux_node *m = dg_flux_node_call2(ck->a, (dg_flux_fn)fi->id, dg_flux_shape_scalar(),
                                           s->loc, n, args[i]);
      if (!m)
        return oom(ck);
      n = m;
    }
    return n;
  }
  case F_DOT:
    if (args[0]->shape.rank != 1 || !dg_flux_shape_equal(args[0]->shape, args[1]->shape)) {
      dg_flux_check_error(ck, s->loc, "dot needs two vectors of the same length, got %s and %s",
                          dg_flux_check_a_shape(args[0]->shape, b1),
                          dg_flux_check_a_shape(args[1]->shape, b2));
      return NULL;
    }
    break;
  case F_CROSS: {
    dg_flux_shape r;
    if (dim == 1) {
      dg_flux_check_error(ck, s->loc, "cross needs dimension 2 or 3; this is a 1D problem");
      return NULL;
    }
    if (dg_flux_cross_shape(dim, args[0]->shape, args[1]->shape, &r) != 0) {
      dg_flux_check_error(ck, s->loc, "cross in %dD takes %s, got %s and %s", dim,
                          dim == 3 ? "two 3-vectors" : "two 2-vectors, or a 2-vector and a scalar",
                          dg_flux_check_a_shape(args[0]->shape, b1),
                          dg_flux_check_a_shape(args[1]->shape, b2));
      return NULL;
    }
    dg_flux_node *n = dg_flux_node_call2(ck->a, DG_FLUX_FN_CROSS, r, s->loc, args[0], args[1]);
    return n ? n : oom(ck);
  }
  case F_NORM:
    if (args[0]->shape.rank != 1) {
      dg_flux_check_error(ck, s->loc, "norm needs a vector, got %s",
                          dg_flux_check_a_shape(args[0]->shape, b1));
      return NULL;
    }
    break;
  default: break;
  }
  dg_flux_node *n = dg_flux_node_new(ck->a, DG_FLUX_CALL, dg_flux_shape_scalar(), s->loc,
                                     s->nargs);
  if (!n)
    return oom(ck);
  n->ref = fi->id;
  for (int i = 0; i < s->nargs; i++)
    n->args[i] = args[i];
  return n;
}

static const char *op_verb(int tok) {
  switch (tok) {
  case DG_FLUX_TK_PLUS: return "add";
  case DG_FLUX_TK_MINUS: return "subtract";
  default: return "compare";
  }
}

static dg_flux_node *check_binary(dg_flux_checker *ck, dg_flux_scope *sc, const dg_flux_syn *s) {
  dg_flux_node *x = dg_flux_check_expr(ck, sc, s->args[0]);
  dg_flux_node *y = dg_flux_check_expr(ck, sc, s->args[1]);
  if (!x || !y)
    return NULL;
  char b1[48], b2[48];
  dg_flux_shape xs = x->shape, ys = y->shape, r = xs;
  dg_flux_op op;
  switch (s->op) {
  case DG_FLUX_TK_PLUS:
  case DG_FLUX_TK_MINUS:
    op = s->op == DG_FLUX_TK_PLUS ? DG_FLUX_ADD : DG_FLUX_SUB;
    if (!dg_flux_shape_equal(xs, ys)) {
      dg_flux_check_error(ck, s->loc, "cannot %s %s and %s", op_verb(s->op),
                          dg_flux_check_a_shape(xs, b1), dg_flux_check_a_shape(ys, b2));
      return NULL;
    }
    break;
  case DG_FLUX_TK_STAR:
    op = DG_FLUX_MUL;
    if (xs.rank != 0 && ys.rank != 0) {
      dg_flux_check_error(ck, s->loc,
                          "cannot multiply %s by %s: use dot(a, b) or cross(a, b), or write the "
                          "components",
                          dg_flux_check_a_shape(xs, b1), dg_flux_check_a_shape(ys, b2));
      return NULL;
    }
    r = xs.rank != 0 ? xs : ys;
    break;
  case DG_FLUX_TK_SLASH:
    op = DG_FLUX_DIV;
    if (ys.rank != 0) {
      dg_flux_check_error(ck, s->loc, "cannot divide by %s", dg_flux_check_a_shape(ys, b1));
      return NULL;
    }
    if (y->op == DG_FLUX_NUM && y->value == 0.0 && s->args[1]->kind == DG_FLUX_SYN_NUM) {
      dg_flux_check_error(ck, s->loc, "division by zero");
      return NULL;
    }
    break;
  default: {
    static const struct { int tok; dg_flux_op op; } map[] = {
        {DG_FLUX_TK_CARET, DG_FLUX_POW}, {DG_FLUX_TK_LT, DG_FLUX_LT}, {DG_FLUX_TK_LE, DG_FLUX_LE},
        {DG_FLUX_TK_GT, DG_FLUX_GT},     {DG_FLUX_TK_GE, DG_FLUX_GE}, {DG_FLUX_TK_EQ, DG_FLUX_EQ},
        {DG_FLUX_TK_NE, DG_FLUX_NE},     {DG_FLUX_TK_AND, DG_FLUX_AND},
        {DG_FLUX_TK_OR, DG_FLUX_OR}};
    op = DG_FLUX_POW;
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
      if (map[i].tok == s->op)
        op = map[i].op;
    if (xs.rank != 0 || ys.rank != 0) {
      dg_flux_check_error(ck, s->loc, "%s needs scalars, got %s and %s",
                          dg_flux_token_describe((dg_flux_tok_kind)s->op),
                          dg_flux_check_a_shape(xs, b1), dg_flux_check_a_shape(ys, b2));
      return NULL;
    }
  }
  }
  dg_flux_node *n = dg_flux_node_binary(ck->a, op, r, s->loc, x, y);
  return n ? n : oom(ck);
}

/* An integer literal index (a possibly negated number). */
static int literal_index(const dg_flux_syn *s, int *out) {
  int neg = 0;
  if (s->kind == DG_FLUX_SYN_UNARY && s->op == DG_FLUX_TK_MINUS) {
    neg = 1;
    s = s->args[0];
  }
  if (s->kind != DG_FLUX_SYN_NUM || s->value != floor(s->value) || s->value > 1e6)
    return 0;
  *out = neg ? -(int)s->value : (int)s->value;
  return 1;
}

static dg_flux_node *check_index(dg_flux_checker *ck, dg_flux_scope *sc, const dg_flux_syn *s) {
  dg_flux_node *b = dg_flux_check_expr(ck, sc, s->args[0]);
  if (!b)
    return NULL;
  int k;
  char b1[48];
  if (!literal_index(s->args[1], &k)) {
    dg_flux_check_error(ck, s->args[1]->loc,
                        "a component index must be an integer literal, as in E[0]");
    return NULL;
  }
  if (b->shape.rank == 0) {
    dg_flux_check_error(ck, s->loc, "cannot index a scalar");
    return NULL;
  }
  if (k < 0 || k >= b->shape.rows) {
    dg_flux_check_error(ck, s->args[1]->loc, "index %d is out of range for %s (0 to %d)", k,
                        dg_flux_check_a_shape(b->shape, b1), b->shape.rows - 1);
    return NULL;
  }
  dg_flux_shape r = b->shape.rank == 2 ? dg_flux_shape_vector(b->shape.cols)
                                       : dg_flux_shape_scalar();
  if (b->shape.rank == 1 && b->comp < 0 &&
      (b->op == DG_FLUX_FIELD || b->op == DG_FLUX_X || b->op == DG_FLUX_NORMAL ||
       b->op == DG_FLUX_LET || b->op == DG_FLUX_GRADQ)) {
    /* E[1] is a leaf: field E, component 1 */
    dg_flux_node *n = leaf(ck, b->op, r, b->loc);
    if (n) {
      n->ref = b->ref;
      n->side = b->side;
      n->comp = k;
    }
    return n;
  }
  if (b->op == DG_FLUX_VEC) /* [a, b][1] is b */
    return b->args[k];
  dg_flux_node *n = dg_flux_node_unary(ck->a, DG_FLUX_INDEX, r, s->loc, b);
  if (!n)
    return oom(ck);
  n->ref = k;
  return n;
}

dg_flux_node *dg_flux_check_expr(dg_flux_checker *ck, dg_flux_scope *sc, const dg_flux_syn *s) {
  char b1[48], b2[48];
  switch (s->kind) {
  case DG_FLUX_SYN_NUM: {
    dg_flux_node *n = dg_flux_node_num(ck->a, s->value, s->loc);
    return n ? n : oom(ck);
  }
  case DG_FLUX_SYN_NAME: return check_name(ck, sc, s);
  case DG_FLUX_SYN_CALL: return check_call(ck, sc, s);
  case DG_FLUX_SYN_BINARY: return check_binary(ck, sc, s);
  case DG_FLUX_SYN_INDEX: return check_index(ck, sc, s);
  case DG_FLUX_SYN_UNARY: {
    dg_flux_node *x = dg_flux_check_expr(ck, sc, s->args[0]);
    if (!x || s->op == DG_FLUX_TK_PLUS)
      return x;
    if (s->op == DG_FLUX_TK_NOT && x->shape.rank != 0) {
      dg_flux_check_error(ck, s->loc, "'!' needs a scalar, got %s",
                          dg_flux_check_a_shape(x->shape, b1));
      return NULL;
    }
    dg_flux_node *n = dg_flux_node_unary(
        ck->a, s->op == DG_FLUX_TK_NOT ? DG_FLUX_NOT : DG_FLUX_NEG, x->shape, s->loc, x);
    return n ? n : oom(ck);
  }
  case DG_FLUX_SYN_TERNARY: {
    dg_flux_node *c = dg_flux_check_expr(ck, sc, s->args[0]);
    dg_flux_node *x = dg_flux_check_expr(ck, sc, s->args[1]);
    dg_flux_node *y = dg_flux_check_expr(ck, sc, s->args[2]);
    if (!c || !x || !y)
      return NULL;
    if (c->shape.rank != 0) {
      dg_flux_check_error(ck, s->loc, "the condition before '?' must be a scalar, got %s",
                          dg_flux_check_a_shape(c->shape, b1));
      return NULL;
    }
    if (!dg_flux_shape_equal(x->shape, y->shape)) {
      dg_flux_check_error(ck, s->loc, "the two branches of '?:' differ: %s and %s",
                          dg_flux_check_a_shape(x->shape, b1), dg_flux_check_a_shape(y->shape, b2));
      return NULL;
    }
    dg_flux_node *n = dg_flux_node_new(ck->a, DG_FLUX_SELECT, x->shape, s->loc, 3);
    if (!n)
      return oom(ck);
    n->args[0] = c, n->args[1] = x, n->args[2] = y;
    return n;
  }
  case DG_FLUX_SYN_VEC: {
    dg_flux_node *n = dg_flux_node_new(ck->a, DG_FLUX_VEC, dg_flux_shape_scalar(), s->loc,
                                       s->nargs);
    if (!n)
      return oom(ck);
    int bad = 0;
    for (int i = 0; i < s->nargs; i++)
      if (!(n->args[i] = dg_flux_check_expr(ck, sc, s->args[i])))
        bad = 1;
    if (bad)
      return NULL;
    dg_flux_shape e0 = n->args[0]->shape;
    for (int i = 0; i < s->nargs; i++) {
      dg_flux_shape e = n->args[i]->shape;
      if (e.rank == 2) {
        dg_flux_check_error(ck, s->args[i]->loc, "a list element cannot be a matrix");
        return NULL;
      }
      if (!dg_flux_shape_equal(e, e0)) {
        dg_flux_check_error(ck, s->args[i]->loc,
                            "list elements must all be scalars or all vectors of one "
                            "length: element %d is %s, element 0 is %s",
                            i, dg_flux_check_a_shape(e, b1), dg_flux_check_a_shape(e0, b2));
        return NULL;
      }
    }
    if (e0.rank == 1 && e0.rows * s->nargs > DG_FLUX_MAX_COMPONENTS) {
      dg_flux_check_error(ck, s->loc, "a matrix may have at most %d components",
                          DG_FLUX_MAX_COMPONENTS);
      return NULL;
    }
    n->shape = e0.rank == 0 ? dg_flux_shape_vector(s->nargs)
                            : dg_flux_shape_matrix(s->nargs, e0.rows);
    return n;
  }
  case DG_FLUX_SYN_TRACE: {
    const char *op = s->op == DG_FLUX_SIDE_INT ? ".int" : ".ext";
    dg_flux_node *e = check_trace_body(ck, sc, s->args[0], s->loc, op,
                                       s->op == DG_FLUX_SIDE_EXT);
    return e ? traced(ck, e, (dg_flux_side)s->op) : NULL;
  }
  }
  return NULL;
}

/* --- statements ------------------------------------------------------------------ */

static int is_builtin(const char *name, int len) {
  for (int i = 0; i < NBUILTIN; i++)
    if (dg_flux_check_name_is(name, len, builtin_names[i]))
      return 1;
  return 0;
}

/* A new name for a field, param, coefficient, let or integral: not built
 * in, not taken. */
int dg_flux_check_new_name(dg_flux_checker *ck, const char *name, int len, dg_flux_loc loc) {
  if (is_builtin(name, len)) {
    dg_flux_check_error(ck, loc, "'%.*s' is a built-in name and cannot be redefined", len, name);
    return 0;
  }
  const char *kind = NULL;
  dg_flux_loc first = {0, 0, 0};
  int i;
  if ((i = dg_flux_check_find_field(ck, name, len)) >= 0)
    kind = "field", first = ck->prog->fields[i].loc;
  else if ((i = dg_flux_check_find_param(ck, name, len)) >= 0)
    kind = "param", first = ck->prog->params[i].loc;
  else if ((i = dg_flux_check_find_coef(ck, name, len)) >= 0)
    kind = "coefficient", first = ck->prog->coefs[i].loc;
  else if ((i = dg_flux_check_find_let(ck, name, len)) >= 0)
    kind = "let binding", first = ck->prog->lets[i].loc;
  if (kind) {
    dg_flux_check_error(ck, loc, "duplicate definition of '%.*s' (already a %s, at %d:%d)", len,
                        name, kind, first.line, first.col);
    return 0;
  }
  return 1;
}
