#include "operators/flux_lexer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const keywords[DG_FLUX_KW_COUNT] = {
    "dim", "fields", "params", "let", "rhs", "flux", "boundary", "initial", "exact", "source",
    "integral", "coefficients", "wave_speed"};

const char *dg_flux_keyword_name(int keyword) {
  return keyword >= 0 && keyword < DG_FLUX_KW_COUNT ? keywords[keyword] : "?";
}

const char *dg_flux_token_describe(dg_flux_tok_kind kind) {
  switch (kind) {
  case DG_FLUX_TK_EOF: return "end of file";
  case DG_FLUX_TK_NEWLINE: return "end of line";
  case DG_FLUX_TK_NUMBER: return "a number";
  case DG_FLUX_TK_NAME: return "a name";
  case DG_FLUX_TK_KEYWORD: return "a keyword";
  case DG_FLUX_TK_LPAREN: return "'('";
  case DG_FLUX_TK_RPAREN: return "')'";
  case DG_FLUX_TK_LBRACKET: return "'['";
  case DG_FLUX_TK_RBRACKET: return "']'";
  case DG_FLUX_TK_LBRACE: return "'{'";
  case DG_FLUX_TK_RBRACE: return "'}'";
  case DG_FLUX_TK_COMMA: return "','";
  case DG_FLUX_TK_SEMI: return "';'";
  case DG_FLUX_TK_ASSIGN: return "'='";
  case DG_FLUX_TK_DOT: return "'.'";
  case DG_FLUX_TK_PLUS: return "'+'";
  case DG_FLUX_TK_MINUS: return "'-'";
  case DG_FLUX_TK_STAR: return "'*'";
  case DG_FLUX_TK_SLASH: return "'/'";
  case DG_FLUX_TK_CARET: return "'^'";
  case DG_FLUX_TK_LT: return "'<'";
  case DG_FLUX_TK_LE: return "'<='";
  case DG_FLUX_TK_GT: return "'>'";
  case DG_FLUX_TK_GE: return "'>='";
  case DG_FLUX_TK_EQ: return "'=='";
  case DG_FLUX_TK_NE: return "'!='";
  case DG_FLUX_TK_AND: return "'&&'";
  case DG_FLUX_TK_OR: return "'||'";
  case DG_FLUX_TK_NOT: return "'!'";
  case DG_FLUX_TK_QUESTION: return "'?'";
  case DG_FLUX_TK_COLON: return "':'";
  case DG_FLUX_TK_ERROR: return "an invalid character";
  }
  return "?";
}

typedef struct lexer {
  dg_flux_source *src;
  const unsigned char *p, *end;
  int line, col;
  dg_flux_token *toks;
  int n, cap;
  int depth;      /* open ( and [ : newlines inside are skipped */
  int line_start; /* no token yet on this line */
  int bad_line;   /* last line that got an encoding error (one per line) */
} lexer;

