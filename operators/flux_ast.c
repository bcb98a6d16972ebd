#include "operators/flux_ast.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- arena ---------------------------------------------------------------- */

/* Bump allocator over a chain of blocks: a program's nodes are freed all at
 * once, and building a node never needs a matching free. */
typedef struct block {
  struct block *next;
  size_t used, size;
  _Alignas(16) unsigned char data[];
} block;

struct dg_flux_arena {
  block *head;
};

enum { BLOCK_SIZE = 1 << 14 };

dg_error dg_flux_arena_create(dg_flux_arena **out) {
  DG_CHECK(out, DG_ERR_ARG, "out is NULL");
  *out = calloc(1, sizeof **out);
  DG_CHECK(*out, DG_ERR_MEMORY, "cannot allocate a flux arena");
  return DG_OK;
}

void dg_flux_arena_destroy(dg_flux_arena **arena) {
  if (!arena || !*arena)
    return;
  block *b = (*arena)->head;
  while (b) {
    block *next = b->next;
    free(b);
    b = next;
  }
  free(*arena);
  *arena = NULL;
}

void *dg_flux_arena_alloc(dg_flux_arena *arena, size_t size) {
  size = (size + 15) & ~(size_t)15;
  block *b = arena->head;
  if (!b || b->size - b->used < size) {
    size_t bs = size > BLOCK_SIZE ? size : BLOCK_SIZE;
    b = malloc(sizeof *b + bs);
    if (!b)
      return NULL;
    b->size = bs;
    b->used = 0;
    b->next = arena->head;
    arena->head = b;
  }
  void *p = b->data + b->used;
  b->used += size;
  memset(p, 0, size);
  return p;
}

char *dg_flux_arena_strndup(dg_flux_arena *arena, const char *text, size_t len) {
  char *s = dg_flux_arena_alloc(arena, len + 1);
  if (s) {
    memcpy(s, text, len);
    s[len] = '\0';
  }
  return s;
}

/* --- shapes ----------------------------------------------------------------- */

dg_flux_shape dg_flux_shape_scalar(void) { return (dg_flux_shape){0, 0, 0}; }
dg_flux_shape dg_flux_shape_vector(int n) { return (dg_flux_shape){1, n, 0}; }
dg_flux_shape dg_flux_shape_matrix(int rows, int cols) {
  return (dg_flux_shape){2, rows, cols};
}

int dg_flux_shape_equal(dg_flux_shape a, dg_flux_shape b) {
  return a.rank == b.rank && a.rows == b.rows && a.cols == b.cols;
}

int dg_flux_shape_size(dg_flux_shape s) {
  return s.rank == 0 ? 1 : s.rank == 1 ? s.rows : s.rows * s.cols;
}

const char *dg_flux_fn_name(int fn) {
  static const char *const names[DG_FLUX_FN_COUNT] = {
      [DG_FLUX_FN_SIN] = "sin",     [DG_FLUX_FN_COS] = "cos",     [DG_FLUX_FN_TAN] = "tan",
      [DG_FLUX_FN_EXP] = "exp",     [DG_FLUX_FN_LOG] = "log",     [DG_FLUX_FN_SQRT] = "sqrt",
      [DG_FLUX_FN_ABS] = "abs",     [DG_FLUX_FN_TANH] = "tanh",   [DG_FLUX_FN_FLOOR] = "floor",
      [DG_FLUX_FN_MIN] = "min",     [DG_FLUX_FN_MAX] = "max",     [DG_FLUX_FN_ATAN2] = "atan2",
      [DG_FLUX_FN_DOT] = "dot",     [DG_FLUX_FN_CROSS] = "cross", [DG_FLUX_FN_NORM] = "norm"};
  return fn >= 0 && fn < DG_FLUX_FN_COUNT ? names[fn] : "?";
}

const char *dg_flux_shape_name(dg_flux_shape s, char *buf, size_t size) {
  if (s.rank == 0)
    snprintf(buf, size, "scalar");
  else if (s.rank == 1)
    snprintf(buf, size, "%d-vector", s.rows);
  else
    snprintf(buf, size, "%dx%d matrix", s.rows, s.cols);
  return buf;
}

/* --- nodes ----------------------------------------------------------------- */

