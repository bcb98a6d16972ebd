#include "operators/codegen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "dg/bernstein.h"
#include "dg/refelem.h"
#include "operators/emit_expr.h"
#include "operators/flux_affine.h"
#include "operators/gen_context.h"
#include "operators/gen_gradient.h"
#include "operators/gen_initial.h"
#include "operators/gen_surface.h"
#include "operators/gen_update.h"
#include "operators/gen_volume_gemm.h"
#include "operators/gen_volume_node.h"
#include "operators/kernel_knobs.h"

/* Bumped whenever generated code changes meaning; part of tuning keys. */
#define GENERATOR_VERSION 5

int dg_codegen_version(void) { return GENERATOR_VERSION; }

/* ---- pieces of source ------------------------------------------------------ */

dg_element_ops dg_element_ops_of(const dg_refelem *re) {
  dg_element_ops el = {re->dim, re->N,  re->Np, re->Nfp,  re->Nfaces,
                       re->Dr,  re->Ds, re->Dt, re->LIFT, re->Fmask, 0, 0};
  return el;
}

dg_element_ops dg_element_ops_of_bernstein(const dg_refelem *re, const dg_bernstein *bb) {
  dg_element_ops el = {re->dim, re->N,  re->Np, re->Nfp,  re->Nfaces,
                       bb->Dr,  bb->Ds, bb->Dt, bb->LIFT, re->Fmask, 1, 0};
  return el;
}

static void emit_prelude(dg_strbuf *b, dg_codegen_target tg, const dg_element_ops *el,
                         const dg_physics *ph, const dg_kernel_config *cfg, int is_float,
                         int np_pad, int ngeo) {
  char knobs[512];
  dg_kernel_config_describe_code(cfg, knobs, sizeof knobs);
  dg_strbuf_appendf(b,
                    "/* dgrun generated DG operators (generator version %d)\n"
                    " * target %s, precision %s, dim %d, order N = %d\n"
                    " * knobs: %s (NP_PAD %d) */\n",
                    GENERATOR_VERSION, tg == DG_CODEGEN_CUDA ? "cuda" : "c",
                    is_float ? "float" : "double", el->dim, el->N, knobs, np_pad);
  if (el->curved)
    dg_strbuf_append(b, "/* curved elements: dg_surface_curved and dg_volume_curved with per-node\n"
                        " * metric terms over elements [0, KC) (dg/opdata_curved.c) */\n");
  if (tg == DG_CODEGEN_C)
    dg_strbuf_append(b, "#include <math.h>\n#include <stdint.h>\n#define KERNEL\n");
  else
    dg_strbuf_append(b, "#define KERNEL extern \"C\" __global__\n");
  dg_strbuf_appendf(b, "typedef %s real;\n", is_float ? "float" : "double");
  dg_strbuf_appendf(b,
                    "#define DIM %d\n#define NP %d\n#define NP_PAD %d\n#define NFP %d\n"
                    "#define NFACES %d\n#define NFNFP %d\n#define NC %d\n#define NGEO %d\n\n",
                    el->dim, el->Np, np_pad, el->Nfp, el->Nfaces, el->Nfaces * el->Nfp,
                    ph->ncomp, ngeo);
  if (cfg->layout == DG_LAYOUT_FIELD_MAJOR)
    dg_strbuf_append(b, "/* field-major state: component stride K*NP_PAD */\n"
                        "#define CSTRIDE(K) ((long long)(K) * NP_PAD)\n"
                        "#define BASE(k, i) ((long long)(k) * NP_PAD + (i))\n\n");
  else
    dg_strbuf_append(b, "/* element-major state: components of one element adjacent */\n"
                        "#define CSTRIDE(K) ((long long)NP_PAD)\n"
                        "#define BASE(k, i) ((long long)(k) * NC * NP_PAD + (i))\n\n");
  if (ph->ncoef > 0) /* a guarded load: gemm blocks run past the last element */
    dg_strbuf_appendf(b, "/* coefficients: cf[(c*K + k)*NP_PAD + i], fcf[((k*NFNFP + m)*NCF + c)*2 + s] */\n"
                         "#define NCF %d\n"
                         "#define CFV(c) (k < K ? cf[((long long)(c) * K + k) * NP_PAD + i] : (real)1)\n\n",
                      ph->ncoef);
  if (ph->ngrad > 0) /* guarded as CFV: gemm blocks run past the last element */
    dg_strbuf_appendf(b, "/* lifted gradients: Qg[(c*K + k)*NP_PAD + i], c = j*DIM + d (field-major) */\n"
                         "#define NGR %d\n#define NQ (NGR * DIM)\n"
                         "#define QV(c) (k < K ? Qg[((long long)(c) * K + k) * NP_PAD + i] : (real)0)\n\n",
                      ph->ngrad);
  if (tg == DG_CODEGEN_CUDA && cfg->fuse_surface) {
    dg_strbuf_appendf(b, "/* the volume node of face node m = f*NFP + j */\n"
                         "__device__ const int c_Fmask[%d] = {", el->Nfaces * el->Nfp);
    for (int m = 0; m < el->Nfaces * el->Nfp; m++)
      dg_strbuf_appendf(b, "%s%d", m ? ", " : "", el->Fmask[m]);
    dg_strbuf_append(b, "};\n\n");
  }
  if (tg == DG_CODEGEN_CUDA && (cfg->work_mode == DG_WORK_GEMM || cfg->work_mode == DG_WORK_MMA))
    return; /* its dg_volume reads its own transposed table (gen_volume_gemm.c) */
  const char *names[3] = {"c_Dr", "c_Ds", "c_Dt"};
  const double *mats[3] = {el->Dr, el->Ds, el->Dt};
  for (int d = 0; d < el->dim; d++)
    dg_gen_emit_matrix(b, tg, cfg->matrices, is_float, names[d], mats[d], el->Np, el->Np);
  dg_gen_emit_matrix(b, tg, cfg->matrices, is_float, "c_LIFT", el->LIFT, el->Np,
              el->Nfaces * el->Nfp);
}

