/* Tokens of the flux language.
 *
 * Newlines end statements, except inside ( ) and [ ], where they are
 * skipped so long expressions can be wrapped.  A statement keyword at the
 * start of a line always starts a new statement, even with a bracket still
 * open: the parser then reports the unclosed bracket instead of swallowing
 * the rest of the file. */
#ifndef DG_OPERATORS_FLUX_LEXER_H
#define DG_OPERATORS_FLUX_LEXER_H

#include "operators/flux_diag.h"

typedef enum dg_flux_tok_kind {
  DG_FLUX_TK_EOF, DG_FLUX_TK_NEWLINE, DG_FLUX_TK_NUMBER, DG_FLUX_TK_NAME,
  DG_FLUX_TK_KEYWORD,
  DG_FLUX_TK_LPAREN, DG_FLUX_TK_RPAREN, DG_FLUX_TK_LBRACKET, DG_FLUX_TK_RBRACKET,
  DG_FLUX_TK_LBRACE, DG_FLUX_TK_RBRACE,
  DG_FLUX_TK_COMMA, DG_FLUX_TK_SEMI, DG_FLUX_TK_ASSIGN, DG_FLUX_TK_DOT,
  DG_FLUX_TK_PLUS, DG_FLUX_TK_MINUS, DG_FLUX_TK_STAR, DG_FLUX_TK_SLASH, DG_FLUX_TK_CARET,
  DG_FLUX_TK_LT, DG_FLUX_TK_LE, DG_FLUX_TK_GT, DG_FLUX_TK_GE, DG_FLUX_TK_EQ,
  DG_FLUX_TK_NE, DG_FLUX_TK_AND, DG_FLUX_TK_OR, DG_FLUX_TK_NOT,
  DG_FLUX_TK_QUESTION, DG_FLUX_TK_COLON,
  DG_FLUX_TK_ERROR /* text the lexer already reported (the parser stays quiet on it) */
} dg_flux_tok_kind;

/* Statement keywords (reserved; they cannot name anything). */
typedef enum dg_flux_keyword {
  DG_FLUX_KW_DIM, DG_FLUX_KW_FIELDS, DG_FLUX_KW_PARAMS, DG_FLUX_KW_LET, DG_FLUX_KW_RHS,
  DG_FLUX_KW_FLUX, DG_FLUX_KW_BOUNDARY, DG_FLUX_KW_INITIAL, DG_FLUX_KW_EXACT,
  DG_FLUX_KW_SOURCE, DG_FLUX_KW_INTEGRAL, DG_FLUX_KW_COEFFICIENTS, DG_FLUX_KW_WAVE_SPEED,
  DG_FLUX_KW_COUNT
} dg_flux_keyword;

typedef struct dg_flux_token {
  dg_flux_tok_kind kind;
  int keyword;      /* KEYWORD: dg_flux_keyword */
  dg_flux_loc loc;
  const char *text; /* into the source: NAME, KEYWORD, NUMBER */
  int len;          /* bytes of text */
  double value;     /* NUMBER */
} dg_flux_token;

/* Split src into tokens (ending with EOF).  Lexical errors go to
 * src->diags and the offending characters are skipped.  *tokens is
 * malloc'ed (free() it).  Fails only when out of memory. */
dg_error dg_flux_lex(dg_flux_source *src, dg_flux_token **tokens, int *count);

/* "fields", "rhs", ... */
const char *dg_flux_keyword_name(int keyword);
/* How a token kind is written in messages: "')'", "end of line". */
const char *dg_flux_token_describe(dg_flux_tok_kind kind);

#endif
