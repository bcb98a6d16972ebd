/* problems.mpi_ghost_initial: on a partitioned solver, dg_solver_set_initial
 * evaluates the initial condition at the owned nodes only, and the device
 * NaN check looks at the owned nodes only.  The ghost slots (neighbours'
 * face traces, filled by the exchange; their coordinates are 0) must not be
 * evaluated: tests/parallel/ghost_initial.flux is NaN at x = 0 but finite on
 * its domain [1, 2], so a check that sees the ghost slots reports NaN.
 * Also the owned values against the initial condition computed here.
 * usage: mpiexec -n 2 test_parallel_ghost_initial ghost_initial.cfg [section.key=value...] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/comm.h"
#include "core/error.h"
#include "dg/discretization.h"
#include "operators/physics.h"
#include "problems/solver/parallel.h"
#include "problems/driver/problem.h"
#include "problems/solver/solver.h"
#include "tests/parallel/mpi_main.h"
#include "problems/driver/parallel_options.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static dg_error check(dg_comm *comm, const char *cfg, const char *const *ov, int nov) {
  dg_problem *p = NULL;
  dg_parallel *par = NULL;
  dg_device *dev = NULL;
  dg_discretization *d = NULL;
  dg_physics ph;
  dg_physics_tables *tables = NULL;
  dg_solver *s = NULL;
  double *u = NULL;
  dg_error err = DG_OK;
  DG_CALL_GOTO(err, done, dg_problem_load_rank(cfg, ov, nov, dg_comm_rank(comm),
                                               dg_comm_size(comm), &p));
  DG_CALL_GOTO(err, done, dg_parallel_create_for_problem(comm, p, &par));
  DG_CALL_GOTO(err, done, dg_parallel_device_for_problem(comm, p, &dev));
  DG_CALL_GOTO(err, done, dg_discretization_create(par->mesh, p->order, p->precision, &d));
  DG_CALL_GOTO(err, done, dg_physics_from_program(p->program, &ph, &tables));
  dg_solver_options so = {p->kernels, NULL};
  DG_CALL_GOTO(err, done, dg_solver_create_partitioned(dev, d, &ph, par->tag_to_bc, &so,
                                                       &par->halo, &s));
  EXPECT(dg_solver_opdata(s)->K > dg_solver_opdata(s)->K_owned); /* there are ghost slots */
  DG_CALL_GOTO(err, done, dg_solver_set_initial(s, 0.0));
  int finite = 0;
  DG_CALL_GOTO(err, done, dg_solver_state_finite(s, &finite));
  EXPECT(finite);
  /* owned values: sin(2 pi x) sqrt(x - 1/2) at the nodes; |u| < 1.3, so
   * round-off of float (or double) evaluation stays below tol */
  double tol = p->precision == DG_FLOAT ? 1e-5 : 1e-13;
  u = malloc(sizeof(double) * (size_t)(d->K * d->Np));
  DG_CHECK_GOTO(err, done, u, DG_ERR_MEMORY, "out of memory");
  DG_CALL_GOTO(err, done, dg_solver_get_state(s, u));
  double maxdiff = 0;
  for (int64_t z = 0; z < d->K * d->Np; z++) {
    double x = d->X[0][z];
    maxdiff = fmax(maxdiff, fabs(u[z] - sin(2 * M_PI * x) * sqrt(x - 0.5)));
    if (isnan(u[z]))
      maxdiff = INFINITY;
  }
  EXPECT(maxdiff < tol);
done:
  free(u);
  dg_solver_destroy(&s);
  dg_physics_tables_destroy(&tables);
  dg_discretization_destroy(&d);
  dg_device_destroy(&dev);
  dg_parallel_destroy(&par);
  dg_problem_destroy(&p);
  return err;
}

static dg_error run(dg_comm *comm, char **args, int nargs) {
  return check(comm, args[0], (const char *const *)args + 1, nargs - 1);
}

int main(int argc, char **argv) {
  return mpi_test_main(argc, argv, 1, "ghost_initial.cfg [section.key=value...]", run);
}
