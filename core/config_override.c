/* core/config: `section.key=value` overrides from the command line. */
#include "core/config.h"

#include <stdio.h>
#include <string.h>

#include "core/config_internal.h"

/* ---- overrides ---------------------------------------------------------- */

dg_error dg_config_apply_override(dg_config *cfg, const char *arg) {
  DG_CHECK(cfg && arg, DG_ERR_ARG, "dg_config_apply_override: NULL argument");
  char q[QUOTE_BUF], why[128];
  size_t len = strlen(arg);
  size_t bad = dg_cfg_check_text(arg, len, why, sizeof why);
  const char *nl = memchr(arg, '\n', bad);
  if (nl) {
    bad = (size_t)(nl - arg);
    snprintf(why, sizeof why, "line break");
  }
  DG_CHECK(bad == len, DG_ERR_INPUT, "%s: error: override '%s': %s at byte %zu", CMDLINE,
           dg_cfg_quotes(q, arg), why, bad + 1);
  const char *eq = strchr(arg, '=');
  const char *ls = skip_ws(arg, arg + len), *le = eq ? trim_end(ls, eq) : NULL;
  const char *dot = NULL;
  for (const char *c = ls; eq && c < le; c++) {
    if (!is_ident(*c)) {
      char ch[QUOTE_BUF];
      DG_RAISE(DG_ERR_INPUT,
               "%s: error: override '%s': invalid character '%s' in 'section.key' "
               "(names use letters, digits, '_', '-', '.')",
               CMDLINE, dg_cfg_quotes(q, arg), dg_cfg_quote_char(ch, c, le));
    }
    if (*c == '.')
      dot = c;
  }
  DG_CHECK(eq && dot && dot > ls && dot + 1 < le, DG_ERR_INPUT,
           "%s: error: override '%s' is not of the form section.key=value "
           "(e.g. discretization.order=5)",
           CMDLINE, dg_cfg_quotes(q, arg));
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
  char *value = dg_cfg_keep(cfg, v, (size_t)(ve - v));
  DG_CHECK(value, DG_ERR_MEMORY, "out of memory for override '%s'", dg_cfg_quotes(q, arg));
  if (v < ve && *v == '"') {
    size_t n;
    const char *after;
    DG_CHECK(dg_cfg_unquote(v, ve, value, &n, &after) == 0 && after == ve, DG_ERR_INPUT,
             "%s: error: override '%s': the value's quotes are not closed at its end",
             CMDLINE, dg_cfg_quotes(q, arg));
    value[n] = '\0';
  }
  char *sname = dg_cfg_keep(cfg, ls, (size_t)(dot - ls));
  DG_CHECK(sname, DG_ERR_MEMORY, "out of memory for override '%s'", dg_cfg_quotes(q, arg));
  section *s = dg_cfg_find_section(cfg, sname);
  if (!s)
    DG_CALL(dg_cfg_add_section(cfg, ls, (size_t)(dot - ls), CMDLINE, 0, 0, &s));
  DG_CALL(dg_cfg_set_entry(cfg, s, dot + 1, (size_t)(le - dot - 1), value, CMDLINE, 0, 0, 0));
  return DG_OK;
}