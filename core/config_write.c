/* core/config: a config written back as INI text: the effective config
 * with where each value came from (dg_config_print), and the canonical
 * text of what was set (dg_config_write_text). */
#include "core/config.h"

#include <stdio.h>
#include <string.h>

#include "core/config_internal.h"
#include "core/strbuf.h"

/* v as a cfg value that reads back as v: plain, or quoted with \" and \\. */
static void append_value(dg_strbuf *b, const char *v) {
  size_t n = strlen(v);
  int plain = n == 0 || (!is_ws(v[0]) && !is_ws(v[n - 1]) && v[0] != '"' &&
                         !strpbrk(v, ";#"));
  if (plain) {
    dg_strbuf_append(b, v);
    return;
  }
  dg_strbuf_append(b, "\"");
  for (const char *c = v; *c; c++) {
    if (*c == '"' || *c == '\\')
      dg_strbuf_append(b, "\\");
    dg_strbuf_appendn(b, c, 1);
  }
  dg_strbuf_append(b, "\"");
}

void dg_config_print(const dg_config *cfg, FILE *out) {
  dg_strbuf b;
  dg_strbuf_init(&b);
  for (size_t i = 0; i < cfg->n; i++) {
    const section *s = cfg->s[i];
    dg_strbuf_appendf(&b, "%s[%s]\n", i ? "\n" : "", s->name);
    for (size_t k = 0; k < s->n; k++) {
      const entry *e = &s->e[k];
      dg_strbuf_appendf(&b, "%s = ", e->key);
      append_value(&b, e->value);
      if (e->origin == CMDLINE || e->origin == DEFAULTED)
        dg_strbuf_appendf(&b, "  ; %s\n", e->origin == CMDLINE ? "command line" : "default");
      else
        dg_strbuf_appendf(&b, "  ; %s:%d\n", e->origin, e->line);
    }
  }
  if (!b.failed && b.data)
    fputs(b.data, out);
  dg_strbuf_free(&b);
}

static const dg_config_pin *find_pin(const dg_config_pin *pins, size_t n, const char *section,
                                     const char *key) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(pins[i].section, section) == 0 && strcmp(pins[i].key, key) == 0)
      return &pins[i];
  return NULL;
}

/* The keys of section sec: set ones with their values (pinned ones with the
 * pin's), then the pins of sec that name no key of it. */
static void append_section(dg_strbuf *b, const section *s, const char *sec,
                           const dg_config_pin *pins, size_t npins) {
  dg_strbuf b2;
  dg_strbuf_init(&b2);
  for (size_t k = 0; s && k < s->n; k++) {
    const entry *e = &s->e[k];
    const dg_config_pin *p = find_pin(pins, npins, sec, e->key);
    if (!p && e->origin == DEFAULTED)
      continue;
    dg_strbuf_appendf(&b2, "%s = ", e->key);
    append_value(&b2, p ? p->value : e->value);
    dg_strbuf_append(&b2, "\n");
  }
  for (size_t i = 0; i < npins; i++) {
    if (strcmp(pins[i].section, sec) != 0 || (s && dg_cfg_find_entry(s, pins[i].key)))
      continue;
    dg_strbuf_appendf(&b2, "%s = ", pins[i].key);
    append_value(&b2, pins[i].value);
    dg_strbuf_append(&b2, "\n");
  }
  if (b2.len) {
    dg_strbuf_appendf(b, "%s[%s]\n", b->len ? "\n" : "", sec);
    dg_strbuf_appendn(b, b2.data, b2.len);
  }
  b->failed |= b2.failed;
  dg_strbuf_free(&b2);
}

dg_error dg_config_write_text(const dg_config *cfg, const dg_config_pin *pins, size_t npins,
                              char **out) {
  DG_CHECK(cfg && out && (pins || npins == 0), DG_ERR_ARG,
           "dg_config_write_text: NULL argument");
  dg_strbuf b;
  dg_strbuf_init(&b);
  for (size_t i = 0; i < cfg->n; i++)
    append_section(&b, cfg->s[i], cfg->s[i]->name, pins, npins);
  for (size_t i = 0; i < npins; i++) {
    int seen = dg_cfg_find_section(cfg, pins[i].section) != NULL;
    for (size_t j = 0; j < i && !seen; j++)
      seen = strcmp(pins[j].section, pins[i].section) == 0;
    if (!seen)
      append_section(&b, NULL, pins[i].section, pins, npins);
  }
  DG_CALL(dg_strbuf_finish(&b, out));
  return DG_OK;
}
