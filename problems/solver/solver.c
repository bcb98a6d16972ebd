#include "problems/solver/solver.h"
#include "problems/solver/solver_private.h"
#include "problems/solver/solver_curved.h"
#include "problems/solver/solver_smooth.h"
#include "problems/solver/shock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fsutil.h"
#include "core/log.h"
#include "core/timing.h"
#include "operators/kernel_knobs.h"
#include "core/reduction.h"
#include "dg/bernstein.h"
#include "dg/linalg.h"
#include "dg/face_geometry.h"


dg_error dg_solver_upload_new(dg_device *dev, const void *host, size_t bytes, void **out) {
  *out = NULL;
  if (bytes == 0)
    return DG_OK;
  DG_CALL(dg_device_malloc(dev, bytes, out));
  DG_CALL(dg_device_upload(dev, *out, host, bytes));
  return DG_OK;
}

static dg_error zeros_new(dg_device *dev, size_t bytes, void **out) {
  *out = NULL;
  if (bytes == 0)
    return DG_OK;
  DG_CALL(dg_device_malloc(dev, bytes, out));
  DG_CALL(dg_device_zero(dev, *out, bytes));
  return DG_OK;
}

int dg_solver_ncomp(const dg_solver *s) { return s->ncomp; }
const dg_opdata *dg_solver_opdata(const dg_solver *s) { return s->od; }
const dg_generated *dg_solver_generated(const dg_solver *s) { return &s->gen; }
void *dg_solver_device_state(const dg_solver *s) { return s->q; }
void *dg_solver_device_coordinates(const dg_solver *s) { return s->vx; }
const char *dg_solver_dump_dir(const dg_solver *s) { return s->dump_dir; }
dg_solver_timings dg_solver_get_timings(const dg_solver *s) {
  dg_solver_timings t = s->timings;
  if (s->halo)
    t.halo = dg_halo_get_timings(s->halo);
  return t;
}

static dg_error dump_source(const char *dir, const char *name, const char *src) {
  DG_CALL(dg_fsutil_mkdir_p(dir, 0755));
  char *path = dg_fsutil_join(dir, name);
  DG_CHECK(path, DG_ERR_MEMORY, "out of memory");
  dg_error err = dg_fsutil_write_atomic(path, src, strlen(src), 0644);
  free(path);
  return err;
}

dg_error dg_solver_dump(const dg_solver *s, const char *name, const char *src) {
  if (s->dump_dir)
    DG_CALL(dump_source(s->dump_dir, name, src));
  return DG_OK;
}

dg_error dg_solver_ensure_alt_state(dg_solver *s, const dg_kernel_config *cfg) {
  if (s->q_alt || !(s->target == DG_CODEGEN_CUDA && cfg->fuse_surface && cfg->fuse_update))
    return DG_OK;
  DG_CALL(zeros_new(s->dev, (size_t)s->n_state * s->rs, &s->q_alt));
  return DG_OK;
}

/* Generate, compile (kernel cache) and look up the kernels for cfg. */
static dg_error load_kernels(dg_solver *s, const dg_kernel_config *cfg) {
  int is_float = s->disc->precision == DG_FLOAT;
  if (cfg->basis && !s->bb)
    DG_CALL(dg_bernstein_create(s->disc->re, &s->bb));
  dg_element_ops el = cfg->basis ? dg_element_ops_of_bernstein(s->disc->re, s->bb)
                                 : dg_element_ops_of(s->disc->re);
  dg_generated gen;
  int ph = dg_timing_begin("kernel generation");
  DG_CALL(dg_codegen_generate(s->target, &el, s->physics, is_float, cfg, &gen));
  dg_timing_end(ph);
  dg_error err = DG_OK;
  dg_module *mod = NULL;
  if (s->dump_dir)
    DG_CALL_GOTO(err, fail, dump_source(s->dump_dir,
                                         s->target == DG_CODEGEN_CUDA ? "dg_operators.cu"
                                                                      : "dg_operators.c",
                                         gen.source));
  ph = dg_timing_begin("kernel cache lookup or compile, load");
  DG_CALL_GOTO(err, fail, dg_device_compile(s->dev, "dg_operators", gen.source, NULL, 0, &mod));
  dg_timing_end(ph);
  dg_kernel *ks, *kv, *kl, *kp, *kg = NULL;
  if (s->physics->ngrad > 0)
    DG_CALL_GOTO(err, fail, dg_module_get_kernel(mod, "dg_gradient", &kg));
  DG_CALL_GOTO(err, fail, dg_module_get_kernel(mod, "dg_surface", &ks));
  DG_CALL_GOTO(err, fail, dg_module_get_kernel(mod, "dg_volume", &kv));
  DG_CALL_GOTO(err, fail, dg_module_get_kernel(mod, "dg_update_lserk", &kl));
  DG_CALL_GOTO(err, fail, dg_module_get_kernel(mod, "dg_update_ssp", &kp));
  dg_module_destroy(&s->mod);
  dg_generated_free(&s->gen);
  s->mod = mod;
  s->gen = gen;
  s->cfg = *cfg;
  s->el = el;
  s->k_surface = ks;
  s->k_volume = kv;
  s->k_lserk = kl;
  s->k_ssp = kp;
  s->k_gradient = kg;
  return DG_OK;
fail:
  dg_module_destroy(&mod);
  dg_generated_free(&gen);
  return err;
}

dg_error dg_solver_create(dg_device *dev, const dg_discretization *disc,
                          const dg_physics *physics, const int *tag_to_bc,
                          const dg_solver_options *opt, dg_solver **out) {
  DG_CALL(dg_solver_create_partitioned(dev, disc, physics, tag_to_bc, opt, NULL, out));
  return DG_OK;
}

