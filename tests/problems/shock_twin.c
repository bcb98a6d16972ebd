/* problems.shock_twin[_gpu]: shock capturing on a smooth flow runs the
 * first-order twin of its flux file (problems/solver/solver_smooth.h,
 * operators/physics_vanish.h; issue 41's cost target).
 *
 * The Euler vortex with artificial-viscosity terms and [shock]
 * (problems/cases/euler3d_vortex_shock) on a small mesh:
 *  1. with [shock], the smooth initial state's RHS runs the twin (a counted
 *     first-order evaluation) and equals the RHS of the same file without
 *     [shock] (its viscous kernels, av = 0: gradient pass and all) and that
 *     of the plain Euler file (euler3d_vortex.flux) to round-off;
 *  2. a state with jumps inside elements makes the sensor fire: that RHS
 *     runs the viscous kernels (not counted as first order) and differs
 *     from the RHS without viscosity;
 *  3. back on the smooth state, the twin runs again and the RHS is case 1's:
 *     the viscosity left by case 2 was cleared;
 *  4. the twin tuned as an operator of its own (dg_autotune_smooth, a fresh
 *     database): the first call searches and records, keeping the solver's
 *     layout and fused update; a second finds the entry and searches
 *     nothing; the tuned twin's RHS is still case 1's.
 * usage: shock_twin SHOCK_CFG EULER_CFG [cuda] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/device.h"
#include "core/fsutil.h"
#include "core/log.h"
#include "operators/physics.h"
#include "problems/driver/problem.h"
#include "problems/solver/autotune.h"
#include "problems/solver/coefficients.h"
#include "problems/solver/shock.h"
#include "problems/solver/solver.h"
#include "tests/expect.h"

typedef struct {
  dg_problem *p;
  dg_device *dev;
  dg_discretization *disc;
  dg_physics ph;
  dg_physics_tables *tab;
  dg_coefficients *co;
  dg_solver *s;
  size_t n; /* reals of a state */
} run;

static void open_run(const char *cfg, int cuda, int with_shock, run *r) {
  memset(r, 0, sizeof *r);
  const char *ov[] = {cuda ? "backend.device=cuda" : "backend.device=cpu",
                      "output.enabled=false", "mesh.cells=16 16 1", "discretization.order=2"};
  MUST(dg_problem_load(cfg, ov, 4, &r->p));
  MUST(dg_device_create(r->p->device, -1, &r->dev));
  MUST(dg_discretization_create(r->p->mesh, r->p->order, r->p->precision, &r->disc));
  MUST(dg_physics_from_program(r->p->program, &r->ph, &r->tab));
  dg_solver_options so = {r->p->kernels, NULL};
  MUST(dg_solver_create(r->dev, r->disc, &r->ph, r->p->tag_to_bc, &so, &r->s));
  if (r->ph.ncoef > 0) {
    dg_coefficients_input in = {r->p->program, r->p->flux_name, r->p->cfg, r->p->mesh,
                                r->p->mesh->region, r->p->mesh->nregions,
                                r->p->mesh->region_names, (const double *const *)r->disc->X,
                                r->disc->Np, NULL};
    MUST(dg_coefficients_build(&in, &r->co));
    MUST(dg_solver_set_coefficients(r->s, r->co->values));
  }
  if (with_shock) {
    dg_shock *sh = NULL;
    MUST(dg_shock_create_for(r->s, r->disc, r->p->program, &r->ph, &r->p->shock,
                             r->p->precision == DG_FLOAT, &sh));
    dg_solver_set_shock(r->s, sh);
  }
  r->n = (size_t)r->ph.ncomp * (size_t)r->disc->K * (size_t)r->disc->Np;
  MUST(dg_solver_set_initial(r->s, 0.0));
}

static void close_run(run *r) {
  dg_solver_destroy(&r->s);
  dg_coefficients_destroy(&r->co);
  dg_physics_tables_destroy(&r->tab);
  dg_discretization_destroy(&r->disc);
  dg_device_destroy(&r->dev);
  dg_problem_destroy(&r->p);
}

