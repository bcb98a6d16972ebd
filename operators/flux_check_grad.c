/* Second-order terms of the flux language (FLUX_LANGUAGE.md, "Second-order
 * terms"): the derivatives that are lifted gradients, and the helpers that
 * come with them.
 *
 * A derivative nested inside an rhs derivative's argument (div(nu*grad(u))),
 * and every derivative in a let, a numerical flux or a boundary condition,
 * is a derivative of a field or let NAME whose gradient Q is lifted in a
 * first pass (LDG: Cockburn & Shu 1998; Arnold, Brezzi, Cockburn & Marini
 * 2002; Hesthaven & Warburton 2008, ch. 7): it becomes DG_FLUX_GRADQ
 * leaves of the program's gradients, one per scalar component of NAME.
 * The boundaries give each NAME's exterior gradient (grad(NAME) = ...). */
#include <stdio.h>
#include <string.h>

#include "core/suggest.h"
#include "operators/flux_check_expr.h"

static dg_flux_node *oom(dg_flux_checker *ck) {
  ck->oom = 1;
  return NULL;
}

int dg_flux_check_grad_shape(int dim, dg_flux_shape s, dg_flux_shape *out) {
  if (s.rank == 0)
    *out = dg_flux_shape_vector(dim);
  else if (s.rank == 1 && s.rows * dim <= DG_FLUX_MAX_COMPONENTS)
    *out = dg_flux_shape_matrix(s.rows, dim);
  else
    return 0;
  return 1;
}

/* --- what a differentiated let may read ------------------------------------ */

/* The first leaf of n that a lifted gradient cannot differentiate (its
 * scalar must be a function of the side-NONE state and params: the pass
 * that lifts it evaluates it at volume and face nodes of the state alone),
 * or NULL. */
static const dg_flux_node *impure(const dg_flux_checker *ck, const dg_flux_node *n) {
  switch (n->op) {
  case DG_FLUX_X:
  case DG_FLUX_T:
  case DG_FLUX_COEF:
  case DG_FLUX_NORMAL:
  case DG_FLUX_GRADQ:
  case DG_FLUX_LDGB: return n;
  case DG_FLUX_FIELD: return n->side != DG_FLUX_SIDE_NONE ? n : NULL;
  case DG_FLUX_LET: return n->side != DG_FLUX_SIDE_NONE ? n : ck->let_impure[n->ref];
  default: break;
  }
  for (int i = 0; i < n->nargs; i++) {
    const dg_flux_node *m = impure(ck, n->args[i]);
    if (m)
      return m;
  }
  return NULL;
}

void dg_flux_check_let_purity(dg_flux_checker *ck, int index) {
  ck->let_impure[index] = impure(ck, ck->prog->lets[index].body);
}

static const char *describe(const dg_flux_checker *ck, const dg_flux_node *n, char *buf,
                            size_t size) {
  switch (n->op) {
  case DG_FLUX_X: return "the position x";
  case DG_FLUX_T: return "the time t";
  case DG_FLUX_NORMAL: return "the normal n";
  case DG_FLUX_LDGB: return "the LDG switch";
  case DG_FLUX_COEF:
    snprintf(buf, size, "coefficient '%s'", ck->prog->coefs[n->ref].name);
    return buf;
  case DG_FLUX_GRADQ:
    snprintf(buf, size, "the gradient grad(%s)", ck->prog->gradients[n->ref].name);
    return buf;
  default: return "traces (.int, .ext, avg, jump)";
  }
}

/* --- the NAME a gradient differentiates ------------------------------------- */

typedef struct grad_name {
  int is_let, ref;
  int comp;            /* NAME[i]: i; -1 the whole NAME */
  dg_flux_shape shape; /* of NAME, or of NAME[i] */
  char word[80];       /* NAME as written */
} grad_name;

/* What `word` is when it is neither a field nor a let: NULL for an unknown
 * name. */