dg_error dg_solver_create_partitioned(dg_device *dev, const dg_discretization *disc,
                                      const dg_physics *physics, const int *tag_to_bc,
                                      const dg_solver_options *opt, const dg_halo_spec *halo,
                                      dg_solver **out) {
  *out = NULL;
  dg_solver *s = calloc(1, sizeof *s);
  DG_CHECK(s, DG_ERR_MEMORY, "out of memory");
  dg_error err = DG_OK;
  int agreed = 0; /* partitioned: the ranks have agreed that set-up went well */
  s->dev = dev;
  s->disc = disc;
  s->cfg = opt ? opt->kernels : dg_kernel_config_default();
  s->ncomp = physics->ncomp;
  s->physics = physics;
  s->target = dg_device_get_info(dev)->backend == DG_BACKEND_CUDA ? DG_CODEGEN_CUDA
                                                                   : DG_CODEGEN_C;
  s->dump_dir = opt ? opt->dump_dir : NULL;
  if (halo && s->cfg.fuse_surface) {
    /* the fused surface reads neighbours by absolute offset within one
     * launch over all elements: no room for the halo overlap */
    dg_warn("fuse_surface is not available in partitioned runs: using separate surface and "
            "volume kernels");
    s->cfg.fuse_surface = 0;
    s->cfg.local_traces = 0; /* knobs of the fused surface */
    s->cfg.overlay_state = 0;
    s->cfg.compact_smem = 0;
    dg_kernel_config_drop_inapplicable(&s->cfg); /* gather_ahead, staged surface, ... */
  }
  if (disc->ncurved > 0) {
    /* curved elements: their kernels over [0, Kc), the affine ones over the
     * rest as a range (solver_curved.c); partitioned, the part's curved
     * elements come first too (problems/solver/parallel.c) */
    /* before any kernel is compiled: nothing half-made for a refused run */
    DG_CHECK_GOTO(err, fail, physics->ngrad == 0, DG_ERR_UNSUPPORTED,
                  "curved elements run work_mode parallel, sequence or inline, fuse_surface 0, "
                  "basis nodal, first-order terms only: this physics has %d lifted gradients "
                  "(second-order terms) and the mesh %lld curved elements",
                  physics->ngrad, (long long)disc->ncurved);
    if (s->cfg.fuse_surface || s->cfg.basis)
      dg_warn("curved elements: the affine kernels run without fuse_surface and in the nodal "
              "basis (the element ranges and the state's basis are shared)");
    s->cfg.fuse_surface = 0; /* the fused surface runs over every element at once */
    s->cfg.local_traces = 0;
    s->cfg.overlay_state = 0;
    s->cfg.compact_smem = 0;
    s->cfg.basis = 0; /* one basis for the whole state */
    s->cfg.stage_state = 0;
    s->cfg.sparse_lift = 0;
    dg_kernel_config_drop_inapplicable(&s->cfg); /* gather_ahead, staged surface, ... */
  }
  DG_CALL_GOTO(err, fail, load_kernels(s, &s->cfg));
  if (disc->ncurved > 0)
    DG_CALL_GOTO(err, fail, dg_solver_curved_load(s, NULL));
  int ph = dg_timing_begin("operator data");
  DG_CALL_GOTO(err, fail, dg_opdata_create(disc, s->gen.np_pad,
                                           s->cfg.layout == DG_LAYOUT_ELEMENT_MAJOR,
                                           s->ncomp, tag_to_bc, &s->od));
  dg_timing_end(ph);
  /* Slack after the last element: the affine range [Kc, K) rounds up to
   * whole blocks of any tuned size, whose extra threads must stay in bounds
   * (their results land in the slack); partitioned, after the ghost slots. */
  int64_t curved_slack = 0;
  if (s->od->Kc > 0 && s->target == DG_CODEGEN_CUDA)
    curved_slack = 1024 / s->od->nfnfp + 1 + 64 * 8;
  if (curved_slack > 0 && !halo)
    DG_CALL_GOTO(err, fail, dg_opdata_extend(s->od, s->od->K + curved_slack));
  if (halo) {
    /* Every rank got this far: the set-up exchange below cannot hang. */
    agreed = 1;
    DG_CALL_GOTO(err, fail, dg_comm_agree(halo->comm, DG_OK));
    /* Slack after the ghost slots: cuda launches over an element range
     * round up to whole blocks, and the extra threads must stay in bounds. */
    int64_t slack = 0;
    if (s->target == DG_CODEGEN_CUDA)
      slack = (s->cfg.face_threads + s->od->nfnfp - 1) / s->od->nfnfp +
              (int64_t)s->cfg.elements_per_block * s->cfg.work_per_thread;
    if (slack < curved_slack) /* any block size, as without a halo */
      slack = curved_slack;
    ph = dg_timing_begin("halo (ghost slots, pinned buffers)");
    DG_CALL_GOTO(err, fail, dg_halo_create(dev, halo, disc, s->od, slack, &s->halo));
    s->halo_spec = halo;
    if (physics->ngrad > 0)
      DG_CALL_GOTO(err, fail, dg_halo_create_companion(dev, s->halo, halo, disc, s->od,
                                                       physics->ngrad * s->od->dim, &s->qhalo));
    dg_timing_end(ph);
  }
  const dg_opdata *od = s->od;
  s->rs = od->real_size;
  s->n_state = dg_opdata_state_length(od);
  size_t state_bytes = (size_t)s->n_state * s->rs;
  size_t nfn = (size_t)od->K * od->nfnfp;
  ph = dg_timing_begin("device allocation, upload");
  DG_CALL_GOTO(err, fail, zeros_new(dev, state_bytes, &s->q));
  DG_CALL_GOTO(err, fail, zeros_new(dev, state_bytes, &s->res));
  DG_CALL_GOTO(err, fail, zeros_new(dev, state_bytes, &s->rhs));
  DG_CALL_GOTO(err, fail, zeros_new(dev, state_bytes, &s->q0));
  DG_CALL_GOTO(err, fail, zeros_new(dev, (size_t)s->ncomp * nfn * s->rs, &s->fl));
  if (physics->ngrad > 0)
    DG_CALL_GOTO(err, fail, zeros_new(dev, (size_t)physics->ngrad * od->dim * od->K *
                                               od->np_pad * s->rs, &s->Qg));
  DG_CALL_GOTO(err, fail, dg_solver_upload_new(dev, od->egeo, (size_t)od->K * od->ngeo * s->rs,
                                               &s->egeo));
  {
    void *pf = NULL; /* normals and Fscale once per face (affine elements) */
    size_t pf_bytes = 0;
    DG_CALL_GOTO(err, fail, dg_face_geometry_per_face(od, &pf, &pf_bytes));
    err = dg_solver_upload_new(dev, pf, pf_bytes, &s->fgeo);
    free(pf);
    DG_CALL_GOTO(err, fail, err);
  }
  if (s->gen.uses_face_x) /* face coordinates only for x-dependent fluxes / BCs */
    DG_CALL_GOTO(err, fail, dg_solver_upload_new(dev, od->fx, nfn * od->dim * s->rs, &s->fx));
  DG_CALL_GOTO(err, fail, dg_solver_upload_new(dev, od->vx,
                                     (size_t)od->dim * od->K * od->np_pad * s->rs, &s->vx));
  DG_CALL_GOTO(err, fail, dg_solver_upload_new(dev, od->mapM, nfn * sizeof(int32_t), &s->mapM));
  DG_CALL_GOTO(err, fail, dg_solver_upload_new(dev, od->mapP, nfn * sizeof(int32_t), &s->mapP));
  DG_CALL_GOTO(err, fail, dg_solver_upload_new(dev, od->fbc,
                                     (size_t)od->K * od->Nfaces * sizeof(int32_t), &s->fbc));
  DG_CALL_GOTO(err, fail, dg_solver_ensure_alt_state(s, &s->cfg));
  if (od->Kc > 0)
    DG_CALL_GOTO(err, fail, dg_solver_curved_upload(s));
  dg_timing_end(ph);
  *out = s;
  return DG_OK;
fail:
  if (halo && !agreed)
    (void)dg_comm_agree(halo->comm, err); /* the other ranks wait there */
  dg_solver_destroy(&s);
  return err;
}

