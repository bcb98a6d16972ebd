#include "operators/flux_check.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "operators/flux_check_expr.h"
#include "operators/flux_eval.h"

static char *dup_name(dg_flux_checker *ck, const char *name, int len) {
  char *s = dg_flux_arena_strndup(ck->a, name, (size_t)len);
  if (!s)
    ck->oom = 1;
  return s;
}

static const char *section_what(dg_flux_keyword k) {
  switch (k) {
  case DG_FLUX_KW_RHS: return "a volume term (rhs)";
  case DG_FLUX_KW_FLUX: return "a numerical flux";
  case DG_FLUX_KW_INITIAL: return "an initial condition";
  case DG_FLUX_KW_EXACT: return "an exact solution";
  case DG_FLUX_KW_SOURCE: return "a source term";
  default: return "an expression";
  }
}

/* Refuse an expression whose generated code would pass the bounds on
 * the cost (what: "let 'm9'" or "'flux u'"), and count it in the file. */
int dg_flux_check_too_costly(dg_flux_checker *ck, const dg_flux_node *n, dg_flux_loc loc,
                             const char *what) {
  int64_t c = dg_flux_check_cost(ck, n);
  if (c > MAX_COST) {
    dg_flux_check_error(ck, loc,
                        "%s expands to %s%lld operations per component, the limit is %d (each use "
                        "of a let writes its whole body out again); bind less, or reuse fewer lets",
                        what, c > MAX_FILE_COST ? "more than " : "",
                        (long long)(c > MAX_FILE_COST ? MAX_FILE_COST : c), MAX_COST);
    return 1;
  }
  ck->file_cost += c * dg_flux_shape_size(n->shape);
  if (ck->file_cost > MAX_FILE_COST && !ck->file_cost_told) {
    ck->file_cost_told = 1;
    dg_flux_check_error(ck, loc,
                        "with %s the file's expressions expand to more than %d operations, the "
                        "limit for a file; simplify the expressions or use fewer fields",
                        what, MAX_FILE_COST);
    return 1;
  }
  return 0;
}

/* Check an expression of a section and its shape against the target's. */
dg_flux_node *dg_flux_check_section(dg_flux_checker *ck, dg_flux_ctx ctx, const char *what,
                                   const dg_flux_syn *e, const dg_flux_field_info *target,
                                   const char *label) {
  char whose[96];
  snprintf(whose, sizeof whose, "field '%s'", target->name);
  return dg_flux_check_shaped(ck, ctx, what, e, target->shape, whose, label);
}

dg_flux_node *dg_flux_check_shaped(dg_flux_checker *ck, dg_flux_ctx ctx, const char *what,
                                   const dg_flux_syn *e, dg_flux_shape shape, const char *whose,
                                   const char *label) {
  dg_flux_scope sc = {.ctx = ctx, .what = what};
  dg_flux_node *n = dg_flux_check_expr(ck, &sc, e);
  if (!n)
    return NULL;
  char b1[48], b2[48];
  if (!dg_flux_shape_equal(n->shape, shape)) {
    dg_flux_check_error(ck, e->loc, "%s is %s, but %s is %s", label,
                        dg_flux_check_a_shape(n->shape, b1), whose,
                        dg_flux_check_a_shape(shape, b2));
    return NULL;
  }
  if (dg_flux_check_height(ck, n) > MAX_HEIGHT) {
    dg_flux_check_error(ck, e->loc,
                        "expression too large (more than %d levels of operations, let "
                        "bindings included)",
                        MAX_HEIGHT);
    return NULL;
  }
  if (dg_flux_check_too_costly(ck, n, e->loc, label))
    return NULL;
  if (ctx == DG_FLUX_CTX_RHS && !dg_flux_check_linear_in_derivs(ck, n))
    return NULL;
  return n;
}

