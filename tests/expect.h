/* The shared checks of the tests.
 *
 *   EXPECT(cond [, fmt, ...])  a failed expectation prints file:line, the
 *                              condition and the message, counts, goes on
 *   CHECK(cond [, fmt, ...])   the same, and the test stops (exit 1)
 *   MUST(call)                 a dgrun call that must return DG_OK: else
 *                              print its error trace and stop (exit 1)
 *   expect_finish()            end of main: "ok" or the count; the status
 *   expect_reldiff(a, b, n)    max |a - b| / max |a| of two arrays
 *
 * Folders with richer checks build on it (tests/config/expect.h). */
#ifndef DG_TESTS_EXPECT_H
#define DG_TESTS_EXPECT_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/error.h"

#if defined(__GNUC__)
__attribute__((unused))
#endif
static int failures;

/* The message is optional: pick the one-argument form for EXPECT(cond) and
 * the printf form for up to 15 message arguments. */
#define DG_EXPECT_PICK_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15,     \
                        _16, _17, NAME, ...)                                                    \
  NAME
#define DG_EXPECT_FORM_(one, msg, ...)                                                        \
  DG_EXPECT_PICK_(__VA_ARGS__, msg, msg, msg, msg, msg, msg, msg, msg, msg, msg, msg, msg,    \
                  msg, msg, msg, msg, one, unused)

/* After the file:line and condition of a failure: count, maybe stop. */
static inline void dg_expect_failed_(int stop) {
  printf("\n");
  failures++;
  if (stop)
    exit(1);
}
#define DG_EXPECT_1_(cond, stop)                                                               \
  do {                                                                                         \
    if (!(cond)) {                                                                             \
      printf("%s:%d: check failed: %s", __FILE__, __LINE__, #cond);                          \
      dg_expect_failed_(stop);                                                                 \
    }                                                                                          \
  } while (0)
#define DG_EXPECT_M_(cond, stop, ...)                                                          \
  do {                                                                                         \
    if (!(cond)) {                                                                             \
      printf("%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);                        \
      printf(__VA_ARGS__);                                                                     \
      dg_expect_failed_(stop);                                                                 \
    }                                                                                          \
  } while (0)

#define DG_EXPECT_ONE_(cond) DG_EXPECT_1_(cond, 0)
#define DG_EXPECT_MSG_(cond, ...) DG_EXPECT_M_(cond, 0, __VA_ARGS__)
#define DG_CHECK_ONE_(cond) DG_EXPECT_1_(cond, 1)
#define DG_CHECK_MSG_(cond, ...) DG_EXPECT_M_(cond, 1, __VA_ARGS__)

#define EXPECT(...) DG_EXPECT_FORM_(DG_EXPECT_ONE_, DG_EXPECT_MSG_, __VA_ARGS__)(__VA_ARGS__)
#define CHECK(...) DG_EXPECT_FORM_(DG_CHECK_ONE_, DG_CHECK_MSG_, __VA_ARGS__)(__VA_ARGS__)

#define MUST(expr)                                                                             \
  do {                                                                                         \
    if ((expr) != DG_OK) {                                                                     \
      fflush(stdout);                                                                          \
      fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, #expr);                       \
      dg_error_print(stderr);                                                                  \
      exit(1);                                                                                 \
    }                                                                                          \
  } while (0)

/* max |a - b| / max |a| (max |a - b| where a is all zero) */
static inline double expect_reldiff(const double *a, const double *b, size_t n) {
  double d = 0, m = 0;
  for (size_t i = 0; i < n; i++) {
    d = fmax(d, fabs(a[i] - b[i]));
    m = fmax(m, fabs(a[i]));
  }
  return m > 0 ? d / m : d;
}

/* End of main: 0 when every expectation held. */
static inline int expect_finish(void) {
  if (failures)
    printf("%d check(s) failed\n", failures);
  else
    printf("ok\n");
  return failures ? 1 : 0;
}

#endif