static const char *not_differentiable(const dg_flux_checker *ck, const char *word, int len) {
  static const struct { const char *name, *what; } builtin[] = {
      {"x", "the position"}, {"t", "the time"}, {"n", "the normal"}, {"pi", "a constant"}};
  for (size_t i = 0; i < sizeof builtin / sizeof *builtin; i++)
    if (dg_flux_check_name_is(word, len, builtin[i].name))
      return builtin[i].what;
  if (dg_flux_check_find_param(ck, word, len) >= 0)
    return "a param";
  if (dg_flux_check_find_coef(ck, word, len) >= 0)
    return "a coefficient";
  return NULL;
}

static void unknown_name(dg_flux_checker *ck, dg_flux_loc loc, const char *word, int nlets) {
  const char *cand[512];
  size_t n = 0;
  for (int i = 0; i < ck->prog->nfields && n < 256; i++)
    cand[n++] = ck->prog->fields[i].name;
  for (int i = 0; i < nlets && n < 512; i++)
    cand[n++] = ck->prog->lets[i].name;
  char dym[96];
  dg_flux_check_error(ck, loc, "unknown name '%s'%s", word,
                      dg_flux_check_did_you_mean(strlen(word) < 2 ? NULL
                                                 : dg_suggest_closest(word, cand, n),
                                                 dym, sizeof dym));
}

/* Resolve NAME (a field, or a let of the first nlets) into g; 0 after
 * reporting (or quietly, for a let whose body had an error). */
static int resolve_name(dg_flux_checker *ck, const char *op, const char *name, int len,
                        dg_flux_loc loc, int nlets, grad_name *g) {
  snprintf(g->word, sizeof g->word, "%.*s", len, name);
  g->comp = -1;
  int f = dg_flux_check_find_field(ck, name, len), l = dg_flux_check_find_let(ck, name, len);
  if (f >= 0) {
    g->is_let = 0, g->ref = f, g->shape = ck->prog->fields[f].shape;
    return 1;
  }
  if (l >= 0 && l >= nlets) {
    dg_flux_check_error(ck, loc,
                        "'%s' is defined below (at %d:%d); a let can use only names defined "
                        "above it",
                        g->word, ck->prog->lets[l].loc.line, ck->prog->lets[l].loc.col);
    return 0;
  }
  if (l >= 0) {
    if (ck->let_broken[l])
      return 0;
    const dg_flux_node *bad = ck->let_impure[l];
    if (bad) {
      char b1[160];
      dg_flux_check_error(ck, loc, "cannot take %s(%s): let '%s' reads %s (at %d:%d); %s", op,
                          g->word, g->word, describe(ck, bad, b1, sizeof b1), bad->loc.line,
                          bad->loc.col,
                          bad->op == DG_FLUX_GRADQ
                              ? "a lifted gradient is not differentiated again (a third "
                                "derivative)"
                              : "a second-order term differentiates fields and lets of fields "
                                "and params");
      return 0;
    }
    g->is_let = 1, g->ref = l, g->shape = ck->prog->lets[l].body->shape;
    return 1;
  }
  const char *what = not_differentiable(ck, name, len);
  if (what)
    dg_flux_check_error(ck, loc,
                        "cannot take %s(%s): '%s' is %s; a second-order term differentiates "
                        "fields and lets of fields and params",
                        op, g->word, g->word, what);
  else
    unknown_name(ck, loc, g->word, nlets);
  return 0;
}

