#include "core/log.h"

#include <stdarg.h>
#include <stdio.h>

static dg_log_level current_level = DG_LOG_INFO;

void dg_log_set_level(dg_log_level level) { current_level = level; }
dg_log_level dg_log_get_level(void) { return current_level; }

void dg_log(dg_log_level level, const char *fmt, ...) {
  if (level > current_level)
    return;
  static const char *prefix[] = {"", "warning: ", "", "debug: "};
  fputs("dgrun: ", stderr);
  fputs(prefix[level], stderr);
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
}