static dg_error emit_volume(dg_strbuf *b, dg_codegen_target tg, const dg_element_ops *el,
                            const dg_physics *ph, const deriv_table *dtab,
                            const dg_kernel_config *cfg, int is_float, int uses_x, int uses_fx) {
  /* curved: the contravariant divergence on both targets (the conservative
   * form of dg/opdata_curved.c, which needs the per-node Ja inside D_a) */
  gen_state st = {dtab, el->dim, tg == DG_CODEGEN_CUDA || el->curved};
  dg_emit_ctx ctx;
  dg_gen_init_ctx(&ctx, ph, el->dim, is_float);
  ctx.field = dg_gen_volume_field;
  ctx.derivative = dg_gen_volume_derivative;
  if (ph->ncoef > 0)
    ctx.coef = dg_gen_volume_coef;
  if (ph->ngrad > 0)
    ctx.gradq = dg_gen_volume_gradq;
  ctx.user = &st;
  dg_strbuf_append(b, "/* dg_volume: volume terms, sources and lifting, one node per thread\n"
                      " * (cuda: NP x EPB threads per block, EPB elements per block). */\n");
  if (tg == DG_CODEGEN_CUDA && (cfg->work_mode == DG_WORK_GEMM || cfg->work_mode == DG_WORK_MMA)) {
    dg_gen_emit_volume_gemm(b, el, ph, dtab, cfg, &ctx, uses_x, uses_fx, is_float);
  } else if (tg == DG_CODEGEN_CUDA) {
    dg_gen_emit_volume_node_cuda(b, el, ph, dtab, cfg, &ctx, uses_x, uses_fx, is_float);
  } else if (el->curved) {
    dg_gen_emit_volume_curved_c(b, el, ph, dtab, cfg, &ctx, uses_x);
  } else {
    dg_gen_emit_volume_node_c(b, el, ph, dtab, cfg, &ctx, uses_x);
  }
  return dg_emit_status(&ctx);
}

/* uses_fx: 2 when a numerical flux reads the face node's x, 1 when only
 * a boundary condition does (x is then loaded on boundary faces only);
 * uses_vx: whether the volume terms or sources read x. */
static void scan_positions(const dg_physics *ph, int *uses_fx, int *uses_vx) {
  *uses_fx = 0, *uses_vx = 0;
  for (int f = 0; f < ph->nfields; f++) {
    if (dg_gen_uses_op(ph->flux[f], DG_FLUX_X, ph, 0))
      *uses_fx = 2;
    *uses_vx |= dg_gen_uses_op(ph->rhs[f], DG_FLUX_X, ph, 0);
    if (ph->source && ph->source[f])
      *uses_vx |= dg_gen_uses_op(ph->source[f], DG_FLUX_X, ph, 0);
  }
  for (int i = 0; i < ph->nboundaries * ph->nfields && !*uses_fx; i++)
    if (dg_gen_uses_op(ph->bc_ext[i], DG_FLUX_X, ph, 0))
      *uses_fx = 1;
}

