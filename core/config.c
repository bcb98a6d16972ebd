/* core/config: the store of sections and entries, and the helpers every
 * part of the module shares (config_internal.h). */
#include "core/config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/config_internal.h"

const char dg_cfg_cmdline[] = "<command line>";
const char dg_cfg_defaulted[] = "<default>";

/* ---- small helpers ------------------------------------------------------ */

int dg_cfg_grow(void **p, size_t *cap, size_t need, size_t elem) {
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
char *dg_cfg_alloc_kept(dg_config *c, size_t n) {
  if (dg_cfg_grow((void **)&c->owned, &c->capowned, c->nowned + 1, sizeof *c->owned))
    return NULL;
  char *d = malloc(n + 1);
  if (d)
    c->owned[c->nowned++] = d;
  return d;
}

/* A NUL-terminated copy of s[0..n) owned by cfg, or NULL when out of memory. */
char *dg_cfg_keep(dg_config *c, const char *s, size_t n) {
  char *d = dg_cfg_alloc_kept(c, n);
  if (d) {
    memcpy(d, s, n);
    d[n] = '\0';
  }
  return d;
}

/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 if invalid:
 * overlong forms, surrogates and code points past U+10FFFF are invalid. */
size_t dg_cfg_utf8_len(const unsigned char *s, size_t n) {
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
size_t dg_cfg_check_text(const char *d, size_t len, char *why, size_t whyn) {
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
      size_t k = dg_cfg_utf8_len(u + i, len - i);
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
int dg_cfg_column(const char *ls, const char *p) {
  int col = 1;
  for (const char *q = ls; q < p; q++)
    col += ((unsigned char)*q & 0xC0) != 0x80;
  return col;
}

/* Copy user text s[0..n) into buf (QUOTE_BUF bytes) for a message: control
 * bytes and invalid UTF-8 become '?', and text past QUOTE_MAX characters is
 * cut with "...". */
const char *dg_cfg_quote(char *buf, const char *s, size_t n) {
  size_t o = 0;
  int chars = 0;
  for (size_t i = 0; i < n;) {
    if (++chars > QUOTE_MAX) {
      memcpy(buf + o, "...", 3);
      o += 3;
      break;
    }
    unsigned char c = (unsigned char)s[i];
    size_t k = dg_cfg_utf8_len((const unsigned char *)s + i, n - i);
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
const char *dg_cfg_quote_char(char *buf, const char *c, const char *end) {
  size_t k = dg_cfg_utf8_len((const unsigned char *)c, (size_t)(end - c));
  return dg_cfg_quote(buf, c, k ? k : 1);
}
const char *dg_cfg_quotes(char *buf, const char *s) { return dg_cfg_quote(buf, s, strlen(s)); }

/* "name:line:col", "name:line" or "name" for a message. */
const char *dg_cfg_where(char *buf, size_t n, const char *origin, int line,
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

void dg_cfg_report_add(report *r, const char *origin, int line, int col,
                       const char *fmt, ...) {
  if (++r->count > MAX_REPORTED || r->oom)
    return;
  char loc[512], msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  dg_cfg_where(loc, sizeof loc, origin, line, col);
  size_t need = strlen(loc) + strlen(msg) + 16;
  if (dg_cfg_grow((void **)&r->buf, &r->cap, r->len + need, 1)) {
    r->oom = 1;
    return;
  }
  r->len += (size_t)snprintf(r->buf + r->len, r->cap - r->len, "%s%s: error: %s",
                             r->len ? "\n" : "", loc, msg);
}

/* Raise the collected problems as one error (and free the buffer). */
dg_error dg_cfg_report_raise(report *r, dg_error code) {
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

section *dg_cfg_find_section(const dg_config *c, const char *name) {
  for (size_t i = 0; i < c->n; i++)
    if (strcmp(c->s[i]->name, name) == 0)
      return c->s[i];
  return NULL;
}

entry *dg_cfg_find_entry(const section *s, const char *key) {
  for (size_t i = 0; s && i < s->n; i++)
    if (strcmp(s->e[i].key, key) == 0)
      return &s->e[i];
  return NULL;
}

const entry *dg_cfg_lookup(const dg_config *c, const char *sec, const char *key) {
  return dg_cfg_find_entry(dg_cfg_find_section(c, sec), key);
}

dg_error dg_cfg_add_section(dg_config *c, const char *name, size_t n,
                            const char *origin, int line, int col, section **out) {
  section *s = calloc(1, sizeof *s);
  DG_CHECK(s, DG_ERR_MEMORY, "out of memory for a config section");
  s->name = dg_cfg_keep(c, name, n);
  if (!s->name || dg_cfg_grow((void **)&c->s, &c->cap, c->n + 1, sizeof *c->s)) {
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
dg_error dg_cfg_set_entry(dg_config *c, section *s, const char *key, size_t n,
                          const char *value, const char *origin, int line,
                          int key_col, int value_col) {
  char *k = dg_cfg_keep(c, key, n);
  DG_CHECK(k, DG_ERR_MEMORY, "out of memory for config key");
  entry *e = dg_cfg_find_entry(s, k);
  if (!e) {
    DG_CHECK(!dg_cfg_grow((void **)&s->e, &s->cap, s->n + 1, sizeof *s->e), DG_ERR_MEMORY,
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

dg_error dg_cfg_config_new(const char *name, dg_config **out) {
  dg_config *c = calloc(1, sizeof *c);
  DG_CHECK(c, DG_ERR_MEMORY, "out of memory for a config");
  const char *slash = strrchr(name, '/');
  c->name = dg_cfg_keep(c, name, strlen(name));
  if (!slash)
    c->dir = dg_cfg_keep(c, ".", 1);
  else
    c->dir = dg_cfg_keep(c, name, slash == name ? 1 : (size_t)(slash - name));
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

int dg_config_has(const dg_config *cfg, const char *section, const char *key) {
  const entry *e = dg_cfg_lookup(cfg, section, key);
  return e && e->origin != DEFAULTED;
}

const char *dg_config_section_at(const dg_config *cfg, size_t i) {
  return i < cfg->n ? cfg->s[i]->name : NULL;
}

const char *dg_config_key_at(const dg_config *cfg, const char *sec, size_t i) {
  const section *s = dg_cfg_find_section(cfg, sec);
  return s && i < s->n ? s->e[i].key : NULL;
}
const char *dg_config_where(const dg_config *cfg, const char *section, const char *key,
                            char *buf, size_t n) {
  const entry *e = dg_cfg_lookup(cfg, section, key);
  if (!e || e->origin == DEFAULTED)
    snprintf(buf, n, "%s", cfg->name);
  else
    dg_cfg_where(buf, n, e->origin, e->line, e->value_col);
  return buf;
}
