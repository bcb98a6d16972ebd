/* The plainest shared check of the tests: a failed expectation prints the
 * condition with file and line, and counts; main returns the count.  Folders
 * with richer checks build on it (tests/config/expect.h). */
#ifndef DG_TESTS_EXPECT_H
#define DG_TESTS_EXPECT_H

#include <stdio.h>

static int failures;

#define EXPECT(cond)                                                          \
  do {                                                                        \
    if (!(cond)) {                                                            \
      printf("%s:%d: expected %s\n", __FILE__, __LINE__, #cond);              \
      failures++;                                                             \
    }                                                                         \
  } while (0)

#endif
