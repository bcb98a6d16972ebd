/* problems.quantities_*: the L2 errors, max nodal errors and integrals of
 * problems/solver/quantities.h against closed-form values, on the unit
 * square of tests/problems/quantities.cfg (N = 3):
 *   u = exact + x^2 y with exact 1 + x y (cubic: the state holds it
 *       exactly):    L2 error^2 = int x^4 y^2 = 1/15, max nodal error 1;
 *   w = 0, exact sin(pi x) sin(pi y):  L2 error = (int sin^2 sin^2)^1/2 = 1/2
 *       (the exact solution evaluated at the cubature points: the norm of
 *       its nodal interpolant differs by about 1e-3 here);
 *   m[2] without an exact solution (named, no norm);
 *   integrals  x^2 y: 1/6,  u: 1 + 1/4 + 1/6,  |m|^2/2 with m = (x, 2y): 5/6,
 *              t u at t = 0.5: 17/24;
 * and a NaN in the state gives NaN errors.  Each with the state as nodal
 * values (field-major) and as Bernstein-Bezier coefficients (element-major).
 *
 * usage: test_problems_quantities quantities.cfg MODE
 *   cpu      the module the cpu backend compiles
 *   emulate  the CUDA module, compiled as C with a small shim (one thread
 *            per element, no shared memory or barriers) and run on the CPU
 *   gpu      the CUDA module on the GPU against the cpu backend's values
 *            (77, skipped, without a GPU) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/nvrtc.h"
#include "core/strbuf.h"
#include "operators/physics.h"
#include "problems/driver/problem.h"
#include "problems/solver/quantities.h"
#include "tests/expect.h"
#include "tests/problems/emulate.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

enum { NQ = 8 };
static const char *const names[NQ] = {"l2_u", "max_u", "l2_w", "max_w",
                                      "a2",   "mass",  "ke",   "tu"};

static int nvrtc_compiled;

/* The CUDA module as C (emulate.h). */
static char *emulate(const char *cuda) {
  return emulate_module(
      "dg_quantities", cuda,
      "  (void)first; (void)count;\n"
      "  const long long K_owned = *(const long long *)a[8];\n"
      "  blockDim.x = 128; blockDim.y = blockDim.z = 1;\n"
      "  for (long long blk = 0; blk * 128 < K_owned; ++blk) {\n"
      "    blockIdx.x = (unsigned)blk;\n"
      "    for (unsigned th = 0; th < 128; ++th) {\n"
      "      threadIdx.x = th;\n"
      "      dg_quantities_cuda(*(const sreal **)a[0], *(const sreal **)a[1],\n"
      "          *(const double **)a[2], *(const double **)a[3], *(const double **)a[4],\n"
      "          *(const double **)a[5], *(const double *)a[6], *(const long long *)a[7],\n"
      "          K_owned, *(double **)a[9]);\n"
      "    }\n"
      "  }\n",
      &nvrtc_compiled);
}

/* The quantities at t = 0.5 of the initial state on device dev (wrap: the
 * emulated CUDA module), and with one NaN in u (nan[]). */
static void evaluate(dg_device *dev, const dg_problem *p, const dg_discretization *d,
                     const dg_physics *ph, dg_kernel_config kc, int wrap, double *v,
                     double *nan, double *max_w) {
  dg_solver_options so = {kc, NULL};
  dg_solver *s = NULL;
  MUST(dg_solver_create(dev, d, ph, p->tag_to_bc, &so, &s));
  MUST(dg_solver_set_initial(s, 0.0));
  dg_quantities *q = NULL;
  if (wrap)
    MUST(dg_quantities_create_wrapped(s, d, p->program, NULL, DG_CODEGEN_CUDA, emulate, &q));
  else
    MUST(dg_quantities_create(s, d, p->program, NULL, &q));
  CHECK(dg_quantities_count(q) == NQ, "%d quantities", dg_quantities_count(q));
  for (int i = 0; i < NQ; i++)
    EXPECT(strcmp(dg_quantities_name(q, i), names[i]) == 0, "quantity %d is '%s', want '%s'",
           i, dg_quantities_name(q, i), names[i]);
  const char *no[4] = {NULL};
  EXPECT(dg_quantities_fields_without_exact(q, no, 4) == 1 && strcmp(no[0], "m") == 0,
         "fields without an exact solution: want just m");
  EXPECT(dg_quantities_degree(q) == 2 * d->N + 2);
  MUST(dg_quantities_eval(q, 0.5, v));
  /* the max of |w| over the nodes, from the node coordinates */
  *max_w = 0;
  for (int64_t z = 0; z < d->K * d->Np; z++)
    *max_w = fmax(*max_w, fabs(sin(M_PI * d->x[z]) * sin(M_PI * d->y[z])));
  /* one NaN at node 5 of element 7 of u */
  size_t n = (size_t)ph->ncomp * d->K * d->Np;
  double *u = malloc(n * sizeof *u);
  CHECK(u);
  MUST(dg_solver_get_state(s, u));
  u[7 * d->Np + 5] = NAN;
  MUST(dg_solver_set_state(s, u));
  MUST(dg_quantities_eval(q, 0.5, nan));
  free(u);
  dg_quantities_destroy(&q);
  dg_solver_destroy(&s);
}

