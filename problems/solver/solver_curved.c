/* The solver's curved elements (issue 40): the module of dg_surface_curved
 * and dg_volume_curved (operators/codegen.h), its knobs, the per-node
 * metric terms on the device and the two launches over elements [0, Kc).
 * The affine elements [Kc, K) keep the affine module's kernels, launched as
 * an element range (solver.c); a mesh without curved elements never comes
 * here. */
#include <string.h>

#include "core/log.h"
#include "problems/solver/solver_curved.h"

dg_kernel_config dg_solver_curved_config(const dg_kernel_config *affine,
                                         const dg_kernel_config *curved) {
  dg_kernel_config r = curved ? *curved : *affine;
  /* shared with the affine kernels: one state layout, one stepping flow */
  r.np_align = affine->np_align;
  r.layout = affine->layout;
  r.fuse_update = affine->fuse_update;
  r.batch_residual = affine->batch_residual;
  r.cpu_chunk = affine->cpu_chunk;
  /* what the curved kernels have: node-per-thread modes, the separate or
   * the fused surface (with its traces gathered ahead or not), nothing of
   * the staged state */
  if (r.work_mode == DG_WORK_GEMM || r.work_mode == DG_WORK_MMA) {
    r.work_mode = DG_WORK_PARALLEL;
    r.work_per_thread = 1;
  }
  if (!r.fuse_surface)
    r.gather_ahead = 0;
  r.local_traces = 0;
  r.overlay_state = 0;
  r.compact_smem = 0;
  r.basis = 0;
  r.stage_state = 0;
  r.sparse_lift = 0;
  r.volume_passes = 1;
  r.volume_warps = 0;
  r.l2_prefetch = 0;
  r.early_residual = 0;
  r.stream_update = 0;
  /* knobs of the tensor-core kernels only: their defaults */
  dg_kernel_config d = dg_kernel_config_default();
  r.mma_rows = d.mma_rows;
  r.mma_pairs = d.mma_pairs;
  r.mma_extra_blocks = d.mma_extra_blocks;
  r.mma_unroll = d.mma_unroll;
  r.strided_k = d.strided_k;
  return r;
}

int64_t dg_solver_curved_elements(const dg_solver *s) { return s->od ? s->od->Kc : 0; }
const dg_kernel_config *dg_solver_kernels_curved(const dg_solver *s) { return &s->ccfg; }

int dg_solver_curved_fused(const dg_solver *s) {
  return s->target == DG_CODEGEN_CUDA && s->ccfg.fuse_surface;
}

dg_error dg_solver_curved_load(dg_solver *s, const dg_kernel_config *cfg) {
  dg_kernel_config c = dg_solver_curved_config(&s->cfg, cfg);
  /* the fused surface is a cuda kernel's (the c dg_volume_curved reads fl
   * whatever the knob says); partitioned, the affine kernels never fuse and
   * the curved ones keep to the same separate-surface flow, which the
   * partitioned tests check against the serial run */
  if (s->target != DG_CODEGEN_CUDA || s->halo) {
    c.fuse_surface = 0;
    c.gather_ahead = 0;
  }
  int is_float = s->disc->precision == DG_FLOAT;
  dg_element_ops el = dg_element_ops_of(s->disc->re);
  el.curved = 1;
  dg_generated gen;
  DG_CALL(dg_codegen_generate(s->target, &el, s->physics, is_float, &c, &gen));
  dg_error err = DG_OK;
  dg_module *mod = NULL;
  DG_CALL_GOTO(err, fail, dg_solver_dump(s, s->target == DG_CODEGEN_CUDA ? "dg_operators_curved.cu"
                                                                        : "dg_operators_curved.c",
                                         gen.source));
  DG_CALL_GOTO(err, fail, dg_device_compile(s->dev, "dg_operators_curved", gen.source, NULL, 0,
                                            &mod));
  dg_kernel *ks = NULL, *kv = NULL;
  DG_CALL_GOTO(err, fail, dg_module_get_kernel(mod, "dg_surface_curved", &ks));
  DG_CALL_GOTO(err, fail, dg_module_get_kernel(mod, "dg_volume_curved", &kv));
  DG_CHECK_GOTO(err, fail, gen.np_pad == s->gen.np_pad, DG_ERR_ARG,
                "curved kernels with NP_PAD %d beside affine ones with %d", gen.np_pad,
                s->gen.np_pad);
  dg_module_destroy(&s->cmod);
  dg_generated_free(&s->cgen);
  s->cmod = mod;
  s->cgen = gen;
  s->ccfg = c;
  s->k_surface_curved = ks;
  s->k_volume_curved = kv;
  /* the fused surface's second state buffer; at dg_solver_create (no
   * operator data yet) the curved knobs are the affine ones, never fused */
  if (s->od)
    DG_CALL(dg_solver_ensure_alt_state(s, &s->ccfg));
  return DG_OK;
fail:
  dg_module_destroy(&mod);
  dg_generated_free(&gen);
  return err;
}

