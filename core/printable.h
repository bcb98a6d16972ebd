/* Text from input files (mesh tag names, region names, file names, keys,
 * source lines) reaches the terminal inside messages; a name holding an
 * escape sequence must not clear the screen or rewrite earlier lines.
 * dg_error_raise and dg_log pass every message through dg_printable, so no
 * message needs to escape what it quotes. */
#ifndef DG_CORE_PRINTABLE_H
#define DG_CORE_PRINTABLE_H

#include <stddef.h>

/* Copy src to dst (size bytes, NUL-terminated, truncated to fit) with each
 * control byte (below 0x20 except newline and tab, 0x7f) and each UTF-8
 * encoded C1 control (U+0080..U+009F, which some terminals obey as ESC [)
 * written as \xHH (a C1 control as its two bytes).  Returns the length
 * written.  Printable ASCII and other UTF-8 pass unchanged, and so do bytes
 * that are not valid UTF-8 (the text stays what the input held).  An
 * escape is written whole or not at all when the output is truncated. */
size_t dg_printable(char *dst, size_t size, const char *src);

#endif
