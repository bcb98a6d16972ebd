#include "operators/flux_eval.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "operators/flux_check.h"

enum { MAXC = DG_FLUX_MAX_COMPONENTS };

/* A let is evaluated once per side and remembered, so chains of lets that
 * use each other several times cost linear, not exponential, time. */
typedef struct memo {
  unsigned char done;
  double v[MAXC];
} memo;

typedef struct evaluator {
  const dg_flux_program *prog;
  const dg_flux_point *pt;
  memo *lets; /* [let * 3 + side] */
  dg_flux_side side; /* side applied to side-NONE fields inside a let body */
} evaluator;

static const char *side_name(dg_flux_side s) {
  return s == DG_FLUX_SIDE_INT ? "interior trace" : s == DG_FLUX_SIDE_EXT ? "exterior trace"
                                                                           : "volume state";
}

static dg_error ev(evaluator *e, const dg_flux_node *n, double *out);

/* Evaluate a binary operation of two operands component by component
 * (a scalar operand is broadcast). */
static double apply(dg_flux_op op, double a, double b) {
  switch (op) {
  case DG_FLUX_ADD: return a + b;
  case DG_FLUX_SUB: return a - b;
  case DG_FLUX_MUL: return a * b;
  case DG_FLUX_DIV: return a / b;
  case DG_FLUX_POW: return pow(a, b);
  case DG_FLUX_LT: return a < b;
  case DG_FLUX_LE: return a <= b;
  case DG_FLUX_GT: return a > b;
  case DG_FLUX_GE: return a >= b;
  case DG_FLUX_EQ: return a == b;
  case DG_FLUX_NE: return a != b;
  case DG_FLUX_AND: return a != 0 && b != 0;
  case DG_FLUX_OR: return a != 0 || b != 0;
  default: return NAN;
  }
}

static dg_error call(evaluator *e, const dg_flux_node *n, double *out) {
  double a[MAXC], b[MAXC] = {0};
  DG_CALL(ev(e, n->args[0], a));
  if (n->nargs > 1)
    DG_CALL(ev(e, n->args[1], b));
  int la = dg_flux_shape_size(n->args[0]->shape);
  switch ((dg_flux_fn)n->ref) {
  case DG_FLUX_FN_SIN: out[0] = sin(a[0]); break;
  case DG_FLUX_FN_COS: out[0] = cos(a[0]); break;
  case DG_FLUX_FN_TAN: out[0] = tan(a[0]); break;
  case DG_FLUX_FN_EXP: out[0] = exp(a[0]); break;
  case DG_FLUX_FN_LOG: out[0] = log(a[0]); break;
  case DG_FLUX_FN_SQRT: out[0] = sqrt(a[0]); break;
  case DG_FLUX_FN_ABS: out[0] = fabs(a[0]); break;
  case DG_FLUX_FN_TANH: out[0] = tanh(a[0]); break;
  case DG_FLUX_FN_FLOOR: out[0] = floor(a[0]); break;
  case DG_FLUX_FN_MIN: out[0] = fmin(a[0], b[0]); break;
  case DG_FLUX_FN_MAX: out[0] = fmax(a[0], b[0]); break;
  case DG_FLUX_FN_ATAN2: out[0] = atan2(a[0], b[0]); break;
  case DG_FLUX_FN_DOT:
    out[0] = 0;
    for (int i = 0; i < la; i++)
      out[0] += a[i] * b[i];
    break;
  case DG_FLUX_FN_NORM:
    out[0] = 0;
    for (int i = 0; i < la; i++)
      out[0] += a[i] * a[i];
    out[0] = sqrt(out[0]);
    break;
  case DG_FLUX_FN_CROSS: {
    /* see dg_flux_cross_shape for the 2D rules */
    dg_flux_shape sa = n->args[0]->shape, sb = n->args[1]->shape;
    if (sa.rank == 1 && sa.rows == 3) {
      out[0] = a[1] * b[2] - a[2] * b[1];
      out[1] = a[2] * b[0] - a[0] * b[2];
      out[2] = a[0] * b[1] - a[1] * b[0];
    } else if (sa.rank == 1 && sb.rank == 1) {
      out[0] = a[0] * b[1] - a[1] * b[0];
    } else if (sa.rank == 1) { /* a x (s e_z) */
      out[0] = a[1] * b[0];
      out[1] = -a[0] * b[0];
    } else { /* (s e_z) x b */
      out[0] = -a[0] * b[1];
      out[1] = a[0] * b[0];
    }
    break;
  }
  default: DG_RAISE(DG_ERR_INTERNAL, "unknown function id %d", n->ref);
  }
  return DG_OK;
}