/* The product counts of the volume kernel (dgbench's flop counts): per
 * differentiated scalar its applications of D, or with the sparse
 * Bernstein-Bezier derivative its differences and elevations. */
static void count_products(dg_codegen_target tg, const dg_element_ops *el,
                           const dg_kernel_config *cfg, const deriv_table *dtab,
                           dg_generated *out) {
  out->nproducts = 0;
  out->sparse_flops = 0;
  int sparse = tg == DG_CODEGEN_CUDA && cfg->basis &&
               (cfg->work_mode == DG_WORK_GEMM || cfg->work_mode == DG_WORK_MMA);
  int npm = dg_gen_lattice_count(el->dim, el->N - 1);
  for (int x = 0; x < dtab->n; x++) {
    const deriv_entry *de = &dtab->d[x];
    /* a contravariant divergence source takes one application, any other
     * differentiated scalar DIM (a curl taken as rows is a divergence) */
    int napp = (tg == DG_CODEGEN_CUDA || el->curved) && de->div
                   ? de->rows * el->dim
                   : dg_flux_shape_size(de->node->args[0]->shape) * el->dim;
    if (!sparse) {
      out->nproducts += napp;
      continue;
    }
    /* per derivative (a divergence row, or one partial): at the NPM
     * points a difference and a sum per application and one scaling, then
     * DIM+1 multiply-adds per node (gen_volume_gemm.c) */
    int nacc = de->div ? de->rows : napp, per = de->div ? el->dim : 1;
    out->sparse_flops += (double)nacc * ((2.0 * per + 1) * npm + 2.0 * (el->dim + 1) * el->Np);
  }
}

