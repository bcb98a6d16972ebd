#include "core/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/printable.h"

static dg_log_level current_level = DG_LOG_INFO;

void dg_log_set_level(dg_log_level level) { current_level = level; }
dg_log_level dg_log_get_level(void) { return current_level; }

void dg_log(dg_log_level level, const char *fmt, ...) {
  if (level > current_level)
    return;
  static const char *prefix[] = {"", "warning: ", "", "debug: "};
  fputs("dgrun: ", stderr);
  fputs(prefix[level], stderr);
  /* formatted, then made printable (names from input files) */
  va_list ap, again;
  va_start(ap, fmt);
  va_copy(again, ap);
  char small[1024], *raw = small;
  int n = vsnprintf(small, sizeof small, fmt, ap);
  if (n >= (int)sizeof small && (raw = malloc((size_t)n + 1)) != NULL)
    vsnprintf(raw, (size_t)n + 1, fmt, again);
  va_end(again);
  va_end(ap);
  if (!raw)
    raw = small;
  size_t cap = 4 * strlen(raw) + 1;
  char *out = malloc(cap);
  if (out) {
    dg_printable(out, cap, raw);
    fputs(out, stderr);
  }
  free(out);
  if (raw != small)
    free(raw);
  fputc('\n', stderr);
}
