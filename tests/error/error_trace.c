/* core.error_trace: DG_CHECK records message, file and line; DG_CALL appends
 * frames; the printed chain names every function on the way up. */
#include <stdio.h>
#include <string.h>

#include "core/error.h"

static int line_of_raise;

static dg_error inner(int n) {
  line_of_raise = __LINE__ + 1;
  DG_CHECK(n > 0, DG_ERR_INPUT, "n %d must be positive", n);
  return DG_OK;
}

static dg_error outer(int n) {
  DG_CALL(inner(n));
  return DG_OK;
}

int main(void) {
  if (outer(3) != DG_OK) {
    fprintf(stderr, "outer(3) failed\n");
    return 1;
  }
  dg_error e = outer(-2);
  if (e != DG_ERR_INPUT) {
    fprintf(stderr, "expected DG_ERR_INPUT, got %d\n", e);
    return 1;
  }
  if (strcmp(dg_error_message(), "n -2 must be positive") != 0) {
    fprintf(stderr, "bad message '%s'\n", dg_error_message());
    return 1;
  }
  char buf[4096] = {0};
  FILE *f = fmemopen(buf, sizeof buf - 1, "w");
  dg_error_print(f);
  fclose(f);
  char want[64];
  snprintf(want, sizeof want, "error_trace.c:%d", line_of_raise);
  if (!strstr(buf, "input error: n -2 must be positive") || !strstr(buf, "inner") ||
      !strstr(buf, "from outer") || !strstr(buf, want)) {
    fprintf(stderr, "bad trace:\n%s", buf);
    return 1;
  }
  dg_error_clear();
  if (dg_error_message()[0] != '\0')
    return 1;
  printf("ok\n");
  return 0;
}
