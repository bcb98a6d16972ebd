#include "operators/emit_expr.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fail(dg_emit_ctx *ctx, dg_strbuf *b, const dg_flux_node *n, const char *why) {
  if (!ctx->failed) {
    ctx->failed = 1;
    snprintf(ctx->failure, sizeof ctx->failure, "cannot emit %s (node op %d at %d:%d)", why,
             (int)n->op, n->loc.line, n->loc.col);
  }
  dg_strbuf_append(b, "0");
}

const char *dg_emit_math(const dg_emit_ctx *ctx, const char *name) {
  if (ctx->real == DG_EMIT_DOUBLE)
    return name;
  /* The float versions of <math.h> (and the CUDA math API) append 'f'. */
  static const char *const pairs[][2] = {
      {"sin", "sinf"},   {"cos", "cosf"},     {"tan", "tanf"},     {"exp", "expf"},
      {"log", "logf"},   {"sqrt", "sqrtf"},   {"fabs", "fabsf"},   {"tanh", "tanhf"},
      {"floor", "floorf"}, {"fmin", "fminf"}, {"fmax", "fmaxf"},   {"atan2", "atan2f"},
      {"pow", "powf"}};
  for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
    if (strcmp(pairs[i][0], name) == 0)
      return pairs[i][1];
  return name;
}

void dg_emit_number(const dg_emit_ctx *ctx, dg_strbuf *b, double v) {
  char s[64];
  if (!isfinite(v)) {
    /* The checker rejects non-finite literals; keep the output valid anyway. */
    dg_strbuf_append(b, "(0.0/0.0)");
    return;
  }
  snprintf(s, sizeof s, ctx->real == DG_EMIT_DOUBLE ? "%.17g" : "%.9g", v);
  if (!strpbrk(s, ".eE"))
    strcat(s, ".0");
  if (ctx->real == DG_EMIT_FLOAT)
    strcat(s, "f");
  if (v < 0)
    dg_strbuf_appendf(b, "(%s)", s);
  else
    dg_strbuf_append(b, s);
}

static void emit_binary(dg_emit_ctx *ctx, dg_strbuf *b, const dg_flux_node *x, int cx,
                        const char *op, const dg_flux_node *y, int cy) {
  dg_strbuf_append(b, "(");
  dg_emit_expr(ctx, b, x, cx);
  dg_strbuf_appendf(b, " %s ", op);
  dg_emit_expr(ctx, b, y, cy);
  dg_strbuf_append(b, ")");
}

static void emit_call1(dg_emit_ctx *ctx, dg_strbuf *b, const char *fn, const dg_flux_node *x,
                       int cx) {
  dg_strbuf_appendf(b, "%s(", dg_emit_math(ctx, fn));
  dg_emit_expr(ctx, b, x, cx);
  dg_strbuf_append(b, ")");
}

static void emit_call2(dg_emit_ctx *ctx, dg_strbuf *b, const char *fn, const dg_flux_node *x,
                       int cx, const dg_flux_node *y, int cy) {
  dg_strbuf_appendf(b, "%s(", dg_emit_math(ctx, fn));
  dg_emit_expr(ctx, b, x, cx);
  dg_strbuf_append(b, ", ");
  dg_emit_expr(ctx, b, y, cy);
  dg_strbuf_append(b, ")");
}

/* The component of a broadcast operand: scalars broadcast over vectors. */
static int bcomp(const dg_flux_node *n, int comp) {
  return dg_flux_shape_size(n->shape) == 1 ? 0 : comp;
}