static dg_error ev(evaluator *e, const dg_flux_node *n, double *out) {
  const dg_flux_program *prog = e->prog;
  const dg_flux_point *pt = e->pt;
  int size = dg_flux_shape_size(n->shape);
  switch (n->op) {
  case DG_FLUX_NUM: out[0] = n->value; return DG_OK;
  case DG_FLUX_PARAM: out[0] = prog->params[n->ref].value; return DG_OK;
  case DG_FLUX_T: out[0] = pt->t; return DG_OK;
  case DG_FLUX_X:
  case DG_FLUX_NORMAL: {
    const double *v = n->op == DG_FLUX_X ? pt->x : pt->n;
    DG_CHECK(v, DG_ERR_ARG, "the expression at %d:%d reads %s, which was not given",
             n->loc.line, n->loc.col, n->op == DG_FLUX_X ? "x" : "the normal n");
    if (n->comp >= 0)
      out[0] = v[n->comp];
    else
      memcpy(out, v, (size_t)size * sizeof *out);
    return DG_OK;
  }
  case DG_FLUX_FIELD: {
    dg_flux_side side = n->side != DG_FLUX_SIDE_NONE ? n->side : e->side;
    const double *u = side == DG_FLUX_SIDE_INT ? pt->u_int
                      : side == DG_FLUX_SIDE_EXT ? pt->u_ext
                                                 : pt->u;
    const dg_flux_field_info *f = &prog->fields[n->ref];
    DG_CHECK(u, DG_ERR_ARG, "the expression at %d:%d reads field '%s' from the %s, which was "
             "not given", n->loc.line, n->loc.col, f->name, side_name(side));
    if (n->comp >= 0)
      out[0] = u[f->offset + n->comp];
    else
      memcpy(out, u + f->offset, (size_t)size * sizeof *out);
    return DG_OK;
  }
  case DG_FLUX_COEF: {
    dg_flux_side side = n->side != DG_FLUX_SIDE_NONE ? n->side : e->side;
    const double *c = side == DG_FLUX_SIDE_INT ? pt->c_int
                      : side == DG_FLUX_SIDE_EXT ? pt->c_ext
                                                 : pt->c;
    DG_CHECK(c, DG_ERR_ARG, "the expression at %d:%d reads coefficient '%s' %s, which was not "
             "given", n->loc.line, n->loc.col, prog->coefs[n->ref].name,
             side == DG_FLUX_SIDE_INT ? "on the interior trace"
             : side == DG_FLUX_SIDE_EXT ? "on the exterior trace" : "at the volume node");
    out[0] = c[n->ref];
    return DG_OK;
  }
  case DG_FLUX_GRADQ: {
    dg_flux_side side = n->side != DG_FLUX_SIDE_NONE ? n->side : e->side;
    const double *q = side == DG_FLUX_SIDE_INT ? pt->q_int
                      : side == DG_FLUX_SIDE_EXT ? pt->q_ext
                                                 : pt->q;
    DG_CHECK(q, DG_ERR_ARG, "the expression at %d:%d reads grad(%s) %s, which was not given",
             n->loc.line, n->loc.col, prog->gradients[n->ref].name,
             side == DG_FLUX_SIDE_INT ? "on the interior trace"
             : side == DG_FLUX_SIDE_EXT ? "on the exterior trace" : "at the volume node");
    const double *g = q + (size_t)n->ref * prog->dim;
    if (n->comp >= 0)
      out[0] = g[n->comp];
    else
      memcpy(out, g, (size_t)size * sizeof *out);
    return DG_OK;
  }
  case DG_FLUX_LDGB:
    out[0] = pt->ldgb;
    return DG_OK;
  case DG_FLUX_LET: {
    dg_flux_side side = n->side != DG_FLUX_SIDE_NONE ? n->side : e->side;
    memo *m = &e->lets[n->ref * 3 + (int)side];
    if (!m->done) {
      dg_flux_side saved = e->side;
      e->side = side;
      dg_error err = ev(e, prog->lets[n->ref].body, m->v);
      e->side = saved;
      if (err != DG_OK)
        return dg_error_push(err, __FILE__, __LINE__, __func__);
      m->done = 1;
    }
    if (n->comp >= 0)
      out[0] = m->v[n->comp];
    else
      memcpy(out, m->v, (size_t)size * sizeof *out);
    return DG_OK;
  }
  case DG_FLUX_NEG:
  case DG_FLUX_NOT: {
    double a[MAXC];
    DG_CALL(ev(e, n->args[0], a));
    for (int i = 0; i < size; i++)
      out[i] = n->op == DG_FLUX_NEG ? -a[i] : (a[i] == 0);
    return DG_OK;
  }
  case DG_FLUX_SELECT: {
    double c;
    DG_CALL(ev(e, n->args[0], &c));
    return ev(e, n->args[c != 0 ? 1 : 2], out);
  }
  case DG_FLUX_CALL: return call(e, n, out);
  case DG_FLUX_VEC: {
    int at = 0;
    for (int i = 0; i < n->nargs; i++) {
      DG_CALL(ev(e, n->args[i], out + at));
      at += dg_flux_shape_size(n->args[i]->shape);
    }
    return DG_OK;
  }
  case DG_FLUX_INDEX: {
    double a[MAXC];
    DG_CALL(ev(e, n->args[0], a));
    memcpy(out, a + (size_t)n->ref * (size_t)size, (size_t)size * sizeof *out);
    return DG_OK;
  }
  case DG_FLUX_DERIV:
    DG_RAISE(DG_ERR_ARG, "the derivative at %d:%d cannot be evaluated at a point",
             n->loc.line, n->loc.col);
  default: {
    double a[MAXC], b[MAXC];
    DG_CALL(ev(e, n->args[0], a));
    DG_CALL(ev(e, n->args[1], b));
    int sa = n->args[0]->shape.rank == 0, sb = n->args[1]->shape.rank == 0;
    for (int i = 0; i < size; i++)
      out[i] = apply(n->op, a[sa ? 0 : i], b[sb ? 0 : i]);
    return DG_OK;
  }
  }
}

