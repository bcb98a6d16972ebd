/* problems.mpi_shock_active_np<P>: dg_shock_viscosity_active on a
 * partitioned solver gives every rank the same answer, the maximum over the
 * ranks: with the discontinuity (params.x0) inside one rank's elements, a
 * rank none of whose elements has viscosity is active too, and its tables
 * are dg_shock_viscosity's to the bit (the spreading's exchanges ran on
 * every rank: the vertex maximum brings the neighbour's viscosity across
 * the partition boundary); with every element constant (no degree-N
 * modes), every rank is inactive and its tables are zero everywhere, also
 * after an active call.  The test asserts that the ranks' own element
 * viscosities differ (some with, some without), else it shows nothing.
 * usage: mpiexec -n P test_parallel_shock_active sod2d.cfg [section.key=value...] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/comm.h"
#include "core/error.h"
#include "dg/discretization.h"
#include "operators/physics.h"
#include "problems/driver/parallel_options.h"
#include "problems/driver/problem.h"
#include "problems/solver/parallel.h"
#include "problems/solver/shock.h"
#include "problems/solver/solver.h"
#include "tests/parallel/mpi_main.h"

typedef struct {
  void *cf[2], *fcf[2]; /* [0] dg_shock_viscosity_active's, [1] dg_shock_viscosity's */
  size_t ncf, nfcf, rs;
} tables;

/* max |a - b| over n reals of size rs on the device; *amax: max |a|. */
static double diff(dg_device *dev, const void *a, const void *b, size_t n, size_t rs,
                   double *amax) {
  double *x = malloc(n * 8 + 8), *y = malloc(n * 8 + 8), d = 0;
  EXPECT(x && y);
  EXPECT(dg_device_download(dev, x, a, n * rs) == DG_OK);
  EXPECT(dg_device_download(dev, y, b, n * rs) == DG_OK);
  *amax = 0;
  for (size_t i = 0; i < n; i++) {
    double u = rs == 4 ? ((float *)x)[i] : x[i], v = rs == 4 ? ((float *)y)[i] : y[i];
    if (!(fabs(u - v) <= d)) /* a NaN too */
      d = fabs(u - v);
    *amax = fabs(u) > *amax ? fabs(u) : *amax;
  }
  free(x);
  free(y);
  return d;
}

static dg_error check(dg_comm *comm, dg_device *dev, dg_solver *s, dg_shock *sh, int64_t K,
                      const tables *t) {
  int r = dg_comm_rank(comm), active = -1;
  void *q = dg_solver_device_state(s);
  /* the discontinuous state: the initial condition */
  DG_CALL(dg_solver_set_initial(s, 0.0));
  DG_CALL(dg_shock_viscosity_active(sh, q, t->cf[0], t->fcf[0], &active));
  double *eps = malloc(sizeof(double) * ((size_t)K + 1)), own[2] = {0, 0}, amax;
  EXPECT(eps);
  DG_CALL(dg_shock_element_viscosity(sh, eps));
  for (int64_t k = 0; k < K; k++)
    own[0] = eps[k] > 0 ? 1 : own[0];
  own[1] = -own[0];
  free(eps);
  DG_CALL(dg_comm_allreduce_max(comm, own, 2)); /* own[0]: some rank, -own[1]: every rank */
  EXPECT(own[0] == 1 && own[1] == 0, "the ranks' own viscosities should differ (some with, "
         "some without): move params.x0");
  EXPECT(active == 1, "rank %d: active %d on the discontinuous state", r, active);
  DG_CALL(dg_shock_viscosity(sh, q, t->cf[1], t->fcf[1]));
  double dc = diff(dev, t->cf[0], t->cf[1], t->ncf, t->rs, &amax);
  double df = diff(dev, t->fcf[0], t->fcf[1], t->nfcf, t->rs, &amax);
  EXPECT(dc == 0 && df == 0, "rank %d: tables - dg_shock_viscosity's %g %g", r, dc, df);
  /* every element constant: its mean at every node */
  const dg_opdata *od = dg_solver_opdata(s);
  int np = od->Np, nc = od->ncomp;
  double *u = malloc(sizeof(double) * ((size_t)nc * K * np + 1));
  EXPECT(u);
  DG_CALL(dg_solver_get_state(s, u));
  for (int64_t e = 0; e < nc * K; e++) {
    double m = 0;
    for (int i = 0; i < np; i++)
      m += u[e * np + i] / np;
    for (int i = 0; i < np; i++)
      u[e * np + i] = m;
  }
  DG_CALL(dg_solver_set_state(s, u));
  free(u);
  DG_CALL(dg_shock_viscosity_active(sh, q, t->cf[0], t->fcf[0], &active));
  EXPECT(active == 0, "rank %d: active %d on the constant elements", r, active);
  DG_CALL(dg_device_zero(dev, t->cf[1], t->ncf * t->rs));
  DG_CALL(dg_device_zero(dev, t->fcf[1], t->nfcf * t->rs));
  dc = diff(dev, t->cf[0], t->cf[1], t->ncf, t->rs, &amax);
  df = diff(dev, t->fcf[0], t->fcf[1], t->nfcf, t->rs, &amax);
  EXPECT(dc == 0 && df == 0, "rank %d: tables not zero after an inactive call (%g %g)", r, dc,
         df);
  if (r == 0)
    printf("%d ranks: active on every rank with the viscosity on some, the tables "
           "dg_shock_viscosity's; inactive and zero on constant elements\n",
           dg_comm_size(comm));
  return DG_OK;
}

