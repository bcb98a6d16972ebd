#include "operators/flux_parser.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/suggest.h"

/* Recursive descent, one function per precedence level (FLUX_LANGUAGE.md).
 * A syntax error is reported once, the statement is abandoned (functions
 * return NULL with p->failed set) and parsing resumes at the next
 * statement keyword. */
typedef struct parser {
  dg_flux_source *src;
  dg_flux_arena *arena;
  const dg_flux_token *t;
  int n, pos;
  int failed; /* the current statement has a syntax error */
  int oom;
  int depth;
} parser;

/* Deep enough for any real expression; keeps recursion (here, in the
 * checker and in the evaluator) far from the stack limit on hostile input:
 * MAX_DEPTH bounds the nesting of brackets and prefix operators while
 * parsing, MAX_HEIGHT the height of the tree built (a+a+...+a is shallow to
 * parse but a deep left-leaning tree). */
enum { MAX_DEPTH = 64, MAX_HEIGHT = 200 };

static const dg_flux_token *peek(const parser *p) { return &p->t[p->pos]; }
static const dg_flux_token *next(parser *p) {
  const dg_flux_token *t = &p->t[p->pos];
  if (p->pos < p->n - 1)
    p->pos++;
  return t;
}
static int at(const parser *p, dg_flux_tok_kind k) { return peek(p)->kind == k; }
static int accept(parser *p, dg_flux_tok_kind k) {
  if (!at(p, k))
    return 0;
  next(p);
  return 1;
}
static void skip_newlines(parser *p) {
  while (at(p, DG_FLUX_TK_NEWLINE))
    next(p);
}