dg_flux_node *dg_flux_node_new(dg_flux_arena *a, dg_flux_op op, dg_flux_shape shape,
                               dg_flux_loc loc, int nargs) {
  dg_flux_node *n = dg_flux_arena_alloc(a, sizeof *n);
  if (!n)
    return NULL;
  n->op = op;
  n->shape = shape;
  n->loc = loc;
  n->comp = -1;
  n->nargs = nargs;
  if (nargs > 0) {
    n->args = dg_flux_arena_alloc(a, (size_t)nargs * sizeof *n->args);
    if (!n->args)
      return NULL;
  }
  return n;
}

dg_flux_node *dg_flux_node_num(dg_flux_arena *a, double value, dg_flux_loc loc) {
  dg_flux_node *n = dg_flux_node_new(a, DG_FLUX_NUM, dg_flux_shape_scalar(), loc, 0);
  if (n)
    n->value = value;
  return n;
}

dg_flux_node *dg_flux_node_zero(dg_flux_arena *a, dg_flux_shape shape, dg_flux_loc loc) {
  if (shape.rank == 0)
    return dg_flux_node_num(a, 0.0, loc);
  dg_flux_node *n = dg_flux_node_new(a, DG_FLUX_VEC, shape, loc, shape.rows);
  if (!n)
    return NULL;
  dg_flux_shape row = shape.rank == 2 ? dg_flux_shape_vector(shape.cols)
                                      : dg_flux_shape_scalar();
  for (int i = 0; i < shape.rows; i++)
    if (!(n->args[i] = dg_flux_node_zero(a, row, loc)))
      return NULL;
  return n;
}

dg_flux_node *dg_flux_node_unary(dg_flux_arena *a, dg_flux_op op, dg_flux_shape shape,
                                 dg_flux_loc loc, dg_flux_node *x) {
  dg_flux_node *n = dg_flux_node_new(a, op, shape, loc, 1);
  if (n)
    n->args[0] = x;
  return n;
}

dg_flux_node *dg_flux_node_binary(dg_flux_arena *a, dg_flux_op op, dg_flux_shape shape,
                                  dg_flux_loc loc, dg_flux_node *x, dg_flux_node *y) {
  dg_flux_node *n = dg_flux_node_new(a, op, shape, loc, 2);
  if (n) {
    n->args[0] = x;
    n->args[1] = y;
  }
  return n;
}

dg_flux_node *dg_flux_node_call2(dg_flux_arena *a, dg_flux_fn fn, dg_flux_shape shape,
                                 dg_flux_loc loc, dg_flux_node *x, dg_flux_node *y) {
  dg_flux_node *n = dg_flux_node_binary(a, DG_FLUX_CALL, shape, loc, x, y);
  if (n)
    n->ref = (int)fn;
  return n;
}

/* 3D: the usual cross product.  2D embeds the plane in 3D with vectors
 * (a0, a1, 0) and scalars as s*e_z, and keeps the component that is not
 * identically zero: cross(a, b) = a0*b1 - a1*b0 (the z component),
 * cross(a, s) = [a1*s, -a0*s], cross(s, a) = [-s*a1, s*a0].  So the 2D
 * curl of a scalar f is [df/dy, -df/dx] and the curl of a 2-vector g is
 * dg1/dx - dg0/dy, and in every dimension curl's normal form is cross(n, g). */
int dg_flux_cross_shape(int dim, dg_flux_shape a, dg_flux_shape b, dg_flux_shape *out) {
  if (dim == 3 && a.rank == 1 && a.rows == 3 && b.rank == 1 && b.rows == 3) {
    *out = dg_flux_shape_vector(3);
    return 0;
  }
  if (dim == 2) {
    int av = a.rank == 1 && a.rows == 2, bv = b.rank == 1 && b.rows == 2;
    if (av && bv) {
      *out = dg_flux_shape_scalar();
      return 0;
    }
    if ((av && b.rank == 0) || (a.rank == 0 && bv)) {
      *out = dg_flux_shape_vector(2);
      return 0;
    }
  }
  return -1;
}

/* --- queries ----------------------------------------------------------------- */

int dg_flux_node_is_zero(const dg_flux_node *n) {
  if (n->op == DG_FLUX_NUM)
    return n->value == 0.0;
  if (n->op != DG_FLUX_VEC)
    return 0;
  for (int i = 0; i < n->nargs; i++)
    if (!dg_flux_node_is_zero(n->args[i]))
      return 0;
  return 1;
}

int dg_flux_node_has_deriv(const dg_flux_node *n) {
  if (n->op == DG_FLUX_DERIV)
    return 1;
  for (int i = 0; i < n->nargs; i++)
    if (dg_flux_node_has_deriv(n->args[i]))
      return 1;
  return 0;
}

