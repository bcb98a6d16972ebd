#include "core/jit_source.h"

#include <string.h>

const char *dg_jit_source_find(const dg_jit_source *table, const char *name) {
  for (const dg_jit_source *s = table; s->name; s++)
    if (strcmp(s->name, name) == 0)
      return s->text;
  return NULL;
}

/* The file named by an `#include "path"` line of the table at text
 * (which starts a line), or NULL. */
static const char *included(const dg_jit_source *table, const char *text, const char *end) {
  static const char directive[] = "#include \"";
  size_t n = sizeof directive - 1;
  if ((size_t)(end - text) <= n || strncmp(text, directive, n) != 0)
    return NULL;
  const char *q = memchr(text + n, '"', (size_t)(end - text - n));
  if (!q || q - (text + n) >= 256)
    return NULL;
  char path[256];
  memcpy(path, text + n, (size_t)(q - (text + n)));
  path[q - (text + n)] = '\0';
  for (const dg_jit_source *s = table; s->name; s++)
    if (strcmp(s->name, path) == 0)
      return s->name;
  return NULL;
}

static void append_depth(dg_strbuf *b, const dg_jit_source *table, const char *name, int depth) {
  const char *text = dg_jit_source_find(table, name);
  if (!text || depth > 16) {
    dg_strbuf_appendf(b, "#error \"dgrun: embedded source %s %s\"\n", name,
                      text ? "includes itself" : "is missing");
    return;
  }
  for (const char *p = text; *p;) {
    const char *nl = strchr(p, '\n');
    const char *end = nl ? nl + 1 : p + strlen(p);
    const char *inc = included(table, p, end);
    if (inc)
      append_depth(b, table, inc, depth + 1);
    else
      dg_strbuf_appendn(b, p, (size_t)(end - p));
    p = end;
  }
}

void dg_jit_source_append(dg_strbuf *b, const dg_jit_source *table, const char *name) {
  append_depth(b, table, name, 0);
}

/* generated from core/jit/ (cmake/embed_sources.cmake) */
extern const dg_jit_source dg_core_jit_table[];

void dg_core_jit(dg_strbuf *b, const char *name) { dg_jit_source_append(b, dg_core_jit_table, name); }
