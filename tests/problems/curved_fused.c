/* problems.curved_fused_gpu: the curved kernels with the fused surface on
 * the cuda backend, as the solver runs them (no dg_surface_curved launch;
 * with the fused update the new curved state goes to a second buffer and
 * back into q after the launch, solver_curved.c), against the separate
 * surface on the same solver and against the cpu backend: the right-hand
 * side and ten LSERK4 steps from the cfg's initial state agree to
 * round-off, with the fused update off and on, and with the face traces
 * gathered ahead.  The generated kernels' arithmetic is checked without a
 * GPU in operators.cuda_emulate_curved_*; this is the solver's ordering of
 * reads and writes across the curved and affine kernels of a stage.
 *
 *   curved_fused CFG [k=v ...]      exit 77 without a usable GPU */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "dg/timestep.h"
#include "operators/physics.h"
#include "problems/driver/problem.h"
#include "problems/solver/solver.h"
#include "tests/expect.h"

enum { STEPS = 10 };

typedef struct {
  dg_problem *p;
  dg_discretization *d;
  dg_physics ph;
  dg_physics_tables *tab;
  size_t n; /* logical state length */
  double dt;
} setup;

static double max_abs(const double *u, size_t n) {
  double m = 0;
  for (size_t i = 0; i < n; i++)
    m = fmax(m, fabs(u[i]));
  return m;
}

static double max_diff(const double *a, const double *b, size_t n) {
  double m = 0;
  for (size_t i = 0; i < n; i++)
    m = fmax(m, fabs(a[i] - b[i]));
  return m;
}

/* The right-hand side at u0 into rhs, then STEPS LSERK4 steps from u0 into u. */
static void rhs_and_steps(dg_solver *s, const setup *S, const double *u0, double *rhs,
                          double *u) {
  dg_rk_scheme rk;
  MUST(dg_rk_scheme_get("lserk4", &rk));
  MUST(dg_solver_set_state(s, u0));
  MUST(dg_solver_rhs(s, 0.0, rhs));
  MUST(dg_solver_set_state(s, u0));
  for (int st = 0; st < STEPS; st++)
    MUST(dg_solver_step(s, &rk, st * S->dt, S->dt));
  MUST(dg_solver_get_state(s, u));
}

/* The cuda solver with the fused update on or off, its curved kernels with
 * each surface form, against the cpu results rc (rhs) and uc (state). */
static void check_fuse_update(dg_device *gpu, const setup *S, int fuse_update, const double *u0,
                              const double *rc, const double *uc) {
  dg_solver_options so = {S->p->kernels, NULL};
  so.kernels.fuse_update = fuse_update;
  dg_solver *s = NULL;
  MUST(dg_solver_create(gpu, S->d, &S->ph, S->p->tag_to_bc, &so, &s));
  double *r = malloc(S->n * sizeof *r), *u = malloc(S->n * sizeof *u);
  CHECK(r && u);
  const double rs = max_abs(rc, S->n), us = max_abs(uc, S->n);
  /* 0: separate surface; 1: fused; 2: fused, traces gathered ahead */
  for (int form = 0; form < 3; form++) {
    dg_kernel_config c = *dg_solver_kernels_curved(s);
    c.fuse_surface = form > 0;
    c.gather_ahead = form == 2;
    MUST(dg_solver_set_kernels_curved(s, &c));
    const dg_kernel_config *got = dg_solver_kernels_curved(s);
    EXPECT(got->fuse_surface == (form > 0) && got->gather_ahead == (form == 2) &&
               got->fuse_update == fuse_update,
           "the curved kernels run fuse_surface %d gather_ahead %d fuse_update %d, not the "
           "form asked for (%d)", got->fuse_surface, got->gather_ahead, got->fuse_update, form);
    EXPECT(dg_solver_kernel_launches(s, DG_SOLVER_SURFACE_CURVED) == (form == 0),
           "dg_surface_curved %s launched with fuse_surface %d",
           form ? "is" : "is not", form > 0);
    rhs_and_steps(s, S, u0, r, u);
    double er = max_diff(r, rc, S->n) / rs, eu = max_diff(u, uc, S->n) / us;
    printf("fuse_update %d, %s: rhs %.2e, %d steps %.2e (relative to the cpu backend)\n",
           fuse_update, form == 0 ? "separate surface" : form == 1 ? "fused surface"
                                                       : "fused surface, gathered ahead",
           er, STEPS, eu);
    /* round-off: the two backends contract and sum differently */
    EXPECT(er < 1e-11 && eu < 1e-11, "fuse_update %d form %d: rhs %.3e, state %.3e off",
           fuse_update, form, er, eu);
  }
  free(r);
  free(u);
  dg_solver_destroy(&s);
}

int main(int argc, char **argv) {
  dg_log_set_level(DG_LOG_WARN);
  if (argc < 2) {
    fprintf(stderr, "usage: %s CFG [k=v ...]\n", argv[0]);
    return 2;
  }
  if (!dg_device_cuda_available()) {
    printf("no usable GPU: skipped\n");
    return 77;
  }
  setup S;
  memset(&S, 0, sizeof S);
  MUST(dg_problem_load(argv[1], (const char *const *)argv + 2, argc - 2, &S.p));
  MUST(dg_discretization_create(S.p->mesh, S.p->order, S.p->precision, &S.d));
  CHECK(S.d->ncurved > 0 && S.d->ncurved < S.d->K,
        "%s: the test wants curved and affine elements (%lld of %lld curved)", argv[1],
        (long long)S.d->ncurved, (long long)S.d->K);
  MUST(dg_physics_from_program(S.p->program, &S.ph, &S.tab));
  S.n = (size_t)S.ph.ncomp * S.d->K * S.d->Np;
  S.dt = 0.1 * S.d->h_min / ((S.d->N + 1.0) * (S.d->N + 1.0));
  dg_device *cpu = NULL, *gpu = NULL;
  MUST(dg_device_create("cpu", -1, &cpu));
  MUST(dg_device_create("cuda", 0, &gpu));
  double *u0 = malloc(S.n * sizeof *u0), *rc = malloc(S.n * sizeof *rc);
  double *uc = malloc(S.n * sizeof *uc);
  CHECK(u0 && rc && uc);
  dg_solver_options so = {S.p->kernels, NULL};
  dg_solver *s = NULL;
  MUST(dg_solver_create(cpu, S.d, &S.ph, S.p->tag_to_bc, &so, &s));
  MUST(dg_solver_set_initial(s, 0.0));
  MUST(dg_solver_get_state(s, u0));
  rhs_and_steps(s, &S, u0, rc, uc);
  dg_solver_destroy(&s);
  printf("%lld of %lld elements curved; max |rhs| %.3e, state %.3e\n", (long long)S.d->ncurved,
         (long long)S.d->K, max_abs(rc, S.n), max_abs(uc, S.n));
  CHECK(max_abs(rc, S.n) > 0, "a zero right-hand side would prove nothing");
  for (int fu = 0; fu < 2; fu++)
    check_fuse_update(gpu, &S, fu, u0, rc, uc);
  free(u0);
  free(rc);
  free(uc);
  dg_device_destroy(&gpu);
  dg_device_destroy(&cpu);
  dg_physics_tables_destroy(&S.tab);
  dg_discretization_destroy(&S.d);
  dg_problem_destroy(&S.p);
  return expect_finish();
}
