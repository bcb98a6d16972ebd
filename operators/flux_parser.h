/* Parser of the flux language: tokens -> syntax tree (untyped, names still
 * text).  The checker (flux_check) turns it into the typed AST of
 * flux_ast.h; the syntax tree never leaves operators/.  The grammar is in
 * FLUX_LANGUAGE.md. */
#ifndef DG_OPERATORS_FLUX_PARSER_H
#define DG_OPERATORS_FLUX_PARSER_H

#include "operators/flux_lexer.h"

typedef enum dg_flux_syn_kind {
  DG_FLUX_SYN_NUM,     /* value */
  DG_FLUX_SYN_NAME,    /* name */
  DG_FLUX_SYN_CALL,    /* name(args) */
  DG_FLUX_SYN_UNARY,   /* op args[0]; op = '-', '+' or '!' token */
  DG_FLUX_SYN_BINARY,  /* args[0] op args[1] */
  DG_FLUX_SYN_TERNARY, /* args[0] ? args[1] : args[2] */
  DG_FLUX_SYN_VEC,     /* [args...] */
  DG_FLUX_SYN_INDEX,   /* args[0][args[1]] */
  DG_FLUX_SYN_TRACE    /* args[0].int (op = DG_FLUX_SIDE_INT) or .ext */
} dg_flux_syn_kind;

typedef struct dg_flux_syn {
  dg_flux_syn_kind kind;
  int op;
  dg_flux_loc loc; /* the name, operator or opening bracket */
  const char *name;
  int len;
  double value;
  int paren;  /* written in parentheses */
  int height; /* 1 + the largest height of its arguments */
  int nargs;
  struct dg_flux_syn **args;
} dg_flux_syn;

/* One entry of a list statement: a field (ncomp = -1 scalar, k for E[k]),
 * a param (expr = default), a boundary assignment (name = expr, or
 * grad(name) = expr with grad set), a
 * coefficient (lo / hi: its bounds or NULL, lo_op '>' or '>=' and hi_op
 * '<' or '<=' tokens). */
typedef struct dg_flux_item {
  const char *name;
  int len;
  dg_flux_loc loc;
  int ncomp;
  dg_flux_syn *expr;
  int lo_op, hi_op;
  dg_flux_syn *lo, *hi;
  int grad; /* boundary: `grad(NAME) = expr`, the exterior gradient of NAME */
} dg_flux_item;

typedef struct dg_flux_stmt {
  dg_flux_keyword kind;
  dg_flux_loc loc;      /* the keyword */
  const char *name;     /* target: field of rhs/flux/...; let or boundary name */
  int len;
  dg_flux_loc name_loc;
  dg_flux_syn *expr;    /* rhs, flux, initial, exact, source, let */
  int value;            /* dim */
  dg_flux_loc value_loc;
  int nitems;           /* fields, params, coefficients, boundary */
  dg_flux_item *items;
  dg_flux_loc end_loc;  /* boundary: the closing brace */
  struct dg_flux_stmt *next;
} dg_flux_stmt;

/* Parse tokens[0..count) (ending with EOF) into a list of the statements
 * that parsed without error, allocated in `arena`.  Syntax errors go to
 * src->diags; parsing resumes at the next statement.  Fails only when out
 * of memory. */
dg_error dg_flux_parse_tokens(dg_flux_source *src, const dg_flux_token *tokens, int count,
                              dg_flux_arena *arena, dg_flux_stmt **out);

/* Parse tokens[0..count) (ending with EOF) as one expression and nothing
 * else (a problem.cfg value, operators/flux_expr.h): *out is NULL after a
 * syntax error, which goes to src->diags.  Fails only when out of memory. */
dg_error dg_flux_parse_expression(dg_flux_source *src, const dg_flux_token *tokens, int count,
                                  dg_flux_arena *arena, dg_flux_syn **out);

#endif