static int is_name_start(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static int is_digit(int c) { return c >= '0' && c <= '9'; }

static dg_error push(lexer *lx, dg_flux_tok_kind kind, dg_flux_loc loc, const char *text,
                     int len) {
  if (lx->n == lx->cap) {
    int cap = lx->cap ? 2 * lx->cap : 256;
    dg_flux_token *t = realloc(lx->toks, (size_t)cap * sizeof *t);
    DG_CHECK(t, DG_ERR_MEMORY, "out of memory lexing %s", lx->src->name);
    lx->toks = t;
    lx->cap = cap;
  }
  dg_flux_token *t = &lx->toks[lx->n++];
  memset(t, 0, sizeof *t);
  t->kind = kind;
  t->loc = loc;
  t->text = text;
  t->len = len;
  t->keyword = -1;
  return DG_OK;
}

static dg_flux_loc here(const lexer *lx, int len) {
  return (dg_flux_loc){lx->line, lx->col, len};
}

/* Newline token unless one is already last (or nothing precedes it). */
static dg_error newline(lexer *lx, dg_flux_loc loc) {
  if (lx->n > 0 && lx->toks[lx->n - 1].kind != DG_FLUX_TK_NEWLINE)
    DG_CALL(push(lx, DG_FLUX_TK_NEWLINE, loc, NULL, 0));
  return DG_OK;
}

static dg_error lex_number(lexer *lx) {
  const unsigned char *s = lx->p;
  dg_flux_loc loc = here(lx, 0);
  const unsigned char *q = s;
  while (q < lx->end && is_digit(*q))
    q++;
  if (q < lx->end && *q == '.') {
    q++;
    while (q < lx->end && is_digit(*q))
      q++;
  }
  int bad = 0;
  if (q < lx->end && (*q == 'e' || *q == 'E')) {
    const unsigned char *e = q + 1;
    if (e < lx->end && (*e == '+' || *e == '-'))
      e++;
    if (e < lx->end && is_digit(*e)) {
      while (e < lx->end && is_digit(*e))
        e++;
      q = e;
    } else {
      bad = 1; /* "1e" or "2e+" */
      q = e;
    }
  }
  int len = (int)(q - s);
  loc.len = len;
  lx->p = q;
  lx->col += len;
  if (bad) {
    dg_flux_diag_error(lx->src, loc, "malformed number '%.*s': the exponent has no digits",
                       len, (const char *)s);
    return push(lx, DG_FLUX_TK_ERROR, loc, (const char *)s, len);
  }
  if (q < lx->end && is_name_start(*q)) {
    dg_flux_diag_error(lx->src, here(lx, 1),
                       "a name cannot follow the number '%.*s' directly: write '%.*s*%c...'",
                       len, (const char *)s, len, (const char *)s, *q);
    /* keep the number; the name is lexed next */
  }
  /* strtod needs a NUL-terminated copy.  (It uses the C locale's '.', which
   * dgrun never changes with setlocale.) */
  char small[64], *buf = small;
  if ((size_t)len + 1 > sizeof small) {
    buf = malloc((size_t)len + 1);
    DG_CHECK(buf, DG_ERR_MEMORY, "out of memory lexing a number");
  }
  memcpy(buf, s, (size_t)len);
  buf[len] = '\0';
  double v = strtod(buf, NULL);
  if (buf != small)
    free(buf);
  if (!isfinite(v)) {
    dg_flux_diag_error(lx->src, loc, "number '%.*s' is too large for a double", len,
                       (const char *)s);
    v = 0;
  }
  DG_CALL(push(lx, DG_FLUX_TK_NUMBER, loc, (const char *)s, len));
  lx->toks[lx->n - 1].value = v;
  return DG_OK;
}

enum { NAME_MAX_LEN = 64 };

static dg_error lex_name(lexer *lx) {
  const unsigned char *s = lx->p, *q = s;
  while (q < lx->end && (is_name_start(*q) || is_digit(*q)))
    q++;
  int len = (int)(q - s);
  dg_flux_loc loc = here(lx, len);
  lx->p = q;
  lx->col += len;
  if (len > NAME_MAX_LEN) {
    dg_flux_diag_error(lx->src, loc, "name is %d characters long; the limit is %d", len,
                       NAME_MAX_LEN);
    len = NAME_MAX_LEN;
  }
  int kw = -1;
  for (int k = 0; k < DG_FLUX_KW_COUNT; k++)
    if ((size_t)len == strlen(keywords[k]) && memcmp(s, keywords[k], (size_t)len) == 0)
      kw = k;
  if (kw >= 0 && lx->line_start && lx->depth > 0) {
    /* A statement keyword at the start of a line with a bracket still open:
     * end the statement here so the parser reports the bracket. */
    lx->depth = 0;
    DG_CALL(newline(lx, loc));
  }
  DG_CALL(push(lx, kw >= 0 ? DG_FLUX_TK_KEYWORD : DG_FLUX_TK_NAME, loc, (const char *)s, len));
  lx->toks[lx->n - 1].keyword = kw;
  return DG_OK;
}

typedef struct punct {
  const char *text;
  dg_flux_tok_kind kind;
} punct;

/* Longest first, so "<=" wins over "<". */
static const punct puncts[] = {
    {"<=", DG_FLUX_TK_LE}, {">=", DG_FLUX_TK_GE}, {"==", DG_FLUX_TK_EQ},
    {"!=", DG_FLUX_TK_NE}, {"&&", DG_FLUX_TK_AND}, {"||", DG_FLUX_TK_OR},
    {"(", DG_FLUX_TK_LPAREN}, {")", DG_FLUX_TK_RPAREN}, {"[", DG_FLUX_TK_LBRACKET},
    {"]", DG_FLUX_TK_RBRACKET}, {"{", DG_FLUX_TK_LBRACE}, {"}", DG_FLUX_TK_RBRACE},
    {",", DG_FLUX_TK_COMMA}, {";", DG_FLUX_TK_SEMI}, {"=", DG_FLUX_TK_ASSIGN},
    {".", DG_FLUX_TK_DOT}, {"+", DG_FLUX_TK_PLUS}, {"-", DG_FLUX_TK_MINUS},
    {"*", DG_FLUX_TK_STAR}, {"/", DG_FLUX_TK_SLASH}, {"^", DG_FLUX_TK_CARET},
    {"<", DG_FLUX_TK_LT}, {">", DG_FLUX_TK_GT}, {"!", DG_FLUX_TK_NOT},
    {"?", DG_FLUX_TK_QUESTION}, {":", DG_FLUX_TK_COLON},
};

/* Report the character at p (valid UTF-8 of `len` bytes, code point cp) as
 * unexpected. */
static void unexpected_char(lexer *lx, unsigned cp, int len) {
  dg_flux_loc loc = here(lx, 1);
  if (cp >= 0x21 && cp < 0x7F)
    dg_flux_diag_error(lx->src, loc, "unexpected character '%c'", (int)cp);
  else if (cp >= 0xA0)
    dg_flux_diag_error(lx->src, loc, "unexpected character '%.*s' (U+%04X)", len,
                       (const char *)lx->p, cp);
  else
    dg_flux_diag_error(lx->src, loc, "unexpected control character U+%04X", cp);
}

dg_error dg_flux_lex(dg_flux_source *src, dg_flux_token **tokens, int *count) {
  DG_CHECK(src && tokens && count, DG_ERR_ARG, "NULL argument");
  lexer lx = {.src = src,
              .p = (const unsigned char *)src->text,
              .end = (const unsigned char *)src->text + src->size,
              .line = 1,
              .col = 1,
              .line_start = 1};
  dg_error err = DG_OK;
  while (lx.p < lx.end && !dg_flux_diag_full(src)) {
    int c = *lx.p;
    if (c == '\n') {
      if (lx.depth == 0)
        DG_CALL_GOTO(err, fail, newline(&lx, here(&lx, 1)));
      lx.p++;
      lx.line++;
      lx.col = 1;
      lx.line_start = 1;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r') {
      lx.p++;
      lx.col++;
      continue;
    }
    /* Every byte of the file must be UTF-8, comments included. */
    unsigned cp;
    int len = dg_flux_utf8_decode(lx.p, (size_t)(lx.end - lx.p), &cp);
    if (len == 0) {
      if (lx.bad_line != lx.line)
        dg_flux_diag_error(src, here(&lx, 1), "invalid UTF-8 byte 0x%02X", (unsigned)c);
      lx.bad_line = lx.line;
      DG_CALL_GOTO(err, fail, push(&lx, DG_FLUX_TK_ERROR, here(&lx, 1), (const char *)lx.p, 1));
      lx.p++;
      lx.col++;
      lx.line_start = 0;
      continue;
    }
    if (c == '#') {
      while (lx.p < lx.end && *lx.p != '\n') {
        len = dg_flux_utf8_decode(lx.p, (size_t)(lx.end - lx.p), &cp);
        if (len == 0) {
          if (lx.bad_line != lx.line)
            dg_flux_diag_error(src, here(&lx, 1), "invalid UTF-8 byte 0x%02X", *lx.p);
          lx.bad_line = lx.line;
          len = 1;
        }
        lx.p += len;
        lx.col++;
      }
      continue;
    }
    if (is_digit(c) || (c == '.' && lx.p + 1 < lx.end && is_digit(lx.p[1]))) {
      DG_CALL_GOTO(err, fail, lex_number(&lx));
    } else if (is_name_start(c)) {
      DG_CALL_GOTO(err, fail, lex_name(&lx));
    } else {
      const punct *found = NULL;
      for (size_t i = 0; i < sizeof puncts / sizeof *puncts && !found; i++) {
        size_t pl = strlen(puncts[i].text);
        if ((size_t)(lx.end - lx.p) >= pl && memcmp(lx.p, puncts[i].text, pl) == 0)
          found = &puncts[i];
      }
      if (!found) {
        unexpected_char(&lx, cp, len);
        DG_CALL_GOTO(err, fail, push(&lx, DG_FLUX_TK_ERROR, here(&lx, 1), (const char *)lx.p, len));
        lx.p += len;
        lx.col++;
        lx.line_start = 0;
        continue;
      }
      int pl = (int)strlen(found->text);
      dg_flux_loc loc = here(&lx, pl);
      switch (found->kind) {
      case DG_FLUX_TK_LPAREN:
      case DG_FLUX_TK_LBRACKET: lx.depth++; break;
      case DG_FLUX_TK_RPAREN:
      case DG_FLUX_TK_RBRACKET:
        if (lx.depth > 0)
          lx.depth--;
        break;
      case DG_FLUX_TK_SEMI:
      case DG_FLUX_TK_LBRACE:
      case DG_FLUX_TK_RBRACE: lx.depth = 0; break; /* never inside brackets */
      default: break;
      }
      DG_CALL_GOTO(err, fail, push(&lx, found->kind, loc, (const char *)lx.p, pl));
      lx.p += pl;
      lx.col += pl;
    }
    lx.line_start = 0;
  }
  DG_CALL_GOTO(err, fail, newline(&lx, here(&lx, 1)));
  DG_CALL_GOTO(err, fail, push(&lx, DG_FLUX_TK_EOF, here(&lx, 1), NULL, 0));
  *tokens = lx.toks;
  *count = lx.n;
  return DG_OK;
fail:
  free(lx.toks);
  return err;
}
