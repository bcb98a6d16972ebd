/* Diagnostics of the flux language: errors collected with their source
 * location and formatted compiler-style,
 *
 *   maxwell.flux:3:14: error: unknown name 'Hx'; did you mean 'H'?
 *     rhs E = curl(Hx)/eps
 *                  ^~
 *
 * Up to DG_FLUX_MAX_ERRORS errors are kept so that one run reports several
 * mistakes; an error at a location that already has one is dropped (one
 * mistake, one message). */
#ifndef DG_OPERATORS_FLUX_DIAG_H
#define DG_OPERATORS_FLUX_DIAG_H

#include <stdarg.h>
#include <stddef.h>

#include "operators/flux_ast.h"

enum { DG_FLUX_MAX_ERRORS = 20, DG_FLUX_MESSAGE_MAX = 256 };

typedef struct dg_flux_diag {
  dg_flux_loc loc;
  char message[DG_FLUX_MESSAGE_MAX]; /* without "file:line:col: error: " */
  char text[3 * DG_FLUX_MESSAGE_MAX]; /* the whole report (dg_flux_diag_format),
                                         filled when parsing ends */
} dg_flux_diag;

typedef struct dg_flux_diags {
  int count;   /* errors kept, <= DG_FLUX_MAX_ERRORS */
  int dropped; /* errors past the limit */
  dg_flux_diag items[DG_FLUX_MAX_ERRORS];
} dg_flux_diags;

/* The text being checked (bytes, not necessarily NUL-terminated) and where
 * its errors go. */
typedef struct dg_flux_source {
  const char *name;
  const char *text;
  size_t size;
  dg_flux_diags *diags;
} dg_flux_source;

void dg_flux_diag_error(dg_flux_source *src, dg_flux_loc loc, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* The same with a va_list (for wrappers that add their own policy). */
void dg_flux_diag_verror(dg_flux_source *src, dg_flux_loc loc, const char *fmt, va_list ap);

/* True once DG_FLUX_MAX_ERRORS errors were recorded (stop early). */
int dg_flux_diag_full(const dg_flux_source *src);

/* "name:line:col: error: message\n" + the source line + a caret line, into
 * buf (always NUL-terminated); returns the length written. */
size_t dg_flux_diag_format(const dg_flux_source *src, const dg_flux_diag *d, char *buf,
                           size_t size);

/* Decode one UTF-8 code point from p[0..left): its length in bytes, or 0 if
 * the bytes there are not valid UTF-8 (overlong forms and surrogates
 * included). */
int dg_flux_utf8_decode(const unsigned char *p, size_t left, unsigned *cp);

#endif
