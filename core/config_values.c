/* core/config: values typed when read, and the getters. */
#include "core/config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/config_internal.h"
#include "core/suggest.h"

/* ---- typed values ------------------------------------------------------- */

/* Number of '|'-separated choices, copied into names[] (pointing into buf,
 * a copy of choices) when names is not NULL. */
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
int dg_cfg_parse_typed(dg_config_type type, const char *choices, const char *text,
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
    row = dg_cfg_schema_find(cfg->schema, cfg->nschema, section, key);
    DG_CHECK(row || dg_cfg_schema_find(cfg->schema, cfg->nschema, section, NULL), DG_ERR_INTERNAL,
             "[%s] %s is read but not declared in the config schema", section, key);
  }
  const entry *e = dg_cfg_lookup(cfg, section, key);
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
  if (dg_cfg_parse_typed(type, choices, *text, out, why, sizeof why)) {
    DG_CHECK(e, DG_ERR_INTERNAL, "config schema: default of [%s] %s: '%s' %s", section, key,
             *text, why);
    DG_RAISE(DG_ERR_INPUT, "%s: error: [%s] %s: '%s' %s",
             dg_cfg_where(loc, sizeof loc, e->origin, e->line, e->value_col), section, key,
             dg_cfg_quotes(q, e->value), why);
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
  char *p = dg_cfg_alloc_kept((dg_config *)cfg, nb + (size_t)slash + nv);
  DG_CHECK(p, DG_ERR_MEMORY, "out of memory resolving path '%s'", v);
  memcpy(p, base, nb);
  if (slash)
    p[nb] = '/';
  memcpy(p + nb + (size_t)slash, v, nv + 1);
  *out = p;
  return DG_OK;
}