void dg_solver_destroy(dg_solver **sp) {
  if (!sp || !*sp)
    return;
  dg_solver *s = *sp;
  void **bufs[] = {&s->q,  &s->q_alt, &s->res,  &s->rhs,  &s->q0,  &s->fl, &s->egeo,
                   &s->fgeo, &s->fx,  &s->vx, &s->mapM, &s->mapP, &s->fbc, &s->cf, &s->fcf, &s->Qg};
  for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
    if (*bufs[i])
      dg_device_free(s->dev, *bufs[i]);
  dg_solver_curved_free(s);
  dg_solver_smooth_free(s);
  dg_shock_destroy(&s->shock);
  dg_halo_destroy(&s->qhalo);
  dg_halo_destroy(&s->halo);
  dg_module_destroy(&s->mod);
  dg_reduction_destroy(&s->finite);
  dg_opdata_destroy(&s->od);
  dg_generated_free(&s->gen);
  dg_bernstein_destroy(&s->bb);
  free(s);
  *sp = NULL;
}

/* Convert between the logical host order and the device layout. */
dg_error dg_solver_pack_state(const dg_solver *s, const double *u, void *buf) {
  const dg_opdata *od = s->od;
  memset(buf, 0, (size_t)s->n_state * s->rs);
  for (int c = 0; c < s->ncomp; c++)
#pragma omp parallel for schedule(static)
    for (int64_t k = 0; k < od->K_owned; k++)
      for (int i = 0; i < od->Np; i++) {
        double v = u[((int64_t)c * od->K_owned + k) * od->Np + i];
        int64_t o = dg_opdata_offset(od, k, i, c);
        if (s->rs == 4)
          ((float *)buf)[o] = (float)v;
        else
          ((double *)buf)[o] = v;
      }
  return DG_OK;
}

static void unpack_state(const dg_solver *s, const void *buf, double *u) {
  const dg_opdata *od = s->od;
  for (int c = 0; c < s->ncomp; c++)
#pragma omp parallel for schedule(static)
    for (int64_t k = 0; k < od->K_owned; k++)
      for (int i = 0; i < od->Np; i++) {
        int64_t o = dg_opdata_offset(od, k, i, c);
        u[((int64_t)c * od->K_owned + k) * od->Np + i] =
            s->rs == 4 ? (double)((const float *)buf)[o] : ((const double *)buf)[o];
      }
}

/* Basis bernstein: per element and component, BB coefficients c = invV u
 * from nodal values u (to_coefficients) or u = V c, in place on the host
 * order [c][k][i]: one product (rows x Np) (Np x Np)^T over all rows. */
static dg_error convert_basis(const dg_solver *s, double *u, int to_coefficients) {
  int64_t rows = (int64_t)s->ncomp * s->od->K_owned;
  int np = s->od->Np;
  if (rows == 0)
    return DG_OK;
  DG_CHECK(rows <= 0x7fffffff, DG_ERR_ARG, "%lld element rows are too many for one product",
           (long long)rows);
  double *tmp = malloc((size_t)rows * np * sizeof *tmp);
  DG_CHECK(tmp, DG_ERR_MEMORY, "out of host memory (%lld reals)", (long long)(rows * np));
  dg_error err = dg_linalg_matmul(0, 1, (int)rows, np, np, u,
                                  to_coefficients ? s->bb->invV : s->bb->V, tmp);
  if (err == DG_OK)
    memcpy(u, tmp, (size_t)rows * np * sizeof *tmp);
  free(tmp);
  DG_CALL(err);
  return DG_OK;
}