/* The argument of a lifted derivative: NAME or NAME[i]. */
static int resolve_arg(dg_flux_checker *ck, const char *op, const dg_flux_syn *call,
                       grad_name *g) {
  const dg_flux_syn *arg = call->args[0];
  const dg_flux_syn *nm = arg, *ix = NULL;
  if (arg->kind == DG_FLUX_SYN_INDEX && arg->args[0]->kind == DG_FLUX_SYN_NAME)
    nm = arg->args[0], ix = arg->args[1];
  if (arg->kind == DG_FLUX_SYN_TRACE && arg->args[0]->kind == DG_FLUX_SYN_NAME) {
    const dg_flux_syn *in = arg->args[0];
    dg_flux_check_error(ck, arg->loc, "a trace goes outside a lifted gradient: write %s(%.*s).%s",
                        op, in->len, in->name, arg->op == DG_FLUX_SIDE_INT ? "int" : "ext");
    return 0;
  }
  if (nm->kind != DG_FLUX_SYN_NAME) {
    dg_flux_check_error(ck, call->loc,
                        "%s of an expression inside a derivative, a let, a flux or a boundary: "
                        "a second-order term differentiates a name; write let q = ... and %s(q)",
                        op, op);
    return 0;
  }
  if (!resolve_name(ck, op, nm->name, nm->len, nm->loc, ck->nlets_visible, g))
    return 0;
  if (g->shape.rank == 2) {
    dg_flux_check_error(ck, nm->loc, "cannot take %s(%s) of a matrix; differentiate its rows",
                        op, g->word);
    return 0;
  }
  if (!ix)
    return 1;
  char b1[48];
  int k = (int)ix->value;
  if (ix->kind != DG_FLUX_SYN_NUM || ix->value != (double)k) {
    dg_flux_check_error(ck, ix->loc, "a component index must be an integer literal, as in E[0]");
    return 0;
  }
  if (g->shape.rank == 0) {
    dg_flux_check_error(ck, arg->loc, "cannot index a scalar");
    return 0;
  }
  if (k < 0 || k >= g->shape.rows) {
    dg_flux_check_error(ck, ix->loc, "index %d is out of range for %s (0 to %d)", k,
                        dg_flux_check_a_shape(g->shape, b1), g->shape.rows - 1);
    return 0;
  }
  g->comp = k;
  g->shape = dg_flux_shape_scalar();
  size_t len = strlen(g->word);
  snprintf(g->word + len, sizeof g->word - len, "[%d]", k);
  return 1;
}

/* --- the program's gradients ---------------------------------------------------- */

/* Index of the gradient of component c of NAME (0 for a scalar), added in
 * order of first use; -1 after reporting. */
static int gradient_index(dg_flux_checker *ck, const grad_name *g, int c, dg_flux_loc loc) {
  dg_flux_program *prog = ck->prog;
  for (int j = 0; j < prog->ngradients; j++) {
    const dg_flux_gradient_info *gi = &prog->gradients[j];
    if (gi->is_let == g->is_let && gi->ref == g->ref && gi->comp == c)
      return j;
  }
  if (prog->ngradients == DG_FLUX_MAX_GRADIENTS) {
    dg_flux_check_error(ck, loc,
                        "too many gradients: a file may differentiate at most %d scalars "
                        "(components of fields and lets)",
                        DG_FLUX_MAX_GRADIENTS);
    return -1;
  }
  if (prog->ngradients == ck->grad_cap) {
    int cap = ck->grad_cap ? 2 * ck->grad_cap : 8;
    dg_flux_gradient_info *t = dg_flux_arena_alloc(ck->a, (size_t)cap * sizeof *t);
    if (!t) {
      ck->oom = 1;
      return -1;
    }
    if (prog->ngradients)
      memcpy(t, prog->gradients, (size_t)prog->ngradients * sizeof *t);
    prog->gradients = t;
    ck->grad_cap = cap;
  }
  const char *base = g->is_let ? prog->lets[g->ref].name : prog->fields[g->ref].name;
  dg_flux_shape whole = g->is_let ? prog->lets[g->ref].body->shape : prog->fields[g->ref].shape;
  char name[96];
  if (whole.rank == 0)
    snprintf(name, sizeof name, "%s", base);
  else
    snprintf(name, sizeof name, "%s[%d]", base, c);
  dg_flux_node *arg = dg_flux_node_new(ck->a, g->is_let ? DG_FLUX_LET : DG_FLUX_FIELD,
                                       dg_flux_shape_scalar(), loc, 0);
  char *dup = dg_flux_arena_strndup(ck->a, name, strlen(name));
  if (!arg || !dup) {
    ck->oom = 1;
    return -1;
  }
  arg->ref = g->ref;
  arg->comp = c;
  prog->gradients[prog->ngradients] = (dg_flux_gradient_info){
      .name = dup, .is_let = g->is_let, .ref = g->ref, .comp = c, .arg = arg, .loc = loc};
  return prog->ngradients++;
}

