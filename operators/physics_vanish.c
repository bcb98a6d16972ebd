/* A coefficient set to zero in every tree of a physics (physics_vanish.h). */
#include "operators/physics_vanish.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "operators/gen_context.h"

/* The trees are DAGs (avg(e) shares e's subtrees): every node is simplified
 * once, its result kept in an open-addressing table keyed by the node. */
typedef struct {
  const dg_flux_node *from, *to;
  int zero;
} memo_entry;

typedef struct {
  dg_flux_arena *a;
  int coef;
  const unsigned char *let_zero;
  memo_entry *tab;
  size_t cap, used;
} vctx;

static size_t slot_of(const vctx *c, const dg_flux_node *n) {
  uintptr_t h = (uintptr_t)n;
  h ^= h >> 17;
  h *= (uintptr_t)0x9E3779B97F4A7C15ull;
  return (size_t)(h >> 7) & (c->cap - 1);
}

static memo_entry *memo_find(vctx *c, const dg_flux_node *n) {
  if (!c->tab)
    return NULL;
  for (size_t i = slot_of(c, n);; i = (i + 1) & (c->cap - 1)) {
    if (c->tab[i].from == n)
      return &c->tab[i];
    if (!c->tab[i].from)
      return NULL;
  }
}

static dg_error memo_put(vctx *c, const dg_flux_node *n, const dg_flux_node *to, int zero) {
  if (2 * (c->used + 1) > c->cap) { /* grow to keep the table at most half full */
    size_t cap = c->cap ? 2 * c->cap : 256;
    memo_entry *old = c->tab;
    size_t ocap = c->cap;
    c->tab = calloc(cap, sizeof *c->tab);
    DG_CHECK(c->tab, DG_ERR_MEMORY, "out of memory");
    c->cap = cap;
    c->used = 0;
    for (size_t i = 0; i < ocap; i++)
      if (old[i].from)
        DG_CALL(memo_put(c, old[i].from, old[i].to, old[i].zero));
    free(old);
  }
  size_t i = slot_of(c, n);
  while (c->tab[i].from)
    i = (i + 1) & (c->cap - 1);
  c->tab[i] = (memo_entry){n, to, zero};
  c->used++;
  return DG_OK;
}

static void memo_clear(vctx *c) {
  free(c->tab);
  c->tab = NULL;
  c->cap = c->used = 0;
}

/* n with the simplified arguments (n itself when none changed). */
static const dg_flux_node *rebuilt(vctx *c, const dg_flux_node *n, dg_flux_node **args) {
  int changed = 0;
  for (int i = 0; i < n->nargs; i++)
    changed |= args[i] != n->args[i];
  if (!changed)
    return n;
  dg_flux_node *m = dg_flux_node_copy(c->a, n);
  if (!m)
    return NULL;
  for (int i = 0; i < n->nargs; i++)
    m->args[i] = args[i];
  return m;
}

/* Whether n's value is zero once its arguments' vanishing is known: the
 * operations that map a zero argument (or factor) to zero. */
static int vanishes(const dg_flux_node *n, const int *z) {
  switch (n->op) {
  case DG_FLUX_NEG: case DG_FLUX_INDEX: case DG_FLUX_DERIV:
    return z[0];
  case DG_FLUX_ADD: case DG_FLUX_SUB:
    return z[0] && z[1];
  case DG_FLUX_MUL:
    return z[0] || z[1];
  case DG_FLUX_DIV: /* 0/b; a/0 is left to the arithmetic */
    return z[0];
  case DG_FLUX_SELECT:
    return z[1] && z[2];
  case DG_FLUX_VEC:
    for (int i = 0; i < n->nargs; i++)
      if (!z[i])
        return 0;
    return n->nargs > 0;
  case DG_FLUX_CALL:
    switch ((dg_flux_fn)n->ref) {
    case DG_FLUX_FN_DOT: case DG_FLUX_FN_CROSS:
      return z[0] || z[1];
    case DG_FLUX_FN_NORM: case DG_FLUX_FN_ABS: case DG_FLUX_FN_SQRT: case DG_FLUX_FN_SIN:
    case DG_FLUX_FN_TAN: case DG_FLUX_FN_TANH:
      return z[0];
    default:
      return 0;
    }
  default:
    return 0;
  }
}

