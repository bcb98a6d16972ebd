#include "core/config.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/fsutil.h"
#include "core/suggest.h"

/* Limits that keep messages inside the error trace's 2 KiB: at most
 * MAX_REPORTED problems are spelled out (then "... and N more"), and user
 * text quoted in a message is cut after QUOTE_MAX characters. */
enum { MAX_REPORTED = 12, QUOTE_MAX = 40, QUOTE_BUF = 4 * QUOTE_MAX + 8 };
/* Anything larger is not a hand-written config file. */
#define MAX_CONFIG_BYTES ((size_t)64 << 20)

static const char CMDLINE[] = "<command line>";
static const char DEFAULTED[] = "<default>";

typedef struct {
  const char *key, *value;
  const char *origin; /* cfg->name, CMDLINE or DEFAULTED */
  int line, key_col, value_col;
} entry;

typedef struct {
  const char *name;
  const char *origin;
  int line, col;
  entry *e;
  size_t n, cap;
} section;

struct dg_config {
  const char *name, *dir;
  section **s;
  size_t n, cap;
  /* The schema of the last successful dg_config_validate: the getters take
   * an absent key's default and an enum's choices from it. */
  const dg_config_key *schema;
  size_t nschema;
  /* Every string the config hands out or stores: freed by destroy. */
  char **owned;
  size_t nowned, capowned;
};

/* ---- small helpers ------------------------------------------------------ */

static int grow(void **p, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap)
    return 0;
  size_t c = *cap ? *cap : 8;
  while (c < need)
    c *= 2;
  void *q = realloc(*p, c * elem);
  if (!q)
    return -1;
  *p = q;
  *cap = c;
  return 0;
}

/* Room for n characters and a NUL, owned by cfg; NULL when out of memory. */
static char *alloc_kept(dg_config *c, size_t n) {
  if (grow((void **)&c->owned, &c->capowned, c->nowned + 1, sizeof *c->owned))
    return NULL;
  char *d = malloc(n + 1);
  if (d)
    c->owned[c->nowned++] = d;
  return d;
}

/* A NUL-terminated copy of s[0..n) owned by cfg, or NULL when out of memory. */
static char *keep(dg_config *c, const char *s, size_t n) {
  char *d = alloc_kept(c, n);
  if (d) {
    memcpy(d, s, n);
    d[n] = '\0';
  }
  return d;
}

static int is_ws(char ch) { return ch == ' ' || ch == '\t'; }
static int is_comment(char ch) { return ch == ';' || ch == '#'; }
static int is_ident(char ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
         (ch >= '0' && ch <= '9') || ch == '_' || ch == '-' || ch == '.';
}
static const char *skip_ws(const char *p, const char *end) {
  while (p < end && is_ws(*p))
    p++;
  return p;
}
static const char *trim_end(const char *start, const char *end) {
  while (end > start && is_ws(end[-1]))
    end--;
  return end;
}

/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 if invalid:
 * overlong forms, surrogates and code points past U+10FFFF are invalid. */
