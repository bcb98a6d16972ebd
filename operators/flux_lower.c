#include "operators/flux_lower.h"

/* Expansion budget per call: far above any physical system (3D Euler's
 * momentum component is a few hundred nodes), far below memory trouble. */
enum { NODE_BUDGET = 200000 };

typedef struct lowerer {
  dg_flux_arena *a;
  int dim;
  long budget;
  int oom, over;
} lowerer;

static dg_flux_node *fresh(lowerer *lw, dg_flux_op op, dg_flux_loc loc, int nargs) {
  if (--lw->budget < 0) {
    lw->over = 1;
    return NULL;
  }
  dg_flux_node *n = dg_flux_node_new(lw->a, op, dg_flux_shape_scalar(), loc, nargs);
  if (!n)
    lw->oom = 1;
  return n;
}

static dg_flux_node *bin(lowerer *lw, dg_flux_op op, dg_flux_loc loc, dg_flux_node *x,
                         dg_flux_node *y) {
  if (!x || !y)
    return NULL;
  dg_flux_node *n = fresh(lw, op, loc, 2);
  if (n)
    n->args[0] = x, n->args[1] = y;
  return n;
}

static dg_flux_node *partial(lowerer *lw, int dir, dg_flux_loc loc, dg_flux_node *g) {
  if (!g)
    return NULL;
  dg_flux_node *n = fresh(lw, DG_FLUX_DERIV, loc, 1);
  if (n) {
    n->ref = DG_FLUX_D_X + dir;
    n->args[0] = g;
  }
  return n;
}

static dg_flux_node *negate(lowerer *lw, dg_flux_loc loc, dg_flux_node *x) {
  if (!x)
    return NULL;
  dg_flux_node *n = fresh(lw, DG_FLUX_NEG, loc, 1);
  if (n)
    n->args[0] = x;
  return n;
}

static dg_flux_node *comp(lowerer *lw, const dg_flux_node *n, int i);

/* a0*b0 - a1*b1 style products of components. */
static dg_flux_node *mul_comps(lowerer *lw, dg_flux_loc loc, const dg_flux_node *a, int i,
                               const dg_flux_node *b, int j) {
  return bin(lw, DG_FLUX_MUL, loc, comp(lw, a, i), comp(lw, b, j));
}

/* Component i of cross(a, b) (rules of dg_flux_cross_shape). */
static dg_flux_node *cross_comp(lowerer *lw, const dg_flux_node *n, int i) {
  const dg_flux_node *a = n->args[0], *b = n->args[1];
  dg_flux_loc loc = n->loc;
  if (a->shape.rank == 1 && a->shape.rows == 3) {
    int j = (i + 1) % 3, k = (i + 2) % 3; /* (a x b)_i = a_j b_k - a_k b_j */
    return bin(lw, DG_FLUX_SUB, loc, mul_comps(lw, loc, a, j, b, k), mul_comps(lw, loc, a, k, b, j));
  }
  if (a->shape.rank == 1 && b->shape.rank == 1) /* 2D: a0 b1 - a1 b0 */
    return bin(lw, DG_FLUX_SUB, loc, mul_comps(lw, loc, a, 0, b, 1), mul_comps(lw, loc, a, 1, b, 0));
  if (a->shape.rank == 1) { /* a x (s e_z) = [a1 s, -a0 s] */
    dg_flux_node *t = mul_comps(lw, loc, a, i == 0 ? 1 : 0, b, 0);
    return i == 0 ? t : negate(lw, loc, t);
  }
  /* (s e_z) x b = [-s b1, s b0] */
  dg_flux_node *t = mul_comps(lw, loc, a, 0, b, i == 0 ? 1 : 0);
  return i == 1 ? t : negate(lw, loc, t);
}

/* sum over k < len of f(k) built as a left-leaning ADD chain */
static dg_flux_node *dot_comp(lowerer *lw, dg_flux_loc loc, const dg_flux_node *a,
                              const dg_flux_node *b, int len) {
  dg_flux_node *s = mul_comps(lw, loc, a, 0, b, 0);
  for (int k = 1; k < len && s; k++)
    s = bin(lw, DG_FLUX_ADD, loc, s, mul_comps(lw, loc, a, k, b, k));
  return s;
}