/* u in the host order holds nodal values; on the device the state is in the
 * kernels' basis (raw: no conversion, u then holds the device's basis). */
static dg_error transfer_state_as(dg_solver *s, void *dev_buf, double *u, int to_device,
                                  int raw) {
  size_t bytes = (size_t)s->n_state * s->rs;
  int convert = s->cfg.basis && !raw;
  size_t nlog = (size_t)s->ncomp * s->od->K_owned * s->od->Np;
  void *buf = malloc(bytes ? bytes : 1);
  double *c = convert ? malloc(nlog ? nlog * sizeof *c : 1) : NULL;
  dg_error err = DG_OK;
  if (!buf || (convert && !c)) {
    free(buf);
    free(c);
    DG_RAISE(DG_ERR_MEMORY, "out of host memory (%zu bytes)", bytes);
  }
  if (to_device) {
    if (convert) {
      memcpy(c, u, nlog * sizeof *c);
      err = convert_basis(s, c, 1);
    }
    if (err == DG_OK) {
      dg_solver_pack_state(s, convert ? c : u, buf);
      err = dg_device_upload(s->dev, dev_buf, buf, bytes);
    }
  } else {
    err = dg_device_download(s->dev, buf, dev_buf, bytes);
    if (err == DG_OK) {
      unpack_state(s, buf, u);
      if (convert)
        err = convert_basis(s, u, 0);
    }
  }
  free(buf);
  free(c);
  DG_CALL(err);
  return DG_OK;
}

static dg_error transfer_state(dg_solver *s, void *dev_buf, double *u, int to_device) {
  DG_CALL(transfer_state_as(s, dev_buf, u, to_device, 0));
  return DG_OK;
}

/* Scalars passed to kernels in the device precision. */
typedef dg_real_arg real_arg;

static real_arg mkreal(const dg_solver *s, double v) {
  real_arg r;
  if (s->rs == 4)
    r.f = (float)v;
  else
    r.d = v;
  return r;
}

/* A fresh state starts a fresh LSERK register. */
static dg_error zero_residual(dg_solver *s) {
  DG_CALL(dg_device_zero(s->dev, s->res, (size_t)s->n_state * s->rs));
  return DG_OK;
}

/* Basis bernstein: the device state holds nodal values (dg_initial's);
 * rewrite it as coefficients. */
static dg_error nodal_state_to_coefficients(dg_solver *s) {
  size_t nlog = (size_t)s->ncomp * s->od->K_owned * s->od->Np;
  double *u = malloc(nlog ? nlog * sizeof *u : 1);
  DG_CHECK(u, DG_ERR_MEMORY, "out of host memory (%zu reals)", nlog);
  dg_error err = transfer_state_as(s, s->q, u, 0, 1);
  if (err == DG_OK)
    err = transfer_state(s, s->q, u, 1);
  free(u);
  DG_CALL(err);
  return DG_OK;
}

dg_error dg_solver_set_state(dg_solver *s, const double *u) {
  DG_CALL(transfer_state(s, s->q, (double *)u, 1));
  DG_CALL(zero_residual(s));
  return DG_OK;
}

dg_error dg_solver_set_initial(dg_solver *s, double t) {
  DG_CHECK(s->gen.has_initial, DG_ERR_ARG, "the physics has no initial condition");
  dg_kernel *k = NULL;
  DG_CALL(dg_module_get_kernel(s->mod, "dg_initial", &k));
  /* owned elements only: the ghost slots get their traces by the exchange */
  long long K = s->od->K, K_owned = s->od->K_owned;
  real_arg rt = mkreal(s, t);
  void *args[] = {&s->q, &s->vx, &rt, &K, &K_owned};
  dg_launch l;
  memset(&l, 0, sizeof l);
  long long total = K_owned * s->od->Np;
  l.grid[0] = (unsigned)((total + 255) / 256);
  l.grid[1] = l.grid[2] = 1;
  l.block[0] = 256;
  l.block[1] = l.block[2] = 1;
  l.items = K_owned;
  l.chunk = s->cfg.cpu_chunk;
  if (total > 0)
    DG_CALL(dg_kernel_launch(k, &l, args, NULL));
  if (s->cfg.basis) /* dg_initial wrote nodal values: convert them once */
    DG_CALL(nodal_state_to_coefficients(s));
  DG_CALL(zero_residual(s));
  return DG_OK;
}

dg_error dg_solver_get_state(dg_solver *s, double *u) {
  DG_CALL(transfer_state(s, s->q, u, 0));
  return DG_OK;
}

/* cuda with fuse_surface: dg_volume computes the face fluxes itself */
static int fused(const dg_solver *s, const dg_kernel_config *c) {
  return s->target == DG_CODEGEN_CUDA && c->fuse_surface;
}
static int fused_surface(const dg_solver *s) { return fused(s, &s->cfg); }

/* The solver's own first-order kernels (the twin's: solver_smooth.h). */
static dg_rhs_kernels own_kernels(const dg_solver *s) {
  return (dg_rhs_kernels){&s->cfg, s->k_surface, s->k_volume, s->gen.volume_shared_bytes};
}

/* Kernels over the element range [first, first + n): the per-element arrays
 * are passed from element `first` on, K stays the array stride (the
 * generated kernels index k relative to the pointers they get). */
