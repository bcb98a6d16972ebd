/* core/config: the INI reader (syntax in config.h): UTF-8 checks, section
 * and key lines, quoted values; every problem of a file in one message. */
#include "core/config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/config_internal.h"
#include "core/fsutil.h"

/* ---- parsing ------------------------------------------------------------ */

typedef struct {
  dg_config *cfg;
  report rep;
  section *cur;
  int skip_keys; /* after a bad [section] line: do not cascade errors */
  int line;
  const char *ls; /* start of the current line */
  dg_error fatal; /* out of memory: stop */
} parser;

#define PERR(P, at, ...) dg_cfg_report_add(&(P)->rep, (P)->cfg->name, (P)->line, dg_cfg_column((P)->ls, (at)), __VA_ARGS__)

/* A double-quoted value starting at v (*v == '"') and ending before end: the
 * unescaped text (\" and \\; other backslashes are kept) is written to dst
 * (room for end - v bytes) with its length in *n; *after points past the
 * closing quote.  Returns -1 if the quote is not closed. */
int dg_cfg_unquote(const char *v, const char *end, char *dst, size_t *n,
                   const char **after) {
  size_t o = 0;
  for (const char *q = v + 1; q < end; q++) {
    if (*q == '\\' && q + 1 < end && (q[1] == '"' || q[1] == '\\')) {
      dst[o++] = *++q;
    } else if (*q == '"') {
      *n = o;
      *after = q + 1;
      return 0;
    } else {
      dst[o++] = *q;
    }
  }
  return -1;
}

/* Check that [s, e) is a non-empty identifier; report otherwise. */
static int check_ident(parser *p, const char *s, const char *e, const char *what) {
  char q[QUOTE_BUF];
  for (const char *c = s; c < e; c++) {
    if (!is_ident(*c)) {
      char bad[QUOTE_BUF];
      dg_cfg_quote_char(bad, c, e);
      PERR(p, c, "invalid character '%s' in %s '%s' (names use letters, digits, '_', '-', '.')",
           bad, what, dg_cfg_quote(q, s, (size_t)(e - s)));
      return -1;
    }
  }
  return 0;
}

static void parse_section_line(parser *p, const char *lb, const char *le) {
  char q[QUOTE_BUF];
  const char *rb = memchr(lb, ']', (size_t)(le - lb));
  p->skip_keys = 1;
  p->cur = NULL;
  if (!rb) {
    PERR(p, lb, "missing ']' to close the section name");
    return;
  }
  const char *ns = skip_ws(lb + 1, rb), *ne = trim_end(ns, rb);
  if (ns == ne) {
    PERR(p, rb, "empty section name");
    return;
  }
  if (check_ident(p, ns, ne, "section name"))
    return;
  const char *after = skip_ws(rb + 1, le);
  if (after < le && !is_comment(*after)) {
    PERR(p, after, "unexpected text '%s' after ']'", dg_cfg_quote(q, after, (size_t)(le - after)));
    return;
  }
  char *name = dg_cfg_keep(p->cfg, ns, (size_t)(ne - ns));
  if (!name) {
    p->fatal = dg_error_raise(DG_ERR_MEMORY, __FILE__, __LINE__, __func__, "out of memory");
    return;
  }
  section *old = dg_cfg_find_section(p->cfg, name);
  p->skip_keys = 0;
  if (old) {
    PERR(p, ns, "duplicate section [%s] (first at line %d)", dg_cfg_quotes(q, name), old->line);
    p->cur = old; /* its keys are still checked for duplicates */
    return;
  }
  if ((p->fatal = dg_cfg_add_section(p->cfg, ns, (size_t)(ne - ns), p->cfg->name, p->line,
                              dg_cfg_column(p->ls, ns), &p->cur)))
    dg_error_push(p->fatal, __FILE__, __LINE__, __func__);
}