int dg_flux_node_reads_side(const dg_flux_node *n, dg_flux_side side,
                            const unsigned char *lets_bare) {
  if (n->op == DG_FLUX_FIELD || n->op == DG_FLUX_COEF || n->op == DG_FLUX_GRADQ)
    return n->side == side;
  if (n->op == DG_FLUX_LET)
    return lets_bare && lets_bare[n->ref] && n->side == side;
  for (int i = 0; i < n->nargs; i++)
    if (dg_flux_node_reads_side(n->args[i], side, lets_bare))
      return 1;
  return 0;
}

int dg_flux_node_equal(const dg_flux_node *a, const dg_flux_node *b) {
  if (a == b)
    return 1;
  if (a->op != b->op || !dg_flux_shape_equal(a->shape, b->shape) || a->ref != b->ref ||
      a->comp != b->comp || a->side != b->side || a->nargs != b->nargs)
    return 0;
  if (a->op == DG_FLUX_NUM && a->value != b->value)
    return 0;
  for (int i = 0; i < a->nargs; i++)
    if (!dg_flux_node_equal(a->args[i], b->args[i]))
      return 0;
  return 1;
}

/* --- transforms ----------------------------------------------------------------- */

dg_flux_node *dg_flux_node_copy(dg_flux_arena *a, const dg_flux_node *n) {
  dg_flux_node *c = dg_flux_node_new(a, n->op, n->shape, n->loc, n->nargs);
  if (!c)
    return NULL;
  c->ref = n->ref;
  c->comp = n->comp;
  c->side = n->side;
  c->value = n->value;
  return c;
}

static dg_flux_node *trace(dg_flux_arena *a, const dg_flux_node *n, dg_flux_side side,
                           const unsigned char *lets_bare) {
  dg_flux_node *c = dg_flux_node_copy(a, n);
  if (!c)
    return NULL;
  if (n->side == DG_FLUX_SIDE_NONE &&
      (n->op == DG_FLUX_FIELD || n->op == DG_FLUX_COEF || n->op == DG_FLUX_GRADQ ||
       (n->op == DG_FLUX_LET && (!lets_bare || lets_bare[n->ref]))))
    c->side = side;
  for (int i = 0; i < n->nargs; i++)
    if (!(c->args[i] = trace(a, n->args[i], side, lets_bare)))
      return NULL;
  return c;
}

dg_error dg_flux_ast_trace(dg_flux_arena *a, const dg_flux_node *n, dg_flux_side side,
                           const unsigned char *lets_bare, dg_flux_node **out) {
  DG_CHECK(a && n && out, DG_ERR_ARG, "NULL argument");
  *out = trace(a, n, side, lets_bare);
  DG_CHECK(*out, DG_ERR_MEMORY, "out of memory copying a flux expression");
  return DG_OK;
}

static dg_flux_node *normal(dg_flux_arena *a, int dim, int comp, dg_flux_loc loc) {
  dg_flux_node *n = dg_flux_node_new(
      a, DG_FLUX_NORMAL, comp < 0 ? dg_flux_shape_vector(dim) : dg_flux_shape_scalar(),
      loc, 0);
  if (n)
    n->comp = comp;
  return n;
}

/* Row i of a matrix (or component i of a vector) g. */
static dg_flux_node *row(dg_flux_arena *a, dg_flux_node *g, int i) {
  if (g->op == DG_FLUX_VEC)
    return g->args[i];
  dg_flux_node *r = dg_flux_node_unary(
      a, DG_FLUX_INDEX,
      g->shape.rank == 2 ? dg_flux_shape_vector(g->shape.cols) : dg_flux_shape_scalar(), g->loc,
      g);
  if (r)
    r->ref = i;
  return r;
}

