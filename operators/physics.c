#include "operators/physics.h"

#include <stdlib.h>
#include <string.h>

struct dg_physics_tables {
  int *field_offset, *field_size;
  const dg_flux_node **rhs, **flux, **surface, **source, **bc_ext, **lets, **initial;
  const dg_flux_node **grad_arg, **bc_grad;
  double *params;
};

void dg_physics_tables_destroy(dg_physics_tables **tp) {
  if (!tp || !*tp)
    return;
  dg_physics_tables *t = *tp;
  free(t->field_offset);
  free(t->field_size);
  free(t->rhs);
  free(t->flux);
  free(t->surface);
  free(t->source);
  free(t->initial);
  free(t->bc_ext);
  free(t->lets);
  free(t->grad_arg);
  free(t->bc_grad);
  free(t->params);
  free(t);
  *tp = NULL;
}

dg_error dg_physics_from_program(const dg_flux_program *prog, dg_physics *ph,
                                 dg_physics_tables **out) {
  *out = NULL;
  int nf = dg_flux_field_count(prog), nb = dg_flux_boundary_count(prog);
  int nl = dg_flux_let_count(prog), np = dg_flux_param_count(prog);
  int ng = dg_flux_gradient_count(prog);
  dg_physics_tables *t = calloc(1, sizeof *t);
  DG_CHECK(t, DG_ERR_MEMORY, "out of memory");
  /* +1: never calloc(0) */
  t->field_offset = calloc((size_t)nf + 1, sizeof(int));
  t->field_size = calloc((size_t)nf + 1, sizeof(int));
  t->rhs = calloc((size_t)nf + 1, sizeof(void *));
  t->flux = calloc((size_t)nf + 1, sizeof(void *));
  t->surface = calloc((size_t)nf + 1, sizeof(void *));
  t->source = calloc((size_t)nf + 1, sizeof(void *));
  t->initial = calloc((size_t)nf + 1, sizeof(void *));
  t->bc_ext = calloc((size_t)nb * nf + 1, sizeof(void *));
  t->lets = calloc((size_t)nl + 1, sizeof(void *));
  t->params = calloc((size_t)np + 1, sizeof(double));
  t->grad_arg = calloc((size_t)ng + 1, sizeof(void *));
  t->bc_grad = calloc((size_t)nb * ng + 1, sizeof(void *));
  if (!t->grad_arg || !t->bc_grad || !t->field_offset || !t->field_size || !t->rhs || !t->flux || !t->surface ||
      !t->source || !t->initial || !t->bc_ext || !t->lets || !t->params) {
    dg_physics_tables_destroy(&t);
    DG_RAISE(DG_ERR_MEMORY, "out of memory");
  }
  for (int f = 0; f < nf; f++) {
    const dg_flux_field_info *fi = dg_flux_field(prog, f);
    t->field_offset[f] = fi->offset;
    t->field_size[f] = fi->ncomp;
    t->rhs[f] = fi->rhs;
    t->flux[f] = fi->flux;
    t->surface[f] = fi->surface;
    t->source[f] = fi->source;
    t->initial[f] = fi->initial;
  }
  for (int b = 0; b < nb; b++) {
    const dg_flux_boundary_info *bi = dg_flux_boundary(prog, b);
    for (int f = 0; f < nf; f++)
      t->bc_ext[b * nf + f] = bi->exterior[f];
    for (int j = 0; j < ng; j++)
      t->bc_grad[b * ng + j] = bi->grad_exterior[j];
  }
  for (int j = 0; j < ng; j++)
    t->grad_arg[j] = dg_flux_gradient(prog, j)->arg;
  for (int l = 0; l < nl; l++)
    t->lets[l] = dg_flux_let(prog, l)->body;
  for (int p = 0; p < np; p++)
    t->params[p] = dg_flux_param(prog, p)->value;
  memset(ph, 0, sizeof *ph); /* every field not set below (bc_used: all used) */
  ph->nfields = nf;
  ph->field_offset = t->field_offset;
  ph->field_size = t->field_size;
  ph->ncomp = dg_flux_state_size(prog);
  ph->rhs = t->rhs;
  ph->flux = t->flux;
  ph->surface = t->surface;
  ph->source = t->source;
  ph->initial = t->initial;
  ph->nboundaries = nb;
  ph->bc_ext = t->bc_ext;
  ph->lets = t->lets;
  ph->nlets = nl;
  ph->params = t->params;
  ph->nparams = np;
  ph->ncoef = dg_flux_coef_count(prog);
  ph->ngrad = ng;
  ph->grad_arg = t->grad_arg;
  ph->bc_grad = t->bc_grad;
  ph->ldg_beta = dg_flux_ldg_beta(prog);
  *out = t;
  return DG_OK;
}