static void emit_cross(dg_emit_ctx *ctx, dg_strbuf *b, const dg_flux_node *n, int comp) {
  const dg_flux_node *x = n->args[0], *y = n->args[1];
  int sx = dg_flux_shape_size(x->shape), sy = dg_flux_shape_size(y->shape);
  if (sx == 3 && sy == 3) {
    int i = (comp + 1) % 3, j = (comp + 2) % 3;
    dg_strbuf_append(b, "(");
    emit_binary(ctx, b, x, i, "*", y, j);
    dg_strbuf_append(b, " - ");
    emit_binary(ctx, b, x, j, "*", y, i);
    dg_strbuf_append(b, ")");
  } else if (sx == 2 && sy == 2) {
    /* the z component of the 3D cross product of in-plane vectors */
    dg_strbuf_append(b, "(");
    emit_binary(ctx, b, x, 0, "*", y, 1);
    dg_strbuf_append(b, " - ");
    emit_binary(ctx, b, x, 1, "*", y, 0);
    dg_strbuf_append(b, ")");
  } else if (sx == 2 && sy == 1) {
    /* a x (s e_z) = (a1 s, -a0 s) */
    if (comp == 0)
      emit_binary(ctx, b, x, 1, "*", y, 0);
    else {
      dg_strbuf_append(b, "(-");
      emit_binary(ctx, b, x, 0, "*", y, 0);
      dg_strbuf_append(b, ")");
    }
  } else if (sx == 1 && sy == 2) {
    /* (s e_z) x b = (-s b1, s b0) */
    if (comp == 0) {
      dg_strbuf_append(b, "(-");
      emit_binary(ctx, b, x, 0, "*", y, 1);
      dg_strbuf_append(b, ")");
    } else
      emit_binary(ctx, b, x, 0, "*", y, 0);
  } else {
    fail(ctx, b, n, "cross product of these shapes");
  }
}

static void emit_call(dg_emit_ctx *ctx, dg_strbuf *b, const dg_flux_node *n, int comp) {
  static const char *const unary[] = {
      [DG_FLUX_FN_SIN] = "sin",   [DG_FLUX_FN_COS] = "cos",   [DG_FLUX_FN_TAN] = "tan",
      [DG_FLUX_FN_EXP] = "exp",   [DG_FLUX_FN_LOG] = "log",   [DG_FLUX_FN_SQRT] = "sqrt",
      [DG_FLUX_FN_ABS] = "fabs",  [DG_FLUX_FN_TANH] = "tanh", [DG_FLUX_FN_FLOOR] = "floor"};
  switch ((dg_flux_fn)n->ref) {
  case DG_FLUX_FN_SIN: case DG_FLUX_FN_COS: case DG_FLUX_FN_TAN: case DG_FLUX_FN_EXP:
  case DG_FLUX_FN_LOG: case DG_FLUX_FN_SQRT: case DG_FLUX_FN_ABS: case DG_FLUX_FN_TANH:
  case DG_FLUX_FN_FLOOR:
    emit_call1(ctx, b, unary[n->ref], n->args[0], bcomp(n->args[0], comp));
    return;
  case DG_FLUX_FN_MIN:
  case DG_FLUX_FN_MAX:
  case DG_FLUX_FN_ATAN2:
    emit_call2(ctx, b,
               n->ref == DG_FLUX_FN_MIN ? "fmin" : n->ref == DG_FLUX_FN_MAX ? "fmax" : "atan2",
               n->args[0], bcomp(n->args[0], comp), n->args[1], bcomp(n->args[1], comp));
    return;
  case DG_FLUX_FN_DOT:
  case DG_FLUX_FN_NORM: {
    const dg_flux_node *x = n->args[0];
    const dg_flux_node *y = n->ref == DG_FLUX_FN_DOT ? n->args[1] : n->args[0];
    int len = dg_flux_shape_size(x->shape);
    if (n->ref == DG_FLUX_FN_NORM)
      dg_strbuf_appendf(b, "%s", dg_emit_math(ctx, "sqrt"));
    dg_strbuf_append(b, "(");
    for (int i = 0; i < len; i++) {
      if (i)
        dg_strbuf_append(b, " + ");
      emit_binary(ctx, b, x, i, "*", y, i);
    }
    dg_strbuf_append(b, ")");
    return;
  }
  case DG_FLUX_FN_CROSS:
    emit_cross(ctx, b, n, comp);
    return;
  case DG_FLUX_FN_COUNT:
    break;
  }
  fail(ctx, b, n, "unknown function");
}

/* x^p: small integer powers become products (exact, and much cheaper than
 * pow); everything else calls pow. */
static void emit_pow(dg_emit_ctx *ctx, dg_strbuf *b, const dg_flux_node *n) {
  const dg_flux_node *x = n->args[0], *p = n->args[1];
  if (p->op == DG_FLUX_NUM && p->value == floor(p->value) && fabs(p->value) <= 4 &&
      p->value != 0) {
    int k = (int)fabs(p->value);
    dg_strbuf_append(b, p->value < 0 ? "(" : "");
    if (p->value < 0) {
      dg_emit_number(ctx, b, 1.0);
      dg_strbuf_append(b, " / ");
    }
    dg_strbuf_append(b, "(");
    for (int i = 0; i < k; i++) {
      if (i)
        dg_strbuf_append(b, " * ");
      dg_emit_expr(ctx, b, x, 0);
    }
    dg_strbuf_append(b, ")");
    dg_strbuf_append(b, p->value < 0 ? ")" : "");
    return;
  }
  emit_call2(ctx, b, "pow", x, 0, p, 0);
}