static dg_error launch_surface(dg_solver *s, const dg_rhs_kernels *k, double t, int64_t first,
                               int64_t n) {
  if (fused(s, k->cfg))
    return DG_OK;
  const dg_opdata *od = s->od;
  long long K = od->K;
  real_arg rt = mkreal(s, t);
  size_t nf = (size_t)first * od->nfnfp;
  void *fl = dg_device_offset(s->fl, nf * s->rs);
  void *mapM = dg_device_offset(s->mapM, nf * sizeof(int32_t));
  void *mapP = dg_device_offset(s->mapP, nf * sizeof(int32_t));
  void *fbc = dg_device_offset(s->fbc, (size_t)first * od->Nfaces * sizeof(int32_t));
  void *fgeo = dg_device_offset(s->fgeo, (size_t)first * od->Nfaces * (od->dim + 1) * s->rs);
  void *fx = dg_device_offset(s->fx, nf * od->dim * s->rs);
  void *fcf = dg_device_offset(s->fcf, nf * (size_t)s->physics->ncoef * 2 * s->rs);
  void *args[] = {&s->q, &fl, &mapM, &mapP, &fbc, &fgeo, &fx, &rt, &K, &fcf, &s->Qg};
  dg_launch l;
  memset(&l, 0, sizeof l);
  long long total = (long long)n * od->nfnfp;
  unsigned threads = (unsigned)k->cfg->face_threads;
  l.grid[0] = (unsigned)((total + threads - 1) / threads);
  l.grid[1] = l.grid[2] = 1;
  l.block[0] = threads;
  l.block[1] = l.block[2] = 1;
  l.items = n;
  l.chunk = k->cfg->cpu_chunk;
  if (total == 0)
    return DG_OK;
  DG_CALL(dg_kernel_launch(k->surface, &l, args, NULL));
  return DG_OK;
}

static dg_error launch_volume_range(dg_solver *s, const dg_rhs_kernels *k, double t, double a,
                                    double b, double dt, int64_t first, int64_t n) {
  const dg_kernel_config *c = k->cfg;
  const dg_opdata *od = s->od;
  long long K = od->K;
  real_arg rt = mkreal(s, t), ra = mkreal(s, a), rb = mkreal(s, b), rdt = mkreal(s, dt);
  size_t so = (size_t)dg_opdata_offset(od, first, 0, 0) * s->rs;
  void *q = dg_device_offset(s->q, so), *rhs = dg_device_offset(s->rhs, so);
  void *res = dg_device_offset(s->res, so);
  void *fl = dg_device_offset(s->fl, (size_t)first * od->nfnfp * s->rs);
  void *egeo = dg_device_offset(s->egeo, (size_t)first * od->ngeo * s->rs);
  void *vx = dg_device_offset(s->vx, (size_t)first * od->np_pad * s->rs);
  /* fused surface: other blocks read this element's face values while it is
   * updated, so the update goes to a second state buffer (swapped below).
   * The fused surface reads neighbours through absolute offsets, so it runs
   * only over the whole element range (never in partitioned runs). */
  int swap = fused(s, c) && c->fuse_update;
  DG_CHECK(!fused(s, c) || (first == 0 && n == od->K_owned), DG_ERR_ARG,
           "the fused-surface volume kernel runs over all elements at once");
  void *q_out = swap ? s->q_alt : q;
  void *cf = dg_device_offset(s->cf, (size_t)first * od->np_pad * s->rs);
  void *Qg = dg_device_offset(s->Qg, (size_t)first * od->np_pad * s->rs); /* as cf */
  void *args[] = {&q,       &rhs,     &fl,      &egeo,    &vx,      &rt,    &K,
                  &res,     &ra,      &rb,      &rdt,     &q_out,   &s->mapM,
                  &s->mapP, &s->fbc,  &s->fgeo, &s->fx,   &cf,      &s->fcf, &Qg};
  dg_launch l;
  memset(&l, 0, sizeof l);
  unsigned epb = (unsigned)c->elements_per_block;
  /* a block covers EPB x work_per_thread elements in every work mode */
  unsigned per_block = epb * (unsigned)c->work_per_thread;
  l.grid[0] = (unsigned)((n + per_block - 1) / per_block);
  l.grid[1] = l.grid[2] = 1;
  dg_kernel_config_volume_block(c, od->Np, l.block);
  l.block[2] = 1;
  l.shared_bytes = k->volume_shared;
  l.items = n;
  l.chunk = c->cpu_chunk;
  if (n == 0)
    return DG_OK;
  DG_CALL(dg_kernel_launch(k->volume, &l, args, NULL));
  if (swap) {
    s->q_alt = s->q;
    s->q = q_out;
  }
  return DG_OK;
}

/* The lifted gradients of every owned element (gen_gradient.c; the cuda
 * grid's last block may also fill ghost slots, which the exchange then
 * overwrites). */
static dg_error launch_gradient(dg_solver *s, double t) {
  const dg_opdata *od = s->od;
  long long K = od->K;
  int64_t n = od->K_owned;
  real_arg rt = mkreal(s, t);
  void *args[] = {&s->q,   &s->Qg, &s->mapM, &s->mapP, &s->fbc, &s->fgeo,
                  &s->fx,  &s->egeo, &rt,    &K,       &s->fcf};
  dg_launch l;
  memset(&l, 0, sizeof l);
  int gepb = dg_codegen_gradient_elements_per_block(od->Np, s->cfg.face_threads);
  l.grid[0] = (unsigned)((n + gepb - 1) / gepb);
  l.grid[1] = l.grid[2] = 1;
  l.block[0] = (unsigned)(gepb * od->Np);
  l.block[1] = l.block[2] = 1;
  l.shared_bytes = dg_codegen_gradient_shared_bytes(
      &s->el, s->physics, s->rs == 4, gepb, dg_codegen_gradient_pairs(s->target, s->physics));
  l.items = n;
  l.chunk = s->cfg.cpu_chunk;
  if (n == 0)
    return DG_OK;
  DG_CALL(dg_kernel_launch(s->k_gradient, &l, args, NULL));
  return DG_OK;
}

/* Second-order terms: the state's traces, then the lifted gradients, then
 * (partitioned) their traces, then the second pass over every element. */