/* The slot of field f that statement kind k fills. */
static const dg_flux_node **slot(dg_flux_field_info *f, dg_flux_keyword k) {
  switch (k) {
  case DG_FLUX_KW_RHS: return &f->rhs;
  case DG_FLUX_KW_FLUX: return &f->flux;
  case DG_FLUX_KW_INITIAL: return &f->initial;
  case DG_FLUX_KW_EXACT: return &f->exact;
  default: return &f->source;
  }
}

static void *arena_array(dg_flux_checker *ck, int n, size_t size) {
  void *p = dg_flux_arena_alloc(ck->a, (size_t)(n > 0 ? n : 1) * size);
  if (!p)
    ck->oom = 1;
  return p;
}

static void check_let(dg_flux_checker *ck, const dg_flux_stmt *s, int index) {
  dg_flux_let_info *li = &ck->prog->lets[index];
  dg_flux_scope sc = {.ctx = DG_FLUX_CTX_LET, .what = "a let binding"};
  ck->nlets_visible = index;
  dg_flux_node *body = dg_flux_check_expr(ck, &sc, s->expr);
  ck->nlets_visible = index + 1;
  if (body && (sc.uses_bare || sc.uses_coef_bare || sc.uses_grad_bare) && sc.uses_trace) {
    dg_flux_check_error(ck, s->name_loc,
                        "let '%s' mixes %s with and without traces; bind the pointwise "
                        "part and apply .int/.ext/avg/jump where it is used",
                        li->name, sc.uses_bare        ? "fields"
                                  : sc.uses_coef_bare ? "coefficients"
                                                      : "gradients");
    body = NULL;
  }
  if (body && dg_flux_check_height(ck, body) > MAX_HEIGHT) {
    dg_flux_check_error(ck, s->name_loc,
                        "let '%s' is too large (more than %d levels of operations, let "
                        "bindings included)",
                        li->name, MAX_HEIGHT);
    body = NULL;
  }
  if (body) {
    char what[96];
    snprintf(what, sizeof what, "let '%s'", li->name);
    int64_t c = dg_flux_check_cost(ck, body);
    if (c > MAX_COST && dg_flux_check_too_costly(ck, body, s->name_loc, what))
      body = NULL;
  }
  if (!body) {
    /* A placeholder; uses of the let fail quietly. */
    ck->let_broken[index] = 1;
    body = dg_flux_node_num(ck->a, 0.0, s->name_loc);
    if (!body) {
      ck->oom = 1;
      return;
    }
  }
  li->body = body;
  li->reads_fields = sc.uses_bare;
  li->reads_traces = sc.uses_trace;
  li->reads_normal = sc.uses_normal;
  li->reads_coefs = sc.uses_coef;
  ck->let_ext[index] = (unsigned char)sc.uses_ext;
  /* a bare coefficient or gradient, like a bare field, takes the side of
   * the LET node */
  ck->let_bare[index] = (unsigned char)(sc.uses_bare || sc.uses_coef_bare || sc.uses_grad_bare);
  ck->let_coef[index] = (unsigned char)sc.uses_coef;
  ck->let_grad[index] = (unsigned char)sc.uses_grad;
  dg_flux_check_let_purity(ck, index);
  ck->let_height[index] = dg_flux_check_height(ck, body);
  ck->let_cost[index] = dg_flux_check_cost(ck, body);
}

/* A checked scalar statement's tree n (NULL: its error is reported) is not
 * too deep or too costly; else the error at its expression. */
static int fits(dg_flux_checker *ck, const dg_flux_node *n, const dg_flux_stmt *s,
                const char *label) {
  if (n && dg_flux_check_height(ck, n) > MAX_HEIGHT) {
    dg_flux_check_error(ck, s->expr->loc,
                        "expression too large (more than %d levels of operations, let "
                        "bindings included)", MAX_HEIGHT);
    return 0;
  }
  return n && !dg_flux_check_too_costly(ck, n, s->expr->loc, label);
}

/* integral NAME = expr: a new name (not a field, param, let or another
 * integral: the name heads a column of the run's quantities), a scalar. */