/* One expression written with temporaries: each (let, component, side)
 * it uses, once, as "const real tN = ...;" in decls (a let's own
 * temporaries before it), or, while probing, the inline text's length. */
typedef struct temp_key {
  int let, comp, side;
} temp_key;
struct dg_emit_temps {
  int probing;       /* writing inline, to measure; stop past the bound */
  const dg_strbuf *probe; /* the buffer measured */
  size_t probe_start;
  int over;          /* the inline text passed DG_EMIT_INLINE_MAX */
  temp_key *keys;
  int n, cap;
  dg_strbuf decls;
};

static void emit_node(dg_emit_ctx *ctx, dg_strbuf *b, const dg_flux_node *n, int comp);

/* A let body that is a leaf or a let of one: written in place even with
 * temporaries (a temporary would save nothing). */
static int is_small(const dg_flux_node *n) {
  return n->nargs == 0 && n->op != DG_FLUX_LET;
}

/* A let written as a temporary: its name, declaring it first if new. */
static void emit_temp(dg_emit_ctx *ctx, dg_strbuf *b, const dg_flux_node *body, temp_key key) {
  struct dg_emit_temps *t = ctx->temps;
  for (int i = 0; i < t->n; i++)
    if (t->keys[i].let == key.let && t->keys[i].comp == key.comp && t->keys[i].side == key.side) {
      dg_strbuf_appendf(b, "t%d", i);
      return;
    }
  dg_strbuf def;
  dg_strbuf_init(&def);
  emit_node(ctx, &def, body, key.comp); /* its own temporaries go first */
  if (t->n == t->cap) {
    int cap = t->cap ? 2 * t->cap : 16;
    temp_key *k = realloc(t->keys, (size_t)cap * sizeof *k);
    if (!k) {
      dg_strbuf_free(&def);
      fail(ctx, b, body, "a temporary (out of memory)");
      return;
    }
    t->keys = k;
    t->cap = cap;
  }
  t->keys[t->n] = key;
  dg_strbuf_appendf(&t->decls, "const real t%d = %s;\n", t->n, def.data ? def.data : "0");
  dg_strbuf_appendf(b, "t%d", t->n++);
  dg_strbuf_free(&def);
}

/* Why a probe: the text is the same as ever unless it is too long, so the
 * kernels of every file below the bound stay byte-identical.  The
 * temporaries are a statement expression in C (GCC and Clang, also under
 * -std=c11) and an immediately called lambda in CUDA C++ (NVRTC has no
 * statement expressions); the text picks by __cplusplus. */
void dg_emit_expr(dg_emit_ctx *ctx, dg_strbuf *b, const dg_flux_node *n, int comp) {
  if (ctx->depth > 0) {
    emit_node(ctx, b, n, comp);
    return;
  }
  struct dg_emit_temps t = {.probing = 1, .probe = b, .probe_start = b->len};
  dg_strbuf_init(&t.decls);
  ctx->temps = &t;
  ctx->depth = 1;
  int failed = ctx->failed;
  emit_node(ctx, b, n, comp);
  if (t.over) {
    b->len = t.probe_start; /* drop the probe, write with temporaries */
    if (b->data)
      b->data[b->len] = '\0';
    ctx->failed = failed;
    t.probing = 0;
    dg_strbuf body;
    dg_strbuf_init(&body);
    emit_node(ctx, &body, n, comp);
    dg_strbuf_appendf(b, "(\n#ifdef __cplusplus\n[&]() -> real {\n#else\n({\n#endif\n%s"
                         "#ifdef __cplusplus\nreturn %s; }()\n#else\n%s; })\n#endif\n)",
                      t.decls.data ? t.decls.data : "", body.data ? body.data : "0",
                      body.data ? body.data : "0");
    dg_strbuf_free(&body);
  }
  free(t.keys);
  dg_strbuf_free(&t.decls);
  ctx->temps = NULL;
  ctx->depth = 0;
}