static void *fail(parser *p, dg_flux_loc loc, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static void *fail(parser *p, dg_flux_loc loc, const char *fmt, ...) {
  /* One report per statement, and none for a token the lexer reported. */
  if (!p->failed && peek(p)->kind != DG_FLUX_TK_ERROR) {
    va_list ap;
    va_start(ap, fmt);
    dg_flux_diag_verror(p->src, loc, fmt, ap);
    va_end(ap);
  }
  p->failed = 1;
  return NULL;
}

/* "found X" text for a token. */
static const char *found(const dg_flux_token *t, char *buf, size_t size) {
  if (t->kind == DG_FLUX_TK_NAME || t->kind == DG_FLUX_TK_NUMBER)
    snprintf(buf, size, "'%.*s'", t->len, t->text);
  else if (t->kind == DG_FLUX_TK_KEYWORD)
    snprintf(buf, size, "keyword '%s'", dg_flux_keyword_name(t->keyword));
  else
    snprintf(buf, size, "%s", dg_flux_token_describe(t->kind));
  return buf;
}

static dg_flux_syn *syn(parser *p, dg_flux_syn_kind kind, dg_flux_loc loc, int nargs) {
  dg_flux_syn *s = dg_flux_arena_alloc(p->arena, sizeof *s);
  if (s && nargs > 0)
    s->args = dg_flux_arena_alloc(p->arena, (size_t)nargs * sizeof *s->args);
  if (!s || (nargs > 0 && !s->args)) {
    p->oom = p->failed = 1;
    return NULL;
  }
  s->kind = kind;
  s->loc = loc;
  s->nargs = nargs;
  return s;
}

/* Set s->height from its arguments; fail when the tree grows too tall. */
static dg_flux_syn *grown(parser *p, dg_flux_syn *s) {
  if (!s)
    return NULL;
  int h = 0;
  for (int i = 0; i < s->nargs; i++)
    if (s->args[i] && s->args[i]->height > h)
      h = s->args[i]->height;
  s->height = h + 1;
  if (s->height > MAX_HEIGHT)
    return fail(p, s->loc, "expression too large (more than %d levels of operations)",
                MAX_HEIGHT);
  return s;
}

static int starts_operand(const dg_flux_token *t) {
  switch (t->kind) {
  case DG_FLUX_TK_NUMBER:
  case DG_FLUX_TK_NAME:
  case DG_FLUX_TK_LPAREN:
  case DG_FLUX_TK_LBRACKET:
  case DG_FLUX_TK_MINUS:
  case DG_FLUX_TK_PLUS:
  case DG_FLUX_TK_NOT:
  case DG_FLUX_TK_ERROR: return 1; /* primary() fails quietly on it */
  default: return 0;
  }
}

/* Tokens that end a statement: a bracket still open there is never closed. */
static int ends_statement(const dg_flux_token *t) {
  return t->kind == DG_FLUX_TK_NEWLINE || t->kind == DG_FLUX_TK_EOF ||
         t->kind == DG_FLUX_TK_KEYWORD || t->kind == DG_FLUX_TK_SEMI ||
         t->kind == DG_FLUX_TK_RBRACE;
}

/* After an operator token `op`: the operand must follow (newlines allowed
 * in between, so a long line can be continued after an operator). */
static int operand_follows(parser *p, const dg_flux_token *op) {
  skip_newlines(p);
  if (starts_operand(peek(p)))
    return 1;
  char buf[96];
  if (at(p, DG_FLUX_TK_EOF) || at(p, DG_FLUX_TK_KEYWORD) || at(p, DG_FLUX_TK_SEMI) ||
      at(p, DG_FLUX_TK_RBRACE))
    fail(p, op->loc, "missing operand after %s", dg_flux_token_describe(op->kind));
  else
    fail(p, peek(p)->loc, "expected an operand after %s, found %s",
         dg_flux_token_describe(op->kind), found(peek(p), buf, sizeof buf));
  return 0;
}

static dg_flux_syn *expr(parser *p);

/* Closing bracket `close` for the opening token `open`. */
static int expect_close(parser *p, const dg_flux_token *open, dg_flux_tok_kind close) {
  if (accept(p, close))
    return 1;
  const dg_flux_token *t = peek(p);
  char buf[96];
  if (ends_statement(t))
    fail(p, open->loc, "%s is never closed", dg_flux_token_describe(open->kind));
  else
    fail(p, t->loc, "expected %s to close the %s at %d:%d, found %s",
         dg_flux_token_describe(close), dg_flux_token_describe(open->kind), open->loc.line,
         open->loc.col, found(t, buf, sizeof buf));
  return 0;
}

/* Comma-separated expressions up to `close` (the opening token consumed).
 * Stores them in s->args. */
static int list(parser *p, const dg_flux_token *open, dg_flux_tok_kind close, dg_flux_syn *s) {
  dg_flux_syn *items[DG_FLUX_MAX_COMPONENTS];
  int n = 0;
  if (ends_statement(peek(p))) {
    expect_close(p, open, close);
    return 0;
  }
  if (!at(p, close)) {
    for (;;) {
      dg_flux_syn *e = expr(p);
      if (!e)
        return 0;
      if (n == DG_FLUX_MAX_COMPONENTS) {
        fail(p, e->loc, "more than %d items in one list", DG_FLUX_MAX_COMPONENTS);
        return 0;
      }
      items[n++] = e;
      const dg_flux_token *comma = peek(p);
      if (!accept(p, DG_FLUX_TK_COMMA))
        break;
      if (!operand_follows(p, comma))
        return 0;
    }
  }
  if (!expect_close(p, open, close))
    return 0;
  s->nargs = n;
  if (n > 0) {
    s->args = dg_flux_arena_alloc(p->arena, (size_t)n * sizeof *s->args);
    if (!s->args) {
      p->oom = p->failed = 1;
      return 0;
    }
    memcpy(s->args, items, (size_t)n * sizeof *items);
  }
  return 1;
}

static dg_flux_syn *primary(parser *p) {
  const dg_flux_token *t = peek(p);
  char buf[96];
  switch (t->kind) {
  case DG_FLUX_TK_NUMBER: {
    next(p);
    dg_flux_syn *s = syn(p, DG_FLUX_SYN_NUM, t->loc, 0);
    if (s)
      s->value = t->value;
    return s;
  }
  case DG_FLUX_TK_NAME: {
    next(p);
    int call = at(p, DG_FLUX_TK_LPAREN);
    dg_flux_syn *s = syn(p, call ? DG_FLUX_SYN_CALL : DG_FLUX_SYN_NAME, t->loc, 0);
    if (!s)
      return NULL;
    s->name = t->text;
    s->len = t->len;
    if (call) {
      const dg_flux_token *open = next(p);
      if (!list(p, open, DG_FLUX_TK_RPAREN, s))
        return NULL;
    }
    return grown(p, s);
  }
  case DG_FLUX_TK_LPAREN: {
    next(p);
    if (ends_statement(peek(p))) {
      expect_close(p, t, DG_FLUX_TK_RPAREN);
      return NULL;
    }
    dg_flux_syn *e = expr(p);
    if (!e || !expect_close(p, t, DG_FLUX_TK_RPAREN))
      return NULL;
    e->paren = 1;
    return e;
  }
  case DG_FLUX_TK_LBRACKET: {
    next(p);
    dg_flux_syn *s = syn(p, DG_FLUX_SYN_VEC, t->loc, 0);
    if (!s || !list(p, t, DG_FLUX_TK_RBRACKET, s))
      return NULL;
    if (s->nargs == 0)
      return fail(p, t->loc, "empty vector '[]'");
    return grown(p, s);
  }
  case DG_FLUX_TK_RPAREN:
  case DG_FLUX_TK_RBRACKET:
    return fail(p, t->loc, "unmatched %s", dg_flux_token_describe(t->kind));
  case DG_FLUX_TK_ERROR:
    p->failed = 1; /* reported by the lexer */
    return NULL;
  default:
    return fail(p, t->loc, "expected an operand, found %s", found(t, buf, sizeof buf));
  }
}

static dg_flux_syn *postfix(parser *p) {
  dg_flux_syn *e = primary(p);
  while (e) {
    const dg_flux_token *t = peek(p);
    if (t->kind == DG_FLUX_TK_LBRACKET) {
      next(p);
      dg_flux_syn *s = syn(p, DG_FLUX_SYN_INDEX, t->loc, 2);
      if (!s)
        return NULL;
      s->args[0] = e;
      if (!(s->args[1] = expr(p)) || !expect_close(p, t, DG_FLUX_TK_RBRACKET))
        return NULL;
      e = grown(p, s);
    } else if (t->kind == DG_FLUX_TK_DOT) {
      next(p);
      const dg_flux_token *w = peek(p);
      int side = 0;
      if (w->kind == DG_FLUX_TK_NAME && w->len == 3 && memcmp(w->text, "int", 3) == 0)
        side = DG_FLUX_SIDE_INT;
      else if (w->kind == DG_FLUX_TK_NAME && w->len == 3 && memcmp(w->text, "ext", 3) == 0)
        side = DG_FLUX_SIDE_EXT;
      char buf[96];
      if (!side)
        return fail(p, w->loc, "expected 'int' or 'ext' after '.', found %s",
                    found(w, buf, sizeof buf));
      next(p);
      dg_flux_syn *s = syn(p, DG_FLUX_SYN_TRACE, t->loc, 1);
      if (!s)
        return NULL;
      s->loc.len = 1 + w->len;
      s->op = side;
      s->args[0] = e;
      e = grown(p, s);
    } else {
      break;
    }
  }
  return e;
}

static dg_flux_syn *unary(parser *p);

/* power = postfix [ "^" unary ]: right-associative, and binds tighter than
 * unary minus on its left (-2^2 = -4) but admits one on its right (2^-1). */
static dg_flux_syn *power(parser *p) {
  dg_flux_syn *e = postfix(p);
  if (!e || !at(p, DG_FLUX_TK_CARET))
    return e;
  const dg_flux_token *op = next(p);
  if (++p->depth > MAX_DEPTH)
    return fail(p, op->loc, "expression nested too deeply (more than %d levels)", MAX_DEPTH);
  dg_flux_syn *s = NULL;
  if (operand_follows(p, op) && (s = syn(p, DG_FLUX_SYN_BINARY, op->loc, 2))) {
    s->op = op->kind;
    s->args[0] = e;
    s->args[1] = unary(p);
    s = s->args[1] ? grown(p, s) : NULL;
  }
  p->depth--;
  return s;
}

static dg_flux_syn *unary(parser *p) {
  const dg_flux_token *t = peek(p);
  if (t->kind != DG_FLUX_TK_MINUS && t->kind != DG_FLUX_TK_PLUS && t->kind != DG_FLUX_TK_NOT)
    return power(p);
  next(p);
  if (++p->depth > MAX_DEPTH)
    return fail(p, t->loc, "expression nested too deeply (more than %d levels)", MAX_DEPTH);
  dg_flux_syn *s = NULL;
  if (operand_follows(p, t) && (s = syn(p, DG_FLUX_SYN_UNARY, t->loc, 1))) {
    s->op = t->kind;
    s = (s->args[0] = unary(p)) ? grown(p, s) : NULL;
  }
  p->depth--;
  return s;
}

/* Left-associative binary levels. */
static dg_flux_syn *binary_level(parser *p, int level);

static const dg_flux_tok_kind level_ops[][4] = {
    {DG_FLUX_TK_OR},
    {DG_FLUX_TK_AND},
    {DG_FLUX_TK_LT, DG_FLUX_TK_LE, DG_FLUX_TK_GT, DG_FLUX_TK_GE},
    {DG_FLUX_TK_PLUS, DG_FLUX_TK_MINUS},
    {DG_FLUX_TK_STAR, DG_FLUX_TK_SLASH},
};
enum { LEVEL_CMP = 2, NLEVELS = 5 };

static int is_level_op(int level, dg_flux_tok_kind k) {
  if (level == LEVEL_CMP && (k == DG_FLUX_TK_EQ || k == DG_FLUX_TK_NE))
    return 1;
  for (int i = 0; i < 4; i++)
    if (level_ops[level][i] == k && k != DG_FLUX_TK_EOF)
      return 1;
  return 0;
}

static dg_flux_syn *binary_level(parser *p, int level) {
  if (level == NLEVELS)
    return unary(p);
  dg_flux_syn *e = binary_level(p, level + 1);
  while (e && is_level_op(level, peek(p)->kind)) {
    const dg_flux_token *op = next(p);
    if (level == LEVEL_CMP && e->kind == DG_FLUX_SYN_BINARY && !e->paren &&
        is_level_op(LEVEL_CMP, e->op))
      return fail(p, op->loc, "comparisons cannot be chained: write (a < b) && (b < c)");
    if (!operand_follows(p, op))
      return NULL;
    dg_flux_syn *s = syn(p, DG_FLUX_SYN_BINARY, op->loc, 2);
    if (!s)
      return NULL;
    s->op = op->kind;
    s->args[0] = e;
    if (!(s->args[1] = binary_level(p, level + 1)))
      return NULL;
    e = grown(p, s);
  }
  return e;
}

/* expr = or [ "?" expr ":" expr ]  (right-associative) */
static dg_flux_syn *expr(parser *p) {
  if (++p->depth > MAX_DEPTH) {
    p->depth--;
    return fail(p, peek(p)->loc, "expression nested too deeply (more than %d levels)",
                MAX_DEPTH);
  }
  dg_flux_syn *e = binary_level(p, 0), *s = NULL;
  if (e && at(p, DG_FLUX_TK_QUESTION)) {
    const dg_flux_token *q = next(p);
    if (operand_follows(p, q) && (s = syn(p, DG_FLUX_SYN_TERNARY, q->loc, 3))) {
      s->args[0] = e;
      s->args[1] = expr(p);
      const dg_flux_token *colon = peek(p);
      if (s->args[1] && !accept(p, DG_FLUX_TK_COLON)) {
        char buf[96];
        fail(p, colon->loc, "expected ':' of the '?' at %d:%d, found %s", q->loc.line,
             q->loc.col, found(colon, buf, sizeof buf));
        s = NULL;
      } else if (s->args[1] && operand_follows(p, colon)) {
        s->args[2] = expr(p);
      }
      s = s && s->args[1] && s->args[2] ? grown(p, s) : NULL;
    }
    e = s;
  }
  p->depth--;
  return e;
}

/* --- statements ------------------------------------------------------------ */

static int expect_name(parser *p, const char *what, const dg_flux_token **out) {
  const dg_flux_token *t = peek(p);
  char buf[96];
  if (t->kind != DG_FLUX_TK_NAME) {
    fail(p, t->loc, "expected %s, found %s", what, found(t, buf, sizeof buf));
    return 0;
  }
  *out = next(p);
  return 1;
}

/* "= expr" after a name. */
static dg_flux_syn *assignment(parser *p, const dg_flux_token *name) {
  const dg_flux_token *eq = peek(p);
  char buf[96];
  if (!accept(p, DG_FLUX_TK_ASSIGN))
    return fail(p, eq->loc, "expected '=' after '%.*s', found %s", name->len, name->text,
                found(eq, buf, sizeof buf));
  if (!operand_follows(p, eq))
    return NULL;
  return expr(p);
}

static int at_statement_end(const parser *p) {
  dg_flux_tok_kind k = peek(p)->kind;
  return k == DG_FLUX_TK_NEWLINE || k == DG_FLUX_TK_SEMI || k == DG_FLUX_TK_EOF;
}

/* Growable item list in the arena. */
static int add_item(parser *p, dg_flux_stmt *s, int *cap, dg_flux_item item) {
  if (s->nitems == *cap) {
    int c = *cap ? 2 * *cap : 8;
    dg_flux_item *it = dg_flux_arena_alloc(p->arena, (size_t)c * sizeof *it);
    if (!it) {
      p->oom = p->failed = 1;
      return 0;
    }
    if (s->nitems)
      memcpy(it, s->items, (size_t)s->nitems * sizeof *it);
    s->items = it;
    *cap = c;
  }
  s->items[s->nitems++] = item;
  return 1;
}

/* Append a list statement's item and take the ',' after it (a new line may
 * follow a comma). */
static int list_item(parser *p, dg_flux_stmt *s, int *cap, dg_flux_item it) {
  if (!add_item(p, s, cap, it))
    return 0;
  if (accept(p, DG_FLUX_TK_COMMA))
    skip_newlines(p);
  return 1;
}

/* A list statement needs an item; `example` says what one looks like. */
static int list_done(parser *p, const dg_flux_stmt *s, const char *example) {
  if (s->nitems > 0)
    return 1;
  fail(p, s->loc, "'%s' needs at least one %s", dg_flux_keyword_name(s->kind), example);
  return 0;
}

static int parse_fields(parser *p, dg_flux_stmt *s) {
  int cap = 0;
  char buf[96];
  while (!at_statement_end(p)) {
    const dg_flux_token *name;
    if (!expect_name(p, "a field name", &name))
      return 0;
    dg_flux_item it = {.name = name->text, .len = name->len, .loc = name->loc, .ncomp = -1};
    const dg_flux_token *open = peek(p);
    if (accept(p, DG_FLUX_TK_LBRACKET)) {
      const dg_flux_token *k = peek(p);
      if (k->kind != DG_FLUX_TK_NUMBER || k->value != floor(k->value) || k->value < 1 ||
          k->value > DG_FLUX_MAX_COMPONENTS) {
        fail(p, k->loc, "the length of vector field '%.*s' must be an integer from 1 to %d, "
             "found %s", name->len, name->text, DG_FLUX_MAX_COMPONENTS,
             found(k, buf, sizeof buf));
        return 0;
      }
      next(p);
      it.ncomp = (int)k->value;
      if (!expect_close(p, open, DG_FLUX_TK_RBRACKET))
        return 0;
    }
    if (!list_item(p, s, &cap, it))
      return 0;
  }
  return list_done(p, s, "field name, e.g. 'fields E[3] H[3]'");
}

static int parse_params(parser *p, dg_flux_stmt *s) {
  int cap = 0;
  while (!at_statement_end(p)) {
    const dg_flux_token *name;
    if (!expect_name(p, "a param name", &name))
      return 0;
    dg_flux_item it = {.name = name->text, .len = name->len, .loc = name->loc,
                       .expr = assignment(p, name)};
    if (!it.expr || !list_item(p, s, &cap, it))
      return 0;
  }
  return list_done(p, s, "'name = value'");
}

/* The bounds after a coefficient's name: optional lower ('>' or '>='
 * expression) then optional upper ('<' or '<=' expression).  A bound is an
 * expression without comparisons (a sum, as `eps > 1 + 1e-3`), so the next
 * '<' starts the upper bound.  0 after reporting a mistake. */
static int coef_bounds(parser *p, const dg_flux_token *name, dg_flux_item *it) {
  char buf[96];
  for (;;) {
    const dg_flux_token *op = peek(p);
    int lower = op->kind == DG_FLUX_TK_GT || op->kind == DG_FLUX_TK_GE;
    int upper = op->kind == DG_FLUX_TK_LT || op->kind == DG_FLUX_TK_LE;
    if (!lower && !upper)
      break;
    if (lower && (it->lo || it->hi)) {
      fail(p, op->loc, "coefficient '%.*s' has %s; write the lower bound first and each "
           "bound once, e.g. '%.*s > 0 < 10'", name->len, name->text,
           it->hi ? "a lower bound after its upper bound" : "two lower bounds", name->len,
           name->text);
      return 0;
    }
    if (upper && it->hi) {
      fail(p, op->loc, "coefficient '%.*s' has two upper bounds", name->len, name->text);
      return 0;
    }
    next(p);
    if (!operand_follows(p, op))
      return 0;
    dg_flux_syn *e = binary_level(p, LEVEL_CMP + 1);
    if (!e)
      return 0;
    if (lower)
      it->lo_op = op->kind, it->lo = e;
    else
      it->hi_op = op->kind, it->hi = e;
  }
  const dg_flux_token *t = peek(p);
  if (!at_statement_end(p) && t->kind != DG_FLUX_TK_COMMA && t->kind != DG_FLUX_TK_NAME) {
    fail(p, t->loc, "expected '>', '>=', '<', '<=', ',' or the end of the line after "
         "coefficient '%.*s', found %s (coefficient values are given in problem.cfg, "
         "[coefficients])", name->len, name->text, found(t, buf, sizeof buf));
    return 0;
  }
  return 1;
}

/* coefficients NAME [bounds] { [","] NAME [bounds] }.  After a mistake in
 * one entry the others are still read (and the entry's name kept, without
 * its bounds): their uses in the file would otherwise each be reported as
 * unknown names, burying the one mistake. */
static int parse_coefficients(parser *p, dg_flux_stmt *s) {
  int cap = 0;
  while (!at_statement_end(p)) {
    const dg_flux_token *name = NULL;
    dg_flux_item it = {.ncomp = -1};
    int ok = expect_name(p, "a coefficient name", &name);
    if (ok) {
      it.name = name->text, it.len = name->len, it.loc = name->loc;
      ok = coef_bounds(p, name, &it);
    }
    if (!ok) {
      it.lo = it.hi = NULL;
      while (!at_statement_end(p) && !at(p, DG_FLUX_TK_COMMA))
        next(p);
    }
    if (p->oom || (name && !list_item(p, s, &cap, it)))
      return 0;
    if (!name)
      accept(p, DG_FLUX_TK_COMMA);
  }
  return list_done(p, s, "name, e.g. 'coefficients eps > 0'");
}

static int parse_boundary(parser *p, dg_flux_stmt *s) {
  const dg_flux_token *open = peek(p);
  char buf[96];
  if (!accept(p, DG_FLUX_TK_LBRACE)) {
    fail(p, open->loc, "expected '{' after 'boundary %.*s', found %s", s->len, s->name,
         found(open, buf, sizeof buf));
    return 0;
  }
  int cap = 0;
  for (;;) {
    while (accept(p, DG_FLUX_TK_NEWLINE) || accept(p, DG_FLUX_TK_SEMI))
      ;
    const dg_flux_token *t = peek(p);
    if (t->kind == DG_FLUX_TK_RBRACE) {
      s->end_loc = t->loc;
      next(p);
      return 1;
    }
    if (t->kind == DG_FLUX_TK_EOF || t->kind == DG_FLUX_TK_KEYWORD) {
      fail(p, open->loc, "'{' of boundary '%.*s' is never closed", s->len, s->name);
      return 0;
    }
    const dg_flux_token *name;
    if (!expect_name(p, "a field name or '}'", &name))
      return 0;
    int grad = 0;
    if (name->len == 4 && memcmp(name->text, "grad", 4) == 0 && at(p, DG_FLUX_TK_LPAREN)) {
      /* grad(NAME) = value: the exterior gradient of a second-order term */
      const dg_flux_token *open_paren = peek(p);
      next(p);
      if (!expect_name(p, "the name of a field or let inside grad(...)", &name))
        return 0;
      const dg_flux_token *close = peek(p);
      if (!accept(p, DG_FLUX_TK_RPAREN)) {
        fail(p, close->loc, "expected ')' to close the '(' at %d:%d, found %s",
             open_paren->loc.line, open_paren->loc.col, found(close, buf, sizeof buf));
        return 0;
      }
      grad = 1;
    }
    dg_flux_item it = {.name = name->text, .len = name->len, .loc = name->loc, .grad = grad,
                       .expr = assignment(p, name)};
    if (!it.expr || !add_item(p, s, &cap, it))
      return 0;
    t = peek(p);
    if (t->kind != DG_FLUX_TK_NEWLINE && t->kind != DG_FLUX_TK_SEMI &&
        t->kind != DG_FLUX_TK_RBRACE) {
      fail(p, t->loc, "expected ';', a new line or '}' after the value of '%.*s', found %s",
           name->len, name->text, found(t, buf, sizeof buf));
      return 0;
    }
  }
}

static const char *const statement_words[] = {"dim", "fields", "params", "let", "rhs",
                                              "flux", "boundary", "initial", "exact", "source",
                                              "integral", "coefficients", "wave_speed"};

static dg_flux_stmt *statement(parser *p) {
  const dg_flux_token *kw = peek(p);
  char buf[96];
  if (kw->kind != DG_FLUX_TK_KEYWORD) {
    if (kw->kind == DG_FLUX_TK_NAME) {
      char word[80];
      snprintf(word, sizeof word, "%.*s", kw->len, kw->text);
      const char *s = dg_suggest_closest(word, statement_words, DG_FLUX_KW_COUNT);
      if (s)
        return fail(p, kw->loc, "unknown statement '%s'; did you mean '%s'?", word, s);
    }
    if (kw->kind == DG_FLUX_TK_RPAREN || kw->kind == DG_FLUX_TK_RBRACKET ||
        kw->kind == DG_FLUX_TK_RBRACE)
      return fail(p, kw->loc, "unmatched %s", dg_flux_token_describe(kw->kind));
    return fail(p, kw->loc,
                "expected a statement (fields, params, coefficients, let, rhs, flux, "
                "boundary, initial, exact, source, integral, wave_speed, dim), found %s", found(kw, buf, sizeof buf));
  }
  next(p);
  dg_flux_stmt *s = dg_flux_arena_alloc(p->arena, sizeof *s);
  if (!s) {
    p->oom = p->failed = 1;
    return NULL;
  }
  s->kind = (dg_flux_keyword)kw->keyword;
  s->loc = kw->loc;
  int ok = 1;
  switch (s->kind) {
  case DG_FLUX_KW_DIM: {
    const dg_flux_token *v = peek(p);
    if (v->kind != DG_FLUX_TK_NUMBER || (v->value != 1 && v->value != 2 && v->value != 3))
      return fail(p, v->loc, "'dim' must be followed by 1, 2 or 3, found %s",
                  found(v, buf, sizeof buf));
    next(p);
    s->value = (int)v->value;
    s->value_loc = v->loc;
    break;
  }
  case DG_FLUX_KW_FIELDS: ok = parse_fields(p, s); break;
  case DG_FLUX_KW_PARAMS: ok = parse_params(p, s); break;
  case DG_FLUX_KW_COEFFICIENTS: ok = parse_coefficients(p, s); break;
  case DG_FLUX_KW_WAVE_SPEED: /* wave_speed = expr: no name, the keyword is the target */
    s->name_loc = kw->loc;
    ok = (s->expr = assignment(p, kw)) != NULL;
    break;
  default: {
    const char *what = s->kind == DG_FLUX_KW_LET        ? "a name to bind"
                       : s->kind == DG_FLUX_KW_BOUNDARY ? "a boundary name"
                       : s->kind == DG_FLUX_KW_INTEGRAL ? "an integral name"
                                                        : "a field name";
    const dg_flux_token *name;
    if (!expect_name(p, what, &name))
      return NULL;
    s->name = name->text;
    s->len = name->len;
    s->name_loc = name->loc;
    if (s->kind == DG_FLUX_KW_BOUNDARY)
      ok = parse_boundary(p, s);
    else
      ok = (s->expr = assignment(p, name)) != NULL;
  }
  }
  if (!ok)
    return NULL;
  const dg_flux_token *t = peek(p);
  if (!at_statement_end(p)) {
    if (t->kind == DG_FLUX_TK_RPAREN || t->kind == DG_FLUX_TK_RBRACKET ||
        t->kind == DG_FLUX_TK_RBRACE)
      return fail(p, t->loc, "unmatched %s", dg_flux_token_describe(t->kind));
    return fail(p, t->loc, "unexpected %s after the end of the '%s' statement",
                found(t, buf, sizeof buf), dg_flux_keyword_name(s->kind));
  }
  return s;
}

dg_error dg_flux_parse_tokens(dg_flux_source *src, const dg_flux_token *tokens, int count,
                              dg_flux_arena *arena, dg_flux_stmt **out) {
  DG_CHECK(src && tokens && count > 0 && arena && out, DG_ERR_ARG, "bad arguments");
  DG_CHECK(tokens[count - 1].kind == DG_FLUX_TK_EOF, DG_ERR_ARG, "tokens must end with EOF");
  parser p = {.src = src, .arena = arena, .t = tokens, .n = count};
  dg_flux_stmt *head = NULL, **tail = &head;
  for (;;) {
    while (accept(&p, DG_FLUX_TK_NEWLINE) || accept(&p, DG_FLUX_TK_SEMI))
      ;
    if (at(&p, DG_FLUX_TK_EOF) || dg_flux_diag_full(src))
      break;
    p.failed = 0;
    p.depth = 0;
    int start = p.pos;
    dg_flux_stmt *s = statement(&p);
    DG_CHECK(!p.oom, DG_ERR_MEMORY, "out of memory parsing %s", src->name);
    if (s) {
      *tail = s;
      tail = &s->next;
    } else {
      /* Resume at the next keyword that starts a statement. */
      while (!at(&p, DG_FLUX_TK_EOF)) {
        if (p.pos > start && at(&p, DG_FLUX_TK_KEYWORD) &&
            (p.t[p.pos - 1].kind == DG_FLUX_TK_NEWLINE ||
             p.t[p.pos - 1].kind == DG_FLUX_TK_SEMI))
          break;
        next(&p);
      }
    }
  }
  *out = head;
  return DG_OK;
}

dg_error dg_flux_parse_expression(dg_flux_source *src, const dg_flux_token *tokens, int count,
                                  dg_flux_arena *arena, dg_flux_syn **out) {
  DG_CHECK(src && tokens && count > 0 && arena && out, DG_ERR_ARG, "bad arguments");
  DG_CHECK(tokens[count - 1].kind == DG_FLUX_TK_EOF, DG_ERR_ARG, "tokens must end with EOF");
  parser p = {.src = src, .arena = arena, .t = tokens, .n = count};
  *out = NULL;
  skip_newlines(&p);
  const dg_flux_token *first = peek(&p);
  char buf[96];
  dg_flux_syn *e = NULL;
  if (first->kind == DG_FLUX_TK_EOF)
    fail(&p, first->loc, "expected an expression, found nothing");
  else
    e = expr(&p);
  DG_CHECK(!p.oom, DG_ERR_MEMORY, "out of memory parsing %s", src->name);
  skip_newlines(&p);
  const dg_flux_token *t = peek(&p);
  if (e && t->kind != DG_FLUX_TK_EOF) {
    if (t->kind == DG_FLUX_TK_RPAREN || t->kind == DG_FLUX_TK_RBRACKET ||
        t->kind == DG_FLUX_TK_RBRACE)
      fail(&p, t->loc, "unmatched %s", dg_flux_token_describe(t->kind));
    else
      fail(&p, t->loc, "unexpected %s after the end of the expression",
           found(t, buf, sizeof buf));
    e = NULL;
  }
  *out = e;
  return DG_OK;
}