static dg_error simp(vctx *c, const dg_flux_node *n, const dg_flux_node **out, int *zero);

/* An operation over simplified arguments a[] (z[]: which vanish) that does
 * not vanish: a sum or difference drops its zero term, anything else keeps
 * its zero arguments as literal zeros. */
static const dg_flux_node *combine(vctx *c, const dg_flux_node *n, dg_flux_node **a,
                                   const int *z) {
  if ((n->op == DG_FLUX_ADD || n->op == DG_FLUX_SUB) && z[1] &&
      dg_flux_shape_equal(a[0]->shape, n->shape))
    return a[0];
  if (n->op == DG_FLUX_ADD && z[0] && dg_flux_shape_equal(a[1]->shape, n->shape))
    return a[1];
  if (n->op == DG_FLUX_SUB && z[0] && dg_flux_shape_equal(a[1]->shape, n->shape))
    return dg_flux_node_unary(c->a, DG_FLUX_NEG, n->shape, n->loc, a[1]);
  return rebuilt(c, n, a);
}

static dg_error simp_args(vctx *c, const dg_flux_node *n, const dg_flux_node **out, int *zero) {
  dg_flux_node *a[DG_FLUX_MAX_COMPONENTS];
  int z[DG_FLUX_MAX_COMPONENTS];
  DG_CHECK(n->nargs <= DG_FLUX_MAX_COMPONENTS, DG_ERR_ARG, "a node of %d arguments", n->nargs);
  for (int i = 0; i < n->nargs; i++) {
    const dg_flux_node *ai;
    DG_CALL(simp(c, n->args[i], &ai, &z[i]));
    a[i] = (dg_flux_node *)ai; /* arena nodes, never mutated (flux_ast.h) */
  }
  *zero = vanishes(n, z);
  *out = *zero ? dg_flux_node_zero(c->a, n->shape, n->loc) : combine(c, n, a, z);
  DG_CHECK(*out, DG_ERR_MEMORY, "out of memory");
  return DG_OK;
}

static dg_error simp(vctx *c, const dg_flux_node *n, const dg_flux_node **out, int *zero) {
  const memo_entry *e = memo_find(c, n);
  if (e) {
    *out = e->to;
    *zero = e->zero;
    return DG_OK;
  }
  int z = (n->op == DG_FLUX_COEF && n->ref == c->coef) ||
          (n->op == DG_FLUX_LET && c->let_zero && c->let_zero[n->ref]);
  if (z) {
    *out = dg_flux_node_zero(c->a, n->shape, n->loc);
    DG_CHECK(*out, DG_ERR_MEMORY, "out of memory");
  } else if (n->nargs == 0) {
    *out = n;
  } else {
    DG_CALL(simp_args(c, n, out, &z));
  }
  *zero = z;
  DG_CALL(memo_put(c, n, *out, z));
  return DG_OK;
}

dg_error dg_flux_ast_vanish(dg_flux_arena *a, const dg_flux_node *n, int coef,
                            const unsigned char *let_zero, const dg_flux_node **out, int *zero) {
  vctx c = {a, coef, let_zero, NULL, 0, 0};
  dg_error err = simp(&c, n, out, zero);
  memo_clear(&c);
  return err;
}

struct dg_physics_vanish_tables {
  const dg_flux_node **trees; /* rhs, flux, surface, source: nfields each; bc_ext; lets */
  unsigned char *let_zero;
};

void dg_physics_vanish_tables_destroy(dg_physics_vanish_tables **tp) {
  if (!tp || !*tp)
    return;
  free((*tp)->trees);
  free((*tp)->let_zero);
  free(*tp);
  *tp = NULL;
}

/* dst[i] = src[i] simplified (NULL entries stay NULL), one memo table. */
static dg_error vanish_all(vctx *c, const dg_flux_node *const *src, int n,
                           const dg_flux_node **dst, unsigned char *zero) {
  for (int i = 0; i < n; i++) {
    int z = 0;
    dst[i] = NULL;
    if (src && src[i])
      DG_CALL(simp(c, src[i], &dst[i], &z));
    if (zero)
      zero[i] = (unsigned char)z;
  }
  return DG_OK;
}