/* Leaves (number, param, field, x, coefficient, normal, t): 1 when n is
 * one and was written. */
static int emit_leaf(dg_emit_ctx *ctx, dg_strbuf *b, const dg_flux_node *n, int comp) {
  switch (n->op) {
  case DG_FLUX_NUM:
    dg_emit_number(ctx, b, n->value);
    return 1;
  case DG_FLUX_PARAM:
    if (n->ref < 0 || n->ref >= ctx->nparams)
      fail(ctx, b, n, "an unknown parameter");
    else
      dg_emit_number(ctx, b, ctx->params[n->ref]);
    return 1;
  case DG_FLUX_FIELD: {
    if (n->ref < 0 || n->ref >= ctx->nfields) {
      fail(ctx, b, n, "an unknown field");
      return 1;
    }
    dg_flux_side side = n->side != DG_FLUX_SIDE_NONE ? n->side : ctx->let_side;
    int c = n->comp >= 0 ? n->comp : comp;
    ctx->field(ctx, b, ctx->field_offset[n->ref] + c, side);
    return 1;
  }
  case DG_FLUX_X:
    ctx->position(ctx, b, n->comp >= 0 ? n->comp : comp);
    return 1;
  case DG_FLUX_COEF:
    if (!ctx->coef)
      fail(ctx, b, n, "a coefficient where none can be read");
    else
      ctx->coef(ctx, b, n->ref, n->side != DG_FLUX_SIDE_NONE ? n->side : ctx->let_side);
    return 1;
  case DG_FLUX_NORMAL:
    if (!ctx->normal)
      fail(ctx, b, n, "the normal outside a face");
    else
      ctx->normal(ctx, b, n->comp >= 0 ? n->comp : comp);
    return 1;
  case DG_FLUX_T:
    ctx->time(ctx, b);
    return 1;
  case DG_FLUX_GRADQ:
    if (!ctx->gradq)
      fail(ctx, b, n, "a gradient where none can be read");
    else
      ctx->gradq(ctx, b, n->ref, n->comp >= 0 ? n->comp : comp,
                 n->side != DG_FLUX_SIDE_NONE ? n->side : ctx->let_side);
    return 1;
  case DG_FLUX_LDGB:
    if (!ctx->ldgb)
      fail(ctx, b, n, "the LDG switch outside a face");
    else
      ctx->ldgb(ctx, b);
    return 1;
  default:
    return 0;
  }
}

/* A let node: its body in place, or as a temporary (see emit_temp), with
 * its side-NONE fields read from the node's side. */
static void emit_let(dg_emit_ctx *ctx, dg_strbuf *b, const dg_flux_node *n, int comp) {
  struct dg_emit_temps *tp = ctx->temps;
  if (n->ref < 0 || n->ref >= ctx->nlets) {
    fail(ctx, b, n, "an unknown let");
    return;
  }
  dg_flux_side saved = ctx->let_side;
  if (n->side != DG_FLUX_SIDE_NONE)
    ctx->let_side = n->side;
  int c = n->comp >= 0 ? n->comp : comp;
  if (tp && tp->probing && b == tp->probe && b->len - tp->probe_start > DG_EMIT_INLINE_MAX)
    tp->over = 1;
  else if (tp && !tp->probing && !is_small(ctx->lets[n->ref]))
    emit_temp(ctx, b, ctx->lets[n->ref], (temp_key){n->ref, c, (int)ctx->let_side});
  else
    emit_node(ctx, b, ctx->lets[n->ref], c);
  ctx->let_side = saved;
}

/* " ? 1 : 0)" closing a truth value. */
static void emit_truth_tail(dg_emit_ctx *ctx, dg_strbuf *b) {
  dg_strbuf_append(b, " ? ");
  dg_emit_number(ctx, b, 1.0);
  dg_strbuf_append(b, " : ");
  dg_emit_number(ctx, b, 0.0);
  dg_strbuf_append(b, ")");
}