static void parse_key_line(parser *p, const char *ks, const char *le) {
  char q[QUOTE_BUF], q2[QUOTE_BUF];
  const char *eq = ks;
  while (eq < le && *eq != '=' && !is_comment(*eq))
    eq++;
  if (eq == le || *eq != '=') {
    PERR(p, ks, "expected 'key = value' or '[section]', found '%s'",
         dg_cfg_quote(q, ks, (size_t)(trim_end(ks, eq) - ks)));
    return;
  }
  const char *ke = trim_end(ks, eq);
  if (ke == ks) {
    PERR(p, eq, "missing key name before '='");
    return;
  }
  if (check_ident(p, ks, ke, "key"))
    return;
  if (p->skip_keys)
    return;
  if (!p->cur) {
    PERR(p, ks, "key '%s' before any [section]", dg_cfg_quote(q, ks, (size_t)(ke - ks)));
    return;
  }
  const char *v = skip_ws(eq + 1, le), *ve;
  char *value = NULL;
  if (v < le && *v == '"') {
    /* The unescaped text is never longer than the quoted text. */
    value = dg_cfg_keep(p->cfg, v, (size_t)(le - v));
    size_t n;
    const char *after;
    if (value && dg_cfg_unquote(v, le, value, &n, &after)) {
      PERR(p, v, "missing closing '\"' of the value of '%s'", dg_cfg_quote(q, ks, (size_t)(ke - ks)));
      return;
    }
    if (value) {
      value[n] = '\0';
      after = skip_ws(after, le);
      if (after < le && !is_comment(*after)) {
        PERR(p, after, "unexpected text '%s' after the closing '\"'",
             dg_cfg_quote(q, after, (size_t)(le - after)));
        return;
      }
    }
  } else {
    ve = v;
    while (ve < le && !is_comment(*ve))
      ve++;
    value = dg_cfg_keep(p->cfg, v, (size_t)(trim_end(v, ve) - v));
  }
  if (!value) {
    p->fatal = dg_error_raise(DG_ERR_MEMORY, __FILE__, __LINE__, __func__, "out of memory");
    return;
  }
  /* Compare the key without a copy: it is not NUL-terminated in the text. */
  for (size_t i = 0; i < p->cur->n; i++) {
    const entry *e = &p->cur->e[i];
    if (strlen(e->key) == (size_t)(ke - ks) && memcmp(e->key, ks, (size_t)(ke - ks)) == 0) {
      PERR(p, ks, "duplicate key '%s' in [%s] (first set at line %d)", dg_cfg_quotes(q, e->key),
           dg_cfg_quotes(q2, p->cur->name), e->line);
      return;
    }
  }
  if ((p->fatal = dg_cfg_set_entry(p->cfg, p->cur, ks, (size_t)(ke - ks), value, p->cfg->name,
                            p->line, dg_cfg_column(p->ls, ks), dg_cfg_column(p->ls, v))))
    dg_error_push(p->fatal, __FILE__, __LINE__, __func__);
}

dg_error dg_config_read_buffer(const char *data, size_t len, const char *name,
                               dg_config **out) {
  DG_CHECK(data && name && out, DG_ERR_ARG, "dg_config_read_buffer: NULL argument");
  *out = NULL;
  DG_CHECK(len <= MAX_CONFIG_BYTES, DG_ERR_INPUT,
           "%s: error: %zu bytes is too large for a config file (limit %zu)", name, len,
           MAX_CONFIG_BYTES);
  dg_config *c;
  DG_CALL(dg_cfg_config_new(name, &c));
  /* A UTF-8 byte order mark (written by some editors) is not content. */
  size_t start = len >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
  char why[128];
  size_t bad = dg_cfg_check_text(data + start, len - start, why, sizeof why) + start;
  if (bad < len) {
    int line = 1;
    const char *ls = data + start;
    for (const char *q = data + start; q < data + bad; q++)
      if (*q == '\n')
        line++, ls = q + 1;
    int col = dg_cfg_column(ls, data + bad);
    dg_config_destroy(&c);
    DG_RAISE(DG_ERR_INPUT, "%s:%d:%d: error: %s", name, line, col, why);
  }
  parser p = {.cfg = c};
  for (size_t pos = start; pos < len && !p.fatal;) {
    const char *ls = data + pos, *nl = memchr(ls, '\n', len - pos);
    const char *le = nl ? nl : data + len;
    pos = nl ? (size_t)(nl - data) + 1 : len;
    if (le > ls && le[-1] == '\r')
      le--;
    p.line++;
    p.ls = ls;
    const char *t = skip_ws(ls, le);
    if (t == le || is_comment(*t))
      continue;
    if (*t == '[')
      parse_section_line(&p, t, le);
    else
      parse_key_line(&p, t, le);
  }
  if (p.fatal) {
    free(p.rep.buf);
    dg_config_destroy(&c);
    return dg_error_push(p.fatal, __FILE__, __LINE__, __func__);
  }
  if (p.rep.count) {
    dg_config_destroy(&c);
    return dg_cfg_report_raise(&p.rep, DG_ERR_INPUT);
  }
  *out = c;
  return DG_OK;
}

dg_error dg_config_read_string(const char *text, const char *name, dg_config **out) {
  DG_CHECK(text, DG_ERR_ARG, "dg_config_read_string: NULL text");
  DG_CALL(dg_config_read_buffer(text, strlen(text), name, out));
  return DG_OK;
}

dg_error dg_config_read_file(const char *path, dg_config **out) {
  DG_CHECK(path && out, DG_ERR_ARG, "dg_config_read_file: NULL argument");
  *out = NULL;
  FILE *f;
  DG_CALL(dg_fsutil_fopen_input(path, "config file", &f));
  char *buf = NULL;
  size_t len = 0, cap = 0;
  dg_error err = DG_OK;
  for (;;) {
    if (dg_cfg_grow((void **)&buf, &cap, len + 65536, 1)) {
      err = dg_error_raise(DG_ERR_MEMORY, __FILE__, __LINE__, __func__,
                           "out of memory reading '%s'", path);
      break;
    }
    size_t got = fread(buf + len, 1, cap - len, f);
    len += got;
    if (got == 0 || len > MAX_CONFIG_BYTES)
      break;
  }
  if (!err && ferror(f))
    err = dg_error_raise(DG_ERR_IO, __FILE__, __LINE__, __func__,
                         "cannot read config file '%s': %s", path, strerror(errno));
  fclose(f);
  if (!err)
    err = dg_config_read_buffer(buf, len, path, out);
  free(buf);
  DG_CALL(err);
  return DG_OK;
}