static void check_integral(dg_flux_checker *ck, const dg_flux_stmt *s) {
  dg_flux_program *prog = ck->prog;
  if (!dg_flux_check_new_name(ck, s->name, s->len, s->name_loc))
    return;
  for (int i = 0; i < prog->nintegrals; i++)
    if (dg_flux_check_name_is(s->name, s->len, prog->integrals[i].name)) {
      dg_flux_check_error(ck, s->name_loc, "duplicate integral '%.*s' (the first is at %d:%d)",
                          s->len, s->name, prog->integrals[i].loc.line,
                          prog->integrals[i].loc.col);
      return;
    }
  dg_flux_scope sc = {.ctx = DG_FLUX_CTX_INTEGRAL, .what = "an integral"};
  dg_flux_node *n = dg_flux_check_expr(ck, &sc, s->expr);
  char b1[48], label[128];
  snprintf(label, sizeof label, "'integral %.*s'", s->len, s->name);
  if (n && n->shape.rank != 0) {
    dg_flux_check_error(ck, s->expr->loc,
                        "%s must be a scalar, got %s (integrate one component, e.g. m[0], or a "
                        "scalar of it, e.g. dot(m, m))",
                        label, dg_flux_check_a_shape(n->shape, b1));
    return;
  }
  if (!fits(ck, n, s, label))
    return;
  dg_flux_integral_info *in = &prog->integrals[prog->nintegrals++];
  in->name = dup_name(ck, s->name, s->len);
  in->loc = s->name_loc;
  in->integrand = n;
}

/* wave_speed = expr: the largest signal speed at a node (FLUX_LANGUAGE.md),
 * a scalar of the state, coefficients, x, t, params and lets, as an
 * integrand is (no derivatives, traces, n or gradients); once per file. */
static void check_wave_speed(dg_flux_checker *ck, const dg_flux_stmt *s) {
  dg_flux_program *prog = ck->prog;
  if (prog->wave_speed || prog->wave_speed_loc.line) {
    dg_flux_check_error(ck, s->loc, "duplicate 'wave_speed' (the first is at %d:%d)",
                        prog->wave_speed_loc.line, prog->wave_speed_loc.col);
    return;
  }
  prog->wave_speed_loc = s->loc;
  dg_flux_scope sc = {.ctx = DG_FLUX_CTX_INTEGRAL, .what = "the wave speed"};
  dg_flux_node *n = dg_flux_check_expr(ck, &sc, s->expr);
  char b1[48];
  if (n && n->shape.rank != 0) {
    dg_flux_check_error(ck, s->expr->loc,
                        "'wave_speed' must be a scalar (the largest |eigenvalue| of the flux "
                        "Jacobian, e.g. norm(u) + c), got %s",
                        dg_flux_check_a_shape(n->shape, b1));
    return;
  }
  if (!fits(ck, n, s, "'wave_speed'"))
    return;
  prog->wave_speed = n;
}

