/* core/config: the schema: validation (unknown names with a "did you
 * mean", bad values, missing keys; defaults filled in) and its
 * documentation (--help-config). */
#include "core/config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/config_internal.h"
#include "core/suggest.h"

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

const dg_config_key *dg_cfg_schema_find(const dg_config_key *schema, size_t n,
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
  dg_cfg_report_add(r, e->origin, e->line, e->key_col, "unknown key '%s' in [%s]%s",
             dg_cfg_quotes(q, e->key), s->name, hint);
}

dg_error dg_config_validate(dg_config *cfg, const dg_config_key *schema, size_t n) {
  DG_CHECK(cfg && (schema || n == 0), DG_ERR_ARG, "dg_config_validate: NULL argument");
  char why[1200], q[QUOTE_BUF];
  typed t;
  /* A default that does not parse is a bug in the schema, not user error. */
  for (size_t i = 0; i < n; i++) {
    const dg_config_key *k = &schema[i];
    DG_CHECK(k->section, DG_ERR_INTERNAL, "config schema entry %zu has no section", i);
    if (k->key && k->def && dg_cfg_parse_typed(k->type, k->choices, k->def, &t, why, sizeof why))
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
      dg_cfg_report_add(&r, s->origin, s->line, s->col, "unknown section [%s]%s",
                 dg_cfg_quotes(q, s->name), hint);
      continue;
    }
    int open = dg_cfg_schema_find(schema, n, s->name, NULL) != NULL;
    for (size_t k = 0; k < s->n; k++) {
      const entry *e = &s->e[k];
      const dg_config_key *sk = dg_cfg_schema_find(schema, n, s->name, e->key);
      if (e->origin == DEFAULTED) {
        continue;
      } else if (!sk) {
        if (!open)
          check_unknown_key(&r, s, e, schema, n, keys);
      } else if (dg_cfg_parse_typed(sk->type, sk->choices, e->value, &t, why, sizeof why)) {
        dg_cfg_report_add(&r, e->origin, e->line, e->value_col, "[%s] %s: '%s' %s", s->name, e->key,
                   dg_cfg_quotes(q, e->value), why);
      }
    }
  }
  /* Missing required keys: a whole missing section is one problem. */
  for (size_t j = 0; j < nsec; j++) {
    const section *s = dg_cfg_find_section(cfg, names[j]);
    char list[1024] = "";
    size_t o = 0, count = 0;
    for (size_t i = 0; i < n; i++) {
      const dg_config_key *k = &schema[i];
      if (!k->key || k->def || strcmp(k->section, names[j]) != 0 || dg_cfg_find_entry(s, k->key))
        continue;
      if (s)
        dg_cfg_report_add(&r, s->origin, s->line, s->col, "[%s] missing required key '%s' (%s: %s)",
                   s->name, k->key, type_name(k->type), k->help ? k->help : "");
      else if (o < sizeof list)
        o += (size_t)snprintf(list + o, sizeof list - o, "%s'%s'", count ? ", " : "", k->key);
      count++;
    }
    if (!s && count)
      dg_cfg_report_add(&r, cfg->name, 0, 0, "missing section [%s] (required key%s %s)", names[j],
                 count > 1 ? "s" : "", list);
  }
  free(names);
  if (r.count || r.oom)
    return dg_cfg_report_raise(&r, DG_ERR_INPUT);
  for (size_t i = 0; i < n; i++) {
    const dg_config_key *k = &schema[i];
    if (!k->key || !k->def || dg_cfg_lookup(cfg, k->section, k->key))
      continue;
    section *s = dg_cfg_find_section(cfg, k->section);
    if (!s)
      DG_CALL(dg_cfg_add_section(cfg, k->section, strlen(k->section), DEFAULTED, 0, 0, &s));
    DG_CALL(dg_cfg_set_entry(cfg, s, k->key, strlen(k->key), k->def, DEFAULTED, 0, 0, 0));
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
