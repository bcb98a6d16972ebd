/* core.error_trace: DG_CHECK records message, file and line; DG_CALL appends
 * frames; the printed chain names every function on the way up. */
#include <stdio.h>
#include <string.h>

#include "core/error.h"

static int line_of_raise;

/* What dg_error_print writes, into buf. */
static void print_to(char *buf, size_t n) {
  memset(buf, 0, n);
  FILE *f = fmemopen(buf, n - 1, "w");
  dg_error_print(f);
  fclose(f);
}

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
  /* for users: the message alone, no trace */
  char buf[4096];
  print_to(buf, sizeof buf);
  if (strcmp(buf, "dgrun: input error: n -2 must be positive\n") != 0) {
    fprintf(stderr, "bad user message:\n%s", buf);
    return 1;
  }
  /* --debug: the trace too */
  dg_error_set_traces(1);
  print_to(buf, sizeof buf);
  dg_error_set_traces(0);
  char want[64];
  snprintf(want, sizeof want, "error_trace.c:%d", line_of_raise);
  if (!strstr(buf, "input error: n -2 must be positive") || !strstr(buf, "inner") ||
      !strstr(buf, "from outer") || !strstr(buf, want)) {
    fprintf(stderr, "bad trace:\n%s", buf);
    return 1;
  }
  /* a message that says "error:" itself gets no second one */
  dg_error_raise(DG_ERR_INPUT, __FILE__, __LINE__, __func__, "a.cfg:3:1: error: bad key");
  print_to(buf, sizeof buf);
  if (strcmp(buf, "dgrun: a.cfg:3:1: error: bad key\n") != 0) {
    fprintf(stderr, "bad located message:\n%s", buf);
    return 1;
  }
  /* an internal error (a bug) keeps its trace for the report */
  dg_error_raise(DG_ERR_INTERNAL, __FILE__, __LINE__, __func__, "broken invariant");
  print_to(buf, sizeof buf);
  if (!strstr(buf, "raised in main")) {
    fprintf(stderr, "internal error without its trace:\n%s", buf);
    return 1;
  }
  dg_error_clear();
  if (dg_error_message()[0] != '\0')
    return 1;
  printf("ok\n");
  return 0;
}
