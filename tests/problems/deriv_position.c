/* problems.deriv_position_*: derivatives whose argument depends on the
 * position x, for every kind (grad, div, curl, dx, dy, dz), through the
 * generated kernels (issue 38 item 1; before, the volume kernel read X where
 * it had not loaded it).  The flux files (tests/problems/inputs/
 * deriv_position_*.flux) write each rhs as D(g(x, u)) minus its analytic
 * value at u = 1, g of degree <= 2, and fluxes equal to the surface forms:
 * the right-hand side must vanish to round-off for N >= 2 on a mesh with
 * unstructured-looking (jiggled) elements.  deriv_position_1d.flux: shallow
 * water at rest over a bathymetry b(x), the non-conservative g*h*dx(b) (a
 * field times the derivative of a function of x): zero as well.
 *
 * usage: test_problems_deriv_position cpu|cuda file.flux N...
 * Device cuda: the node-per-thread, gemm and mma volume kernels (skipped,
 * exit 77, without a GPU); cpu: the C module. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/device.h"
#include "core/log.h"
#include "dg/discretization.h"
#include "meshes/builtin.h"
#include "operators/flux.h"
#include "operators/flux_affine.h"
#include "operators/physics.h"
#include "problems/solver/solver.h"
#include "tests/expect.h"

/* Move interior vertices by up to 20 % of a cell: straight-sided elements of
 * differing shapes (distinct geometric factors per element). */
static void jiggle(dg_mesh *m, double h) {
  unsigned long long s = 12345;
  for (int64_t v = 0; v < m->Nv; v++) {
    int interior = 1;
    for (int d = 0; d < m->dim; d++) {
      double x = m->VX[v * m->dim + d];
      interior &= x > m->lo[d] + 1e-9 && x < m->hi[d] - 1e-9;
    }
    for (int d = 0; d < m->dim && interior; d++) {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      m->VX[v * m->dim + d] += 0.2 * h * ((double)(s >> 11) / 9007199254740992.0 - 0.5);
    }
  }
}

int main(int argc, char **argv) {
  CHECK(argc >= 4, "usage: %s cpu|cuda file.flux N...", argv[0]);
  setvbuf(stdout, NULL, _IONBF, 0);
  dg_log_set_level(DG_LOG_WARN);
  int cuda = strcmp(argv[1], "cuda") == 0;
  dg_device *dev = NULL;
  if (dg_device_create(argv[1], 0, &dev) != DG_OK) {
    printf("no %s device: skipped\n", argv[1]);
    return cuda ? 77 : 1;
  }
  dg_flux_program *prog = NULL;
  MUST(dg_flux_parse_file(argv[2], 0, &prog));
  int dim = dg_flux_program_dim(prog);
  double lo[3] = {-0.3, 0.1, -0.2}, hi[3] = {0.9, 1.2, 0.7};
  int64_t cells[3] = {3, 3, 2};
  dg_mesh *mesh = NULL;
  MUST(dg_builtin_mesh(dim, lo, hi, cells, NULL, &mesh));
  jiggle(mesh, 0.3);
  int tag_to_bc[16] = {0};
  dg_physics ph;
  dg_physics_tables *tab = NULL;
  MUST(dg_physics_from_program(prog, &ph, &tab));
  /* a coefficient that varies inside an element rules the Bernstein basis
   * out (the tuner drops it, basis = bernstein is this error); the 2D and 3D
   * files are linear in the state, so x is their only offence */
  EXPECT(dg_flux_check_affine(&ph, NULL, NULL) == DG_ERR_INPUT,
         "the affine check let x in a derivative's argument through");
  printf("not affine: %s\n", dg_error_message());
  dg_error_clear();
  for (int a = 3; a < argc; a++) {
    int N = atoi(argv[a]);
    dg_discretization *disc = NULL;
    MUST(dg_discretization_create(mesh, N, DG_DOUBLE, &disc));
    int64_t n = (int64_t)ph.ncomp * disc->K * disc->Np;
    double *rhs = malloc(sizeof *rhs * (size_t)n);
    for (int v = 0; v < (cuda ? 4 : 1); v++) {
      dg_solver_options so = {dg_kernel_config_default(), NULL};
      const char *what = "default";
      if (v == 1)
        so.kernels.prefetch = 1, so.kernels.fuse_surface = 1, what = "prefetch fuse_surface";
      if (v == 2)
        so.kernels.work_mode = DG_WORK_GEMM, what = "gemm";
      if (v == 3)
        so.kernels.work_mode = DG_WORK_MMA, so.kernels.elements_per_block = 16, what = "mma";
      dg_solver *s = NULL;
      dg_error e = dg_solver_create(dev, disc, &ph, tag_to_bc, &so, &s);
      if (e == DG_ERR_INPUT && v > 0) { /* not legal at this size (mma: a whole warp) */
        printf("%s N=%d %s: refused here: %s\n", argv[2], N, what, dg_error_message());
        dg_error_clear();
        continue;
      }
      MUST(e);
      MUST(dg_solver_set_initial(s, 0.0));
      MUST(dg_solver_rhs(s, 0.0, rhs));
      dg_solver_destroy(&s);
      double worst = 0;
      for (int64_t z = 0; z < n; z++)
        worst = fmax(worst, fabs(rhs[z]));
      /* round-off: D has entries of O(N^2 / h) = O(100) applied to O(1)
       * values, and the lift as much; 1e-9 is ~1e5 roundings */
      printf("%s N=%d %s: max |rhs| = %.3e\n", argv[2], N, what, worst);
      EXPECT(worst < 1e-9, "N=%d %s: the rhs is %.3e, not zero", N, what, worst);
    }
    free(rhs);
    dg_discretization_destroy(&disc);
  }
  dg_physics_tables_destroy(&tab);
  dg_mesh_destroy(&mesh);
  dg_flux_program_destroy(&prog);
  dg_device_destroy(&dev);
  printf("%s\n", failures ? "FAIL" : "ok");
  return failures ? 1 : 0;
}