static void check_boundary(dg_flux_checker *ck, const dg_flux_stmt *s, dg_flux_boundary_info *b,
                           int complete) {
  dg_flux_program *prog = ck->prog;
  const dg_flux_node **ext = arena_array(ck, prog->nfields, sizeof *ext);
  dg_flux_loc *where = arena_array(ck, prog->nfields, sizeof *where);
  if (!ext || !where)
    return;
  b->exterior = ext;
  int unknown = 0;
  for (int i = 0; i < s->nitems; i++) {
    const dg_flux_item *it = &s->items[i];
    if (it->grad) { /* checked after every other expression: dg_flux_check_bc_gradients */
      if (ck->nbc_grads == ck->bc_grads_cap) {
        int cap = ck->bc_grads_cap ? 2 * ck->bc_grads_cap : 8;
        dg_flux_bc_grad *g = arena_array(ck, cap, sizeof *g);
        if (!g)
          return;
        if (ck->nbc_grads)
          memcpy(g, ck->bc_grads, (size_t)ck->nbc_grads * sizeof *g);
        ck->bc_grads = g;
        ck->bc_grads_cap = cap;
      }
      ck->bc_grads[ck->nbc_grads++] = (dg_flux_bc_grad){(int)(b - prog->boundaries), it};
      continue;
    }
    char word[80];
    snprintf(word, sizeof word, "%.*s", it->len, it->name);
    int f = dg_flux_check_find_field(ck, it->name, it->len);
    if (f < 0) {
      char dym[96];
      dg_flux_check_error(
          ck, it->loc, "unknown field '%s' in boundary '%s'%s", word, b->name,
          dg_flux_check_did_you_mean(dg_flux_check_closest_field(ck, word), dym, sizeof dym));
      unknown = 1;
      continue;
    }
    if (where[f].line) {
      dg_flux_check_error(ck, it->loc,
                          "field '%s' is given twice in boundary '%s' (first at %d:%d)", word,
                          b->name, where[f].line, where[f].col);
      continue;
    }
    where[f] = it->loc;
    char label[160];
    snprintf(label, sizeof label, "the exterior value of '%s' in boundary '%s'", word, b->name);
    ext[f] = dg_flux_check_section(ck, DG_FLUX_CTX_BC, "a boundary condition", it->expr,
                                   &prog->fields[f], label);
  }
  if (!complete || unknown)
    return;
  char missing[DG_FLUX_MESSAGE_MAX] = "";
  int nmissing = 0, first_missing = 0;
  for (int f = 0; f < prog->nfields; f++)
    if (!where[f].line) {
      if (!nmissing)
        first_missing = f;
      size_t len = strlen(missing);
      snprintf(missing + len, sizeof missing - len, "%s'%s'", nmissing ? ", " : "",
               prog->fields[f].name);
      nmissing++;
    }
  if (nmissing)
    dg_flux_check_error(ck, s->name_loc,
                        "boundary '%s' does not give field%s %s (each field's exterior "
                        "value is needed, e.g. '%s = %s.int')",
                        b->name, nmissing > 1 ? "s" : "", missing, prog->fields[first_missing].name,
                        prog->fields[first_missing].name);
}

/* Pass 1: count what the statements declare (the arrays are sized by it)
 * and find the 'dim' statement. */
typedef struct counts {
  int nfields, nparams, ncoefs, nlets, nbounds, nintegrals;
  const dg_flux_stmt *dim_stmt;
} counts;

static counts count_statements(dg_flux_checker *ck, const dg_flux_stmt *stmts) {
  counts c = {0};
  for (const dg_flux_stmt *s = stmts; s; s = s->next) {
    if (s->kind == DG_FLUX_KW_FIELDS)
      c.nfields += s->nitems;
    else if (s->kind == DG_FLUX_KW_PARAMS)
      c.nparams += s->nitems;
    else if (s->kind == DG_FLUX_KW_COEFFICIENTS)
      c.ncoefs += s->nitems;
    else if (s->kind == DG_FLUX_KW_LET)
      c.nlets++;
    else if (s->kind == DG_FLUX_KW_BOUNDARY)
      c.nbounds++;
    else if (s->kind == DG_FLUX_KW_INTEGRAL)
      c.nintegrals++;
    else if (s->kind == DG_FLUX_KW_DIM) {
      if (c.dim_stmt)
        dg_flux_check_error(ck, s->loc, "duplicate 'dim' (first at %d:%d)",
                            c.dim_stmt->loc.line, c.dim_stmt->loc.col);
      else
        c.dim_stmt = s;
    }
  }
  return c;
}

