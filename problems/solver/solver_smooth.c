/* The first-order twin of a shock-capturing run (solver_smooth.h). */
#include "problems/solver/solver_smooth.h"

#include <stdlib.h>

#include "core/log.h"
#include "operators/kernel_knobs.h"
#include "operators/physics_vanish.h"

struct dg_solver_smooth {
  int state; /* 1: the kernels below; -1: this physics has no first-order twin */
  int coef;
  dg_flux_arena *arena; /* the twin's trees (they also point into the program's) */
  dg_physics ph;
  dg_physics_vanish_tables *tab;
  dg_kernel_config cfg;
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

dg_kernel_config dg_solver_smooth_config(const dg_solver *s, const dg_kernel_config *cfg) {
  const dg_kernel_config *own = &s->cfg;
  /* partitioned: the ghost slack and the halo overlap are sized for the
   * solver's own knobs, so the twin runs with them */
  if (s->halo || !cfg)
    return *own;
  dg_kernel_config r = *cfg;
  /* shared with the solver's kernels: one state, one stepping flow */
  r.np_align = own->np_align;
  r.layout = own->layout;
  r.fuse_update = own->fuse_update;
  r.batch_residual = own->batch_residual;
  r.basis = own->basis;
  r.cpu_chunk = own->cpu_chunk;
  dg_kernel_config_drop_inapplicable(&r);
  return r;
}

/* The twin's module for knobs cfg (as dg_solver_smooth_config maps them)
 * with the solver's element operators; its arrays must be the solver's
 * (the same padding and geometry, face coordinates only where the solver
 * has them).  Replaces the loaded module only when all went well. */
static dg_error load(dg_solver *s, dg_solver_smooth *m, const dg_kernel_config *cfg) {
  dg_kernel_config c = dg_solver_smooth_config(s, cfg);
  int is_float = s->disc->precision == DG_FLOAT;
  dg_generated gen;
  DG_CALL(dg_codegen_generate(s->target, &s->el, &m->ph, is_float, &c, &gen));
  dg_error err = DG_OK;
  dg_module *mod = NULL;
  dg_kernel *ks = NULL, *kv = NULL;
  DG_CHECK_GOTO(err, fail, gen.np_pad == s->gen.np_pad && gen.ngeo == s->gen.ngeo &&
                               (!gen.uses_face_x || s->gen.uses_face_x),
                DG_ERR_ARG, "the first-order twin's arrays differ from the solver's (NP_PAD "
                "%d/%d, NGEO %d/%d)", gen.np_pad, s->gen.np_pad, gen.ngeo, s->gen.ngeo);
  DG_CALL_GOTO(err, fail, dg_solver_dump(s, s->target == DG_CODEGEN_CUDA ? "dg_operators_smooth.cu"
                                                                         : "dg_operators_smooth.c",
                                         gen.source));
  DG_CALL_GOTO(err, fail, dg_device_compile(s->dev, "dg_operators_smooth", gen.source, NULL, 0,
                                            &mod));
  DG_CALL_GOTO(err, fail, dg_module_get_kernel(mod, "dg_surface", &ks));
  DG_CALL_GOTO(err, fail, dg_module_get_kernel(mod, "dg_volume", &kv));
  DG_CALL_GOTO(err, fail, dg_solver_ensure_alt_state(s, &c)); /* a fused surface + update */
  dg_module_destroy(&m->mod);
  dg_generated_free(&m->gen);
  m->mod = mod;
  m->gen = gen;
  m->cfg = c;
  m->k_surface = ks;
  m->k_volume = kv;
  return DG_OK;
fail:
  dg_module_destroy(&mod);
  dg_generated_free(&gen);
  return err;
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
  DG_CALL(load(s, m, &s->cfg));
  dg_info("shock capturing: a stage with no viscosity anywhere runs the first-order kernels "
          "of the file without its viscosity terms (no gradient pass)");
  m->state = 1;
  return DG_OK;
}

dg_error dg_solver_smooth_prepare(dg_solver *s, int coef, int *available) {
  *available = 0;
  DG_CHECK(coef >= 0 && coef < s->physics->ncoef, DG_ERR_ARG, "coefficient %d of %d", coef,
           s->physics->ncoef);
  if (s->physics->ngrad == 0) /* a first-order file: its own kernels are the twin */
    return DG_OK;
  if (s->smooth && s->smooth->coef != coef)
    dg_solver_smooth_free(s);
  if (!s->smooth) {
    dg_error err = create(s, coef, &s->smooth);
    if (err != DG_OK) {
      dg_solver_smooth_free(s);
      return dg_error_push(err, __FILE__, __LINE__, __func__);
    }
  }
  *available = s->smooth->state == 1;
  return DG_OK;
}

dg_error dg_solver_smooth_loaded(const dg_solver *s, dg_rhs_kernels *k) {
  DG_CHECK(s->smooth && s->smooth->state == 1, DG_ERR_ARG,
           "the solver has no first-order twin (dg_solver_smooth_prepare first)");
  const dg_solver_smooth *m = s->smooth;
  *k = (dg_rhs_kernels){&m->cfg, m->k_surface, m->k_volume, m->gen.volume_shared_bytes};
  return DG_OK;
}

dg_error dg_solver_smooth_kernels(dg_solver *s, int coef, dg_rhs_kernels *k, int *ready) {
  DG_CALL(dg_solver_smooth_prepare(s, coef, ready));
  if (*ready)
    DG_CALL(dg_solver_smooth_loaded(s, k));
  return DG_OK;
}

const dg_kernel_config *dg_solver_kernels_smooth(const dg_solver *s) {
  return s->smooth && s->smooth->state == 1 ? &s->smooth->cfg : NULL;
}

const dg_physics *dg_solver_physics_smooth(const dg_solver *s) {
  return s->smooth && s->smooth->state == 1 ? &s->smooth->ph : NULL;
}

dg_error dg_solver_set_kernels_smooth(dg_solver *s, const dg_kernel_config *cfg) {
  DG_CHECK(s->smooth && s->smooth->state == 1, DG_ERR_ARG,
           "the solver has no first-order twin (dg_solver_smooth_prepare first)");
  DG_CALL(load(s, s->smooth, cfg));
  return DG_OK;
}