static double *rhs_of(run *r) {
  double *f = malloc(r->n * sizeof *f);
  CHECK(f != NULL);
  MUST(dg_solver_rhs(r->s, 0.0, f));
  return f;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: shock_twin SHOCK_CFG EULER_CFG [cuda]\n");
    return 2;
  }
  int cuda = argc > 3 && strcmp(argv[3], "cuda") == 0;
  if (cuda && !dg_device_cuda_available()) {
    printf("no usable GPU: skipped\n");
    return 77;
  }
  dg_log_set_level(DG_LOG_WARN);
  run off, on, euler;
  open_run(argv[1], cuda, 0, &off);
  open_run(argv[1], cuda, 1, &on);
  open_run(argv[2], cuda, 0, &euler);
  CHECK(off.ph.ngrad > 0, "the shock file has no second-order terms");
  CHECK(euler.n == on.n);
  double *r_off = rhs_of(&off), *r_on = rhs_of(&on), *r_eu = rhs_of(&euler);
  /* 1: the twin on the smooth state */
  EXPECT(dg_solver_get_timings(on.s).smooth_evaluations == 1,
         "the smooth state's RHS ran the viscous kernels");
  double d_off = expect_reldiff(r_off, r_on, on.n), d_eu = expect_reldiff(r_eu, r_on, on.n);
  printf("smooth state: twin - viscous kernels (av = 0) %.3g, twin - Euler file %.3g\n", d_off,
         d_eu);
  EXPECT(d_off <= 1e-12 && d_eu <= 1e-12, "the twin's RHS is not the first-order one");
  /* 2: jumps inside the elements */
  double *u = malloc(on.n * sizeof *u);
  CHECK(u != NULL);
  MUST(dg_solver_get_state(on.s, u));
  size_t np = (size_t)on.disc->Np;
  for (size_t k = 0; k < (size_t)on.disc->K; k += 3) /* rho, component 0, node-wise jumps */
    for (size_t i = 0; i < np; i++)
      u[k * np + i] *= i % 2 ? 1.3 : 0.8;
  MUST(dg_solver_set_state(on.s, u));
  MUST(dg_solver_set_state(off.s, u));
  double *j_on = rhs_of(&on), *j_off = rhs_of(&off);
  EXPECT(dg_solver_get_timings(on.s).smooth_evaluations == 1,
         "the sensor did not fire on jumps: the twin ran");
  double d_jump = expect_reldiff(j_off, j_on, on.n);
  printf("state with jumps: viscous with the sensor's av - without av %.3g\n", d_jump);
  EXPECT(d_jump > 1e-6, "the artificial viscosity changed nothing");
  /* 3: smooth again */
  MUST(dg_solver_set_initial(on.s, 0.0));
  double *r_again = rhs_of(&on);
  EXPECT(dg_solver_get_timings(on.s).smooth_evaluations == 2, "the twin did not run again");
  double d_again = expect_reldiff(r_on, r_again, on.n);
  printf("smooth again: - case 1 %.3g\n", d_again);
  EXPECT(d_again <= 1e-13, "the viscosity of the jumps was left in the coefficient");
  /* 4: the twin's own tuning */
  char *dir = NULL;
  MUST(dg_fsutil_make_temp_dir("dgtwin", &dir));
  dg_autotune_request q = {on.dev, on.disc, &on.ph, on.p->tag_to_bc, NULL, DG_TUNE_AUTO,
                           on.p->kernels, NULL, dir, 2, DG_AUTOTUNE_SEARCH_MISSING,
                           on.co->values};
  dg_autotune_outcome t1, t2;
  MUST(dg_autotune_smooth(&q, on.s, 0, &t1));
  MUST(dg_autotune_smooth(&q, on.s, 0, &t2));
  const dg_kernel_config *own = dg_solver_kernels(on.s), *tw = dg_solver_kernels_smooth(on.s);
  EXPECT(t1.tuned && !t2.tuned, "first tuned %d, second %d (expected 1, 0)", t1.tuned,
         t2.tuned);
  EXPECT(tw && tw->layout == own->layout && tw->fuse_update == own->fuse_update &&
             tw->np_align == own->np_align,
         "the twin's knobs left the solver's state layout or stepping");
  double *r_tuned = rhs_of(&on);
  double d_tuned = expect_reldiff(r_on, r_tuned, on.n);
  printf("tuned twin: - case 1 %.3g\n", d_tuned);
  EXPECT(d_tuned <= 1e-13, "the tuned twin's RHS differs");
  free(r_tuned);
  (void)dg_fsutil_remove_tree(dir);
  free(dir);
  free(u);
  free(r_off);
  free(r_on);
  free(r_eu);
  free(j_on);
  free(j_off);
  free(r_again);
  close_run(&off);
  close_run(&on);
  close_run(&euler);
  return expect_finish();
}
