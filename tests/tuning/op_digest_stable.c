/* tuning.op_digest_stable: the operator digest of the tuning database does
 * not see last-bit differences in the operator matrices (OpenBLAS builds
 * for other processors give D and LIFT different round-off, and the H100
 * machine's entries must key the same operator on the build machine), but
 * does see a real change of a matrix entry.
 * usage: test_tuning_op_digest_stable problem.cfg */
#include <string.h>

#include "core/log.h"
#include "dg/refelem.h"
#include "operators/physics.h"
#include "problems/solver/autotune.h"
#include "problems/driver/problem.h"
#include "tests/expect.h"

int main(int argc, char **argv) {
  CHECK(argc == 2, "usage: %s problem.cfg", argv[0]);
  dg_log_set_level(DG_LOG_WARN);
  const char *ov[] = {"discretization.order=3"};
  dg_problem *p = NULL;
  MUST(dg_problem_load(argv[1], ov, 1, &p));
  dg_physics ph;
  dg_physics_tables *tab = NULL;
  MUST(dg_physics_from_program(p->program, &ph, &tab));
  dg_refelem *re = NULL;
  MUST(dg_refelem_create(p->mesh->dim, 3, &re));
  char base[65], noisy[65], changed[65];
  MUST(dg_autotune_op_digest(re, &ph, 0, base));
  /* round-off: every entry moved by a few ulps, zeros by 1e-17 */
  size_t nd = (size_t)re->Np * re->Np, nl = (size_t)re->Np * re->Nfaces * re->Nfp;
  double *mats[4] = {re->Dr, re->Ds, re->Dt, re->LIFT};
  for (int m = 0; m < 4; m++)
    for (size_t z = 0; mats[m] && z < (m == 3 ? nl : nd); z++)
      mats[m][z] = mats[m][z] * (1 + 3e-16 * ((double)(z % 5) - 2)) + ((z % 2) ? 1e-17 : -1e-17);
  MUST(dg_autotune_op_digest(re, &ph, 0, noisy));
  EXPECT(strcmp(base, noisy) == 0);
  /* a real change */
  re->Dr[1] += 1e-3;
  MUST(dg_autotune_op_digest(re, &ph, 0, changed));
  EXPECT(strcmp(base, changed) != 0);
  dg_refelem_destroy(&re);
  dg_physics_tables_destroy(&tab);
  dg_problem_destroy(&p);
  return expect_finish();
}
