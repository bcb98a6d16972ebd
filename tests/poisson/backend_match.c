/* poisson.backend_match_*: the Poisson solution on the cuda backend equals
 * the cpu one (same assembled matrix on the host, different SpMV / CG
 * kernels whose sums round differently).  Both are solved to rtol 1e-12;
 * two such solutions differ by at most about cond(A) * 1e-12 relative, and
 * cond(A) of these small SIPG matrices is below 1e4 (tests/poisson/spd.c
 * prints the spectra of similar ones), so 1e-8 is the bound asserted.  The
 * iteration counts must be within 2.  Exits 77 without a usable GPU.
 * usage: test_poisson_backend_match problem.cfg dim N cells */
#include <math.h>
#include <string.h>

#include "core/device.h"
#include "core/log.h"
#include "tests/poisson/poisson_test.h"

int main(int argc, char **argv) {
  CHECK(argc == 5, "usage: %s cfg dim N cells", argv[0]);
  if (!dg_device_cuda_available()) {
    printf("no usable CUDA device: skipped\n");
    return 77;
  }
  dg_log_set_level(DG_LOG_WARN);
  dg_comm *comm;
  if (dg_comm_create_world(&comm) != DG_OK) {
    dg_error_print(stderr);
    return 1;
  }
  int dim = atoi(argv[2]), N = atoi(argv[3]), cells = atoi(argv[4]);
  const char *ov[] = {"poisson.rtol=1e-12"};
  dg_poisson_result rc, rg;
  double *uc = NULL, *ug = NULL;
  if (pt_solve(comm, argv[1], dim, N, cells, "cpu", ov, 1, &rc, &uc) != DG_OK ||
      pt_solve(comm, argv[1], dim, N, cells, "cuda", ov, 1, &rg, &ug) != DG_OK) {
    dg_error_print(stderr);
    return 1;
  }
  double diff = 0, umax = 0;
  for (int64_t i = 0; i < rc.dofs; i++) {
    diff = fmax(diff, fabs(ug[i] - uc[i]));
    umax = fmax(umax, fabs(uc[i]));
  }
  printf("%s N=%d: cpu %d iterations, cuda %d (%s); max |u_cuda - u_cpu| / max |u| = %.2e; "
         "L2 errors %.6e / %.6e\n",
         argv[1], N, rc.iterations, rg.iterations, rg.format, diff / umax, rc.l2, rg.l2);
  free(uc);
  free(ug);
  dg_comm_destroy(&comm);
  return diff <= 1e-8 * umax && abs(rc.iterations - rg.iterations) <= 2 ? 0 : 1;
}
