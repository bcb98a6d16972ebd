/* Shared setup of the dg.discretization_* tests (on top of mesh_test.h). */
#ifndef DG_TESTS_DISC_TEST_H
#define DG_TESTS_DISC_TEST_H

#include "tests/mesh/mesh_test.h"

#include "dg/discretization.h"

/* The mesh of case c, straight (variant 0) or randomly distorted by 0.1
 * cell widths (variant 1), and its double-precision discretization at order
 * N; name receives a label for messages. */
static inline void test_open_case(const mesh_case *c, int N, int variant, char *name,
                                  size_t size, dg_mesh **m, dg_discretization **d) {
  test_case_label(c, N, variant ? "distorted" : "straight", name, size);
  *m = test_make_mesh(c, variant ? 0.1 : 0.0);
  *d = NULL;
  MUST(dg_discretization_create(*m, N, DG_DOUBLE, d));
}

#endif
