#include "operators/flux_diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void dg_flux_diag_error(dg_flux_source *src, dg_flux_loc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  dg_flux_diag_verror(src, loc, fmt, ap);
  va_end(ap);
}

void dg_flux_diag_verror(dg_flux_source *src, dg_flux_loc loc, const char *fmt, va_list ap) {
  dg_flux_diags *d = src->diags;
  for (int i = 0; i < d->count; i++)
    if (d->items[i].loc.line == loc.line && d->items[i].loc.col == loc.col)
      return;
  if (d->count >= DG_FLUX_MAX_ERRORS) {
    d->dropped++;
    return;
  }
  dg_flux_diag *e = &d->items[d->count++];
  e->loc = loc;
  vsnprintf(e->message, sizeof e->message, fmt, ap);
}

int dg_flux_diag_full(const dg_flux_source *src) {
  return src->diags->count >= DG_FLUX_MAX_ERRORS;
}

int dg_flux_utf8_decode(const unsigned char *p, size_t left, unsigned *cp) {
  unsigned c = p[0];
  int len;
  unsigned min;
  if (c < 0x80) {
    *cp = c;
    return 1;
  } else if ((c & 0xE0) == 0xC0) {
    len = 2, min = 0x80, c &= 0x1F;
  } else if ((c & 0xF0) == 0xE0) {
    len = 3, min = 0x800, c &= 0x0F;
  } else if ((c & 0xF8) == 0xF0) {
    len = 4, min = 0x10000, c &= 0x07;
  } else {
    return 0;
  }
  if (left < (size_t)len)
    return 0;
  for (int i = 1; i < len; i++) {
    if ((p[i] & 0xC0) != 0x80)
      return 0;
    c = (c << 6) | (p[i] & 0x3F);
  }
  if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
    return 0;
  *cp = c;
  return len;
}

/* Append s[0..n) to buf if it fits (keeping room for the NUL). */
static void put(char *buf, size_t size, size_t *at, const char *s, size_t n) {
  if (*at + n + 1 > size)
    n = *at + 1 < size ? size - *at - 1 : 0;
  memcpy(buf + *at, s, n);
  *at += n;
  buf[*at] = '\0';
}

size_t dg_flux_diag_format(const dg_flux_source *src, const dg_flux_diag *d, char *buf,
                           size_t size) {
  if (size == 0)
    return 0;
  buf[0] = '\0';
  char head[DG_FLUX_MESSAGE_MAX + 128];
  int n = snprintf(head, sizeof head, "%s:%d:%d: error: %s\n", src->name, d->loc.line,
                   d->loc.col, d->message);
  size_t at = 0;
  put(buf, size, &at, head, n < 0 ? 0 : (size_t)n < sizeof head ? (size_t)n : sizeof head - 1);
  /* Find the line (lines are split at '\n' only). */
  const unsigned char *p = (const unsigned char *)src->text, *end = p + src->size;
  for (int line = 1; line < d->loc.line && p < end; p++)
    if (*p == '\n')
      line++;
  if (d->loc.line < 1 || (p >= end && d->loc.col > 1))
    return at;
  /* The line as displayed: invalid UTF-8 shown as '?', control characters
   * other than tab as ' ', so a binary file cannot garble the terminal. */
  put(buf, size, &at, "  ", 2);
  char caret[512] = "  ";
  size_t cat = 2;
  int col = 1;
  while (p < end && *p != '\n' && *p != '\r') {
    unsigned cp;
    int len = dg_flux_utf8_decode(p, (size_t)(end - p), &cp);
    if (len == 0) {
      put(buf, size, &at, "?", 1);
      len = 1;
      cp = '?';
    } else if (cp == '\t' || (cp >= 0x20 && cp != 0x7F && !(cp >= 0x80 && cp < 0xA0))) {
      put(buf, size, &at, (const char *)p, (size_t)len);
    } else {
      put(buf, size, &at, " ", 1);
    }
    if (col < d->loc.col && cat + 1 < sizeof caret)
      caret[cat++] = cp == '\t' && len == 1 ? '\t' : ' ';
    col++;
    p += len;
  }
  put(buf, size, &at, "\n", 1);
  for (int i = 0; i < (d->loc.len > 1 ? d->loc.len : 1) && cat + 2 < sizeof caret; i++)
    caret[cat++] = i == 0 ? '^' : '~';
  caret[cat++] = '\n';
  put(buf, size, &at, caret, cat);
  return at;
}
