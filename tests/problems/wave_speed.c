/* problems.wave_speed_*: the step rate of problems/solver/wave_speed.h from
 * the flux file's wave_speed, against hand values where the speed is known
 * exactly and the same at every node:
 *   advection2d  a = (1, 0.5):              lambda = |a| = sqrt(5)/2
 *   maxwell2d_tm eps = 2.25, mu = 1:        lambda = c = 1/1.5
 *   euler2d_vortex at rest (beta = 0, u0 = 0): rho = 1, p = 1, lambda = c = sqrt(1.4)
 *   maxwell2d_interface, coefficients eps = 4 | 2.25, mu = 1: lambda = 1/1.5 (the glass)
 * rate = (N+1)^2 lambda / h_min, and with nu = 0.01 + (N+1)^4 nu / h_min^2
 * (both largest on the smallest element), dt = cfl / rate equal to
 * dg_rk_cfl_dt's (the override's formula) to round-off, and a NaN anywhere
 * in the state gives a NaN rate.  The affine cases also with the state as
 * Bernstein-Bezier coefficients (element-major).
 *
 * usage: test_problems_wave_speed CASES_DIR MODE
 *   cpu      the module the cpu backend compiles
 *   emulate  the CUDA module, compiled by NVRTC where it exists and run on
 *            the CPU as C with a small shim (one thread per element)
 *   gpu      the CUDA module on the GPU (77, skipped, without a GPU) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/nvrtc.h"
#include "core/strbuf.h"
#include "dg/timestep.h"
#include "operators/flux_affine.h"
#include "operators/physics.h"
#include "problems/driver/problem.h"
#include "problems/solver/coefficients.h"
#include "problems/solver/wave_speed.h"
#include "tests/expect.h"
#include "tests/problems/emulate.h"

static int nvrtc_compiled;

/* The CUDA module as C (emulate.h). */
static char *emulate(const char *cuda) {
  return emulate_module(
      "dg_wave_speed", cuda,
      "  (void)first; (void)count;\n"
      "  const long long K_owned = *(const long long *)a[7];\n"
      "  blockDim.x = 128; blockDim.y = blockDim.z = 1;\n"
      "  for (long long blk = 0; blk * 128 < K_owned; ++blk) {\n"
      "    blockIdx.x = (unsigned)blk;\n"
      "    for (unsigned th = 0; th < 128; ++th) {\n"
      "      threadIdx.x = th;\n"
      "      dg_wave_speed_cuda(*(const sreal **)a[0], *(const sreal **)a[1],\n"
      "          *(const double **)a[2], *(const double **)a[3], *(const double *)a[4],\n"
      "          *(const double *)a[5], *(const long long *)a[6], K_owned,\n"
      "          *(double **)a[8], *(const sreal **)a[9]);\n"
      "    }\n"
      "  }\n",
      &nvrtc_compiled);
}

typedef struct speed_case {
  const char *cfg;
  const char *overrides[4];
  double lambda;
  int of_state; /* lambda depends on the state (a NaN in it gives NaN) */
} speed_case;

/* rate at nu = 0 and nu, and with a NaN at node 2 of element 3 */
static void rates(dg_device *dev, const dg_problem *p, const dg_discretization *d,
                  const dg_physics *ph, dg_kernel_config kc, int wrap, double nu, double r[3]) {
  dg_solver_options so = {kc, NULL};
  dg_solver *s = NULL;
  MUST(dg_solver_create(dev, d, ph, p->tag_to_bc, &so, &s));
  dg_coefficients *cf = NULL;
  if (ph->ncoef > 0) { /* the [coefficients] values at the nodes, as a run sets them */
    dg_coefficients_input in = {p->program, p->flux_name, p->cfg, p->mesh,
                                p->mesh->region, p->mesh->nregions, p->mesh->region_names,
                                (const double *const *)d->X, d->Np, NULL};
    MUST(dg_coefficients_build(&in, &cf));
    MUST(dg_solver_set_coefficients(s, cf->values));
  }
  MUST(dg_solver_set_initial(s, 0.0));
  dg_wave_speed *w = NULL;
  if (wrap)
    MUST(dg_wave_speed_create_wrapped(s, d, p->program, NULL, DG_CODEGEN_CUDA, emulate, &w));
  else
    MUST(dg_wave_speed_create(s, d, p->program, NULL, &w));
  MUST(dg_wave_speed_rate(w, 0.0, 0.0, &r[0]));
  MUST(dg_wave_speed_rate(w, 0.0, nu, &r[1]));
  size_t n = (size_t)ph->ncomp * d->K * d->Np;
  double *u = malloc(n * sizeof *u);
  CHECK(u);
  MUST(dg_solver_get_state(s, u));
  u[3 * d->Np + 2] = NAN;
  MUST(dg_solver_set_state(s, u));
  MUST(dg_wave_speed_rate(w, 0.0, 0.0, &r[2]));
  free(u);
  dg_wave_speed_destroy(&w);
  dg_solver_destroy(&s);
  dg_coefficients_destroy(&cf);
}