int main(int argc, char **argv) {
  CHECK(argc == 3, "usage: %s quantities.cfg cpu|emulate|gpu", argv[0]);
  dg_log_set_level(DG_LOG_WARN);
  const char *mode = argv[2];
  int gpu = strcmp(mode, "gpu") == 0, emu = strcmp(mode, "emulate") == 0;
  CHECK(gpu || emu || strcmp(mode, "cpu") == 0, "bad mode '%s'", mode);
  dg_device *cpu = NULL, *cuda = NULL;
  MUST(dg_device_create("cpu", 0, &cpu));
  if (gpu) {
    int ndev = 0;
    if (dg_device_count("cuda", &ndev) != DG_OK || ndev == 0) {
      dg_error_clear();
      printf("skipped: no CUDA device\n");
      dg_device_destroy(&cpu);
      return 77;
    }
    MUST(dg_device_create("cuda", 0, &cuda));
  }
  dg_problem *p = NULL;
  MUST(dg_problem_load(argv[1], NULL, 0, &p));
  dg_discretization *d = NULL;
  MUST(dg_discretization_create(p->mesh, p->order, p->precision, &d));
  dg_physics ph;
  dg_physics_tables *tab = NULL;
  MUST(dg_physics_from_program(p->program, &ph, &tab));
  for (int variant = 0; variant < 2; variant++) {
    dg_kernel_config kc = p->kernels;
    if (variant == 1) {
      kc.basis = 1;
      kc.layout = DG_LAYOUT_ELEMENT_MAJOR;
    }
    double v[NQ], nan[NQ], max_w;
    evaluate(gpu ? cuda : cpu, p, d, &ph, kc, emu, v, nan, &max_w);
    /* Tolerances: u's error, the integrals of polynomials (degree <= 6 in
     * a rule exact for 8) and the max errors are exact but for round-off;
     * w's L2 error carries the rule's error on sin^2 sin^2 (degree 8 on
     * cells of 1/3: 1e-15 relative seen, against 2e-3 for the norm of the
     * nodal interpolant). */
    const double want[NQ] = {sqrt(1.0 / 15), 1.0,        0.5,     max_w,
                             1.0 / 6,        17.0 / 12, 5.0 / 6, 0.5 * 17.0 / 12};
    const double tol[NQ] = {1e-12, 1e-12, 1e-10, 1e-12, 1e-12, 1e-12, 1e-12, 1e-12};
    for (int i = 0; i < NQ; i++) {
      double rel = fabs(v[i] - want[i]) / fabs(want[i]);
      printf("%s variant %d  %-5s %.15e  want %.15e  rel %.1e\n", mode, variant, names[i],
             v[i], want[i], rel);
      EXPECT(rel <= tol[i], "%s: %.17g, want %.17g", names[i], v[i], want[i]);
    }
    EXPECT(isnan(nan[0]) && isnan(nan[1]) && isnan(nan[5]) && isnan(nan[7]),
           "a NaN in u: l2_u %g max_u %g mass %g tu %g", nan[0], nan[1], nan[5], nan[7]);
    EXPECT(!isnan(nan[2]) && !isnan(nan[3]) && !isnan(nan[4]) && !isnan(nan[6]),
           "a NaN in u spread to w or m: %g %g %g %g", nan[2], nan[3], nan[4], nan[6]);
    if (gpu) { /* the same module on the cpu backend, to round-off */
      double c[NQ], cn[NQ], cw;
      evaluate(cpu, p, d, &ph, kc, 0, c, cn, &cw);
      for (int i = 0; i < NQ; i++)
        EXPECT(fabs(v[i] - c[i]) <= 1e-13 * fabs(c[i]), "%s: gpu %.17g cpu %.17g", names[i],
               v[i], c[i]);
    }
  }
  if (emu)
    printf("NVRTC compiled the CUDA module %d times%s\n", nvrtc_compiled,
           nvrtc_compiled ? "" : " (no NVRTC here, or a sanitizer build)");
  dg_physics_tables_destroy(&tab);
  dg_discretization_destroy(&d);
  dg_problem_destroy(&p);
  dg_device_destroy(&cuda);
  dg_device_destroy(&cpu);
  return expect_finish();
}