/* The program's tables and the checker's per-let arrays, in the arena. */
static void allocate_tables(dg_flux_checker *ck, const counts *c) {
  dg_flux_program *prog = ck->prog;
  int nlets = c->nlets;
  prog->fields = arena_array(ck, c->nfields, sizeof *prog->fields);
  prog->params = arena_array(ck, c->nparams, sizeof *prog->params);
  prog->coefs = arena_array(ck, c->ncoefs, sizeof *prog->coefs);
  prog->lets = arena_array(ck, nlets, sizeof *prog->lets);
  prog->boundaries = arena_array(ck, c->nbounds, sizeof *prog->boundaries);
  prog->integrals = arena_array(ck, c->nintegrals, sizeof *prog->integrals);
  ck->let_ext = arena_array(ck, nlets, sizeof *ck->let_ext);
  ck->let_bare = arena_array(ck, nlets, sizeof *ck->let_bare);
  ck->let_broken = arena_array(ck, nlets, sizeof *ck->let_broken);
  ck->let_coef = arena_array(ck, nlets, sizeof *ck->let_coef);
  ck->let_grad = arena_array(ck, nlets, sizeof *ck->let_grad);
  ck->let_impure = arena_array(ck, nlets, sizeof *ck->let_impure);
  prog->lets_bare = ck->let_bare;
  ck->let_height = arena_array(ck, nlets, sizeof *ck->let_height);
  ck->let_cost = arena_array(ck, nlets, sizeof *ck->let_cost);
}

static void declare_fields(dg_flux_checker *ck, const dg_flux_stmt *stmts) {
  dg_flux_program *prog = ck->prog;
  for (const dg_flux_stmt *s = stmts; s && !ck->oom; s = s->next) {
    for (int i = 0; i < s->nitems && s->kind == DG_FLUX_KW_FIELDS; i++) {
      const dg_flux_item *it = &s->items[i];
      if (!dg_flux_check_new_name(ck, it->name, it->len, it->loc))
        continue;
      dg_flux_field_info *f = &prog->fields[prog->nfields++];
      f->name = dup_name(ck, it->name, it->len);
      f->loc = it->loc;
      f->ncomp = it->ncomp < 0 ? 1 : it->ncomp;
      f->shape = it->ncomp < 0 ? dg_flux_shape_scalar() : dg_flux_shape_vector(it->ncomp);
      f->offset = prog->state_size;
      prog->state_size += f->ncomp;
    }
  }
}

/* Params, their defaults evaluated (constants: numbers, pi, functions). */
static dg_error declare_params(dg_flux_checker *ck, const dg_flux_stmt *stmts) {
  dg_flux_program *prog = ck->prog;
  for (const dg_flux_stmt *s = stmts; s && !ck->oom; s = s->next) {
    for (int i = 0; i < s->nitems && s->kind == DG_FLUX_KW_PARAMS; i++) {
      const dg_flux_item *it = &s->items[i];
      if (!dg_flux_check_new_name(ck, it->name, it->len, it->loc))
        continue;
      dg_flux_scope sc = {.ctx = DG_FLUX_CTX_CONST, .what = "a param default"};
      dg_flux_node *v = dg_flux_check_expr(ck, &sc, it->expr);
      double value = 0;
      if (v && v->shape.rank != 0) {
        char b1[48];
        dg_flux_check_error(ck, it->expr->loc, "param '%.*s' must be a scalar, got %s", it->len,
                            it->name, dg_flux_check_a_shape(v->shape, b1));
      } else if (v) {
        dg_flux_point pt = {0};
        dg_error e = dg_flux_eval(prog, v, &pt, &value, 1);
        if (e != DG_OK)
          return e;
        if (!isfinite(value))
          dg_flux_check_error(ck, it->expr->loc, "param '%.*s' evaluates to %g", it->len, it->name,
                              value);
      }
      dg_flux_param_info *p = &prog->params[prog->nparams++];
      p->name = dup_name(ck, it->name, it->len);
      p->loc = it->loc;
      p->value = p->default_value = value;
    }
  }
  return DG_OK;
}

/* One bound of a coefficient: a constant (numbers, pi, functions), finite.
 * Returns 0 after reporting. */
