/* A problem opened for a benchmark as dgrun opens it (bench_case.h). */
#include "problems/bench/bench_case.h"

#include <stdlib.h>
#include <string.h>

#include "problems/solver/autotune.h"

dg_error dg_bench_case_open(const char *cfg, const char *const *ov, int nov, dg_bench_case *c) {
  memset(c, 0, sizeof *c);
  DG_CALL(dg_problem_load(cfg, ov, nov, &c->p));
  dg_problem *p = c->p;
  DG_CALL(dg_device_create(p->device, -1, &c->dev));
  DG_CALL(dg_discretization_create(p->mesh, p->order, p->precision, &c->disc));
  DG_CALL(dg_physics_from_program(p->program, &c->ph, &c->tab));
  /* as dgrun: conditions no face uses do not keep a physics off BB coefficients */
  DG_CALL(dg_problem_boundaries_used(p->mesh, p->tag_to_bc, c->ph.nboundaries, NULL, &c->used));
  c->ph.bc_used = c->used;
  if (c->ph.ncoef > 0) { /* their values as dgrun builds them ([regions], [coefficients]) */
    dg_coefficients_input in = {p->program, p->flux_name, p->cfg, p->mesh, p->mesh->region,
                                p->mesh->nregions, p->mesh->region_names,
                                (const double *const *)c->disc->X, c->disc->Np, NULL};
    DG_CALL(dg_coefficients_build(&in, &c->co));
  }
  return DG_OK;
}

void dg_bench_case_close(dg_bench_case *c) {
  dg_coefficients_destroy(&c->co);
  if (c->tab)
    dg_physics_tables_destroy(&c->tab);
  free(c->used);
  dg_discretization_destroy(&c->disc);
  dg_device_destroy(&c->dev);
  dg_problem_destroy(&c->p);
  memset(c, 0, sizeof *c);
}

static dg_autotune_request request(dg_bench_case *c, int tune, const dg_kernel_config *kc) {
  return (dg_autotune_request){c->dev, c->disc, &c->ph, c->p->tag_to_bc, NULL,
                               (dg_tune_mode)tune, *kc, NULL, NULL, 0,
                               DG_AUTOTUNE_SEARCH_MISSING, c->co ? c->co->values : NULL};
}

dg_error dg_bench_case_tune(dg_bench_case *c, int tune, dg_kernel_config *kc) {
  *kc = c->p->kernels;
  if (tune == DG_TUNE_OFF)
    return DG_OK;
  dg_autotune_request tq = request(c, tune, kc);
  dg_autotune_outcome to;
  DG_CALL(dg_autotune(&tq, &to));
  *kc = to.cfg;
  return DG_OK;
}

dg_error dg_bench_case_solver(dg_bench_case *c, const dg_kernel_config *kc, int tune,
                              dg_solver **s) {
  dg_solver_options so = {*kc, NULL};
  DG_CALL(dg_solver_create(c->dev, c->disc, &c->ph, c->p->tag_to_bc, &so, s));
  if (c->co)
    DG_CALL(dg_solver_set_coefficients(*s, c->co->values));
  if (tune != DG_TUNE_OFF && c->disc->ncurved > 0) { /* the curved kernels' own tuning */
    dg_autotune_request tq = request(c, tune, kc);
    dg_autotune_outcome tc;
    DG_CALL(dg_autotune_curved(&tq, *s, &tc));
  }
  return DG_OK;
}
