/* core.suggest: edit distances computed by hand; plausible typos suggested,
 * unrelated words not. */
#include <stdio.h>
#include <string.h>

#include "core/suggest.h"

static int failures;
static void expect_distance(const char *a, const char *b, size_t want) {
  size_t d = dg_suggest_distance(a, b);
  if (d != want) {
    printf("distance(%s, %s) = %zu, want %zu\n", a, b, d, want);
    failures++;
  }
}

int main(void) {
  expect_distance("kitten", "sitting", 3); /* k->s, e->i, +g */
  expect_distance("", "abc", 3);
  expect_distance("order", "ORDER", 0);
  expect_distance("ordr", "order", 1);
  const char *keys[] = {"order", "precision", "final_time", "cfl"};
  const char *s = dg_suggest_closest("ordr", keys, 4);
  if (!s || strcmp(s, "order") != 0) {
    printf("closest(ordr) = %s\n", s ? s : "(null)");
    failures++;
  }
  s = dg_suggest_closest("precison", keys, 4);
  if (!s || strcmp(s, "precision") != 0) {
    printf("closest(precison) = %s\n", s ? s : "(null)");
    failures++;
  }
  if (dg_suggest_closest("banana", keys, 4) != NULL) {
    printf("banana should have no suggestion\n");
    failures++;
  }
  if (failures == 0)
    printf("ok\n");
  return failures ? 1 : 0;
}