static size_t utf8_len(const unsigned char *s, size_t n) {
  unsigned c = s[0], cp, min;
  size_t k;
  if (c < 0x80)
    return 1;
  if (c >= 0xC2 && c <= 0xDF) {
    k = 2, cp = c & 0x1F, min = 0x80;
  } else if ((c & 0xF0) == 0xE0) {
    k = 3, cp = c & 0x0F, min = 0x800;
  } else if (c >= 0xF0 && c <= 0xF4) {
    k = 4, cp = c & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (n < k)
    return 0;
  for (size_t i = 1; i < k; i++) {
    if ((s[i] & 0xC0) != 0x80)
      return 0;
    cp = cp << 6 | (s[i] & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
    return 0;
  return k;
}

/* Check that d[0..len) is UTF-8 text without control characters (tab and
 * CR LF / LF line ends allowed).  Returns the offset of the first bad byte
 * and describes it in why, or returns len when all is well. */
static size_t check_text(const char *d, size_t len, char *why, size_t whyn) {
  const unsigned char *u = (const unsigned char *)d;
  for (size_t i = 0; i < len;) {
    unsigned c = u[i];
    if (c == '\n' || c == '\t' || (c >= 0x20 && c < 0x7F)) {
      i++;
    } else if (c == '\r' && i + 1 < len && u[i + 1] == '\n') {
      i++;
    } else if (c == 0) {
      snprintf(why, whyn, "NUL byte (not a text file?)");
      return i;
    } else if (c < 0x80) {
      snprintf(why, whyn, "control character 0x%02x", c);
      return i;
    } else {
      size_t k = utf8_len(u + i, len - i);
      if (k == 0) {
        snprintf(why, whyn, "invalid UTF-8 byte 0x%02x (save the file as UTF-8)", c);
        return i;
      }
      i += k;
    }
  }
  return len;
}

/* Column (from 1, in characters) of p on the line starting at ls. */
static int column(const char *ls, const char *p) {
  int col = 1;
  for (const char *q = ls; q < p; q++)
    col += ((unsigned char)*q & 0xC0) != 0x80;
  return col;
}

/* Copy user text s[0..n) into buf (QUOTE_BUF bytes) for a message: control
 * bytes and invalid UTF-8 become '?', and text past QUOTE_MAX characters is
 * cut with "...". */
static const char *quote(char *buf, const char *s, size_t n) {
  size_t o = 0;
  int chars = 0;
  for (size_t i = 0; i < n;) {
    if (++chars > QUOTE_MAX) {
      memcpy(buf + o, "...", 3);
      o += 3;
      break;
    }
    unsigned char c = (unsigned char)s[i];
    size_t k = utf8_len((const unsigned char *)s + i, n - i);
    if (k == 0 || c < 0x20 || c == 0x7F) {
      buf[o++] = '?';
      i++;
    } else {
      memcpy(buf + o, s + i, k);
      o += k;
      i += k;
    }
  }
  buf[o] = '\0';
  return buf;
}
/* The one character at c (before end) as text, for "invalid character 'x'". */
static const char *quote_char(char *buf, const char *c, const char *end) {
  size_t k = utf8_len((const unsigned char *)c, (size_t)(end - c));
  return quote(buf, c, k ? k : 1);
}
static const char *quotes(char *buf, const char *s) { return quote(buf, s, strlen(s)); }

/* "name:line:col", "name:line" or "name" for a message. */
static const char *where(char *buf, size_t n, const char *origin, int line,
                         int col) {
  if (line > 0 && col > 0)
    snprintf(buf, n, "%s:%d:%d", origin, line, col);
  else if (line > 0)
    snprintf(buf, n, "%s:%d", origin, line);
  else
    snprintf(buf, n, "%s", origin);
  return buf;
}

/* ---- collecting several problems into one message ---------------------- */

typedef struct {
  char *buf;
  size_t len, cap;
  int count; /* problems found, reported or not */
  int oom;
} report;

static void report_add(report *r, const char *origin, int line, int col,
                       const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

static void report_add(report *r, const char *origin, int line, int col,
                       const char *fmt, ...) {
  if (++r->count > MAX_REPORTED || r->oom)
    return;
  char loc[512], msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  where(loc, sizeof loc, origin, line, col);
  size_t need = strlen(loc) + strlen(msg) + 16;
  if (grow((void **)&r->buf, &r->cap, r->len + need, 1)) {
    r->oom = 1;
    return;
  }
  r->len += (size_t)snprintf(r->buf + r->len, r->cap - r->len, "%s%s: error: %s",
                             r->len ? "\n" : "", loc, msg);
}

/* Raise the collected problems as one error (and free the buffer). */
static dg_error report_raise(report *r, dg_error code) {
  dg_error err;
  if (r->oom)
    err = dg_error_raise(DG_ERR_MEMORY, __FILE__, __LINE__, __func__,
                         "out of memory while reporting %d config errors", r->count);
  else if (r->count > MAX_REPORTED)
    err = dg_error_raise(code, __FILE__, __LINE__, __func__, "%s\n... and %d more errors",
                         r->buf, r->count - MAX_REPORTED);
  else
    err = dg_error_raise(code, __FILE__, __LINE__, __func__, "%s", r->buf);
  free(r->buf);
  r->buf = NULL;
  return err;
}

/* ---- the store ---------------------------------------------------------- */

static section *find_section(const dg_config *c, const char *name) {
  for (size_t i = 0; i < c->n; i++)
    if (strcmp(c->s[i]->name, name) == 0)
      return c->s[i];
  return NULL;
}

static entry *find_entry(const section *s, const char *key) {
  for (size_t i = 0; s && i < s->n; i++)
    if (strcmp(s->e[i].key, key) == 0)
      return &s->e[i];
  return NULL;
}

static const entry *lookup(const dg_config *c, const char *sec, const char *key) {
  return find_entry(find_section(c, sec), key);
}

static dg_error add_section(dg_config *c, const char *name, size_t n,
                            const char *origin, int line, int col, section **out) {
  section *s = calloc(1, sizeof *s);
  DG_CHECK(s, DG_ERR_MEMORY, "out of memory for a config section");
  s->name = keep(c, name, n);
  if (!s->name || grow((void **)&c->s, &c->cap, c->n + 1, sizeof *c->s)) {
    free(s);
    DG_RAISE(DG_ERR_MEMORY, "out of memory for config section [%.*s]", (int)n, name);
  }
  s->origin = origin;
  s->line = line;
  s->col = col;
  c->s[c->n++] = s;
  *out = s;
  return DG_OK;
}

/* Set key (n bytes) to value in s, replacing an earlier value. */
static dg_error set_entry(dg_config *c, section *s, const char *key, size_t n,
                          const char *value, const char *origin, int line,
                          int key_col, int value_col) {
  char *k = keep(c, key, n);
  DG_CHECK(k, DG_ERR_MEMORY, "out of memory for config key");
  entry *e = find_entry(s, k);
  if (!e) {
    DG_CHECK(!grow((void **)&s->e, &s->cap, s->n + 1, sizeof *s->e), DG_ERR_MEMORY,
             "out of memory for config key '%s'", k);
    e = &s->e[s->n++];
  }
  e->key = k;
  e->value = value;
  e->origin = origin;
  e->line = line;
  e->key_col = key_col;
  e->value_col = value_col;
  return DG_OK;
}

static dg_error config_new(const char *name, dg_config **out) {
  dg_config *c = calloc(1, sizeof *c);
  DG_CHECK(c, DG_ERR_MEMORY, "out of memory for a config");
  const char *slash = strrchr(name, '/');
  c->name = keep(c, name, strlen(name));
  if (!slash)
    c->dir = keep(c, ".", 1);
  else
    c->dir = keep(c, name, slash == name ? 1 : (size_t)(slash - name));
  if (!c->name || !c->dir) {
    dg_config_destroy(&c);
    DG_RAISE(DG_ERR_MEMORY, "out of memory for config '%s'", name);
  }
  *out = c;
  return DG_OK;
}

void dg_config_destroy(dg_config **cfg) {
  if (!cfg || !*cfg)
    return;
  dg_config *c = *cfg;
  for (size_t i = 0; i < c->n; i++) {
    free(c->s[i]->e);
    free(c->s[i]);
  }
  free(c->s);
  for (size_t i = 0; i < c->nowned; i++)
    free(c->owned[i]);
  free(c->owned);
  free(c);
  *cfg = NULL;
}

const char *dg_config_name(const dg_config *cfg) { return cfg->name; }
const char *dg_config_dir(const dg_config *cfg) { return cfg->dir; }

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

#define PERR(P, at, ...) report_add(&(P)->rep, (P)->cfg->name, (P)->line, column((P)->ls, (at)), __VA_ARGS__)

/* A double-quoted value starting at v (*v == '"') and ending before end: the
 * unescaped text (\" and \\; other backslashes are kept) is written to dst
 * (room for end - v bytes) with its length in *n; *after points past the
 * closing quote.  Returns -1 if the quote is not closed. */
static int unquote(const char *v, const char *end, char *dst, size_t *n,
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
      quote_char(bad, c, e);
      PERR(p, c, "invalid character '%s' in %s '%s' (names use letters, digits, '_', '-', '.')",
           bad, what, quote(q, s, (size_t)(e - s)));
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
    PERR(p, after, "unexpected text '%s' after ']'", quote(q, after, (size_t)(le - after)));
    return;
  }
  char *name = keep(p->cfg, ns, (size_t)(ne - ns));
  if (!name) {
    p->fatal = dg_error_raise(DG_ERR_MEMORY, __FILE__, __LINE__, __func__, "out of memory");
    return;
  }
  section *old = find_section(p->cfg, name);
  p->skip_keys = 0;
  if (old) {
    PERR(p, ns, "duplicate section [%s] (first at line %d)", quotes(q, name), old->line);
    p->cur = old; /* its keys are still checked for duplicates */
    return;
  }
  if ((p->fatal = add_section(p->cfg, ns, (size_t)(ne - ns), p->cfg->name, p->line,
                              column(p->ls, ns), &p->cur)))
    dg_error_push(p->fatal, __FILE__, __LINE__, __func__);
}

static void parse_key_line(parser *p, const char *ks, const char *le) {
  char q[QUOTE_BUF], q2[QUOTE_BUF];
  const char *eq = ks;
  while (eq < le && *eq != '=' && !is_comment(*eq))
    eq++;
  if (eq == le || *eq != '=') {
    PERR(p, ks, "expected 'key = value' or '[section]', found '%s'",
         quote(q, ks, (size_t)(trim_end(ks, eq) - ks)));
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
    PERR(p, ks, "key '%s' before any [section]", quote(q, ks, (size_t)(ke - ks)));
    return;
  }
  const char *v = skip_ws(eq + 1, le), *ve;
  char *value = NULL;
  if (v < le && *v == '"') {
    /* The unescaped text is never longer than the quoted text. */
    value = keep(p->cfg, v, (size_t)(le - v));
    size_t n;
    const char *after;
    if (value && unquote(v, le, value, &n, &after)) {
      PERR(p, v, "missing closing '\"' of the value of '%s'", quote(q, ks, (size_t)(ke - ks)));
      return;
    }
    if (value) {
      value[n] = '\0';
      after = skip_ws(after, le);
      if (after < le && !is_comment(*after)) {
        PERR(p, after, "unexpected text '%s' after the closing '\"'",
             quote(q, after, (size_t)(le - after)));
        return;
      }
    }
  } else {
    ve = v;
    while (ve < le && !is_comment(*ve))
      ve++;
    value = keep(p->cfg, v, (size_t)(trim_end(v, ve) - v));
  }
  if (!value) {
    p->fatal = dg_error_raise(DG_ERR_MEMORY, __FILE__, __LINE__, __func__, "out of memory");
    return;
  }
  /* Compare the key without a copy: it is not NUL-terminated in the text. */
  for (size_t i = 0; i < p->cur->n; i++) {
    const entry *e = &p->cur->e[i];
    if (strlen(e->key) == (size_t)(ke - ks) && memcmp(e->key, ks, (size_t)(ke - ks)) == 0) {
      PERR(p, ks, "duplicate key '%s' in [%s] (first set at line %d)", quotes(q, e->key),
           quotes(q2, p->cur->name), e->line);
      return;
    }
  }
  if ((p->fatal = set_entry(p->cfg, p->cur, ks, (size_t)(ke - ks), value, p->cfg->name,
                            p->line, column(p->ls, ks), column(p->ls, v))))
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
  DG_CALL(config_new(name, &c));
  /* A UTF-8 byte order mark (written by some editors) is not content. */
  size_t start = len >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
  char why[128];
  size_t bad = check_text(data + start, len - start, why, sizeof why) + start;
  if (bad < len) {
    int line = 1;
    const char *ls = data + start;
    for (const char *q = data + start; q < data + bad; q++)
      if (*q == '\n')
        line++, ls = q + 1;
    int col = column(ls, data + bad);
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
    return report_raise(&p.rep, DG_ERR_INPUT);
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
    if (grow((void **)&buf, &cap, len + 65536, 1)) {
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

/* ---- overrides ---------------------------------------------------------- */

dg_error dg_config_apply_override(dg_config *cfg, const char *arg) {
  DG_CHECK(cfg && arg, DG_ERR_ARG, "dg_config_apply_override: NULL argument");
  char q[QUOTE_BUF], why[128];
  size_t len = strlen(arg);
  size_t bad = check_text(arg, len, why, sizeof why);
  const char *nl = memchr(arg, '\n', bad);
  if (nl) {
    bad = (size_t)(nl - arg);
    snprintf(why, sizeof why, "line break");
  }
  DG_CHECK(bad == len, DG_ERR_INPUT, "%s: error: override '%s': %s at byte %zu", CMDLINE,
           quotes(q, arg), why, bad + 1);
  const char *eq = strchr(arg, '=');
  const char *ls = skip_ws(arg, arg + len), *le = eq ? trim_end(ls, eq) : NULL;
  const char *dot = NULL;
  for (const char *c = ls; eq && c < le; c++) {
    if (!is_ident(*c)) {
      char ch[QUOTE_BUF];
      DG_RAISE(DG_ERR_INPUT,
               "%s: error: override '%s': invalid character '%s' in 'section.key' "
               "(names use letters, digits, '_', '-', '.')",
               CMDLINE, quotes(q, arg), quote_char(ch, c, le));
    }
    if (*c == '.')
      dot = c;
  }
  DG_CHECK(eq && dot && dot > ls && dot + 1 < le, DG_ERR_INPUT,
           "%s: error: override '%s' is not of the form section.key=value "
           "(e.g. discretization.order=5)",
           CMDLINE, quotes(q, arg));
  /* Prefer the longest prefix that names an existing section, so dotted
   * section names and dotted keys both work. */
  for (const char *c = le - 2; c > ls; c--) {
    if (*c == '.') {
      for (size_t i = 0; i < cfg->n; i++) {
        if (strlen(cfg->s[i]->name) == (size_t)(c - ls) &&
            memcmp(cfg->s[i]->name, ls, (size_t)(c - ls)) == 0) {
          dot = c;
          goto found;
        }
      }
    }
  }
found:;
  const char *v = skip_ws(eq + 1, arg + len), *ve = trim_end(v, arg + len);
  char *value = keep(cfg, v, (size_t)(ve - v));
  DG_CHECK(value, DG_ERR_MEMORY, "out of memory for override '%s'", quotes(q, arg));
  if (v < ve && *v == '"') {
    size_t n;
    const char *after;
    DG_CHECK(unquote(v, ve, value, &n, &after) == 0 && after == ve, DG_ERR_INPUT,
             "%s: error: override '%s': the value's quotes are not closed at its end",
             CMDLINE, quotes(q, arg));
    value[n] = '\0';
  }
  char *sname = keep(cfg, ls, (size_t)(dot - ls));
  DG_CHECK(sname, DG_ERR_MEMORY, "out of memory for override '%s'", quotes(q, arg));
  section *s = find_section(cfg, sname);
  if (!s)
    DG_CALL(add_section(cfg, ls, (size_t)(dot - ls), CMDLINE, 0, 0, &s));
  DG_CALL(set_entry(cfg, s, dot + 1, (size_t)(le - dot - 1), value, CMDLINE, 0, 0, 0));
  return DG_OK;
}

/* ---- typed values ------------------------------------------------------- */

typedef union {
  int64_t i;
  double d;
  int b;
  int e;
} typed;

/* Number of '|'-separated choices, copied into names[] (pointing into buf,
 * a copy of choices) when names is not NULL. */
enum { MAX_CHOICES = 64 };
static size_t split_choices(const char *choices, char *buf, size_t bufn,
                            const char **names) {
  size_t n = 0;
  snprintf(buf, bufn, "%s", choices ? choices : "");
  for (char *s = buf; n < MAX_CHOICES;) {
    names[n++] = s;
    char *bar = strchr(s, '|');
    if (!bar)
      break;
    *bar = '\0';
    s = bar + 1;
  }
  return n;
}

/* Parse text as type; on failure write "is not ..." to why and return -1. */
static int parse_typed(dg_config_type type, const char *choices, const char *text,
                       typed *out, char *why, size_t whyn) {
  char *end;
  switch (type) {
  case DG_CONFIG_INT: {
    if (!(text[0] == '-' || text[0] == '+' || (text[0] >= '0' && text[0] <= '9'))) {
      snprintf(why, whyn, "is not an integer");
      return -1;
    }
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (*end != '\0' || end == text) {
      snprintf(why, whyn, "is not an integer");
      return -1;
    }
    if (errno == ERANGE) {
      snprintf(why, whyn, "is out of range for a 64-bit integer");
      return -1;
    }
    out->i = (int64_t)v;
    return 0;
  }
  case DG_CONFIG_DOUBLE: {
    /* strtod follows the C locale (decimal point '.'): dgrun never calls
     * setlocale, so cfg files read the same everywhere. */
    if (text[0] == '\0' || is_ws(text[0])) {
      snprintf(why, whyn, "is not a number");
      return -1;
    }
    errno = 0;
    double v = strtod(text, &end);
    if (*end != '\0' || end == text) {
      snprintf(why, whyn, "is not a number");
      return -1;
    }
    if (!isfinite(v)) {
      snprintf(why, whyn, "is not a finite number");
      return -1;
    }
    out->d = v;
    return 0;
  }
  case DG_CONFIG_BOOL: {
    static const char *const words[] = {"false", "true", "no", "yes", "off", "on", "0", "1"};
    char low[8] = "";
    for (size_t k = 0; k < sizeof low - 1 && text[k]; k++)
      low[k] = (text[k] >= 'A' && text[k] <= 'Z') ? (char)(text[k] - 'A' + 'a') : text[k];
    for (int i = 0; i < 8; i++) {
      if (strlen(text) < sizeof low && strcmp(low, words[i]) == 0) {
        out->b = i % 2;
        return 0;
      }
    }
    snprintf(why, whyn, "is not a boolean (use true/false, yes/no, on/off or 1/0)");
    return -1;
  }
  case DG_CONFIG_ENUM: {
    char buf[1024];
    const char *names[MAX_CHOICES];
    size_t n = split_choices(choices, buf, sizeof buf, names);
    for (size_t i = 0; i < n; i++) {
      if (strcmp(text, names[i]) == 0) {
        out->e = (int)i;
        return 0;
      }
    }
    size_t o = (size_t)snprintf(why, whyn, "is not one of:");
    for (size_t i = 0; i < n && o < whyn; i++)
      o += (size_t)snprintf(why + o, whyn - o, "%s %s", i ? "," : "", names[i]);
    const char *s = dg_suggest_closest(text, names, n);
    if (s && o < whyn)
      snprintf(why + o, whyn - o, " (did you mean '%s'?)", s);
    return -1;
  }
  case DG_CONFIG_PATH:
    if (text[0] == '\0') {
      snprintf(why, whyn, "is empty (a path is needed)");
      return -1;
    }
    return 0;
  case DG_CONFIG_STRING:
    return 0;
  }
  snprintf(why, whyn, "has an unknown type %d", (int)type);
  return -1;
}

static const dg_config_key *schema_find(const dg_config_key *schema, size_t n,
                                        const char *section, const char *key);

/* section.key parsed as type: the value the file or an override gave, or
 * the schema's default (*found = NULL then).  The schema is the one place a
 * default or an enum's choices are stated, so reading a key it does not
 * declare, absent and without a default, or as an enum without choices is
 * a bug in the reader, not a user error. */
static dg_error get_typed(const dg_config *cfg, const char *section, const char *key,
                          dg_config_type type, typed *out, const entry **found,
                          const char **text) {
  DG_CHECK(cfg && section && key, DG_ERR_ARG, "dg_config_get: NULL argument");
  const dg_config_key *row = NULL;
  if (cfg->schema) {
    row = schema_find(cfg->schema, cfg->nschema, section, key);
    DG_CHECK(row || schema_find(cfg->schema, cfg->nschema, section, NULL), DG_ERR_INTERNAL,
             "[%s] %s is read but not declared in the config schema", section, key);
  }
  const entry *e = lookup(cfg, section, key);
  *found = e;
  DG_CHECK(e || (row && row->key && row->def), DG_ERR_INTERNAL,
           "[%s] %s is read while absent, and no config schema gives its default", section,
           key);
  const char *choices = NULL;
  if (type == DG_CONFIG_ENUM) {
    DG_CHECK(row && row->type == DG_CONFIG_ENUM && row->choices, DG_ERR_INTERNAL,
             "[%s] %s is read as a choice, and no config schema gives its choices", section,
             key);
    choices = row->choices;
  }
  *text = e ? e->value : row->def;
  char why[1200], loc[512], q[QUOTE_BUF];
  if (parse_typed(type, choices, *text, out, why, sizeof why)) {
    DG_CHECK(e, DG_ERR_INTERNAL, "config schema: default of [%s] %s: '%s' %s", section, key,
             *text, why);
    DG_RAISE(DG_ERR_INPUT, "%s: error: [%s] %s: '%s' %s",
             where(loc, sizeof loc, e->origin, e->line, e->value_col), section, key,
             quotes(q, e->value), why);
  }
  return DG_OK;
}

dg_error dg_config_get_int(const dg_config *cfg, const char *section, const char *key,
                           int64_t *out) {
  typed t;
  const entry *e;
  const char *text;
  DG_CALL(get_typed(cfg, section, key, DG_CONFIG_INT, &t, &e, &text));
  *out = t.i;
  return DG_OK;
}

dg_error dg_config_get_double(const dg_config *cfg, const char *section,
                              const char *key, double *out) {
  typed t;
  const entry *e;
  const char *text;
  DG_CALL(get_typed(cfg, section, key, DG_CONFIG_DOUBLE, &t, &e, &text));
  *out = t.d;
  return DG_OK;
}

dg_error dg_config_get_bool(const dg_config *cfg, const char *section, const char *key,
                            int *out) {
  typed t;
  const entry *e;
  const char *text;
  DG_CALL(get_typed(cfg, section, key, DG_CONFIG_BOOL, &t, &e, &text));
  *out = t.b;
  return DG_OK;
}

dg_error dg_config_get_string(const dg_config *cfg, const char *section,
                              const char *key, const char **out) {
  typed t;
  const entry *e;
  DG_CALL(get_typed(cfg, section, key, DG_CONFIG_STRING, &t, &e, out));
  return DG_OK;
}

dg_error dg_config_get_enum(const dg_config *cfg, const char *section, const char *key,
                            int *out) {
  typed t;
  const entry *e;
  const char *text;
  DG_CALL(get_typed(cfg, section, key, DG_CONFIG_ENUM, &t, &e, &text));
  *out = t.e;
  return DG_OK;
}

dg_error dg_config_get_path(const dg_config *cfg, const char *section, const char *key,
                            const char **out) {
  typed t;
  const entry *e;
  const char *v;
  DG_CALL(get_typed(cfg, section, key, DG_CONFIG_PATH, &t, &e, &v));
  /* A path typed on the command line means what the shell's working
   * directory says; one in the file, what the file's directory says. */
  const char *base = e && e->origin == CMDLINE ? "." : cfg->dir;
  if (v[0] == '/' || strcmp(base, ".") == 0) {
    *out = v;
    return DG_OK;
  }
  size_t nb = strlen(base), nv = strlen(v);
  int slash = base[nb - 1] != '/';
  /* Resolved paths are owned by the config like every other string it
   * hands out, hence the cast. */
  char *p = alloc_kept((dg_config *)cfg, nb + (size_t)slash + nv);
  DG_CHECK(p, DG_ERR_MEMORY, "out of memory resolving path '%s'", v);
  memcpy(p, base, nb);
  if (slash)
    p[nb] = '/';
  memcpy(p + nb + (size_t)slash, v, nv + 1);
  *out = p;
  return DG_OK;
}

int dg_config_has(const dg_config *cfg, const char *section, const char *key) {
  const entry *e = lookup(cfg, section, key);
  return e && e->origin != DEFAULTED;
}

const char *dg_config_section_at(const dg_config *cfg, size_t i) {
  return i < cfg->n ? cfg->s[i]->name : NULL;
}

const char *dg_config_key_at(const dg_config *cfg, const char *sec, size_t i) {
  const section *s = find_section(cfg, sec);
  return s && i < s->n ? s->e[i].key : NULL;
}

/* ---- schema ------------------------------------------------------------- */

static const char *const type_names[] = {"int", "double", "bool", "string", "enum", "path"};

static const char *type_name(dg_config_type t) {
  return (unsigned)t < sizeof type_names / sizeof *type_names ? type_names[t] : "?";
}

/* Distinct section names of the schema, in order of first appearance. */
static size_t schema_sections(const dg_config_key *schema, size_t n, const char **out) {
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    size_t j = 0;
    while (j < m && strcmp(out[j], schema[i].section) != 0)
      j++;
    if (j == m)
      out[m++] = schema[i].section;
  }
  return m;
}

static const dg_config_key *schema_find(const dg_config_key *schema, size_t n,
                                        const char *section, const char *key) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(schema[i].section, section) == 0 &&
        (key ? schema[i].key && strcmp(schema[i].key, key) == 0 : !schema[i].key))
      return &schema[i];
  return NULL;
}

/* Report e as unknown in s; names has room for n keys. */
static void check_unknown_key(report *r, const section *s, const entry *e,
                              const dg_config_key *schema, size_t n,
                              const char **names) {
  char q[QUOTE_BUF], hint[256] = "";
  size_t m = 0;
  for (size_t i = 0; i < n; i++)
    if (schema[i].key && strcmp(schema[i].section, s->name) == 0)
      names[m++] = schema[i].key;
  const char *sug = dg_suggest_closest(e->key, names, m);
  if (sug) {
    snprintf(hint, sizeof hint, "; did you mean '%s'?", sug);
  } else {
    /* The right key in the wrong section is a common slip. */
    for (size_t i = 0; i < n; i++) {
      if (schema[i].key && strcmp(schema[i].key, e->key) == 0) {
        snprintf(hint, sizeof hint, "; '%s' belongs in [%s]", e->key, schema[i].section);
        break;
      }
    }
  }
  report_add(r, e->origin, e->line, e->key_col, "unknown key '%s' in [%s]%s",
             quotes(q, e->key), s->name, hint);
}

dg_error dg_config_validate(dg_config *cfg, const dg_config_key *schema, size_t n) {
  DG_CHECK(cfg && (schema || n == 0), DG_ERR_ARG, "dg_config_validate: NULL argument");
  char why[1200], q[QUOTE_BUF];
  typed t;
  /* A default that does not parse is a bug in the schema, not user error. */
  for (size_t i = 0; i < n; i++) {
    const dg_config_key *k = &schema[i];
    DG_CHECK(k->section, DG_ERR_INTERNAL, "config schema entry %zu has no section", i);
    if (k->key && k->def && parse_typed(k->type, k->choices, k->def, &t, why, sizeof why))
      DG_RAISE(DG_ERR_INTERNAL, "config schema: default of [%s] %s: '%s' %s", k->section,
               k->key, k->def, why);
  }
  /* the getters' schema from here on, also where the values do not
   * validate (an absent key then reads the schema's default itself) */
  cfg->schema = schema;
  cfg->nschema = n;
  const char **names = malloc((2 * n + 1) * sizeof *names), **keys = names + n;
  DG_CHECK(names, DG_ERR_MEMORY, "out of memory validating config");
  size_t nsec = schema_sections(schema, n, names);
  report r = {0};
  for (size_t i = 0; i < cfg->n; i++) {
    const section *s = cfg->s[i];
    if (s->origin == DEFAULTED) /* filled in by an earlier validation */
      continue;
    size_t j = 0;
    while (j < nsec && strcmp(names[j], s->name) != 0)
      j++;
    if (j == nsec) {
      const char *sug = dg_suggest_closest(s->name, names, nsec);
      char hint[256] = "";
      if (sug)
        snprintf(hint, sizeof hint, "; did you mean [%s]?", sug);
      report_add(&r, s->origin, s->line, s->col, "unknown section [%s]%s",
                 quotes(q, s->name), hint);
      continue;
    }
    int open = schema_find(schema, n, s->name, NULL) != NULL;
    for (size_t k = 0; k < s->n; k++) {
      const entry *e = &s->e[k];
      const dg_config_key *sk = schema_find(schema, n, s->name, e->key);
      if (e->origin == DEFAULTED) {
        continue;
      } else if (!sk) {
        if (!open)
          check_unknown_key(&r, s, e, schema, n, keys);
      } else if (parse_typed(sk->type, sk->choices, e->value, &t, why, sizeof why)) {
        report_add(&r, e->origin, e->line, e->value_col, "[%s] %s: '%s' %s", s->name, e->key,
                   quotes(q, e->value), why);
      }
    }
  }
  /* Missing required keys: a whole missing section is one problem. */
  for (size_t j = 0; j < nsec; j++) {
    const section *s = find_section(cfg, names[j]);
    char list[1024] = "";
    size_t o = 0, count = 0;
    for (size_t i = 0; i < n; i++) {
      const dg_config_key *k = &schema[i];
      if (!k->key || k->def || strcmp(k->section, names[j]) != 0 || find_entry(s, k->key))
        continue;
      if (s)
        report_add(&r, s->origin, s->line, s->col, "[%s] missing required key '%s' (%s: %s)",
                   s->name, k->key, type_name(k->type), k->help ? k->help : "");
      else if (o < sizeof list)
        o += (size_t)snprintf(list + o, sizeof list - o, "%s'%s'", count ? ", " : "", k->key);
      count++;
    }
    if (!s && count)
      report_add(&r, cfg->name, 0, 0, "missing section [%s] (required key%s %s)", names[j],
                 count > 1 ? "s" : "", list);
  }
  free(names);
  if (r.count || r.oom)
    return report_raise(&r, DG_ERR_INPUT);
  for (size_t i = 0; i < n; i++) {
    const dg_config_key *k = &schema[i];
    if (!k->key || !k->def || lookup(cfg, k->section, k->key))
      continue;
    section *s = find_section(cfg, k->section);
    if (!s)
      DG_CALL(add_section(cfg, k->section, strlen(k->section), DEFAULTED, 0, 0, &s));
    DG_CALL(set_entry(cfg, s, k->key, strlen(k->key), k->def, DEFAULTED, 0, 0, 0));
  }
  return DG_OK;
}

/* "int", "double", or for an enum its choices "a|b|c". */
static const char *type_text(const dg_config_key *k) {
  return k->type == DG_CONFIG_ENUM && k->choices ? k->choices : type_name(k->type);
}

void dg_config_print_schema(FILE *out, const dg_config_key *schema, size_t n,
                            dg_config_doc_format format) {
  if (format == DG_CONFIG_DOC_MARKDOWN) {
    fprintf(out, "| Section | Key | Type | Default | Description |\n"
                 "|---|---|---|---|---|\n");
    for (size_t i = 0; i < n; i++) {
      const dg_config_key *k = &schema[i];
      const char *help = k->help ? k->help : "";
      if (!k->key) {
        fprintf(out, "| `[%s]` | *any* | | | %s |\n", k->section, help);
        continue;
      }
      fprintf(out, "| `[%s]` | `%s` | ", k->section, k->key);
      if (k->type == DG_CONFIG_ENUM && k->choices) {
        /* '|' would split the table cell: list the choices with commas. */
        fputc('`', out);
        for (const char *c = k->choices; *c; c++) {
          if (*c == '|')
            fputs("`, `", out);
          else
            fputc(*c, out);
        }
        fputc('`', out);
      } else {
        fputs(type_name(k->type), out);
      }
      if (k->def)
        fprintf(out, " | `%s` | %s |\n", k->def, help);
      else
        fprintf(out, " | *required* | %s |\n", help);
    }
    return;
  }
  int wk = 3, wt = 4, wd = 7;
  for (size_t i = 0; i < n; i++) {
    const dg_config_key *k = &schema[i];
    if (!k->key)
      continue;
    int l = (int)strlen(k->key), t = (int)strlen(type_text(k));
    int d = k->def ? (int)strlen(k->def) : (int)strlen("(required)");
    wk = l > wk ? l : wk;
    wt = t > wt ? t : wt;
    wd = d > wd ? d : wd;
  }
  const char *prev = NULL;
  for (size_t i = 0; i < n; i++) {
    const dg_config_key *k = &schema[i];
    if (!prev || strcmp(prev, k->section) != 0)
      fprintf(out, "%s[%s]\n", prev ? "\n" : "", k->section);
    prev = k->section;
    if (!k->key)
      fprintf(out, "  %-*s  %s\n", wk + wt + wd + 4, "(any key)", k->help ? k->help : "");
    else
      fprintf(out, "  %-*s  %-*s  %-*s  %s\n", wk, k->key, wt, type_text(k), wd,
              k->def ? k->def : "(required)", k->help ? k->help : "");
  }
}

/* ---- writing the effective config --------------------------------------- */

static void print_value(FILE *out, const char *v) {
  size_t n = strlen(v);
  int plain = n == 0 || (!is_ws(v[0]) && !is_ws(v[n - 1]) && v[0] != '"' &&
                         !strpbrk(v, ";#"));
  if (plain) {
    fputs(v, out);
    return;
  }
  fputc('"', out);
  for (const char *c = v; *c; c++) {
    if (*c == '"' || *c == '\\')
      fputc('\\', out);
    fputc(*c, out);
  }
  fputc('"', out);
}

void dg_config_print(const dg_config *cfg, FILE *out) {
  for (size_t i = 0; i < cfg->n; i++) {
    const section *s = cfg->s[i];
    fprintf(out, "%s[%s]\n", i ? "\n" : "", s->name);
    for (size_t k = 0; k < s->n; k++) {
      const entry *e = &s->e[k];
      fprintf(out, "%s = ", e->key);
      print_value(out, e->value);
      if (e->origin == CMDLINE || e->origin == DEFAULTED)
        fprintf(out, "  ; %s\n", e->origin == CMDLINE ? "command line" : "default");
      else
        fprintf(out, "  ; %s:%d\n", e->origin, e->line);
    }
  }
}
