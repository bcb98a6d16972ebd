/* core.elementwise_parse: the argument-list parser accepts exactly
 * `[const] float|double|int|int64_t [*]name` lists and rejects everything
 * else with a message naming the problem.  No device needed. */
#include <stdio.h>
#include <string.h>

#include "core/elementwise.h"

static int failures;

static void expect_ok(const char *text, int count) {
  dg_elementwise_signature sig;
  dg_error err = dg_elementwise_parse_signature(text, &sig);
  if (err != DG_OK || sig.count != count) {
    printf("FAIL \"%s\": err %d, %d arguments, want %d (%s)\n", text, (int)err,
           sig.count, count, dg_error_message());
    failures++;
  }
}

static void expect_reject(const char *text, const char *fragment) {
  dg_elementwise_signature sig;
  dg_error err = dg_elementwise_parse_signature(text, &sig);
  if (err != DG_ERR_ARG || !strstr(dg_error_message(), fragment)) {
    printf("FAIL \"%s\": err %d, message \"%s\" lacks \"%s\"\n", text, (int)err,
           dg_error_message(), fragment);
    failures++;
  }
  dg_error_clear();
}

int main(void) {
  dg_elementwise_signature sig;
  if (dg_elementwise_parse_signature(
          " const double *x ,float a,int k, int64_t *idx,double*y", &sig) !=
      DG_OK) {
    dg_error_print(stdout);
    return 1;
  }
  const struct {
    dg_ctype type;
    int ptr, cst;
    const char *name;
  } want[] = {{DG_CTYPE_DOUBLE, 1, 1, "x"},
              {DG_CTYPE_FLOAT, 0, 0, "a"},
              {DG_CTYPE_INT, 0, 0, "k"},
              {DG_CTYPE_INT64, 1, 0, "idx"},
              {DG_CTYPE_DOUBLE, 1, 0, "y"}};
  if (sig.count != 5) {
    printf("FAIL: %d arguments, want 5\n", sig.count);
    failures++;
  }
  for (int k = 0; k < 5 && k < sig.count; k++) {
    const dg_elementwise_param *p = &sig.params[k];
    if (p->type != want[k].type || p->is_pointer != want[k].ptr ||
        p->is_const != want[k].cst || strcmp(p->name, want[k].name) != 0) {
      printf("FAIL: argument %d parsed as type %d ptr %d const %d '%s'\n", k,
             (int)p->type, p->is_pointer, p->is_const, p->name);
      failures++;
    }
  }
  expect_ok("", 0);
  expect_ok("   ", 0);
  expect_ok("float x_1", 1);
  expect_reject("float _x1", "reserved");

  expect_reject("long x", "found 'long'");
  expect_reject("unsigned x", "found 'unsigned'");
  expect_reject("double **x", "expected a name");
  expect_reject("double x y", "expected ','");
  expect_reject("double x;", "expected ','");
  expect_reject("const *x", "expected float, double, int or int64_t");
  expect_reject("double *x,", "expected float, double");
  expect_reject("double *x, float x", "declared twice");
  expect_reject("double i", "'i' and 'n'");
  expect_reject("int n", "'i' and 'n'");
  expect_reject("double dg_acc", "reserved");
  expect_reject("double *for", "keyword");
  expect_reject("double *x[3]", "expected ','");
  expect_reject("double", "expected a name");

  if (failures == 0)
    printf("ok\n");
  return failures ? 1 : 0;
}