/* GRADQ leaf of gradient j: direction d (-1: the dim-vector). */
static dg_flux_node *gradq(dg_flux_checker *ck, int j, int d, dg_flux_loc loc) {
  dg_flux_shape s = d < 0 ? dg_flux_shape_vector(ck->prog->dim) : dg_flux_shape_scalar();
  dg_flux_node *n = dg_flux_node_new(ck->a, DG_FLUX_GRADQ, s, loc, 0);
  if (!n)
    return oom(ck);
  n->ref = j;
  n->comp = d;
  return n;
}

/* The lifted derivative `id` of NAME: grad -> a dim-vector (k x dim for a
 * k-vector, row i the gradient of NAME[i]), a partial -> NAME's shape,
 * div of a dim-vector -> the sum of d(NAME[i])/dx[i]. */
static dg_flux_node *lifted(dg_flux_checker *ck, const grad_name *g, int id, dg_flux_loc loc) {
  int dim = ck->prog->dim, k = g->shape.rank == 0 ? 1 : g->shape.rows;
  int dir = id == DG_FLUX_D_GRAD ? -1 : id - DG_FLUX_D_X;
  char b1[48];
  dg_flux_shape gs = dg_flux_shape_scalar();
  if (id == DG_FLUX_D_DIV && !(g->shape.rank == 1 && g->shape.rows == dim)) {
    dg_flux_check_error(ck, loc, "div in %dD needs a %d-vector, got %s '%s'", dim, dim,
                        dg_flux_check_a_shape(g->shape, b1), g->word);
    return NULL;
  }
  if (id == DG_FLUX_D_GRAD && !dg_flux_check_grad_shape(dim, g->shape, &gs)) {
    dg_flux_check_error(ck, loc, "a matrix may have at most %d components",
                        DG_FLUX_MAX_COMPONENTS);
    return NULL;
  }
  int j[DG_FLUX_MAX_COMPONENTS];
  for (int i = 0; i < k; i++)
    if ((j[i] = gradient_index(ck, g, g->comp >= 0 ? g->comp : g->shape.rank ? i : 0, loc)) < 0)
      return NULL;
  if (id == DG_FLUX_D_DIV) {
    dg_flux_node *sum = gradq(ck, j[0], 0, loc);
    for (int i = 1; i < dim && sum; i++) {
      dg_flux_node *t = gradq(ck, j[i], i, loc);
      sum = t ? dg_flux_node_binary(ck->a, DG_FLUX_ADD, dg_flux_shape_scalar(), loc, sum, t)
              : NULL;
    }
    return sum ? sum : oom(ck);
  }
  if (g->shape.rank == 0)
    return gradq(ck, j[0], dir, loc);
  dg_flux_node *v = dg_flux_node_new(ck->a, DG_FLUX_VEC,
                                     dir < 0 ? gs : dg_flux_shape_vector(k), loc, k);
  if (!v)
    return oom(ck);
  for (int i = 0; i < k; i++)
    if (!(v->args[i] = gradq(ck, j[i], dir, loc)))
      return NULL;
  return v;
}

dg_flux_node *dg_flux_check_gradient(dg_flux_checker *ck, dg_flux_scope *sc,
                                     const dg_flux_syn *s, const char *name, int id) {
  if (id == DG_FLUX_D_CURL) {
    dg_flux_check_error(ck, s->loc,
                        "curl of a lifted gradient (inside a derivative, a let, a flux or a "
                        "boundary) is not available; write it with dx, dy and dz");
    return NULL;
  }
  grad_name g;
  if (!resolve_arg(ck, name, s, &g))
    return NULL;
  int face = sc->ctx == DG_FLUX_CTX_FLUX || sc->ctx == DG_FLUX_CTX_BC;
  if (face && !sc->in_trace) {
    if (sc->ctx == DG_FLUX_CTX_BC)
      dg_flux_check_error(ck, s->loc, "%s(%s) needs a trace in %s: write %s(%s).int", name,
                          g.word, sc->what, name, g.word);
    else
      dg_flux_check_error(ck, s->loc,
                          "%s(%s) needs a trace in %s: write %s(%s).int, %s(%s).ext, or "
                          "avg, jump or ldg of it",
                          name, g.word, sc->what, name, g.word, name, g.word);
    return NULL;
  }
  dg_flux_node *n = lifted(ck, &g, id, s->loc);
  if (n && sc->ctx == DG_FLUX_CTX_LET) {
    sc->uses_grad = 1;
    sc->uses_grad_bare |= !sc->in_trace;
  }
  return n;
}