static dg_error eval_rhs_viscous(dg_solver *s, double t, double a, double b, double dt) {
  int64_t K = s->od->K_owned;
  if (s->halo) {
    DG_CALL(dg_halo_start(s->halo, s->q));
    DG_CALL(dg_halo_finish(s->halo, s->q));
  }
  DG_CALL(launch_gradient(s, t));
  if (s->qhalo) {
    DG_CALL(dg_halo_start(s->qhalo, s->Qg));
    DG_CALL(dg_halo_finish(s->qhalo, s->Qg));
  }
  dg_rhs_kernels k = own_kernels(s);
  DG_CALL(launch_surface(s, &k, t, 0, K));
  DG_CALL(launch_volume_range(s, &k, t, a, b, dt, 0, K));
  return DG_OK;
}

/* The first-order right-hand side with kernels k: the solver's own, or
 * shock capturing's twin (solver_smooth.h).  Surface then volume kernels (a, b,
 * dt go to a fused volume kernel).  Partitioned: post the halo exchange,
 * run the elements without halo faces, finish the exchange, run the rest.
 * The volume kernel of the interior runs before the ghosts arrive unless it
 * changes q (fused LSERK update), which the remaining surface kernel reads. */
static dg_error eval_rhs_first_order(dg_solver *s, const dg_rhs_kernels *k, double t, double a,
                                     double b, double dt) {
  int64_t K = s->od->K_owned;
  const int64_t Kc = s->od->Kc;
  /* curved elements: both surfaces before a fused update changes q (with
   * the fused surface the curved kernel's update goes through q_alt,
   * dg_solver_curved_volume says why) */
  if (!s->halo) {
    if (Kc > 0)
      DG_CALL(dg_solver_curved_surface(s, mkreal(s, t)));
    DG_CALL(launch_surface(s, k, t, Kc, K - Kc));
    if (Kc > 0)
      DG_CALL(dg_solver_curved_volume(s, mkreal(s, t), mkreal(s, a), mkreal(s, b),
                                      mkreal(s, dt)));
    DG_CALL(launch_volume_range(s, k, t, a, b, dt, Kc, K - Kc));
    return DG_OK;
  }
  /* partitioned: the affine interior [Kc, Ki) while the traces travel; the
   * curved elements [0, Kc) (halo faces or not) and the affine rest after */
  int64_t Ki = dg_halo_overlap(s->halo) ? dg_halo_interior(s->halo) : Kc;
  int split_volume = !(s->cfg.fuse_update && b != 0.0);
  DG_CALL(dg_halo_start(s->halo, s->q));
  DG_CALL(launch_surface(s, k, t, Kc, Ki - Kc));
  if (split_volume)
    DG_CALL(launch_volume_range(s, k, t, a, b, dt, Kc, Ki - Kc));
  DG_CALL(dg_halo_finish(s->halo, s->q));
  if (Kc > 0)
    DG_CALL(dg_solver_curved_surface(s, mkreal(s, t)));
  DG_CALL(launch_surface(s, k, t, Ki, K - Ki));
  if (Kc > 0) /* after every surface: a fused update changes q */
    DG_CALL(dg_solver_curved_volume(s, mkreal(s, t), mkreal(s, a), mkreal(s, b),
                                    mkreal(s, dt)));
  if (split_volume)
    DG_CALL(launch_volume_range(s, k, t, a, b, dt, Ki, K - Ki));
  else
    DG_CALL(launch_volume_range(s, k, t, a, b, dt, Kc, K - Kc));
  return DG_OK;
}

/* Shock capturing's viscosity of this stage's state into its coefficient;
 * *twin 1 (and the twin's kernels k) when it is zero everywhere and the
 * file has a first-order twin (solver_smooth.h). */
static dg_error shock_stage(dg_solver *s, dg_rhs_kernels *k, int *twin) {
  int active = 1;
  *twin = 0;
  DG_CALL(dg_shock_viscosity_active(s->shock, s->q, s->cf, s->fcf, &active));
  if (!active && s->physics->ngrad > 0 && dg_shock_viscosity_coefficient(s->shock) >= 0)
    DG_CALL(dg_solver_smooth_kernels(s, dg_shock_viscosity_coefficient(s->shock), k, twin));
  return DG_OK;
}

/* One right-hand-side evaluation (a, b, dt: the fused update's). */
static dg_error eval_rhs(dg_solver *s, double t, double a, double b, double dt) {
  DG_CHECK(s->physics->ncoef == 0 || s->coef_set, DG_ERR_ARG,
           "the physics has coefficients: dg_solver_set_coefficients before the first step");
  if (s->shock) { /* the artificial viscosity of this stage's state */
    dg_rhs_kernels k;
    int twin;
    DG_CALL(shock_stage(s, &k, &twin));
    if (twin) {
      s->timings.smooth_evaluations++;
      return eval_rhs_first_order(s, &k, t, a, b, dt);
    }
  }
  if (s->physics->ngrad > 0)
    return eval_rhs_viscous(s, t, a, b, dt);
  dg_rhs_kernels k = own_kernels(s);
  return eval_rhs_first_order(s, &k, t, a, b, dt);
}

dg_error dg_solver_eval_rhs(dg_solver *s, double t, double a, double b, double dt) {
  return eval_rhs(s, t, a, b, dt);
}

static dg_error launch_update(dg_solver *s, dg_kernel *k, void *x, void *y, double c1,
                              double c2, double dt) {
  long long n = s->n_state;
  real_arg r1 = mkreal(s, c1), r2 = mkreal(s, c2), rdt = mkreal(s, dt);
  void *args[] = {&s->q, x, y, &r1, &r2, &rdt, &n};
  dg_launch l;
  memset(&l, 0, sizeof l);
  unsigned threads = 256;
  long long blocks = (n + threads - 1) / threads;
  if (blocks > 65535LL * 8)
    blocks = 65535LL * 8;
  l.grid[0] = (unsigned)(blocks > 0 ? blocks : 1);
  l.grid[1] = l.grid[2] = 1;
  l.block[0] = threads;
  l.block[1] = l.block[2] = 1;
  l.items = n;
  l.chunk = 1 << 14;
  if (n == 0)
    return DG_OK;
  DG_CALL(dg_kernel_launch(k, &l, args, NULL));
  return DG_OK;
}