/* ! and the comparisons, && and ||: 1 or 0. */
static void emit_logic(dg_emit_ctx *ctx, dg_strbuf *b, const dg_flux_node *n) {
  dg_strbuf_append(b, "(");
  if (n->op == DG_FLUX_NOT) {
    dg_emit_expr(ctx, b, n->args[0], 0);
    dg_strbuf_append(b, " == 0");
    emit_truth_tail(ctx, b);
    return;
  }
  static const char *ops[] = {"<", "<=", ">", ">=", "==", "!=", "&&", "||"};
  const char *op = ops[n->op - DG_FLUX_LT];
  if (n->op == DG_FLUX_AND || n->op == DG_FLUX_OR) {
    dg_strbuf_append(b, "(");
    dg_emit_expr(ctx, b, n->args[0], 0);
    dg_strbuf_appendf(b, " != 0) %s (", op);
    dg_emit_expr(ctx, b, n->args[1], 0);
    dg_strbuf_append(b, " != 0)");
  } else {
    emit_binary(ctx, b, n->args[0], 0, op, n->args[1], 0);
  }
  emit_truth_tail(ctx, b);
}

/* Component comp of a vector literal or of an indexed value. */
static void emit_component(dg_emit_ctx *ctx, dg_strbuf *b, const dg_flux_node *n, int comp) {
  if (n->op == DG_FLUX_INDEX) {
    const dg_flux_node *x = n->args[0];
    int per = x->shape.rank == 2 ? x->shape.cols : 1;
    dg_emit_expr(ctx, b, x, n->ref * per + comp);
    return;
  }
  if (n->nargs == 0) {
    fail(ctx, b, n, "an empty vector");
    return;
  }
  int per = dg_flux_shape_size(n->args[0]->shape);
  int row = comp / per, col = comp % per;
  if (row >= n->nargs) {
    fail(ctx, b, n, "a vector component");
    return;
  }
  dg_emit_expr(ctx, b, n->args[row], col);
}

static void emit_node(dg_emit_ctx *ctx, dg_strbuf *b, const dg_flux_node *n, int comp) {
  struct dg_emit_temps *tp = ctx->temps;
  if (tp && tp->probing && tp->over)
    return; /* the probe is dropped: stop writing it */
  int size = dg_flux_shape_size(n->shape);
  if (comp < 0 || comp >= size) {
    fail(ctx, b, n, "a component out of range");
    return;
  }
  if (emit_leaf(ctx, b, n, comp))
    return;
  switch (n->op) {
  case DG_FLUX_LET:
    emit_let(ctx, b, n, comp);
    return;
  case DG_FLUX_NEG:
    dg_strbuf_append(b, "(-");
    dg_emit_expr(ctx, b, n->args[0], comp);
    dg_strbuf_append(b, ")");
    return;
  case DG_FLUX_NOT: case DG_FLUX_LT: case DG_FLUX_LE: case DG_FLUX_GT: case DG_FLUX_GE:
  case DG_FLUX_EQ: case DG_FLUX_NE: case DG_FLUX_AND: case DG_FLUX_OR:
    emit_logic(ctx, b, n);
    return;
  case DG_FLUX_ADD: case DG_FLUX_SUB: case DG_FLUX_MUL: case DG_FLUX_DIV: {
    static const char *ops[] = {"+", "-", "*", "/"};
    emit_binary(ctx, b, n->args[0], bcomp(n->args[0], comp), ops[n->op - DG_FLUX_ADD],
                n->args[1], bcomp(n->args[1], comp));
    return;
  }
  case DG_FLUX_POW:
    emit_pow(ctx, b, n);
    return;
  case DG_FLUX_SELECT:
    dg_strbuf_append(b, "((");
    dg_emit_expr(ctx, b, n->args[0], 0);
    dg_strbuf_append(b, ") != 0 ? ");
    dg_emit_expr(ctx, b, n->args[1], bcomp(n->args[1], comp));
    dg_strbuf_append(b, " : ");
    dg_emit_expr(ctx, b, n->args[2], bcomp(n->args[2], comp));
    dg_strbuf_append(b, ")");
    return;
  case DG_FLUX_CALL:
    emit_call(ctx, b, n, comp);
    return;
  case DG_FLUX_VEC: case DG_FLUX_INDEX:
    emit_component(ctx, b, n, comp);
    return;
  case DG_FLUX_DERIV:
    if (!ctx->derivative) {
      fail(ctx, b, n, "a derivative outside a volume term");
      return;
    }
    ctx->derivative(ctx, b, n, comp);
    return;
  default:
    break;
  }
  fail(ctx, b, n, "an unknown node");
}

dg_error dg_emit_status(const dg_emit_ctx *ctx) {
  DG_CHECK(!ctx->failed, DG_ERR_INTERNAL, "kernel generator: %s", ctx->failure);
  return DG_OK;
}
