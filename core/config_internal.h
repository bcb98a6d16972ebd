/* The inside of core/config (one module in several files, each named for
 * its purpose): the store of sections and entries (config.c), the INI
 * reader (config_parse.c), command-line overrides (config_override.c),
 * typed values and their getters (config_values.c), the schema: validation
 * with suggestions and its documentation (config_schema.c), and writing a
 * config back as text (config_write.c).  Not for use outside core/config*. */
#ifndef DG_CORE_CONFIG_INTERNAL_H
#define DG_CORE_CONFIG_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "core/config.h"

/* Limits that keep messages inside the error trace's 2 KiB: at most
 * MAX_REPORTED problems are spelled out (then "... and N more"), and user
 * text quoted in a message is cut after QUOTE_MAX characters. */
enum { MAX_REPORTED = 12, QUOTE_MAX = 40, QUOTE_BUF = 4 * QUOTE_MAX + 8 };
/* Anything larger is not a hand-written config file. */
#define MAX_CONFIG_BYTES ((size_t)64 << 20)
/* The most choices of one enum key. */
enum { MAX_CHOICES = 64 };

/* The origin of a value given on the command line and of a value the
 * schema filled in (compared by address). */
extern const char dg_cfg_cmdline[];
extern const char dg_cfg_defaulted[];
#define CMDLINE dg_cfg_cmdline
#define DEFAULTED dg_cfg_defaulted

typedef struct {
  const char *key, *value;
  const char *origin; /* cfg->name, CMDLINE, DEFAULTED or a dg_config_set origin */
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

/* Several problems collected into one message. */
typedef struct {
  char *buf;
  size_t len, cap;
  int count; /* problems found, reported or not */
  int oom;
} report;

typedef union {
  int64_t i;
  double d;
  int b;
  int e;
} typed;

static inline int is_ws(char ch) { return ch == ' ' || ch == '\t'; }
static inline int is_comment(char ch) { return ch == ';' || ch == '#'; }
static inline int is_ident(char ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
         (ch >= '0' && ch <= '9') || ch == '_' || ch == '-' || ch == '.';
}
static inline const char *skip_ws(const char *p, const char *end) {
  while (p < end && is_ws(*p))
    p++;
  return p;
}
static inline const char *trim_end(const char *start, const char *end) {
  while (end > start && is_ws(end[-1]))
    end--;
  return end;
}

/* config.c: memory, text checks, quoting and locations for messages. */
int dg_cfg_grow(void **p, size_t *cap, size_t need, size_t elem);
char *dg_cfg_alloc_kept(dg_config *c, size_t n);
char *dg_cfg_keep(dg_config *c, const char *s, size_t n);
size_t dg_cfg_utf8_len(const unsigned char *s, size_t n);
size_t dg_cfg_check_text(const char *d, size_t len, char *why, size_t whyn);
int dg_cfg_column(const char *ls, const char *p);
const char *dg_cfg_quote(char *buf, const char *s, size_t n);
const char *dg_cfg_quote_char(char *buf, const char *c, const char *end);
const char *dg_cfg_quotes(char *buf, const char *s);
const char *dg_cfg_where(char *buf, size_t n, const char *origin, int line, int col);
void dg_cfg_report_add(report *r, const char *origin, int line, int col, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
dg_error dg_cfg_report_raise(report *r, dg_error code);
/* config.c: the store. */
section *dg_cfg_find_section(const dg_config *c, const char *name);
entry *dg_cfg_find_entry(const section *s, const char *key);
const entry *dg_cfg_lookup(const dg_config *c, const char *sec, const char *key);
dg_error dg_cfg_add_section(dg_config *c, const char *name, size_t n, const char *origin,
                            int line, int col, section **out);
dg_error dg_cfg_set_entry(dg_config *c, section *s, const char *key, size_t n,
                          const char *value, const char *origin, int line, int key_col,
                          int value_col);
dg_error dg_cfg_config_new(const char *name, dg_config **out);
/* config_parse.c: a double-quoted value (see there). */
int dg_cfg_unquote(const char *v, const char *end, char *dst, size_t *n, const char **after);
/* config_values.c: text as a value of type; on failure "is not ..." in why. */
int dg_cfg_parse_typed(dg_config_type type, const char *choices, const char *text, typed *out,
                       char *why, size_t whyn);
/* config_schema.c: the row of section.key (key NULL: the open-section row). */
const dg_config_key *dg_cfg_schema_find(const dg_config_key *schema, size_t n,
                                        const char *section, const char *key);

#endif
