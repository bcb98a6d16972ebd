#include "operators/flux_affine.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* What a subexpression is, as far as the Bernstein path cares.  0 means
 * "an offence was recorded" (classification stops at the first). */
enum { STATE_FREE = 1, AFFINE = 2 };

static const char *const WHY_X = "a Bernstein basis needs coefficients constant on each element";
static const char *const WHY_COEF =
    "a coefficient may vary inside an element (problem.cfg may give it as an expression of x), "
    "which a Bernstein basis cannot take";
static const char *const WHY_T = "the Bernstein path takes time-independent coefficients only";
static const char *const WHY_GRADIENTS =
    "the Bernstein path has no gradient pass for second-order terms (the lifted gradients "
    "are nodal)";
static const char *const WHY_NONLINEAR =
    "only a function affine in the state maps Bernstein coefficients to those of its "
    "interpolant";

/* Visited interior nodes and their class: the trees are DAGs, so a shared
 * subtree is classified once (open addressing, linear probing). */
typedef struct memo {
  const dg_flux_node **key;
  unsigned char *value;
  size_t cap, count;
} memo;

typedef struct walker {
  const dg_physics *ph;
  unsigned char *let_class; /* [let]: 0 = not yet classified */
  memo seen;
  int let_depth;            /* > 0 while inside a let body */
  dg_flux_loc let_use;      /* the outermost LET node of the checked expression */
  /* the offence */
  dg_flux_loc loc;
  char issue[96];
  const char *why;
  int in_let, internal;
  dg_flux_loc use;
} walker;

static size_t hash_ptr(const void *p, size_t cap) {
  uintptr_t h = (uintptr_t)p;
  h ^= h >> 17;
  h *= (uintptr_t)0x9E3779B97F4A7C15u;
  return (size_t)(h ^ (h >> 29)) & (cap - 1);
}

static int memo_get(const memo *m, const dg_flux_node *n) {
  if (m->cap == 0)
    return 0;
  for (size_t i = hash_ptr(n, m->cap);; i = (i + 1) & (m->cap - 1)) {
    if (m->key[i] == n)
      return m->value[i];
    if (!m->key[i])
      return 0;
  }
}

/* Remember n's class; out of memory only means it may be walked again. */
static void memo_put(memo *m, const dg_flux_node *n, int value) {
  if (2 * (m->count + 1) > m->cap) {
    size_t cap = m->cap ? 2 * m->cap : 256;
    const dg_flux_node **key = calloc(cap, sizeof *key);
    unsigned char *val = calloc(cap, 1);
    if (!key || !val) {
      free(key);
      free(val);
      return;
    }
    for (size_t i = 0; i < m->cap; i++)
      if (m->key[i]) {
        size_t j = hash_ptr(m->key[i], cap);
        while (key[j])
          j = (j + 1) & (cap - 1);
        key[j] = m->key[i];
        val[j] = m->value[i];
      }
    free(m->key);
    free(m->value);
    m->key = key;
    m->value = val;
    m->cap = cap;
  }
  size_t i = hash_ptr(n, m->cap);
  while (m->key[i] && m->key[i] != n)
    i = (i + 1) & (m->cap - 1);
  if (!m->key[i])
    m->count++;
  m->key[i] = n;
  m->value[i] = (unsigned char)value;
}