dg_error dg_codegen_generate(dg_codegen_target target, const dg_element_ops *el,
                             const dg_physics *ph, int precision_float,
                             const dg_kernel_config *cfg, dg_generated *out) {
  memset(out, 0, sizeof *out);
  DG_CHECK(el->dim >= 1 && el->dim <= 3, DG_ERR_ARG, "dim %d", el->dim);
  DG_CALL(dg_kernel_config_check(cfg, el->Np));
  DG_CHECK(el->bernstein == cfg->basis, DG_ERR_ARG,
           "the element operators are %s but the kernel configuration asks for basis %s",
           el->bernstein ? "Bernstein-Bezier" : "nodal", cfg->basis ? "bernstein" : "nodal");
  if (cfg->basis) /* pointwise work on coefficients is exact for affine physics only */
    DG_CALL(dg_flux_check_affine(ph, NULL, NULL));
  if (el->curved) /* node-per-thread kernels with per-node factors, over [0, KC) */
    DG_CHECK(cfg->work_mode != DG_WORK_GEMM && cfg->work_mode != DG_WORK_MMA &&
                 !cfg->basis && ph->ngrad == 0 && el->dim >= 2,
             DG_ERR_UNSUPPORTED,
             "curved elements run work_mode parallel, sequence or inline, basis nodal, "
             "first-order terms only, in 2D and 3D (here work_mode %s, basis %d, "
             "%d lifted gradients, dim %d)",
             dg_work_mode_name(cfg->work_mode), cfg->basis, ph->ngrad, el->dim);
  if (ph->ngrad > 0) /* the lifted gradients Qg share the state's mapM / mapP offsets */
    DG_CHECK(cfg->layout == DG_LAYOUT_FIELD_MAJOR && !cfg->gather_ahead && !cfg->local_traces,
             DG_ERR_INPUT,
             "second-order terms need layout field_major, gather_ahead 0 and local_traces 0");
  deriv_table *dtab = calloc(1, sizeof *dtab);
  DG_CHECK(dtab, DG_ERR_MEMORY, "out of memory");
  dtab->dim = el->dim;
  dtab->curl_as_div = target == DG_CODEGEN_CUDA &&
                      (cfg->work_mode == DG_WORK_GEMM || cfg->work_mode == DG_WORK_MMA);
  dg_error err = DG_OK;
  for (int f = 0; f < ph->nfields && err == DG_OK; f++)
    err = dg_gen_collect_derivs(ph->rhs[f], dtab);
  if (err != DG_OK) {
    free(dtab);
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  }
  for (int x = 0; x < dtab->n; x++)
    dtab->uses_x |= dg_gen_uses_op(dtab->d[x].node->args[0], DG_FLUX_X, ph, 0);
  int uses_fx, uses_vx;
  scan_positions(ph, &uses_fx, &uses_vx);
  int np_pad = (el->Np + cfg->np_align - 1) / cfg->np_align * cfg->np_align;
  int ngeo = el->dim * el->dim + 1;
  int is_float = precision_float != 0;
  size_t rs = is_float ? 4 : 8;
  size_t nfnfp = (size_t)el->Nfaces * el->Nfp;
  size_t shared = dg_gen_node_shared_reals(el, dtab->ng, ph->ncomp, cfg) * rs;
  size_t matrix_bytes = ((size_t)el->dim * el->Np * el->Np + (size_t)el->Np * nfnfp) * rs;
  if (target == DG_CODEGEN_CUDA && cfg->work_mode == DG_WORK_MMA) {
    DG_CHECK_GOTO(err, done, !is_float || cfg->mma_rows == 16 || cfg->mma_pairs, DG_ERR_INPUT,
                  "work_mode mma in float runs split-TF32 steps (m16n8k8): mma_rows must be "
                  "16 (or 8 with mma_pairs), not %d", cfg->mma_rows);
    DG_CHECK_GOTO(err, done, dg_kernel_config_volume_threads(cfg, el->Np) >= 32,
                  DG_ERR_INPUT,
                  "work_mode mma needs a whole warp: elements_per_block %d / volume_passes %d "
                  "x Np %d < 32",
                  cfg->elements_per_block, cfg->volume_passes, el->Np);
  }
  DG_CHECK_GOTO(err, done, 32L * cfg->volume_warps < (long)el->Np * cfg->elements_per_block,
                DG_ERR_INPUT,
                "volume_warps %d: %d threads would leave none of the per-node phases' %d "
                "points a second pass (take fewer warps than NP x EPB / 32, or volume_passes)",
                cfg->volume_warps, 32 * cfg->volume_warps, el->Np * cfg->elements_per_block);
  if (cfg->work_mode == DG_WORK_GEMM || cfg->work_mode == DG_WORK_MMA) {
    /* its own table of (transposed or fragment-ordered) matrices */
    size_t mt = 0;
    shared = dg_gen_gemm_shared_reals(el, dtab, ph->ncomp, cfg, is_float, &mt) * rs;
    matrix_bytes = mt * rs;
  }
  if (target == DG_CODEGEN_CUDA) {
    DG_CHECK_GOTO(err, done, shared <= 227 * 1024, DG_ERR_INPUT,
                  "dg_volume needs %zu bytes of shared memory (> 227 KiB): fewer "
                  "elements per block or matrices out of shared memory", shared);
    DG_CHECK_GOTO(err, done, cfg->matrices != DG_MATRIX_CONSTANT || matrix_bytes <= 60 * 1024,
                  DG_ERR_INPUT,
                  "operator matrices take %zu bytes, more than constant memory holds",
                  matrix_bytes);
  }
  dg_strbuf b;
  dg_strbuf_init(&b);
  emit_prelude(&b, target, el, ph, cfg, is_float, np_pad, ngeo);
  DG_CALL_GOTO(err, fail_buf, dg_gen_emit_surface(&b, target, el, ph, is_float, uses_fx));
  DG_CALL_GOTO(err, fail_buf, emit_volume(&b, target, el, ph, dtab, cfg, is_float, uses_vx, uses_fx));
  int has_initial = ph->initial != NULL;
  for (int f = 0; f < ph->nfields && has_initial; f++)
    has_initial = ph->initial[f] != NULL;
  if (el->curved) /* the curved module: its two kernels only */
    goto finish;
  if (ph->ngrad > 0)
    DG_CALL_GOTO(err, fail_buf, dg_gen_emit_gradient(&b, target, el, ph, is_float, uses_fx,
                                                    dg_codegen_gradient_pairs(target, ph)));
  dg_gen_emit_updates(&b, target);
  if (has_initial)
    DG_CALL_GOTO(err, fail_buf, dg_gen_emit_initial(&b, target, ph, el->dim, is_float));
finish:
  DG_CALL_GOTO(err, fail_buf, dg_strbuf_finish(&b, &out->source));
  if (el->curved)
    has_initial = 0;
  out->np_pad = np_pad;
  out->ngeo = ngeo;
  out->nderiv = dtab->ng;
  count_products(target, el, cfg, dtab, out);
  out->uses_face_x = uses_fx;
  out->uses_volume_x = uses_vx;
  out->volume_shared_bytes = (unsigned)shared;
  out->has_initial = has_initial;
  free(dtab);
  return DG_OK;
fail_buf:
  dg_strbuf_free(&b);
done:
  free(dtab);
  return err;
}

void dg_generated_free(dg_generated *g) {
  free(g->source);
  memset(g, 0, sizeof *g);
}
