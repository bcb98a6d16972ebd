/* Helpers of the Poisson tests: run one problem.cfg solve with overrides. */
#ifndef DG_TESTS_POISSON_TEST_H
#define DG_TESTS_POISSON_TEST_H

#include <stdio.h>
#include <stdlib.h>

#include "problems/driver/poisson_run.h"
#include "tests/expect.h"


/* Solve cfg on comm with order N, `cells` per axis (dim of them), on
 * `backend`, output off, plus the extra overrides. */
static inline dg_error pt_solve(dg_comm *comm, const char *cfg, int dim, int N, int cells,
                                const char *backend, const char *const *extra, int nextra,
                                dg_poisson_result *res, double **u) {
  char order[64], mesh[128], dev[64];
  snprintf(order, sizeof order, "discretization.order=%d", N);
  if (dim == 1)
    snprintf(mesh, sizeof mesh, "mesh.cells=%d", cells);
  else if (dim == 2)
    snprintf(mesh, sizeof mesh, "mesh.cells=%d %d", cells, cells);
  else
    snprintf(mesh, sizeof mesh, "mesh.cells=%d %d %d", cells, cells, cells);
  snprintf(dev, sizeof dev, "backend.device=%s", backend);
  const char *ov[16] = {order, mesh, "output.enabled=false", dev};
  int nov = 4;
  for (int i = 0; i < nextra && nov < 16; i++)
    ov[nov++] = extra[i];
  dg_run_options opt = {.cfg_path = cfg, .overrides = ov, .noverrides = nov, .quiet = 1};
  return dg_poisson_solve(comm, &opt, res, u);
}

#endif