/* Record the offence at n ("<what> <issue>: <why>") and return 0. */
static int offence(walker *w, const dg_flux_node *n, const char *why, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static int offence(walker *w, const dg_flux_node *n, const char *why, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(w->issue, sizeof w->issue, fmt, ap);
  va_end(ap);
  w->loc = n->loc;
  w->why = why;
  w->in_let = w->let_depth > 0;
  w->use = w->let_use;
  return 0;
}

static const char *op_name(dg_flux_op op) {
  switch (op) {
  case DG_FLUX_LT: return "<";
  case DG_FLUX_LE: return "<=";
  case DG_FLUX_GT: return ">";
  case DG_FLUX_GE: return ">=";
  case DG_FLUX_EQ: return "==";
  case DG_FLUX_NE: return "!=";
  case DG_FLUX_AND: return "&&";
  case DG_FLUX_OR: return "||";
  default: return "!";
  }
}

static int max_class(int a, int b) { return a > b ? a : b; }

static int classify(walker *w, const dg_flux_node *n);

static int classify_let(walker *w, const dg_flux_node *n) {
  const dg_physics *ph = w->ph;
  if (n->ref < 0 || n->ref >= ph->nlets || !ph->lets || !ph->lets[n->ref]) {
    w->internal = 1;
    return offence(w, n, "", "refers to let %d, which the physics does not have", n->ref);
  }
  if (w->let_class[n->ref])
    return w->let_class[n->ref];
  if (w->let_depth++ == 0)
    w->let_use = n->loc;
  /* The side of a LET node only says where its fields are read: an affine
   * body stays affine on either trace. */
  int c = classify(w, ph->lets[n->ref]);
  w->let_depth--;
  w->let_class[n->ref] = (unsigned char)c;
  return c;
}

/* The rules of flux_affine.h, one case per operation of flux_ast.h. */
static int classify_op(walker *w, const dg_flux_node *n) {
  int a[3] = {0, 0, 0}, any = STATE_FREE; /* the first three args; the largest class */
  for (int i = 0; i < n->nargs; i++) {
    int c = classify(w, n->args[i]);
    if (!c)
      return 0;
    if (i < 3)
      a[i] = c;
    any = max_class(any, c);
  }
  switch (n->op) {
  case DG_FLUX_NEG:
  case DG_FLUX_ADD:
  case DG_FLUX_SUB:
  case DG_FLUX_VEC:
  case DG_FLUX_INDEX:
  case DG_FLUX_DERIV: /* a derivative is linear in its argument */
    return any;
  case DG_FLUX_MUL:
    if (a[0] == AFFINE && a[1] == AFFINE)
      return offence(w, n, WHY_NONLINEAR, "multiplies two state-dependent factors");
    return any;
  case DG_FLUX_DIV:
    if (a[1] == AFFINE)
      return offence(w, n, WHY_NONLINEAR, "divides by a state-dependent expression");
    return a[0];
  case DG_FLUX_POW:
    if (a[1] == AFFINE)
      return offence(w, n, WHY_NONLINEAR, "uses the state in an exponent");
    /* u^1 is u; any other exponent (a param may be changed at run time) is
     * nonlinear */
    if (a[0] == AFFINE && !(n->args[1]->op == DG_FLUX_NUM && n->args[1]->value == 1.0))
      return offence(w, n, WHY_NONLINEAR, "raises the state to a power other than 1");
    return a[0];
  case DG_FLUX_NOT:
  case DG_FLUX_LT: case DG_FLUX_LE: case DG_FLUX_GT: case DG_FLUX_GE:
  case DG_FLUX_EQ: case DG_FLUX_NE:
  case DG_FLUX_AND: case DG_FLUX_OR:
    if (any == AFFINE)
      return offence(w, n, WHY_NONLINEAR, "applies '%s' to the state", op_name(n->op));
    return STATE_FREE;
  case DG_FLUX_SELECT:
    /* A state-free condition picks one branch per face (or element), e.g.
     * upwinding by the sign of a.n: the result is one affine function there. */
    if (a[0] == AFFINE)
      return offence(w, n, WHY_NONLINEAR, "chooses a branch by a condition on the state");
    return max_class(a[1], a[2]);
  case DG_FLUX_CALL:
    if (n->ref == DG_FLUX_FN_DOT || n->ref == DG_FLUX_FN_CROSS) {
      if (a[0] == AFFINE && a[1] == AFFINE)
        return offence(w, n, WHY_NONLINEAR, "takes %s of two state-dependent vectors",
                       dg_flux_fn_name(n->ref));
      return any;
    }
    if (any == AFFINE)
      return offence(w, n, WHY_NONLINEAR, "applies %s to the state",
                     dg_flux_fn_name(n->ref));
    return STATE_FREE;
  default:
    w->internal = 1;
    return offence(w, n, "", "has node kind %d, which the affine check does not know",
                   (int)n->op);
  }
}

static int classify(walker *w, const dg_flux_node *n) {
  switch (n->op) {
  case DG_FLUX_NUM:
  case DG_FLUX_PARAM:
  case DG_FLUX_LDGB:   /* one value per face, as n */
  case DG_FLUX_NORMAL: /* constant on each face of a straight-sided element */
    return STATE_FREE;
  case DG_FLUX_GRADQ: /* refused up front (dg_flux_check_affine); here for completeness */
    return offence(w, n, WHY_GRADIENTS, "uses a lifted gradient");
  case DG_FLUX_FIELD:
    return AFFINE;
  case DG_FLUX_X:
    return offence(w, n, WHY_X, "uses x");
  case DG_FLUX_COEF: /* as x: its values are per node */
    return offence(w, n, WHY_COEF, "uses a coefficient");
  case DG_FLUX_T:
    return offence(w, n, WHY_T, "uses t");
  case DG_FLUX_LET:
    return classify_let(w, n);
  default:
    break;
  }
  int c = memo_get(&w->seen, n);
  if (c)
    return c;
  c = classify_op(w, n);
  if (c)
    memo_put(&w->seen, n, c);
  return c;
}

/* "1st", "2nd", ... for boundary conditions (the physics has no names). */
static const char *ordinal(int i, char *buf, size_t size) {
  const char *suf = (i % 100 >= 11 && i % 100 <= 13) ? "th"
                    : i % 10 == 1                    ? "st"
                    : i % 10 == 2                    ? "nd"
                    : i % 10 == 3                    ? "rd"
                                                     : "th";
  snprintf(buf, size, "%d%s", i, suf);
  return buf;
}

static const char *field_label(const char *const *names, int f, char *buf, size_t size) {
  if (names && names[f])
    snprintf(buf, size, "field %s", names[f]);
  else
    snprintf(buf, size, "field %d", f);
  return buf;
}

/* The kinds of expression, in report order. */
enum { KIND_RHS, KIND_SURFACE, KIND_FLUX, KIND_SOURCE, KIND_BC, KIND_COUNT };

static dg_error report(const walker *w, const char *what, const char *origin) {
  if (w->internal)
    DG_RAISE(DG_ERR_INTERNAL, "%s %s (line %d, column %d): the physics tables are inconsistent",
             what, w->issue, w->loc.line, w->loc.col);
  char let_part[96] = "";
  if (origin) {
    if (w->in_let)
      snprintf(let_part, sizeof let_part, " (in a let used at %d:%d)", w->use.line,
               w->use.col);
    DG_RAISE(DG_ERR_INPUT, "%s:%d:%d: error: %s %s%s: %s", origin, w->loc.line, w->loc.col,
             what, w->issue, let_part, w->why);
  }
  if (w->in_let)
    snprintf(let_part, sizeof let_part, ", in a let used at line %d, column %d", w->use.line,
             w->use.col);
  DG_RAISE(DG_ERR_INPUT, "%s %s (line %d, column %d%s): %s", what, w->issue, w->loc.line,
           w->loc.col, let_part, w->why);
}

dg_error dg_flux_check_affine(const dg_physics *ph, const char *const *field_names,
                              const char *origin) {
  DG_CHECK(ph, DG_ERR_ARG, "dg_flux_check_affine: no physics");
  DG_CHECK(ph->nfields >= 0 && ph->nlets >= 0 && ph->nboundaries >= 0, DG_ERR_ARG,
           "dg_flux_check_affine: negative counts (%d fields, %d lets, %d boundaries)",
           ph->nfields, ph->nlets, ph->nboundaries);
  if (ph->ngrad > 0) {
    const dg_flux_node *g = ph->grad_arg ? ph->grad_arg[0] : NULL;
    int line = g ? g->loc.line : 0, col = g ? g->loc.col : 0;
    if (origin)
      DG_RAISE(DG_ERR_INPUT, "%s:%d:%d: error: a lifted gradient (second-order terms, %d in "
               "all): %s", origin, line, col, ph->ngrad, WHY_GRADIENTS);
    DG_RAISE(DG_ERR_INPUT, "a lifted gradient (second-order terms, %d in all; line %d, column "
             "%d): %s", ph->ngrad, line, col, WHY_GRADIENTS);
  }
  walker w = {.ph = ph};
  w.let_class = calloc((size_t)ph->nlets + 1, 1);
  DG_CHECK(w.let_class, DG_ERR_MEMORY, "out of memory");
  dg_error err = DG_OK;
  for (int kind = 0; kind < KIND_COUNT && !err; kind++) {
    int count = kind == KIND_BC ? ph->nboundaries * ph->nfields : ph->nfields;
    const dg_flux_node *const *trees = kind == KIND_RHS       ? ph->rhs
                                       : kind == KIND_SURFACE ? ph->surface
                                       : kind == KIND_FLUX    ? ph->flux
                                       : kind == KIND_SOURCE  ? ph->source
                                                              : ph->bc_ext;
    for (int i = 0; trees && i < count && !err; i++) {
      if (!trees[i])
        continue;
      if (kind == KIND_BC && ph->bc_used && ph->nfields > 0 && !ph->bc_used[i / ph->nfields])
        continue; /* no face uses this condition: its code never runs */
      w.let_depth = 0;
      if (classify(&w, trees[i]))
        continue;
      int f = i % (ph->nfields ? ph->nfields : 1);
      char fb[96], ob[16], what[192];
      field_label(field_names, f, fb, sizeof fb);
      switch (kind) {
      case KIND_RHS: snprintf(what, sizeof what, "the volume term of %s", fb); break;
      case KIND_SURFACE:
        snprintf(what, sizeof what, "the surface form of the volume term of %s", fb);
        break;
      case KIND_FLUX: snprintf(what, sizeof what, "the numerical flux of %s", fb); break;
      case KIND_SOURCE: snprintf(what, sizeof what, "the source of %s", fb); break;
      default:
        snprintf(what, sizeof what, "the exterior value of %s in the %s boundary condition", fb,
                 ordinal(i / ph->nfields + 1, ob, sizeof ob));
        break;
      }
      err = report(&w, what, origin);
    }
  }
  free(w.seen.key);
  free(w.seen.value);
  free(w.let_class);
  return err;
}
