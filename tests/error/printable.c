/* core.printable: dg_printable as core/printable.h documents it — control
 * bytes (below 0x20 but newline and tab, and 0x7f) and UTF-8 encoded C1
 * controls (U+0080..U+009F) written as \xHH, printable ASCII and other
 * UTF-8 unchanged, bytes that are not valid UTF-8 unchanged, the output
 * truncated to fit without splitting an escape — and the escaping of the
 * text a message quotes (dg_error_raise). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/printable.h"
#include "tests/expect.h"

/* src through a buffer of size bytes gives want (and returns its length). */
static void expect_out(const char *what, const char *src, size_t size, const char *want) {
  char buf[256];
  memset(buf, '#', sizeof buf);
  size_t n = dg_printable(buf, size, src);
  EXPECT(strcmp(buf, want) == 0, "%s: got \"%s\", want \"%s\"", what, buf, want);
  EXPECT(n == strlen(want), "%s: returned %zu, want %zu", what, n, strlen(want));
  EXPECT(n < size && buf[n] == '\0', "%s: not NUL-terminated within %zu bytes", what, size);
  for (size_t i = size; i < sizeof buf; i++)
    if (buf[i] != '#') {
      EXPECT(0, "%s: wrote byte %zu of a %zu-byte buffer", what, i, size);
      break;
    }
}

static void controls(void) {
  expect_out("empty", "", 16, "");
  expect_out("ascii", "plain text ~!{}[]", 64, "plain text ~!{}[]");
  expect_out("newline, tab", "line\nnext\tcol", 64, "line\nnext\tcol");
  expect_out("escape", "a\x1b[2Jb", 64, "a\\x1b[2Jb");
  expect_out("carriage return", "x\ry", 64, "x\\x0dy");
  expect_out("range ends", "\x01\x1f\x7f", 64, "\\x01\\x1f\\x7f");
  expect_out("bell, backspace", "\a\b", 64, "\\x07\\x08");
  expect_out("space, tilde", " ~", 64, " ~");
}

static void utf8(void) {
  /* é ü €, and U+00A0 (just past the C1 range): unchanged */
  expect_out("utf-8", "\xc3\xa9 \xc3\xbc \xe2\x82\xac \xc2\xa0", 64,
             "\xc3\xa9 \xc3\xbc \xe2\x82\xac \xc2\xa0");
  /* C1 controls U+0080, U+009B (CSI), U+009F: both bytes escaped */
  expect_out("C1 first", "\xc2\x80", 64, "\\xc2\\x80");
  expect_out("C1 CSI", "a\xc2\x9b" "31mb", 64, "a\\xc2\\x9b31mb");
  expect_out("C1 last", "\xc2\x9f", 64, "\\xc2\\x9f");
  /* not valid UTF-8: passed as they are (a lead byte followed by 0x7f
   * leaves the 0x7f to be escaped on its own) */
  expect_out("invalid bytes", "\xff\xfe", 64, "\xff\xfe");
  expect_out("lone lead at end", "ab\xc2", 64, "ab\xc2");
  expect_out("truncated sequence", "\xe2\x82", 64, "\xe2\x82");
  expect_out("lead before ascii", "\xc2\x41", 64, "\xc2\x41");
  expect_out("lead before DEL", "\xc2\x7f", 64, "\xc2\\x7f");
}

static void truncation(void) {
  expect_out("cut ascii", "abcdefgh", 6, "abcde");
  expect_out("one byte", "abc", 1, "");
  /* an escape is written whole or not at all */
  expect_out("escape cut", "a\x1b", 5, "a");
  expect_out("escape fits", "a\x1b", 6, "a\\x1b");
  expect_out("C1 pair cut", "\xc2\x9b", 8, "");
  expect_out("C1 pair fits", "\xc2\x9b", 9, "\\xc2\\x9b");
  char untouched = '#';
  EXPECT(dg_printable(&untouched, 0, "abc") == 0 && untouched == '#', "size 0 wrote");
}

/* A long name with an escape every 100 bytes: 3 more bytes per escape in
 * full, and a shorter buffer holds a prefix of that, ending on a whole
 * escape or character. */
static void long_text(void) {
  enum { N = 10000 };
  char *src = malloc(N + 1), *full = malloc(4 * N + 1), cut[4096];
  CHECK(src && full, "out of memory");
  for (int i = 0; i < N; i++)
    src[i] = i % 100 == 99 ? '\x1b' : (char)('a' + i % 26);
  src[N] = '\0';
  size_t n = dg_printable(full, 4 * N + 1, src);
  EXPECT(n == N + 3 * (N / 100), "long: %zu bytes, want %d", n, N + 3 * (N / 100));
  EXPECT(strchr(full, '\x1b') == NULL, "long: a raw escape is left");
  size_t m = dg_printable(cut, sizeof cut, src);
  EXPECT(m < sizeof cut && cut[m] == '\0', "long cut: not terminated");
  EXPECT(m + 4 >= sizeof cut - 1, "long cut: %zu bytes of %zu used", m, sizeof cut);
  EXPECT(memcmp(cut, full, m) == 0, "long cut: not a prefix of the whole");
  const char *bs = strrchr(cut, '\\'); /* the text itself holds no backslash */
  EXPECT(!bs || strlen(bs) >= 4, "long cut: an escape was split: %s", bs);
  free(src);
  free(full);
}

/* What a message quotes is escaped on its way in. */
static void in_messages(void) {
  dg_error e = dg_error_raise(DG_ERR_INPUT, __FILE__, __LINE__, __func__, "tag '%s' unknown",
                              "in\x1b[31mlet\xc2\x9b");
  const char *msg = dg_error_message();
  EXPECT(e == DG_ERR_INPUT, "raise returned %d", e);
  EXPECT(strstr(msg, "tag 'in\\x1b[31mlet\\xc2\\x9b' unknown") != NULL, "message: %s", msg);
  EXPECT(strchr(msg, '\x1b') == NULL, "raw escape in the message");
  dg_error_clear();
}

int main(void) {
  controls();
  utf8();
  truncation();
  long_text();
  in_messages();
  return expect_finish();
}