static int coef_bound(dg_flux_checker *ck, const dg_flux_item *it, const dg_flux_syn *e,
                      const char *which, double *value) {
  dg_flux_scope sc = {.ctx = DG_FLUX_CTX_CONST, .what = "a coefficient bound"};
  dg_flux_node *v = dg_flux_check_expr(ck, &sc, e);
  if (!v)
    return 0;
  char b1[48];
  if (v->shape.rank != 0) {
    dg_flux_check_error(ck, e->loc, "the %s bound of coefficient '%.*s' must be a scalar, got %s",
                        which, it->len, it->name, dg_flux_check_a_shape(v->shape, b1));
    return 0;
  }
  dg_flux_point pt = {0};
  if (dg_flux_eval(ck->prog, v, &pt, value, 1) != DG_OK) {
    dg_error_clear();
    return 0;
  }
  if (!isfinite(*value)) {
    dg_flux_check_error(ck, e->loc, "the %s bound of coefficient '%.*s' evaluates to %g", which,
                        it->len, it->name, *value);
    return 0;
  }
  return 1;
}

/* coefficients eps > 0, mu >= 1 < 10: new scalar names with their bounds. */
static void declare_coefs(dg_flux_checker *ck, const dg_flux_stmt *stmts) {
  dg_flux_program *prog = ck->prog;
  for (const dg_flux_stmt *s = stmts; s && !ck->oom; s = s->next) {
    for (int i = 0; i < s->nitems && s->kind == DG_FLUX_KW_COEFFICIENTS; i++) {
      const dg_flux_item *it = &s->items[i];
      if (!dg_flux_check_new_name(ck, it->name, it->len, it->loc))
        continue;
      if (prog->ncoefs == DG_FLUX_MAX_COEFS) {
        dg_flux_check_error(ck, it->loc, "too many coefficients: at most %d may be declared",
                            DG_FLUX_MAX_COEFS);
        return;
      }
      dg_flux_coef_info ci = {.loc = it->loc};
      int ok = 1;
      if (it->lo) {
        ci.has_min = coef_bound(ck, it, it->lo, "lower", &ci.min);
        ci.min_strict = it->lo_op == DG_FLUX_TK_GT;
        ok &= ci.has_min;
      }
      if (it->hi) {
        ci.has_max = coef_bound(ck, it, it->hi, "upper", &ci.max);
        ci.max_strict = it->hi_op == DG_FLUX_TK_LT;
        ok &= ci.has_max;
      }
      if (ok && ci.has_min && ci.has_max &&
          (ci.min > ci.max || (ci.min == ci.max && (ci.min_strict || ci.max_strict))))
        dg_flux_check_error(ck, it->lo->loc,
                            "coefficient '%.*s' has no allowed value: its lower bound %g is "
                            "not below its upper bound %g",
                            it->len, it->name, ci.min, ci.max);
      ci.name = dup_name(ck, it->name, it->len);
      prog->coefs[prog->ncoefs++] = ci;
    }
  }
}

/* Pass 2: let bindings.  All names first (so a use above the definition
 * is told so), then the bodies in order, each seeing the lets above it. */
static void check_lets(dg_flux_checker *ck, const dg_flux_stmt *stmts, int nlets) {
  dg_flux_program *prog = ck->prog;
  const dg_flux_stmt **let_stmt = arena_array(ck, nlets, sizeof *let_stmt);
  for (const dg_flux_stmt *s = stmts; s && !ck->oom; s = s->next) {
    if (s->kind != DG_FLUX_KW_LET || !dg_flux_check_new_name(ck, s->name, s->len, s->name_loc))
      continue;
    let_stmt[prog->nlets] = s;
    prog->lets[prog->nlets].name = dup_name(ck, s->name, s->len);
    prog->lets[prog->nlets].loc = s->name_loc;
    prog->nlets++;
  }
  for (int i = 0; i < prog->nlets && !ck->oom; i++)
    check_let(ck, let_stmt[i], i);
  ck->nlets_visible = prog->nlets;
}

/* Pass 3: the per-field sections (rhs, flux, initial, exact, source); first
 * receives where each was first given. */