/* The lets' bodies: a let may read others, so repeat until the set of
 * vanishing lets is stable (it only grows; at most nlets + 1 passes). */
static dg_error vanish_lets(vctx *c, const dg_physics *ph, const dg_flux_node **lets,
                            unsigned char *let_zero) {
  unsigned char *next = calloc((size_t)ph->nlets + 1, 1);
  DG_CHECK(next, DG_ERR_MEMORY, "out of memory");
  dg_error err = DG_OK;
  for (int pass = 0; pass <= ph->nlets; pass++) {
    memo_clear(c); /* results depend on let_zero */
    c->let_zero = let_zero;
    DG_CALL_GOTO(err, done, vanish_all(c, ph->lets, ph->nlets, lets, next));
    if (memcmp(next, let_zero, (size_t)ph->nlets) == 0)
      break;
    memcpy(let_zero, next, (size_t)ph->nlets);
  }
done:
  free(next);
  return err;
}

static int reads_gradients(const dg_flux_node *const *t, int n, const dg_physics *ph) {
  for (int i = 0; i < n; i++)
    if (t && t[i] && (dg_gen_uses_op(t[i], DG_FLUX_GRADQ, ph, 0) ||
                      dg_gen_uses_op(t[i], DG_FLUX_LDGB, ph, 0)))
      return 1;
  return 0;
}

static dg_error build(vctx *c, const dg_physics *ph, dg_physics *out,
                      dg_physics_vanish_tables *t, int *first_order) {
  int nf = ph->nfields, nb = ph->nboundaries * nf;
  const dg_flux_node **rhs = t->trees, **flux = rhs + nf, **surface = flux + nf;
  const dg_flux_node **source = surface + nf, **bc = source + nf, **lets = bc + nb;
  DG_CALL(vanish_lets(c, ph, lets, t->let_zero));
  memo_clear(c);
  DG_CALL(vanish_all(c, ph->rhs, nf, rhs, NULL));
  DG_CALL(vanish_all(c, ph->flux, nf, flux, NULL));
  DG_CALL(vanish_all(c, ph->surface, nf, surface, NULL));
  DG_CALL(vanish_all(c, ph->source, nf, source, NULL));
  DG_CALL(vanish_all(c, ph->bc_ext, nb, bc, NULL));
  *out = *ph;
  out->rhs = rhs;
  out->flux = flux;
  out->surface = surface;
  out->source = ph->source ? source : NULL;
  out->bc_ext = bc;
  out->lets = lets;
  *first_order = !reads_gradients(rhs, nf, out) && !reads_gradients(flux, nf, out) &&
                 !reads_gradients(surface, nf, out) && !reads_gradients(source, nf, out) &&
                 !reads_gradients(bc, nb, out);
  if (*first_order) { /* the kernels of a file without second-order terms */
    out->ngrad = 0;
    out->grad_arg = NULL;
    out->bc_grad = NULL;
  }
  return DG_OK;
}

dg_error dg_physics_vanish(const dg_physics *ph, dg_flux_arena *a, int coef, dg_physics *out,
                           dg_physics_vanish_tables **tables, int *first_order) {
  *tables = NULL;
  *first_order = 0;
  DG_CHECK(coef >= 0 && coef < ph->ncoef, DG_ERR_ARG, "coefficient %d of %d", coef, ph->ncoef);
  dg_physics_vanish_tables *t = calloc(1, sizeof *t);
  DG_CHECK(t, DG_ERR_MEMORY, "out of memory");
  size_t ntrees = (size_t)ph->nfields * (4 + (size_t)ph->nboundaries) + (size_t)ph->nlets;
  t->trees = calloc(ntrees + 1, sizeof *t->trees);
  t->let_zero = calloc((size_t)ph->nlets + 1, 1);
  vctx c = {a, coef, NULL, NULL, 0, 0};
  dg_error err = DG_OK;
  DG_CHECK_GOTO(err, fail, t->trees && t->let_zero, DG_ERR_MEMORY, "out of memory");
  DG_CALL_GOTO(err, fail, build(&c, ph, out, t, first_order));
  memo_clear(&c);
  *tables = t;
  return DG_OK;
fail:
  memo_clear(&c);
  dg_physics_vanish_tables_destroy(&t);
  return err;
}
