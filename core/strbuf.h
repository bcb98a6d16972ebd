/* A growable string buffer for generated source text.  Appends never fail
 * visibly: an allocation failure marks the buffer as failed, and
 * dg_strbuf_finish reports it once (so emitters stay readable). */
#ifndef DG_CORE_STRBUF_H
#define DG_CORE_STRBUF_H

#include <stddef.h>

#include "core/error.h"

typedef struct dg_strbuf {
  char *data;
  size_t len, cap;
  int failed;
  int indent; /* current indentation (spaces) used by dg_strbuf_line */
} dg_strbuf;

void dg_strbuf_init(dg_strbuf *b);
void dg_strbuf_free(dg_strbuf *b);
void dg_strbuf_append(dg_strbuf *b, const char *s);
/* Append the n bytes at s (no terminator needed). */
void dg_strbuf_appendn(dg_strbuf *b, const char *s, size_t n);
void dg_strbuf_appendf(dg_strbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Append one line at the current indentation, with a newline. */
void dg_strbuf_line(dg_strbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Append each line of text (newline-terminated, not a format) at the
 * current indentation, as that many dg_strbuf_line calls would: the form
 * for a run of constant lines. */
void dg_strbuf_lines(dg_strbuf *b, const char *text);
/* Append the current indentation only (a line continues with appends). */
void dg_strbuf_indent(dg_strbuf *b);
/* Hand the text to the caller (who frees it); DG_ERR_MEMORY if any append failed. */
dg_error dg_strbuf_finish(dg_strbuf *b, char **out);

#endif
