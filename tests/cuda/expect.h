/* Shared by the tests in tests/cuda: EXPECT records a failed check and
 * goes on, so one run reports every broken behaviour. */
#ifndef DG_TESTS_CUDA_EXPECT_H
#define DG_TESTS_CUDA_EXPECT_H

#include <stdio.h>
#include <stdlib.h>

#include "core/error.h"

static int failures;

#define EXPECT(cond, ...)                                                     \
  do {                                                                        \
    if (!(cond)) {                                                            \
      fprintf(stderr, "%s:%d: FAILED: %s: ", __FILE__, __LINE__, #cond);      \
      fprintf(stderr, __VA_ARGS__);                                           \
      fputc('\n', stderr);                                                    \
      failures++;                                                             \
    }                                                                         \
  } while (0)

/* A call the rest of the test depends on: stop at the first failure,
 * printing the error trace. */
#define MUST(expr)                                                            \
  do {                                                                        \
    if ((expr) != DG_OK) {                                                    \
      fprintf(stderr, "%s:%d: FAILED: %s\n", __FILE__, __LINE__, #expr);      \
      dg_error_print(stderr);                                                 \
      exit(1);                                                                \
    }                                                                         \
  } while (0)

/* End of main: 0 when every check passed. */
static inline int expect_summary(void) {
  if (failures) {
    fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  printf("all checks passed\n");
  return 0;
}

#endif