/* --- ldg and the matrix helpers ------------------------------------------------- */

dg_flux_node *dg_flux_check_ldg(dg_flux_checker *ck, dg_flux_node *e_int, dg_flux_node *e_ext,
                                dg_flux_loc loc) {
  /* ldg(e) = avg(e) - beta_n*jump(e): with beta_n = +1/2 the exterior
   * trace, the side opposite to the one the lifted gradient's trace takes
   * (Cockburn & Shu 1998's alternating fluxes) */
  dg_flux_arena *a = ck->a;
  dg_flux_shape s = e_int->shape;
  dg_flux_node *half = dg_flux_node_num(a, 0.5, loc);
  dg_flux_node *sum = dg_flux_node_binary(a, DG_FLUX_ADD, s, loc, e_int, e_ext);
  dg_flux_node *jump = dg_flux_node_binary(a, DG_FLUX_SUB, s, loc, e_int, e_ext);
  dg_flux_node *beta = dg_flux_node_new(a, DG_FLUX_LDGB, dg_flux_shape_scalar(), loc, 0);
  if (!half || !sum || !jump || !beta)
    return oom(ck);
  dg_flux_node *avg = dg_flux_node_binary(a, DG_FLUX_MUL, s, loc, half, sum);
  dg_flux_node *bj = dg_flux_node_binary(a, DG_FLUX_MUL, s, loc, beta, jump);
  dg_flux_node *n = avg && bj ? dg_flux_node_binary(a, DG_FLUX_SUB, s, loc, avg, bj) : NULL;
  return n ? n : oom(ck);
}

/* Row (or component) k of n, as a leaf where n is one, else picked from a
 * list or an INDEX node. */
static dg_flux_node *part(dg_flux_checker *ck, dg_flux_node *n, int k) {
  if (n->op == DG_FLUX_VEC)
    return n->args[k];
  dg_flux_shape r = n->shape.rank == 2 ? dg_flux_shape_vector(n->shape.cols)
                                       : dg_flux_shape_scalar();
  int leaf = n->op == DG_FLUX_FIELD || n->op == DG_FLUX_X || n->op == DG_FLUX_NORMAL ||
             n->op == DG_FLUX_LET || n->op == DG_FLUX_GRADQ;
  if (leaf && n->shape.rank == 1 && n->comp < 0) {
    dg_flux_node *c = dg_flux_node_new(ck->a, n->op, r, n->loc, 0);
    if (!c)
      return oom(ck);
    c->ref = n->ref, c->side = n->side, c->comp = k;
    return c;
  }
  dg_flux_node *c = dg_flux_node_unary(ck->a, DG_FLUX_INDEX, r, n->loc, n);
  if (!c)
    return oom(ck);
  c->ref = k;
  return c;
}

static dg_flux_node *entry(dg_flux_checker *ck, dg_flux_node *m, int r, int c) {
  dg_flux_node *row = part(ck, m, r);
  return row ? part(ck, row, c) : NULL;
}