static void check_case(dg_device *dev, const char *dir, const speed_case *c, const char *mode,
                       int wrap) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, c->cfg);
  int no = 0;
  while (no < 4 && c->overrides[no])
    no++;
  dg_problem *p = NULL;
  MUST(dg_problem_load(path, c->overrides, no, &p));
  CHECK(p->speed_computed, "%s: dt does not come from the computed wave speed", c->cfg);
  dg_discretization *d = NULL;
  MUST(dg_discretization_create(p->mesh, p->order, p->precision, &d));
  dg_physics ph;
  dg_physics_tables *tab = NULL;
  MUST(dg_physics_from_program(p->program, &ph, &tab));
  double h = INFINITY, n2 = (double)(d->N + 1) * (d->N + 1), nu = 0.01;
  for (int64_t k = 0; k < d->K; k++)
    h = fmin(h, d->h[k]);
  const double want[2] = {n2 * c->lambda / h, n2 * c->lambda / h + n2 * n2 * nu / (h * h)};
  double dt_old;
  MUST(dg_rk_cfl_dt(p->cfl, h, c->lambda, d->N, &dt_old));
  unsigned char *used = NULL;
  MUST(dg_problem_boundaries_used(p->mesh, p->tag_to_bc, ph.nboundaries, NULL, &used));
  ph.bc_used = used;
  int affine = dg_flux_check_affine(&ph, NULL, NULL) == DG_OK;
  dg_error_clear();
  for (int variant = 0; variant < 1 + affine; variant++) {
    dg_kernel_config kc = p->kernels;
    if (variant == 1) {
      kc.basis = 1;
      kc.layout = DG_LAYOUT_ELEMENT_MAJOR;
    }
    double r[3];
    rates(dev, p, d, &ph, kc, wrap, nu, r);
    /* Tolerances: lambda is evaluated at every node from the same values
     * (1e-15 relative; the Bernstein state's node values carry the
     * Vandermonde's round-off, 1e-14 seen at most) */
    for (int i = 0; i < 2; i++) {
      double rel = fabs(r[i] - want[i]) / want[i];
      printf("%s %s variant %d nu %g: rate %.15e want %.15e rel %.1e\n", mode, c->cfg, variant,
             i ? nu : 0.0, r[i], want[i], rel);
      EXPECT(rel <= 1e-13, "%s: rate %.17g, want %.17g", c->cfg, r[i], want[i]);
    }
    double dt = p->cfl / r[0];
    EXPECT(fabs(dt - dt_old) <= 1e-13 * dt_old, "%s: dt %.17g, the override's %.17g", c->cfg,
           dt, dt_old);
    EXPECT(!c->of_state || isnan(r[2]), "%s: a NaN in the state gave the rate %g", c->cfg,
           r[2]);
  }
  free(used);
  dg_physics_tables_destroy(&tab);
  dg_discretization_destroy(&d);
  dg_problem_destroy(&p);
}

int main(int argc, char **argv) {
  CHECK(argc == 3, "usage: %s CASES_DIR cpu|emulate|gpu", argv[0]);
  dg_log_set_level(DG_LOG_WARN);
  const char *mode = argv[2];
  int gpu = strcmp(mode, "gpu") == 0, emu = strcmp(mode, "emulate") == 0;
  CHECK(gpu || emu || strcmp(mode, "cpu") == 0, "bad mode '%s'", mode);
  dg_device *dev = NULL;
  if (gpu) {
    int ndev = 0;
    if (dg_device_count("cuda", &ndev) != DG_OK || ndev == 0) {
      dg_error_clear();
      printf("skipped: no CUDA device\n");
      return 77;
    }
    MUST(dg_device_create("cuda", 0, &dev));
  } else {
    MUST(dg_device_create("cpu", 0, &dev));
  }
  const speed_case cases[] = {
      {"advection2d/advection2d.cfg", {"mesh.cells=3 3", "time.wave_speed=auto"}, sqrt(1.25), 0},
      {"maxwell2d_tm/maxwell2d_tm.cfg", {"mesh.cells=3 3", "params.eps=2.25"}, 1 / 1.5, 0},
      {"euler2d_vortex/euler2d_vortex.cfg",
       {"mesh.cells=3 3", "time.wave_speed=auto", "params.beta=0", "params.u0=0"},
       sqrt(1.4), 1},
      /* coefficients: c = 1/sqrt(eps mu) is 0.5 in vacuum (eps = 4 here) and
       * 1/1.5 in the glass (eps = 2.25), the same mesh on both sides */
      {"maxwell2d_interface/maxwell2d_interface.cfg", {"coefficients.eps=4"}, 1 / 1.5, 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
    check_case(dev, argv[1], &cases[i], mode, emu);
  if (emu)
    printf("NVRTC compiled the CUDA module %d times%s\n", nvrtc_compiled,
           nvrtc_compiled ? "" : " (no NVRTC here, or a sanitizer build)");
  dg_device_destroy(&dev);
  return expect_finish();
}
