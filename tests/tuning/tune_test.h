/* Shared check of the tuning.* tests: a failed expectation prints the
 * condition and counts; main returns the count. */
#ifndef DG_TESTS_TUNING_TUNE_TEST_H
#define DG_TESTS_TUNING_TUNE_TEST_H

#include <stdio.h>

static int failures;
#define EXPECT(c)                                                     \
  do {                                                                \
    if (!(c)) {                                                       \
      printf("%s:%d: expected %s\n", __FILE__, __LINE__, #c);        \
      failures++;                                                     \
    }                                                                 \
  } while (0)

#endif
