#include "core/printable.h"

#include <stdio.h>

static int is_control(unsigned char c) { return (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f; }

size_t dg_printable(char *dst, size_t size, const char *src) {
  if (!size)
    return 0;
  size_t n = 0;
  const unsigned char *s = (const unsigned char *)src;
  for (size_t i = 0; s[i]; i++) {
    int c1 = s[i] == 0xc2 && s[i + 1] >= 0x80 && s[i + 1] <= 0x9f;
    if (!is_control(s[i]) && !c1) {
      if (n + 1 >= size)
        break;
      dst[n++] = (char)s[i];
      continue;
    }
    int nb = c1 ? 2 : 1;
    if (n + 4 * (size_t)nb >= size)
      break;
    for (int b = 0; b < nb; b++, n += 4)
      snprintf(dst + n, 5, "\\x%02x", s[i + (size_t)b]);
    i += (size_t)nb - 1;
  }
  dst[n] = '\0';
  return n;
}