dg_flux_node *dg_flux_check_matrix_fn(dg_flux_checker *ck, int which, dg_flux_node *const *args,
                                      dg_flux_loc loc) {
  static const char *const names[] = {"transpose", "trace", "dot"};
  dg_flux_node *m = args[0];
  dg_flux_shape s = m->shape;
  char b1[48], b2[48];
  if (s.rank != 2 || (which == 1 && s.rows != s.cols)) {
    dg_flux_check_error(ck, loc, "%s needs a %smatrix, got %s", names[which],
                        which == 1 ? "square " : "", dg_flux_check_a_shape(s, b1));
    return NULL;
  }
  if (which == 2 && !dg_flux_shape_equal(args[1]->shape, dg_flux_shape_vector(s.cols))) {
    dg_flux_check_error(ck, loc, "dot(M, v) of %s needs a %d-vector v, got %s",
                        dg_flux_check_a_shape(s, b1), s.cols,
                        dg_flux_check_a_shape(args[1]->shape, b2));
    return NULL;
  }
  if (which == 1) { /* trace(M) = M[0][0] + M[1][1] + ... */
    dg_flux_node *sum = entry(ck, m, 0, 0);
    for (int i = 1; i < s.rows && sum; i++) {
      dg_flux_node *t = entry(ck, m, i, i);
      sum = t ? dg_flux_node_binary(ck->a, DG_FLUX_ADD, dg_flux_shape_scalar(), loc, sum, t)
              : NULL;
    }
    return sum ? sum : oom(ck);
  }
  int rows = which == 0 ? s.cols : s.rows;
  dg_flux_shape r = which == 0 ? dg_flux_shape_matrix(s.cols, s.rows) : dg_flux_shape_vector(s.rows);
  dg_flux_node *v = dg_flux_node_new(ck->a, DG_FLUX_VEC, r, loc, rows);
  if (!v)
    return oom(ck);
  for (int i = 0; i < rows; i++) {
    if (which == 2) { /* (M v)[i] = dot(M[i], v) */
      dg_flux_node *r = part(ck, m, i);
      v->args[i] = r ? dg_flux_node_call2(ck->a, DG_FLUX_FN_DOT, dg_flux_shape_scalar(), loc, r,
                                          args[1])
                     : NULL;
    } else { /* transpose(M)[i][j] = M[j][i] */
      v->args[i] = dg_flux_node_new(ck->a, DG_FLUX_VEC, dg_flux_shape_vector(s.rows), loc, s.rows);
      for (int j = 0; j < s.rows && v->args[i]; j++)
        if (!(v->args[i]->args[j] = entry(ck, m, j, i)))
          return NULL;
    }
    if (!v->args[i])
      return oom(ck);
  }
  return v;
}

/* --- boundaries: grad(NAME) = ... ------------------------------------------------ */

/* Whether gradient j (of those the equations use) is of NAME g. */
static int of_name(const dg_flux_gradient_info *gi, const grad_name *g) {
  return gi->is_let == g->is_let && gi->ref == g->ref;
}

/* Check item k (a grad(NAME) = value of a boundary): -1 after reporting a
 * NAME that is unknown, has no gradient or is given twice; else its NAME
 * into *g and its value into *value (NULL after reporting), and 1. */
static int check_bc_item(dg_flux_checker *ck, int k, int nused, grad_name *g,
                         const dg_flux_node **value) {
  dg_flux_program *prog = ck->prog;
  const dg_flux_bc_grad *bg = &ck->bc_grads[k];
  const dg_flux_item *it = bg->item;
  const dg_flux_boundary_info *b = &prog->boundaries[bg->boundary];
  *value = NULL;
  if (!resolve_name(ck, "grad", it->name, it->len, it->loc, prog->nlets, g))
    return -1;
  int used = 0;
  for (int j = 0; j < nused; j++)
    used |= of_name(&prog->gradients[j], g);
  if (!used) {
    if (nused == 0)
      dg_flux_check_error(ck, it->loc,
                          "boundary '%s' gives grad(%s), but the program has no second-order "
                          "terms (no gradient is lifted); remove it",
                          b->name, g->word);
    else
      dg_flux_check_error(ck, it->loc,
                          "boundary '%s' gives grad(%s), but no term uses a gradient of '%s'; "
                          "remove it",
                          b->name, g->word, g->word);
    return -1;
  }
  for (int i = 0; i < k; i++) {
    const dg_flux_item *other = ck->bc_grads[i].item;
    if (ck->bc_grads[i].boundary == bg->boundary && other->len == it->len &&
        memcmp(other->name, it->name, (size_t)it->len) == 0) {
      dg_flux_check_error(ck, it->loc, "grad(%s) is given twice in boundary '%s' (first at %d:%d)",
                          g->word, b->name, other->loc.line, other->loc.col);
      return -1;
    }
  }
  dg_flux_shape shape;
  dg_flux_check_grad_shape(prog->dim, g->shape, &shape); /* NAME has gradients: it can */
  char whose[96], label[192];
  snprintf(whose, sizeof whose, "grad(%s)", g->word);
  snprintf(label, sizeof label, "the exterior gradient of '%s' in boundary '%s'", g->word, b->name);
  *value = dg_flux_check_shaped(ck, DG_FLUX_CTX_BC, "a boundary condition", it->expr, shape,
                                whose, label);
  if (*value && prog->ngradients > nused) {
    dg_flux_check_error(ck, it->expr->loc,
                        "%s reads grad(%s), a gradient that no term of the equations lifts",
                        label, prog->gradients[nused].name);
    *value = NULL;
  }
  return 1;
}