dg_error dg_flux_eval(const dg_flux_program *prog, const dg_flux_node *node,
                      const dg_flux_point *pt, double *out, int nout) {
  DG_CHECK(prog && node && pt && out, DG_ERR_ARG, "NULL argument");
  int size = dg_flux_shape_size(node->shape);
  DG_CHECK(nout >= size, DG_ERR_ARG, "output has room for %d values, the expression has %d",
           nout, size);
  evaluator e = {.prog = prog, .pt = pt};
  if (prog->nlets > 0) {
    e.lets = calloc((size_t)prog->nlets * 3, sizeof *e.lets);
    DG_CHECK(e.lets, DG_ERR_MEMORY, "cannot allocate %d let values", prog->nlets);
  }
  double v[MAXC];
  dg_error err = ev(&e, node, v);
  free(e.lets);
  if (err != DG_OK)
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  memcpy(out, v, (size_t)size * sizeof *out);
  return DG_OK;
}

typedef enum which { INITIAL, EXACT, SOURCE } which;

static dg_error eval_field(const dg_flux_program *prog, int field, which w, const double *x,
                           double t, double *out) {
  DG_CHECK(prog && x && out, DG_ERR_ARG, "NULL argument");
  DG_CHECK(field >= 0 && field < prog->nfields, DG_ERR_ARG, "field index %d out of range 0..%d",
           field, prog->nfields - 1);
  const dg_flux_field_info *f = &prog->fields[field];
  const dg_flux_node *n = w == INITIAL ? f->initial : w == EXACT ? f->exact : f->source;
  if (!n) {
    DG_CHECK(w == SOURCE, DG_ERR_INPUT, "%s: field '%s' has no %s", prog->name, f->name,
             w == EXACT ? "exact solution ('exact ... = ...')" : "initial condition");
    for (int i = 0; i < f->ncomp; i++)
      out[i] = 0;
    return DG_OK;
  }
  dg_flux_point pt = {.x = x, .t = t};
  DG_CALL(dg_flux_eval(prog, n, &pt, out, f->ncomp));
  return DG_OK;
}

dg_error dg_flux_eval_initial(const dg_flux_program *prog, int field, const double *x,
                              double t, double *out) {
  DG_CALL(eval_field(prog, field, INITIAL, x, t, out));
  return DG_OK;
}

dg_error dg_flux_eval_exact(const dg_flux_program *prog, int field, const double *x,
                            double t, double *out) {
  DG_CALL(eval_field(prog, field, EXACT, x, t, out));
  return DG_OK;
}

dg_error dg_flux_eval_source(const dg_flux_program *prog, int field, const double *x,
                             double t, double *out) {
  DG_CALL(eval_field(prog, field, SOURCE, x, t, out));
  return DG_OK;
}

dg_error dg_flux_eval_initial_state(const dg_flux_program *prog, const double *x, double t,
                                    double *u) {
  DG_CHECK(prog && u, DG_ERR_ARG, "NULL argument");
  for (int f = 0; f < prog->nfields; f++)
    DG_CALL(eval_field(prog, f, INITIAL, x, t, u + prog->fields[f].offset));
  return DG_OK;
}