static dg_flux_node *deriv_comp(lowerer *lw, const dg_flux_node *n, int i) {
  const dg_flux_node *g = n->args[0];
  dg_flux_loc loc = n->loc;
  switch ((dg_flux_deriv)n->ref) {
  case DG_FLUX_D_GRAD: return partial(lw, i, loc, comp(lw, g, 0));
  case DG_FLUX_D_DIV: {
    int row = g->shape.rank == 2 ? i * g->shape.cols : 0;
    dg_flux_node *s = partial(lw, 0, loc, comp(lw, g, row));
    for (int j = 1; j < lw->dim && s; j++)
      s = bin(lw, DG_FLUX_ADD, loc, s, partial(lw, j, loc, comp(lw, g, row + j)));
    return s;
  }
  case DG_FLUX_D_CURL:
    if (lw->dim == 3) { /* (curl g)_i = d_j g_k - d_k g_j */
      int j = (i + 1) % 3, k = (i + 2) % 3;
      return bin(lw, DG_FLUX_SUB, loc, partial(lw, j, loc, comp(lw, g, k)),
                 partial(lw, k, loc, comp(lw, g, j)));
    }
    if (g->shape.rank == 1) /* 2D: dx g1 - dy g0 */
      return bin(lw, DG_FLUX_SUB, loc, partial(lw, 0, loc, comp(lw, g, 1)),
                 partial(lw, 1, loc, comp(lw, g, 0)));
    if (i == 0) /* 2D scalar: [dy f, -dx f] */
      return partial(lw, 1, loc, comp(lw, g, 0));
    return negate(lw, loc, partial(lw, 0, loc, comp(lw, g, 0)));
  default: return partial(lw, n->ref - DG_FLUX_D_X, loc, comp(lw, g, i));
  }
}

static dg_flux_node *comp(lowerer *lw, const dg_flux_node *n, int i) {
  if (lw->oom || lw->over)
    return NULL;
  dg_flux_loc loc = n->loc;
  switch (n->op) {
  case DG_FLUX_NUM:
  case DG_FLUX_PARAM:
  case DG_FLUX_COEF: /* a scalar leaf */
  case DG_FLUX_LDGB:
  case DG_FLUX_T: return (dg_flux_node *)n;
  case DG_FLUX_GRADQ: /* a dim-vector (comp -1) or one direction */
  case DG_FLUX_FIELD:
  case DG_FLUX_X:
  case DG_FLUX_NORMAL:
  case DG_FLUX_LET: {
    if (n->shape.rank == 0)
      return (dg_flux_node *)n;
    dg_flux_node *c = fresh(lw, n->op, loc, 0);
    if (c) {
      c->ref = n->ref;
      c->side = n->side;
      c->comp = i;
    }
    return c;
  }
  case DG_FLUX_VEC:
    if (n->shape.rank == 1)
      return comp(lw, n->args[i], 0);
    return comp(lw, n->args[i / n->shape.cols], i % n->shape.cols);
  case DG_FLUX_INDEX: {
    const dg_flux_node *b = n->args[0];
    return comp(lw, b, b->shape.rank == 2 ? n->ref * b->shape.cols + i : n->ref);
  }
  case DG_FLUX_DERIV: return deriv_comp(lw, n, i);
  case DG_FLUX_CALL:
    if (n->ref == DG_FLUX_FN_CROSS)
      return cross_comp(lw, n, i);
    if (n->ref == DG_FLUX_FN_DOT)
      return dot_comp(lw, loc, n->args[0], n->args[1], n->args[0]->shape.rows);
    if (n->ref == DG_FLUX_FN_NORM) {
      dg_flux_node *s = dot_comp(lw, loc, n->args[0], n->args[0], n->args[0]->shape.rows);
      dg_flux_node *r = s ? fresh(lw, DG_FLUX_CALL, loc, 1) : NULL;
      if (r) {
        r->ref = DG_FLUX_FN_SQRT;
        r->args[0] = s;
      }
      return r;
    }
    /* fallthrough - scalar functions are element-wise */
  default: {
    /* element-wise; scalar operands broadcast */
    dg_flux_node *c = fresh(lw, n->op, loc, n->nargs);
    if (!c)
      return NULL;
    c->ref = n->ref;
    for (int k = 0; k < n->nargs; k++) {
      int ck = n->args[k]->shape.rank == 0 ? 0 : i;
      if (n->op == DG_FLUX_SELECT && k == 0)
        ck = 0;
      if (!(c->args[k] = comp(lw, n->args[k], ck)))
        return NULL;
    }
    return c;
  }
  }
}

dg_error dg_flux_lower_component(dg_flux_arena *a, int dim, const dg_flux_node *n, int i,
                                 dg_flux_node **out) {
  DG_CHECK(a && n && out, DG_ERR_ARG, "NULL argument");
  DG_CHECK(i >= 0 && i < dg_flux_shape_size(n->shape), DG_ERR_ARG,
           "component %d out of range for a value of %d components", i,
           dg_flux_shape_size(n->shape));
  DG_CHECK(dim >= 1 && dim <= 3, DG_ERR_ARG, "dimension %d is not 1, 2 or 3", dim);
  lowerer lw = {.a = a, .dim = dim, .budget = NODE_BUDGET};
  *out = comp(&lw, n, i);
  DG_CHECK(!lw.oom, DG_ERR_MEMORY, "out of memory lowering a flux expression");
  DG_CHECK(!lw.over, DG_ERR_INPUT,
           "the expression at %d:%d expands to more than %d scalar operations", n->loc.line,
           n->loc.col, NODE_BUDGET);
  DG_CHECK(*out, DG_ERR_INTERNAL, "lowering failed");
  return DG_OK;
}

/* --- volume terms ------------------------------------------------------------ */

typedef struct splitter {
  dg_flux_arena *a;
  dg_flux_node *pointwise;
  int nterms, cap;
  dg_flux_dterm *terms;
  int oom, bad;
} splitter;