/* One error per boundary naming the differentiated names it does not give. */
static void report_missing(dg_flux_checker *ck, const dg_flux_boundary_info *b, int nused,
                           const unsigned char *given) {
  dg_flux_program *prog = ck->prog;
  char missing[DG_FLUX_MESSAGE_MAX] = "";
  const char *first = NULL;
  int nmissing = 0;
  for (int j = 0; j < nused; j++) {
    const dg_flux_gradient_info *gi = &prog->gradients[j];
    if (given[j])
      continue;
    const char *name = gi->is_let ? prog->lets[gi->ref].name : prog->fields[gi->ref].name;
    int seen = 0; /* a vector NAME once */
    for (int i = 0; i < j; i++)
      seen |= prog->gradients[i].is_let == gi->is_let && prog->gradients[i].ref == gi->ref;
    if (seen)
      continue;
    size_t len = strlen(missing);
    snprintf(missing + len, sizeof missing - len, "%sgrad(%s)", nmissing ? ", " : "", name);
    first = first ? first : name;
    nmissing++;
  }
  if (nmissing)
    dg_flux_check_error(ck, b->loc,
                        "boundary '%s' does not give %s (each differentiated name's exterior "
                        "gradient is needed; 'grad(%s) = grad(%s).int' keeps the interior one)",
                        b->name, missing, first, first);
}

void dg_flux_check_bc_gradients(dg_flux_checker *ck, int complete) {
  dg_flux_program *prog = ck->prog;
  int nused = prog->ngradients, nb = prog->nboundaries;
  size_t cells = (size_t)nb * (size_t)nused + 1;
  const dg_flux_node **all = dg_flux_arena_alloc(ck->a, cells * sizeof *all);
  unsigned char *given = dg_flux_arena_alloc(ck->a, cells);
  if (!all || !given) {
    ck->oom = 1;
    return;
  }
  for (int b = 0; b < nb && nused > 0; b++)
    prog->boundaries[b].grad_exterior = all + (size_t)b * nused;
  /* a boundary with a NAME in error is not told what it lacks (the NAME may
   * be the one meant) */
  unsigned char *bad = dg_flux_arena_alloc(ck->a, (size_t)nb + 1);
  if (!bad) {
    ck->oom = 1;
    return;
  }
  for (int k = 0; k < ck->nbc_grads && !ck->oom; k++) {
    grad_name g;
    const dg_flux_node *value;
    if (check_bc_item(ck, k, nused, &g, &value) < 0) {
      bad[ck->bc_grads[k].boundary] = 1;
      continue;
    }
    size_t at = (size_t)ck->bc_grads[k].boundary * nused;
    for (int j = 0; j < nused; j++) {
      const dg_flux_gradient_info *gi = &prog->gradients[j];
      if (!of_name(gi, &g))
        continue;
      given[at + j] = 1; /* given, if wrongly (reported) */
      /* row comp of a k-vector NAME's k x dim value */
      if (value)
        all[at + j] = g.shape.rank == 0 ? value : part(ck, (dg_flux_node *)value, gi->comp);
    }
  }
  for (int b = 0; b < nb && complete && nused > 0; b++)
    if (!bad[b])
      report_missing(ck, &prog->boundaries[b], nused, given + (size_t)b * nused);
}