static void check_sections(dg_flux_checker *ck, const dg_flux_stmt *stmts,
                           dg_flux_loc *first[DG_FLUX_KW_COUNT]) {
  dg_flux_program *prog = ck->prog;
  for (const dg_flux_stmt *s = stmts; s && !ck->oom; s = s->next) {
    switch (s->kind) {
    case DG_FLUX_KW_RHS:
    case DG_FLUX_KW_FLUX:
    case DG_FLUX_KW_INITIAL:
    case DG_FLUX_KW_EXACT:
    case DG_FLUX_KW_SOURCE: break;
    default: continue;
    }
    const char *kw = dg_flux_keyword_name(s->kind);
    int f = dg_flux_check_find_field(ck, s->name, s->len);
    if (f < 0) {
      char word[80], dym[96];
      snprintf(word, sizeof word, "%.*s", s->len, s->name);
      const char *near = dg_flux_check_closest_field(ck, word);
      dg_flux_check_error(ck, s->name_loc, "'%s %s': unknown field '%s'%s", kw, word, word,
                          near ? dg_flux_check_did_you_mean(near, dym, sizeof dym)
                               : " (declare it with 'fields')");
      ck->unknown_target = 1;
      continue;
    }
    dg_flux_field_info *fi = &prog->fields[f];
    dg_flux_loc *seen = &first[s->kind][f];
    if (seen->line) {
      dg_flux_check_error(ck, s->loc, "duplicate '%s %s' (the first is at %d:%d)", kw, fi->name,
                          seen->line, seen->col);
      continue;
    }
    *seen = s->loc;
    dg_flux_ctx ctx = s->kind == DG_FLUX_KW_RHS    ? DG_FLUX_CTX_RHS
                      : s->kind == DG_FLUX_KW_FLUX ? DG_FLUX_CTX_FLUX
                                                   : DG_FLUX_CTX_POINT;
    char label[128];
    snprintf(label, sizeof label, "'%s %s'", kw, fi->name);
    *slot(fi, s->kind) = dg_flux_check_section(ck, ctx, section_what(s->kind), s->expr, fi, label);
  }
}

static void check_boundaries(dg_flux_checker *ck, const dg_flux_stmt *stmts, int syntax_errors) {
  dg_flux_program *prog = ck->prog;
  int nb = 0;
  for (const dg_flux_stmt *s = stmts; s && !ck->oom; s = s->next) {
    if (s->kind != DG_FLUX_KW_BOUNDARY)
      continue;
    int dup = -1;
    for (int i = 0; i < nb; i++)
      if (dg_flux_check_name_is(s->name, s->len, prog->boundaries[i].name))
        dup = i;
    if (dup >= 0) {
      dg_flux_check_error(ck, s->name_loc, "duplicate boundary '%.*s' (the first is at %d:%d)",
                          s->len, s->name, prog->boundaries[dup].loc.line,
                          prog->boundaries[dup].loc.col);
      continue;
    }
    dg_flux_boundary_info *b = &prog->boundaries[nb++];
    b->name = dup_name(ck, s->name, s->len);
    b->loc = s->name_loc;
    if (!ck->oom)
      check_boundary(ck, s, b, !syntax_errors);
  }
  prog->nboundaries = nb;
}

/* Every field needs its equations (reported unless the file had syntax
 * errors, whose lost statements would make these spurious). */
static void check_complete(dg_flux_checker *ck, dg_flux_loc *const first[DG_FLUX_KW_COUNT]) {
  dg_flux_program *prog = ck->prog;
  for (int f = 0; f < prog->nfields && !ck->unknown_target && !ck->oom; f++) {
    dg_flux_field_info *fi = &prog->fields[f];
    char missing[DG_FLUX_MESSAGE_MAX] = "";
    const struct { dg_flux_keyword k; const char *what; } need[] = {
        {DG_FLUX_KW_RHS, "volume term"},
        {DG_FLUX_KW_FLUX, "numerical flux"},
        {DG_FLUX_KW_INITIAL, "initial condition"}};
    for (int i = 0; i < 3; i++)
      if (!first[need[i].k][f].line) {
        size_t len = strlen(missing);
        snprintf(missing + len, sizeof missing - len, "%s%s ('%s %s = ...')",
                 missing[0] ? ", no " : "", need[i].what, dg_flux_keyword_name(need[i].k),
                 fi->name);
      }
    if (missing[0])
      dg_flux_check_error(ck, fi->loc, "field '%s' has no %s", fi->name, missing);
  }
}

