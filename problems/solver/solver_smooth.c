/* The first-order twin of a shock-capturing run (solver_smooth.h). */
#include "problems/solver/solver_smooth.h"

#include <stdlib.h>

#include "core/log.h"
#include "operators/physics_vanish.h"

struct dg_solver_smooth {
  int state; /* 1: the kernels below; -1: this physics has no first-order twin */
  int coef;
  dg_flux_arena *arena; /* the twin's trees (they also point into the program's) */
  dg_physics ph;
  dg_physics_vanish_tables *tab;
  dg_module *mod;
  dg_generated gen;
  dg_kernel *k_surface, *k_volume;
};

void dg_solver_smooth_free(dg_solver *s) {
  dg_solver_smooth *m = s->smooth;
  if (!m)
    return;
  dg_module_destroy(&m->mod);
  dg_generated_free(&m->gen);
  dg_physics_vanish_tables_destroy(&m->tab);
  dg_flux_arena_destroy(&m->arena);
  free(m);
  s->smooth = NULL;
}

/* The twin's module with the solver's knobs and element operators; its
 * arrays must be the solver's (the same padding and geometry, face
 * coordinates only where the solver has them). */
static dg_error load(dg_solver *s, dg_solver_smooth *m) {
  int is_float = s->disc->precision == DG_FLOAT;
  DG_CALL(dg_codegen_generate(s->target, &s->el, &m->ph, is_float, &s->cfg, &m->gen));
  DG_CHECK(m->gen.np_pad == s->gen.np_pad && m->gen.ngeo == s->gen.ngeo &&
               (!m->gen.uses_face_x || s->gen.uses_face_x),
           DG_ERR_ARG, "the first-order twin's arrays differ from the solver's (NP_PAD %d/%d, "
           "NGEO %d/%d)", m->gen.np_pad, s->gen.np_pad, m->gen.ngeo, s->gen.ngeo);
  DG_CALL(dg_solver_dump(s, s->target == DG_CODEGEN_CUDA ? "dg_operators_smooth.cu"
                                                         : "dg_operators_smooth.c",
                         m->gen.source));
  DG_CALL(dg_device_compile(s->dev, "dg_operators_smooth", m->gen.source, NULL, 0, &m->mod));
  DG_CALL(dg_module_get_kernel(m->mod, "dg_surface", &m->k_surface));
  DG_CALL(dg_module_get_kernel(m->mod, "dg_volume", &m->k_volume));
  return DG_OK;
}

static dg_error create(dg_solver *s, int coef, dg_solver_smooth **out) {
  dg_solver_smooth *m = calloc(1, sizeof *m);
  DG_CHECK(m, DG_ERR_MEMORY, "out of memory");
  m->coef = coef;
  *out = m; /* freed by the caller's dg_solver_smooth_free on error */
  DG_CALL(dg_flux_arena_create(&m->arena));
  int first_order = 0;
  DG_CALL(dg_physics_vanish(s->physics, m->arena, coef, &m->ph, &m->tab, &first_order));
  if (!first_order) {
    dg_info("shock capturing: the second-order terms do not all vanish with the viscosity "
            "coefficient, so smooth stages run the viscous kernels too");
    m->state = -1;
    return DG_OK;
  }
  DG_CALL(load(s, m));
  dg_info("shock capturing: a stage with no viscosity anywhere runs the first-order kernels "
          "of the file without its viscosity terms (no gradient pass)");
  m->state = 1;
  return DG_OK;
}

dg_error dg_solver_smooth_kernels(dg_solver *s, int coef, dg_kernel **surface,
                                  dg_kernel **volume, unsigned *volume_shared, int *ready) {
  *ready = 0;
  if (s->smooth && s->smooth->coef != coef)
    dg_solver_smooth_free(s);
  if (!s->smooth) {
    dg_error err = create(s, coef, &s->smooth);
    if (err != DG_OK) {
      dg_solver_smooth_free(s);
      return dg_error_push(err, __FILE__, __LINE__, __func__);
    }
  }
  if (s->smooth->state != 1)
    return DG_OK;
  *surface = s->smooth->k_surface;
  *volume = s->smooth->k_volume;
  *volume_shared = s->smooth->gen.volume_shared_bytes;
  *ready = 1;
  return DG_OK;
}