/* The partitioned solver and its shock capturing, with the two pairs of
 * tables. */
typedef struct {
  dg_problem *prob;
  dg_parallel *par;
  dg_device *dev;
  dg_discretization *disc;
  dg_physics phys;
  dg_physics_tables *phys_tables;
  dg_solver *solver;
  dg_shock *shock;
  tables t;
} part_run;

static dg_error part_open(dg_comm *comm, char **args, int nargs, part_run *r) {
  DG_CALL(dg_problem_load_rank(args[0], (const char *const *)args + 1, nargs - 1,
                               dg_comm_rank(comm), dg_comm_size(comm), &r->prob));
  const dg_problem *p = r->prob;
  DG_CALL(dg_parallel_create_for_problem(comm, p, &r->par));
  DG_CALL(dg_parallel_device_for_problem(comm, p, &r->dev));
  DG_CALL(dg_discretization_create(r->par->mesh, p->order, p->precision, &r->disc));
  DG_CALL(dg_physics_from_program(p->program, &r->phys, &r->phys_tables));
  dg_solver_options so = {p->kernels, NULL};
  DG_CALL(dg_solver_create_partitioned(r->dev, r->disc, &r->phys, r->par->tag_to_bc, &so,
                                       &r->par->halo, &r->solver));
  DG_CALL(dg_shock_create_for(r->solver, r->disc, p->program, &r->phys, &p->shock,
                              p->precision == DG_FLOAT, &r->shock));
  const dg_opdata *od = dg_solver_opdata(r->solver);
  size_t ncoef = (size_t)(r->phys.ncoef > 0 ? r->phys.ncoef : 1);
  tables *t = &r->t;
  t->rs = p->precision == DG_FLOAT ? 4 : 8;
  t->ncf = ncoef * (size_t)od->K * (size_t)od->np_pad;
  t->nfcf = (size_t)od->K * (size_t)od->nfnfp * ncoef * 2;
  for (int j = 0; j < 2; j++) {
    DG_CALL(dg_device_malloc(r->dev, t->ncf * t->rs, &t->cf[j]));
    DG_CALL(dg_device_malloc(r->dev, t->nfcf * t->rs, &t->fcf[j]));
    DG_CALL(dg_device_zero(r->dev, t->cf[j], t->ncf * t->rs));
    DG_CALL(dg_device_zero(r->dev, t->fcf[j], t->nfcf * t->rs));
  }
  return DG_OK;
}

static void part_close(part_run *r) {
  for (int j = 0; j < 2; j++) {
    if (r->t.cf[j])
      dg_device_free(r->dev, r->t.cf[j]);
    if (r->t.fcf[j])
      dg_device_free(r->dev, r->t.fcf[j]);
  }
  dg_shock_destroy(&r->shock);
  dg_solver_destroy(&r->solver);
  dg_physics_tables_destroy(&r->phys_tables);
  dg_discretization_destroy(&r->disc);
  dg_device_destroy(&r->dev);
  dg_parallel_destroy(&r->par);
  dg_problem_destroy(&r->prob);
}

static dg_error run(dg_comm *comm, char **args, int nargs) {
  part_run r;
  memset(&r, 0, sizeof r);
  dg_error err = part_open(comm, args, nargs, &r);
  if (err == DG_OK)
    err = check(comm, r.dev, r.solver, r.shock, dg_solver_opdata(r.solver)->K_owned, &r.t);
  part_close(&r);
  DG_CALL(err);
  return DG_OK;
}

int main(int argc, char **argv) {
  return mpi_test_main(argc, argv, 1, "sod2d.cfg [section.key=value...]", run);
}