dg_error dg_solver_rhs(dg_solver *s, double t, double *rhs_out) {
  if (s->cfg.fuse_update) {
    /* The fused kernel applies the update: evaluate with a = 0, b = 0 and
     * dt = 1 into res (res = rhs, q unchanged). */
    DG_CALL(eval_rhs(s, t, 0.0, 0.0, 1.0));
    s->timings.rhs_evaluations++;
    if (rhs_out)
      DG_CALL(transfer_state(s, s->res, rhs_out, 0));
    return DG_OK;
  }
  DG_CALL(eval_rhs(s, t, 0.0, 0.0, 0.0));
  s->timings.rhs_evaluations++;
  if (rhs_out)
    DG_CALL(transfer_state(s, s->rhs, rhs_out, 0));
  return DG_OK;
}

dg_error dg_solver_step(dg_solver *s, const dg_rk_scheme *rk, double t, double dt) {
  if (rk->kind == DG_RK_LSERK4) {
    for (int st = 0; st < rk->nstages; st++) {
      double ts = t + rk->c[st] * dt;
      if (s->cfg.fuse_update) {
        DG_CALL(eval_rhs(s, ts, rk->a[st], rk->b[st], dt));
      } else {
        DG_CALL(eval_rhs(s, ts, 0.0, 0.0, 0.0));
        DG_CALL(launch_update(s, s->k_lserk, &s->res, &s->rhs, rk->a[st], rk->b[st], dt));
      }
      if (s->shock)
        DG_CALL(dg_shock_limit(s->shock, s->q));
      s->timings.rhs_evaluations++;
    }
    return DG_OK;
  }
  /* SSP-RK: keep q0 = q at the start of the step. */
  DG_CALL(dg_device_copy(s->dev, s->q0, s->q, (size_t)s->n_state * s->rs));
  for (int st = 0; st < rk->nstages; st++) {
    double ts = t + rk->c[st] * dt;
    if (s->cfg.fuse_update) {
      /* rhs into res via the fused kernel with a = 0, b = 0, dt = 1 */
      DG_CALL(eval_rhs(s, ts, 0.0, 0.0, 1.0));
      DG_CALL(launch_update(s, s->k_ssp, &s->q0, &s->res, rk->alpha[st], rk->beta[st], dt));
    } else {
      DG_CALL(eval_rhs(s, ts, 0.0, 0.0, 0.0));
      DG_CALL(launch_update(s, s->k_ssp, &s->q0, &s->rhs, rk->alpha[st], rk->beta[st], dt));
    }
    if (s->shock) /* Zhang & Shu (2010): after every stage of the SSP scheme */
      DG_CALL(dg_shock_limit(s->shock, s->q));
    s->timings.rhs_evaluations++;
  }
  return DG_OK;
}

dg_error dg_solver_launch_kernel(dg_solver *s, dg_solver_kernel_id which, double t) {
  dg_rhs_kernels own = own_kernels(s), twin;
  switch (which) {
  case DG_SOLVER_SURFACE: /* with second-order terms the gradient pass first */
    if (s->physics->ngrad > 0)
      DG_CALL(launch_gradient(s, t));
    if (s->od->Kc > 0) /* every element's faces, as a right-hand side */
      DG_CALL(dg_solver_curved_surface(s, mkreal(s, t)));
    DG_CALL(launch_surface(s, &own, t, s->od->Kc, s->od->K_owned - s->od->Kc));
    break;
  case DG_SOLVER_VOLUME:
    if (s->od->Kc > 0)
      DG_CALL(dg_solver_curved_volume(s, mkreal(s, t), mkreal(s, 0.0), mkreal(s, 0.0),
                                      mkreal(s, 0.0)));
    DG_CALL(launch_volume_range(s, &own, t, 0.0, 0.0, 0.0, s->od->Kc,
                                s->od->K_owned - s->od->Kc));
    break;
  case DG_SOLVER_SURFACE_CURVED:
    DG_CALL(dg_solver_curved_surface(s, mkreal(s, t)));
    break;
  case DG_SOLVER_VOLUME_CURVED:
    DG_CALL(dg_solver_curved_volume(s, mkreal(s, t), mkreal(s, 0.0), mkreal(s, 0.0),
                                    mkreal(s, 0.0)));
    break;
  case DG_SOLVER_SURFACE_SMOOTH: /* shock capturing's first-order twin, every element */
  case DG_SOLVER_VOLUME_SMOOTH:
    DG_CALL(dg_solver_smooth_loaded(s, &twin));
    if (which == DG_SOLVER_SURFACE_SMOOTH)
      DG_CALL(launch_surface(s, &twin, t, 0, s->od->K_owned));
    else
      DG_CALL(launch_volume_range(s, &twin, t, 0.0, 0.0, 0.0, 0, s->od->K_owned));
    break;
  case DG_SOLVER_UPDATE:
    if (!s->cfg.fuse_update)
      DG_CALL(launch_update(s, s->k_lserk, &s->res, &s->rhs, 0.0, 0.0, 0.0));
    break;
  default:
    DG_RAISE(DG_ERR_ARG, "unknown solver kernel %d", (int)which);
  }
  return DG_OK;
}

int dg_solver_kernel_launches(const dg_solver *s, dg_solver_kernel_id which) {
  if (which == DG_SOLVER_SURFACE_CURVED) /* the fused surface: dg_volume_curved's */
    return s->od->Kc > 0 && !dg_solver_curved_fused(s);
  if (which == DG_SOLVER_VOLUME_CURVED)
    return s->od->Kc > 0;
  if (which == DG_SOLVER_SURFACE_SMOOTH || which == DG_SOLVER_VOLUME_SMOOTH) {
    const dg_kernel_config *c = dg_solver_kernels_smooth(s);
    return c && (which == DG_SOLVER_VOLUME_SMOOTH || !fused(s, c)) && s->od->K_owned > 0;
  }
  if (which == DG_SOLVER_SURFACE)
    return (!fused_surface(s) || s->physics->ngrad > 0) && s->od->K_owned > 0;
  if (which == DG_SOLVER_UPDATE)
    return !s->cfg.fuse_update;
  return 1;
}

