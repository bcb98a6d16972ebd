/* Shared checks for the core.config_* tests: a failed expectation prints
 * what was wanted and what came, and counts; main returns the count. */
#ifndef DG_TESTS_CONFIG_EXPECT_H
#define DG_TESTS_CONFIG_EXPECT_H

#include <stdio.h>
#include <string.h>

#include "core/config.h"
#include "tests/expect.h"

/* err must be DG_OK; otherwise print the recorded message. */
#define EXPECT_OK(expr)                                                       \
  do {                                                                        \
    dg_error e_ = (expr);                                                     \
    if (e_ != DG_OK) {                                                        \
      printf("%s:%d: %s failed: %s\n", __FILE__, __LINE__, #expr,             \
             dg_error_message());                                             \
      failures++;                                                             \
    }                                                                         \
  } while (0)

#define EXPECT_STR(got, want)                                                 \
  do {                                                                        \
    const char *g_ = (got), *w_ = (want);                                     \
    if (!g_ || strcmp(g_, w_) != 0) {                                         \
      printf("%s:%d: %s is '%s', want '%s'\n", __FILE__, __LINE__, #got,      \
             g_ ? g_ : "(null)", w_);                                         \
      failures++;                                                             \
    }                                                                         \
  } while (0)

/* expr must fail with code and exactly the message want. */
#define EXPECT_ERROR(expr, code, want)                                        \
  do {                                                                        \
    dg_error_clear();                                                         \
    dg_error e_ = (expr);                                                     \
    if (e_ != (code) || strcmp(dg_error_message(), (want)) != 0) {            \
      printf("%s:%d: %s\n  gave %d '%s'\n  want %d '%s'\n", __FILE__,         \
             __LINE__, #expr, (int)e_, dg_error_message(), (int)(code),       \
             (want));                                                         \
      failures++;                                                             \
    }                                                                         \
  } while (0)

/* Parsing text must fail with exactly the message want (and no config). */
static inline void expect_parse_error(const char *file, int line, const char *text,
                                      const char *want) {
  dg_config *cfg = (dg_config *)&failures; /* poison: must become NULL */
  dg_error_clear();
  dg_error e = dg_config_read_string(text, "t.cfg", &cfg);
  if (e != DG_ERR_INPUT || strcmp(dg_error_message(), want) != 0 || cfg != NULL) {
    printf("%s:%d: parsing gave %d '%s'\n  want '%s'\n", file, line, (int)e,
           dg_error_message(), want);
    failures++;
  }
  if (e == DG_OK)
    dg_config_destroy(&cfg);
}
#define EXPECT_PARSE_ERROR(text, want) expect_parse_error(__FILE__, __LINE__, text, want)

#endif