dg_error dg_solver_set_kernels_curved(dg_solver *s, const dg_kernel_config *cfg) {
  DG_CHECK(s->od && s->od->Kc > 0, DG_ERR_ARG, "the mesh has no curved elements");
  DG_CALL(dg_solver_curved_load(s, cfg));
  return DG_OK;
}

dg_error dg_solver_curved_upload(dg_solver *s) {
  const dg_opdata *od = s->od;
  DG_CALL(dg_solver_upload_new(s->dev, od->cgeo, (size_t)od->Kc * od->Np * od->ngeo * s->rs,
                               &s->cgeo));
  DG_CALL(dg_solver_upload_new(s->dev, od->cfgeo,
                               (size_t)od->Kc * od->nfnfp * (od->dim + 1) * s->rs, &s->cfgeo));
  return DG_OK;
}

void dg_solver_curved_free(dg_solver *s) {
  if (s->cgeo)
    dg_device_free(s->dev, s->cgeo);
  if (s->cfgeo)
    dg_device_free(s->dev, s->cfgeo);
  s->cgeo = s->cfgeo = NULL;
  dg_module_destroy(&s->cmod);
  dg_generated_free(&s->cgen);
}

dg_error dg_solver_curved_surface(dg_solver *s, dg_real_arg t) {
  if (dg_solver_curved_fused(s)) /* dg_volume_curved computes the face fluxes */
    return DG_OK;
  const dg_opdata *od = s->od;
  long long K = od->K, KC = od->Kc;
  void *args[] = {&s->q, &s->fl, &s->mapM, &s->mapP, &s->fbc, &s->cfgeo,
                  &s->fx, &t,    &K,       &s->fcf,  &s->Qg,  &KC};
  dg_launch l;
  memset(&l, 0, sizeof l);
  long long total = KC * od->nfnfp;
  unsigned threads = (unsigned)s->ccfg.face_threads;
  l.grid[0] = (unsigned)((total + threads - 1) / threads);
  l.grid[1] = l.grid[2] = 1;
  l.block[0] = threads;
  l.block[1] = l.block[2] = 1;
  l.items = KC;
  l.chunk = s->ccfg.cpu_chunk;
  if (KC > 0)
    DG_CALL(dg_kernel_launch(s->k_surface_curved, &l, args, NULL));
  return DG_OK;
}

/* The fused surface with the fused update: the new state of [0, Kc) went
 * to q_alt; back into q (the rest of q holds the affine elements' own
 * update).  Per component in the field-major layout, one run element-major. */
static dg_error copy_back_curved(dg_solver *s) {
  const dg_opdata *od = s->od;
  size_t run = (size_t)od->Kc * od->np_pad * (od->element_major ? od->ncomp : 1) * s->rs;
  for (int c = 0; c < (od->element_major ? 1 : od->ncomp); c++) {
    size_t o = (size_t)dg_opdata_offset(od, 0, 0, c) * s->rs;
    DG_CALL(dg_device_copy(s->dev, dg_device_offset(s->q, o), dg_device_offset(s->q_alt, o),
                           run));
  }
  return DG_OK;
}

dg_error dg_solver_curved_volume(dg_solver *s, dg_real_arg t, dg_real_arg a, dg_real_arg b,
                                 dg_real_arg dt) {
  const dg_opdata *od = s->od;
  long long K = od->K, KC = od->Kc;
  /* The fused surface reads the traces of neighbouring curved elements,
   * which other blocks of this launch update: with the fused update the
   * kernel writes the new state to q_alt, not q, and it is copied back once
   * the launch is done.  Every other reader of the old state has run by
   * then (both surface kernels run first, eval_rhs_first_order), and the
   * affine volume kernel after it reads its own elements' state only (the
   * affine module never fuses its surface beside curved elements).  Not a
   * swap of q and q_alt as the affine fused kernel does: the affine
   * elements' new state is in q. */
  int to_alt = dg_solver_curved_fused(s) && s->ccfg.fuse_update;
  void *q_out = to_alt ? s->q_alt : s->q;
  void *args[] = {&s->q,    &s->rhs,  &s->fl,    &s->cgeo, &s->vx,    &t,       &K,
                  &s->res,  &a,       &b,        &dt,      &q_out,    &s->mapM, &s->mapP,
                  &s->fbc,  &s->cfgeo, &s->fx,   &s->cf,   &s->fcf,   &s->Qg,   &KC};
  dg_launch l;
  memset(&l, 0, sizeof l);
  unsigned per_block = (unsigned)(s->ccfg.elements_per_block * s->ccfg.work_per_thread);
  l.grid[0] = (unsigned)((KC + per_block - 1) / per_block);
  l.grid[1] = l.grid[2] = 1;
  dg_kernel_config_volume_block(&s->ccfg, od->Np, l.block);
  l.block[2] = 1;
  l.shared_bytes = s->cgen.volume_shared_bytes;
  l.items = KC;
  l.chunk = s->ccfg.cpu_chunk;
  if (KC == 0)
    return DG_OK;
  DG_CALL(dg_kernel_launch(s->k_volume_curved, &l, args, NULL));
  if (to_alt)
    DG_CALL(copy_back_curved(s));
  return DG_OK;
}