dg_error dg_solver_kernel_attributes(const dg_solver *s, dg_solver_kernel_id which,
                                     dg_kernel_attributes *out, unsigned *dynamic_shared) {
  if (which == DG_SOLVER_SURFACE_SMOOTH || which == DG_SOLVER_VOLUME_SMOOTH) {
    dg_rhs_kernels twin;
    DG_CALL(dg_solver_smooth_loaded(s, &twin));
    DG_CALL(dg_kernel_get_attributes(which == DG_SOLVER_SURFACE_SMOOTH ? twin.surface
                                                                       : twin.volume, out));
    if (dynamic_shared)
      *dynamic_shared = which == DG_SOLVER_VOLUME_SMOOTH ? twin.volume_shared : 0;
    return DG_OK;
  }
  const dg_kernel *k = which == DG_SOLVER_SURFACE          ? s->k_surface
                       : which == DG_SOLVER_VOLUME         ? s->k_volume
                       : which == DG_SOLVER_SURFACE_CURVED ? s->k_surface_curved
                       : which == DG_SOLVER_VOLUME_CURVED  ? s->k_volume_curved
                                                           : s->k_lserk;
  DG_CHECK(k, DG_ERR_ARG, "solver kernel %d is not loaded (no curved elements?)", (int)which);
  DG_CALL(dg_kernel_get_attributes(k, out));
  if (dynamic_shared)
    *dynamic_shared = which == DG_SOLVER_VOLUME          ? s->gen.volume_shared_bytes
                      : which == DG_SOLVER_VOLUME_CURVED ? s->cgen.volume_shared_bytes
                                                         : 0;
  return DG_OK;
}

dg_error dg_solver_set_kernels(dg_solver *s, const dg_kernel_config *cfg) {
  /* the ghost slack for rounded-up launches and the fused-surface choice
   * are fixed when a partitioned solver is created */
  DG_CHECK(!s->halo, DG_ERR_ARG, "dg_solver_set_kernels: not on a partitioned solver");
  DG_CHECK(cfg->np_align == s->cfg.np_align && cfg->layout == s->cfg.layout, DG_ERR_ARG,
           "dg_solver_set_kernels cannot change the data layout (np_align, layout)");
  dg_solver_smooth_free(s); /* the twin follows the knobs: rebuilt on its next use */
  if (s->od->Kc > 0) { /* the curved kernels follow the shared knobs (solver_curved.c) */
    DG_CHECK(!cfg->fuse_surface && !cfg->basis, DG_ERR_INPUT,
             "curved elements: the affine kernels run without fuse_surface, in the nodal basis");
    DG_CALL(load_kernels(s, cfg));
    DG_CALL(dg_solver_curved_load(s, &s->ccfg));
    return DG_OK;
  }
  if (cfg->basis == s->cfg.basis) {
    DG_CALL(load_kernels(s, cfg));
    DG_CALL(dg_solver_ensure_alt_state(s, &s->cfg));
    return DG_OK;
  }
  /* another basis: carry the state over as nodal values */
  size_t nlog = (size_t)s->ncomp * s->od->K_owned * s->od->Np;
  double *u = malloc(nlog ? nlog * sizeof *u : 1);
  DG_CHECK(u, DG_ERR_MEMORY, "out of host memory (%zu reals)", nlog);
  dg_error err = dg_solver_get_state(s, u);
  if (err == DG_OK)
    err = load_kernels(s, cfg);
  if (err == DG_OK)
    err = dg_solver_ensure_alt_state(s, &s->cfg);
  if (err == DG_OK)
    err = dg_solver_set_state(s, u);
  free(u);
  DG_CALL(err);
  return DG_OK;
}

const dg_kernel_config *dg_solver_kernels(const dg_solver *s) { return &s->cfg; }

void dg_solver_set_shock(dg_solver *s, struct dg_shock *shock) {
  dg_shock_destroy(&s->shock);
  s->shock = shock;
}
dg_device *dg_solver_device(const dg_solver *s) { return s->dev; }

dg_error dg_solver_state_finite(dg_solver *s, int *finite) {
  if (!s->finite) {
    /* x*0 is 0 for finite x and NaN for NaN or +-Inf: the sum says it all.
     * Owned elements only: ghost slots are not all written by the exchange.
     * They are `run` reals every `stride` (one run per component in the
     * field-major layout, one run in all when element-major). */
    DG_CALL(dg_reduction_create(s->dev, s->rs == 4 ? "owned_finite_float" : "owned_finite_double",
                                s->rs == 4 ? "const float *x, int64_t run, int64_t stride"
                                           : "const double *x, int64_t run, int64_t stride",
                                "(double)x[(i / run) * stride + i % run] * 0.0", DG_REDUCE_SUM,
                                0.0, &s->finite));
  }
  const dg_opdata *od = s->od;
  int64_t n = (int64_t)od->ncomp * od->K_owned * od->np_pad;
  int64_t run = od->element_major ? n : od->K_owned * od->np_pad;
  int64_t stride = od->element_major ? 0 : od->K * od->np_pad;
  double sum = 0;
  if (n > 0)
    DG_CALL(dg_reduction_call(s->finite, n,
                              (dg_arg[]){DG_ARG_POINTER(s->q), DG_ARG_INT(run),
                                         DG_ARG_INT(stride)},
                              &sum));
  *finite = sum == 0.0;
  return DG_OK;
}
