/* dg.refelem_errors: bad dimension or order is an input error, with *out
 * left NULL; the extreme supported orders build. */
#include "refelem_test.h"

int main(void) {
  const int bad[][2] = {{0, 3}, {4, 3}, {-1, 3}, {2, 0}, {2, 16}, {1, -1},
                        {3, 0}, {3, 16}, {1, 16}};
  for (size_t c = 0; c < sizeof bad / sizeof bad[0]; ++c) {
    dg_refelem *re = (dg_refelem *)&re; /* poisoned: must become NULL */
    dg_error e = dg_refelem_create(bad[c][0], bad[c][1], &re);
    EXPECT(e == DG_ERR_INPUT, "dim %d N %d gave error %d", bad[c][0],
           bad[c][1], (int)e);
    EXPECT(re == NULL, "dim %d N %d left *out non-NULL", bad[c][0], bad[c][1]);
    EXPECT(strlen(dg_error_message()) > 0, "no message for dim %d N %d",
           bad[c][0], bad[c][1]);
    dg_error_clear();
  }
  EXPECT(dg_refelem_create(2, 3, NULL) == DG_ERR_ARG, "NULL out accepted");
  dg_error_clear();
  /* N = 15 (DG_REFELEM_MAX_ORDER) builds in every dimension; destroy
   * resets the pointer and is idempotent. */
  for (int dim = 1; dim <= 3; ++dim) {
    dg_refelem *re = NULL;
    MUST(dg_refelem_create(dim, DG_REFELEM_MAX_ORDER, &re));
    EXPECT(re && re->N == 15 && re->dim == dim, "bad N=15 element in %dD", dim);
    dg_refelem_destroy(&re);
    EXPECT(re == NULL, "destroy did not reset the pointer");
    dg_refelem_destroy(&re);
  }
  return test_result("dg.refelem_errors");
}
