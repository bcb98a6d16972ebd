/* tuning.op_digest_stable: the operator digest of the tuning database does
 * not see last-bit differences in the operator matrices (OpenBLAS builds
 * for other processors give D and LIFT different round-off, and the H100
 * machine's entries must key the same operator on the build machine), but
 * does see a real change of a matrix entry.  It leaves the initial condition
 * (the dg_initial kernel) out, which does not change how fast the RHS runs,
 * but sees a change of a volume term.
 * usage: test_tuning_op_digest_stable problem.cfg */
#include <stdio.h>
#include <string.h>

#include "core/log.h"
#include "dg/refelem.h"
#include "operators/flux.h"
#include "operators/physics.h"
#include "problems/solver/autotune.h"
#include "problems/driver/problem.h"
#include "tests/expect.h"

/* Two-dimensional advection at a = (1, 1/2), upwind flux; %s: the extra
 * volume term, %s: the initial condition. */
static const char *ADVECTION = "dim 2\n"
                               "fields u\n"
                               "let a = [1, 0.5]\n"
                               "rhs u = -div(a*u)%s\n"
                               "flux u = -(dot(a, n)*avg(u) + abs(dot(a, n))/2*jump(u))\n"
                               "boundary wall { u = u.int }\n"
                               "initial u = %s\n";

/* The operator digest and the whole module's digest of ADVECTION with
 * volume term extra and initial condition u0, double, at re. */
static void digests_of(const dg_refelem *re, const char *extra, const char *u0, char op[65],
                       char whole[65]) {
  char text[1024];
  snprintf(text, sizeof text, ADVECTION, extra, u0);
  dg_flux_program *prog = NULL;
  MUST(dg_flux_parse_string(text, "advection.flux", 2, &prog));
  dg_physics ph;
  dg_physics_tables *tab = NULL;
  MUST(dg_physics_from_program(prog, &ph, &tab));
  MUST(dg_autotune_op_digest(re, &ph, 0, op));
  MUST(dg_autotune_module_digest(re, &ph, 0, whole));
  dg_physics_tables_destroy(&tab);
  dg_flux_program_destroy(&prog);
}

/* Only the initial condition changed: the module changes, the operator
 * digest does not; a pointwise volume term added changes both. */
static void check_initial_left_out(void) {
  dg_refelem *re = NULL;
  MUST(dg_refelem_create(2, 3, &re));
  char op[3][65], whole[3][65];
  digests_of(re, "", "sin(2*pi*x[0])", op[0], whole[0]);
  digests_of(re, "", "exp(-x[0]*x[0] - x[1]*x[1])", op[1], whole[1]);
  digests_of(re, " - u", "sin(2*pi*x[0])", op[2], whole[2]);
  EXPECT(strcmp(whole[0], whole[1]) != 0, "the module holds the initial condition");
  EXPECT(strcmp(op[0], op[1]) == 0, "a new initial condition changed the operator digest");
  EXPECT(strcmp(op[0], whole[0]) != 0, "the operator digest covers dg_initial");
  EXPECT(strcmp(op[0], op[2]) != 0, "a new volume term left the operator digest as it was");
  EXPECT(strcmp(whole[0], whole[2]) != 0);
  dg_refelem_destroy(&re);
}

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
  check_initial_left_out();
  return expect_finish();
}