dg_error dg_flux_check(dg_flux_source *src, const dg_flux_stmt *stmts, int dim,
                       dg_flux_program *prog) {
  DG_CHECK(src && prog && prog->arena, DG_ERR_ARG, "bad arguments");
  DG_CHECK(dim >= 0 && dim <= 3, DG_ERR_ARG, "dimension %d is not 0, 1, 2 or 3", dim);
  dg_flux_checker ck = {.src = src, .prog = prog, .a = prog->arena};
  int syntax_errors = src->diags->count;
  dg_flux_loc start = {1, 1, 1};

  if (!stmts) {
    if (!syntax_errors)
      dg_flux_check_error(&ck, start,
                          "empty file: a flux file declares its fields and their equations "
                          "(e.g. 'fields u', 'rhs u = -dx(u)', 'flux u = ...', 'initial u = ...')");
    return DG_OK;
  }
  counts c = count_statements(&ck, stmts);
  const dg_flux_stmt *dim_stmt = c.dim_stmt;
  if (dim_stmt && dim && dim_stmt->value != dim)
    dg_flux_check_error(&ck, dim_stmt->value_loc,
                        "this file is written for dimension %d, but the mesh is %dD",
                        dim_stmt->value, dim);
  if (!dim && !dim_stmt) {
    dg_flux_check_error(&ck, start,
                        "the dimension is unknown: add 'dim 2' (or 1 or 3) to the file, or give "
                        "the mesh dimension");
    return DG_OK;
  }
  prog->dim = dim ? dim : dim_stmt->value;
  allocate_tables(&ck, &c);
  if (ck.oom)
    DG_RAISE(DG_ERR_MEMORY, "out of memory checking %s", src->name);
  declare_fields(&ck, stmts);
  DG_CALL(declare_params(&ck, stmts));
  declare_coefs(&ck, stmts);
  if (prog->nfields == 0 && !syntax_errors)
    dg_flux_check_error(&ck, stmts->loc,
                        "no fields declared: add e.g. 'fields E[3] H[3]' or 'fields u'");
  check_lets(&ck, stmts, c.nlets);

  dg_flux_loc *first[DG_FLUX_KW_COUNT] = {0};
  for (int k = 0; k < DG_FLUX_KW_COUNT; k++)
    first[k] = arena_array(&ck, prog->nfields, sizeof **first);
  check_sections(&ck, stmts, first);
  check_boundaries(&ck, stmts, syntax_errors);
  if (!ck.oom)
    dg_flux_check_bc_gradients(&ck, !syntax_errors);
  for (const dg_flux_stmt *s = stmts; s && !ck.oom; s = s->next)
    if (s->kind == DG_FLUX_KW_INTEGRAL)
      check_integral(&ck, s);
    else if (s->kind == DG_FLUX_KW_WAVE_SPEED)
      check_wave_speed(&ck, s);
  if (!syntax_errors)
    check_complete(&ck, first);

  /* Surface forms of the volume terms. */
  for (int f = 0; f < prog->nfields && !ck.oom && src->diags->count == 0; f++) {
    dg_flux_node *sf;
    DG_CALL(dg_flux_ast_surface(ck.a, prog->fields[f].rhs, prog->dim, ck.let_bare, &sf));
    prog->fields[f].surface = sf;
  }
  if (ck.oom)
    DG_RAISE(DG_ERR_MEMORY, "out of memory checking %s", src->name);
  return DG_OK;
}