/* coef*x, with a NULL coefficient meaning 1 */
static dg_flux_node *scaled(splitter *sp, const dg_flux_node *coef, dg_flux_node *x,
                            dg_flux_loc loc) {
  if (!coef)
    return x;
  dg_flux_node *m = dg_flux_node_binary(sp->a, DG_FLUX_MUL, dg_flux_shape_scalar(), loc,
                                        (dg_flux_node *)coef, x);
  if (!m)
    sp->oom = 1;
  return m;
}

static void split(splitter *sp, const dg_flux_node *n, const dg_flux_node *coef) {
  if (sp->oom || sp->bad)
    return;
  dg_flux_loc loc = n->loc;
  if (!dg_flux_node_has_deriv(n)) {
    dg_flux_node *t = scaled(sp, coef, (dg_flux_node *)n, loc);
    if (!t)
      return;
    if (!sp->pointwise)
      sp->pointwise = t;
    else if (!(sp->pointwise = dg_flux_node_binary(sp->a, DG_FLUX_ADD, dg_flux_shape_scalar(),
                                                   loc, sp->pointwise, t)))
      sp->oom = 1;
    return;
  }
  switch (n->op) {
  case DG_FLUX_DERIV: {
    if (n->ref < DG_FLUX_D_X || n->args[0]->shape.rank != 0) {
      sp->bad = 1; /* not lowered */
      return;
    }
    if (sp->nterms == sp->cap) {
      int cap = sp->cap ? 2 * sp->cap : 8;
      dg_flux_dterm *t = dg_flux_arena_alloc(sp->a, (size_t)cap * sizeof *t);
      if (!t) {
        sp->oom = 1;
        return;
      }
      for (int k = 0; k < sp->nterms; k++)
        t[k] = sp->terms[k];
      sp->terms = t;
      sp->cap = cap;
    }
    dg_flux_node *one = coef ? NULL : dg_flux_node_num(sp->a, 1.0, loc);
    if (!coef && !one) {
      sp->oom = 1;
      return;
    }
    sp->terms[sp->nterms++] =
        (dg_flux_dterm){n->ref - DG_FLUX_D_X, coef ? coef : one, n->args[0]};
    return;
  }
  case DG_FLUX_ADD:
    split(sp, n->args[0], coef);
    split(sp, n->args[1], coef);
    return;
  case DG_FLUX_SUB:
  case DG_FLUX_NEG: {
    dg_flux_node *m1 = dg_flux_node_num(sp->a, -1.0, loc);
    dg_flux_node *neg = m1 ? scaled(sp, coef, m1, loc) : NULL;
    if (!neg) {
      sp->oom = 1;
      return;
    }
    if (n->op == DG_FLUX_SUB) {
      split(sp, n->args[0], coef);
      split(sp, n->args[1], neg);
    } else {
      split(sp, n->args[0], neg);
    }
    return;
  }
  case DG_FLUX_MUL: {
    int d0 = dg_flux_node_has_deriv(n->args[0]);
    const dg_flux_node *factor = d0 ? n->args[1] : n->args[0];
    split(sp, d0 ? n->args[0] : n->args[1], scaled(sp, coef, (dg_flux_node *)factor, loc));
    return;
  }
  case DG_FLUX_DIV: {
    dg_flux_node *one = dg_flux_node_num(sp->a, 1.0, loc);
    dg_flux_node *inv = one ? dg_flux_node_binary(sp->a, DG_FLUX_DIV, dg_flux_shape_scalar(),
                                                  loc, one, n->args[1])
                            : NULL;
    if (!inv) {
      sp->oom = 1;
      return;
    }
    split(sp, n->args[0], scaled(sp, coef, inv, loc));
    return;
  }
  default: sp->bad = 1; return;
  }
}

dg_error dg_flux_lower_volume(dg_flux_arena *a, const dg_flux_node *scalar_rhs,
                              dg_flux_volume *out) {
  DG_CHECK(a && scalar_rhs && out, DG_ERR_ARG, "NULL argument");
  DG_CHECK(scalar_rhs->shape.rank == 0, DG_ERR_ARG, "lower the rhs to a component first");
  splitter sp = {.a = a};
  split(&sp, scalar_rhs, NULL);
  DG_CHECK(!sp.oom, DG_ERR_MEMORY, "out of memory splitting a volume term");
  DG_CHECK(!sp.bad, DG_ERR_ARG,
           "the volume term at %d:%d is not a lowered, checked rhs (derivatives must be "
           "partials of scalars, in sums and products with field-free factors)",
           scalar_rhs->loc.line, scalar_rhs->loc.col);
  if (!sp.pointwise) {
    sp.pointwise = dg_flux_node_num(a, 0.0, scalar_rhs->loc);
    DG_CHECK(sp.pointwise, DG_ERR_MEMORY, "out of memory");
  }
  out->pointwise = sp.pointwise;
  out->nterms = sp.nterms;
  out->terms = sp.terms;
  return DG_OK;
}
