/* The operator digests of one shipped problem at an entry's order and
 * precision, for the checks and tools over tuning/defaults
 * (shipped_defaults.c, rekey_defaults.c). */
#ifndef DG_TESTS_TUNING_SHIPPED_OPS_H
#define DG_TESTS_TUNING_SHIPPED_OPS_H

#include <stdio.h>
#include <string.h>

#include "dg/refelem.h"
#include "operators/physics.h"
#include "problems/driver/problem.h"
#include "problems/solver/autotune.h"
#include "tests/expect.h"

/* The problem cfg at order N and precision prec ("double", "float"): 0 when
 * it is not of dimension dim with nc components; else 1, with op its
 * operator digest (dg_autotune_op_digest) and whole that of its whole
 * module, dg_initial included (dg_autotune_module_digest). */
static inline int shipped_op_digests(const char *cfg, int dim, int N, int nc, const char *prec,
                                     char op[65], char whole[65]) {
  char order[64], precision[64];
  snprintf(order, sizeof order, "discretization.order=%d", N);
  snprintf(precision, sizeof precision, "discretization.precision=%s", prec);
  const char *ov[] = {order, precision};
  dg_problem *p = NULL;
  MUST(dg_problem_load(cfg, ov, 2, &p));
  dg_physics ph;
  dg_physics_tables *tab = NULL;
  MUST(dg_physics_from_program(p->program, &ph, &tab));
  int ours = p->mesh->dim == dim && ph.ncomp == nc;
  if (ours) {
    dg_refelem *re = NULL;
    MUST(dg_refelem_create(dim, N, &re));
    int is_float = strcmp(prec, "float") == 0;
    MUST(dg_autotune_op_digest(re, &ph, is_float, op));
    MUST(dg_autotune_module_digest(re, &ph, is_float, whole));
    dg_refelem_destroy(&re);
  }
  dg_physics_tables_destroy(&tab);
  dg_problem_destroy(&p);
  return ours;
}

#endif
