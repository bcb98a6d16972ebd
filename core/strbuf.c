#include "core/strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void dg_strbuf_init(dg_strbuf *b) { memset(b, 0, sizeof *b); }

void dg_strbuf_free(dg_strbuf *b) {
  free(b->data);
  dg_strbuf_init(b);
}

static int reserve(dg_strbuf *b, size_t extra) {
  if (b->failed)
    return 0;
  if (b->len + extra + 1 <= b->cap)
    return 1;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->len + extra + 1)
    cap *= 2;
  char *p = realloc(b->data, cap);
  if (!p) {
    b->failed = 1;
    return 0;
  }
  b->data = p;
  b->cap = cap;
  return 1;
}

void dg_strbuf_append(dg_strbuf *b, const char *s) { dg_strbuf_appendn(b, s, strlen(s)); }

void dg_strbuf_appendn(dg_strbuf *b, const char *s, size_t n) {
  if (!reserve(b, n))
    return;
  memcpy(b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = '\0';
}

/* Formatted straight into the free space, formatted again only when it did
 * not fit: the generators append about a million short pieces per tuning
 * space (every operator entry a "%.17e, "), and measuring each one first
 * with vsnprintf(NULL, 0) doubled their time in printf. */
static void vappendf(dg_strbuf *b, const char *fmt, va_list ap) {
  if (!reserve(b, 64))
    return;
  va_list ap2;
  va_copy(ap2, ap);
  size_t room = b->cap - b->len; /* > 64, the terminator included */
  int n = vsnprintf(b->data + b->len, room, fmt, ap2);
  va_end(ap2);
  if (n < 0) {
    b->data[b->len] = '\0';
    b->failed = 1;
    return;
  }
  if ((size_t)n >= room) { /* cut short: make room and format it again */
    b->data[b->len] = '\0';
    if (!reserve(b, (size_t)n))
      return;
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
  }
  b->len += (size_t)n;
}

void dg_strbuf_appendf(dg_strbuf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vappendf(b, fmt, ap);
  va_end(ap);
}

void dg_strbuf_indent(dg_strbuf *b) {
  if (reserve(b, (size_t)b->indent)) {
    memset(b->data + b->len, ' ', (size_t)b->indent);
    b->len += (size_t)b->indent;
    b->data[b->len] = '\0';
  }
}

void dg_strbuf_line(dg_strbuf *b, const char *fmt, ...) {
  dg_strbuf_indent(b);
  va_list ap;
  va_start(ap, fmt);
  vappendf(b, fmt, ap);
  va_end(ap);
  dg_strbuf_append(b, "\n");
}

void dg_strbuf_lines(dg_strbuf *b, const char *text) {
  while (*text) {
    const char *nl = strchr(text, '\n');
    size_t n = nl ? (size_t)(nl - text) : strlen(text);
    dg_strbuf_indent(b);
    dg_strbuf_appendn(b, text, n);
    dg_strbuf_append(b, "\n");
    text += nl ? n + 1 : n;
  }
}

dg_error dg_strbuf_finish(dg_strbuf *b, char **out) {
  if (b->failed) {
    dg_strbuf_free(b);
    DG_RAISE(DG_ERR_MEMORY, "out of memory while generating source text");
  }
  if (!b->data)
    dg_strbuf_append(b, "");
  DG_CHECK(!b->failed, DG_ERR_MEMORY, "out of memory while generating source text");
  *out = b->data;
  dg_strbuf_init(b);
  return DG_OK;
}