/* Normal form of the derivative d applied to g (already traced to INT). */
static dg_flux_node *normal_form(dg_flux_arena *a, const dg_flux_node *d, dg_flux_node *g,
                                 int dim) {
  dg_flux_loc loc = d->loc;
  switch ((dg_flux_deriv)d->ref) {
  case DG_FLUX_D_GRAD:
    return dg_flux_node_binary(a, DG_FLUX_MUL, d->shape, loc, normal(a, dim, -1, loc), g);
  case DG_FLUX_D_DIV:
    if (g->shape.rank == 1)
      return dg_flux_node_call2(a, DG_FLUX_FN_DOT, d->shape, loc, normal(a, dim, -1, loc), g);
    else {
      /* row-wise: div([F0, F1, ...]) -> [dot(n, F0), dot(n, F1), ...] */
      dg_flux_node *v = dg_flux_node_new(a, DG_FLUX_VEC, d->shape, loc, g->shape.rows);
      if (!v)
        return NULL;
      for (int i = 0; i < g->shape.rows; i++) {
        dg_flux_node *gi = row(a, g, i);
        if (!gi)
          return NULL;
        v->args[i] = dg_flux_node_call2(a, DG_FLUX_FN_DOT, dg_flux_shape_scalar(), loc,
                                        normal(a, dim, -1, loc), gi);
        if (!v->args[i])
          return NULL;
      }
      return v;
    }
  case DG_FLUX_D_CURL:
    return dg_flux_node_call2(a, DG_FLUX_FN_CROSS, d->shape, loc, normal(a, dim, -1, loc), g);
  case DG_FLUX_D_X:
  case DG_FLUX_D_Y:
  case DG_FLUX_D_Z:
    return dg_flux_node_binary(a, DG_FLUX_MUL, d->shape, loc,
                               normal(a, dim, d->ref - DG_FLUX_D_X, loc), g);
  }
  return NULL;
}

/* Surface form of n; `dim` is needed for the shape of the normal. */
static dg_flux_node *surface(dg_flux_arena *a, const dg_flux_node *n, int dim,
                             const unsigned char *lb) {
  if (!dg_flux_node_has_deriv(n))
    return dg_flux_node_zero(a, n->shape, n->loc); /* a pointwise term */
  dg_flux_node *c, *x, *y;
  switch (n->op) {
  case DG_FLUX_DERIV: {
    dg_flux_node *g = trace(a, n->args[0], DG_FLUX_SIDE_INT, lb);
    return g ? normal_form(a, n, g, dim) : NULL;
  }
  case DG_FLUX_ADD:
  case DG_FLUX_SUB:
    x = surface(a, n->args[0], dim, lb);
    y = surface(a, n->args[1], dim, lb);
    if (!x || !y)
      return NULL;
    if (dg_flux_node_is_zero(y))
      return x;
    if (dg_flux_node_is_zero(x))
      return n->op == DG_FLUX_ADD ? y : dg_flux_node_unary(a, DG_FLUX_NEG, n->shape, n->loc, y);
    return dg_flux_node_binary(a, n->op, n->shape, n->loc, x, y);
  case DG_FLUX_NEG:
  case DG_FLUX_INDEX:
    if (!(c = dg_flux_node_copy(a, n)) || !(c->args[0] = surface(a, n->args[0], dim, lb)))
      return NULL;
    return c;
  case DG_FLUX_MUL:
  case DG_FLUX_DIV:
  case DG_FLUX_CALL: /* dot/cross with one field-free factor */
    if (!(c = dg_flux_node_copy(a, n)))
      return NULL;
    for (int i = 0; i < n->nargs; i++) {
      /* a factor that reads fields (the non-conservative h*dx(b), b a
       * function of x) or coefficients (curl(H)/eps) is taken on the
       * interior trace, as the derivative */
      c->args[i] = dg_flux_node_has_deriv(n->args[i]) ? surface(a, n->args[i], dim, lb)
                   : dg_flux_node_reads_side(n->args[i], DG_FLUX_SIDE_NONE, lb)
                       ? trace(a, n->args[i], DG_FLUX_SIDE_INT, lb)
                       : n->args[i];
      if (!c->args[i])
        return NULL;
    }
    return c;
  case DG_FLUX_VEC:
    if (!(c = dg_flux_node_copy(a, n)))
      return NULL;
    for (int i = 0; i < n->nargs; i++)
      if (!(c->args[i] = surface(a, n->args[i], dim, lb)))
        return NULL;
    return c;
  default:
    return NULL; /* excluded by the checker */
  }
}

dg_error dg_flux_ast_surface(dg_flux_arena *a, const dg_flux_node *rhs, int dim,
                             const unsigned char *lets_bare, dg_flux_node **out) {
  DG_CHECK(a && rhs && out, DG_ERR_ARG, "NULL argument");
  DG_CHECK(dim >= 1 && dim <= 3, DG_ERR_ARG, "dimension %d is not 1, 2 or 3", dim);
  *out = surface(a, rhs, dim, lets_bare);
  DG_CHECK(*out, DG_ERR_MEMORY, "out of memory building a surface form");
  return DG_OK;
}
