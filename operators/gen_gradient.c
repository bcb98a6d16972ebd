/* dg_gradient: the first pass of the second-order terms (LDG, Cockburn &
 * Shu 1998; Hesthaven & Warburton 2008 Sec. 7.1 in strong form).  For
 * every gradient j (a scalar g_j of the state, dg_physics.grad_arg) the
 * lifted gradient at every volume node,
 *
 *   Q_j = sum_r (dr/dx) D_r g_j + LIFT * Fscale * n (ghat_j - g_j(u-)),
 *   ghat_j - g_j(u-) = (1/2 - beta_n) (g_j(u+) - g_j(u-)),
 *
 * ghat = avg(g) + beta_n jump(g) (jump = int - ext), beta_n the face's LDG
 * switch (0 on boundary faces, where u+ is the boundary's exterior state).
 * The second pass (dg_surface, dg_volume) reads Q at nodes and as face
 * traces.  On affine elements the normal is constant on a face, so the
 * lift of n_d * delta is n_d times the face's lift of delta: NFACES lifts of
 * one scalar per gradient instead of DIM.
 *
 * Arguments (both targets): (q, Qg, mapM, mapP, fbc, fgeo, fx, egeo, t, K,
 * fcf), over the elements [0, K_owned) (cuda: blocks of NP x GEPB threads,
 * GEPB = dg_codegen_gradient_elements_per_block of the surface kernel's
 * face_threads, so the tuner's search of face_threads sizes this kernel's
 * blocks too, with dg_codegen_gradient_shared_bytes of dynamic shared memory),
 * Qg[((j*DIM + d)*K + k)*NP_PAD + i]. */
#include "operators/gen_gradient.h"

#include <math.h>

#include "operators/gen_context.h"

/* An entry (row i, column j) of a table in the target's order. */
static const char *entry(dg_codegen_target tg) {
  return tg == DG_CODEGEN_CUDA ? "%s[%s * %s + i]" : "%s[i * %s + %s]";
}

static void emit_node_values(dg_strbuf *b, const dg_physics *ph, dg_emit_ctx *vctx,
                             const char *dst_fmt) {
  dg_strbuf_lines(b,
                  "const long long gcs = CSTRIDE(K);\n"
                  "real u[NC];\n"
                  "for (int c = 0; c < NC; ++c) u[c] = q[BASE(k, i) + c * gcs];\n");
  for (int j = 0; j < ph->ngrad; j++) {
    dg_strbuf_indent(b);
    dg_strbuf_appendf(b, dst_fmt, j);
    dg_strbuf_append(b, " = ");
    dg_emit_expr(vctx, b, ph->grad_arg[j], 0);
    dg_strbuf_append(b, ";\n");
  }
}

/* The face values of node m of element slot s: the exterior g(u+) against
 * the interior value the block staged (sgm: a format with %d for j), so the
 * interior state is loaded on boundary faces only (for their exterior
 * states). */
static void emit_face_values(dg_strbuf *b, const dg_physics *ph, dg_emit_ctx *fctx, int uses_x,
                             const char *dst_fmt, const char *sgm_fmt) {
  /* |beta| = 1/2: where beta_n = +1/2, ghat = g(u-) (the weight below is 0),
   * so the face node lifts nothing and gathers no exterior state (half the
   * interior faces); the same w.n as the face traces' ldgb */
  int skip = fabs(ph->ldg_beta) == 0.5;
  if (skip) {
    dg_strbuf_line(b, "const real *fgs = fgeo + (k * NFACES + m / NFP) * (DIM + 1);");
    dg_strbuf_indent(b);
    dg_strbuf_appendf(b, "if (fbc[k * NFACES + m / NFP] >= 0 || %s(", ph->ldg_beta > 0 ? "!" : "");
    dg_gen_emit_ldg_w_dot(b, fctx, "fgs");
    dg_strbuf_append(b, " > 0)) {\n");
    b->indent += 2;
  }
  dg_gen_emit_face_traces(b, ph, uses_x, fctx, 0, 0, 0, 0, DG_GEN_TRACES_UM_ON_BOUNDARIES);
  dg_strbuf_line(b, "const real wgt = fscale * ((real)0.5 - ldgb);");
  for (int j = 0; j < ph->ngrad; j++) {
    dg_strbuf_indent(b);
    dg_strbuf_appendf(b, dst_fmt, j);
    dg_strbuf_append(b, " = wgt * (");
    fctx->let_side = DG_FLUX_SIDE_EXT;
    dg_emit_expr(fctx, b, ph->grad_arg[j], 0);
    fctx->let_side = DG_FLUX_SIDE_NONE;
    dg_strbuf_append(b, " - ");
    dg_strbuf_appendf(b, sgm_fmt, j);
    dg_strbuf_append(b, ");\n");
  }
  if (!skip)
    return;
  b->indent -= 2;
  dg_strbuf_line(b, "} else {");
  for (int j = 0; j < ph->ngrad; j++) {
    dg_strbuf_indent(b);
    dg_strbuf_append(b, "  ");
    dg_strbuf_appendf(b, dst_fmt, j);
    dg_strbuf_append(b, " = 0;\n");
  }
  dg_strbuf_line(b, "}");
}

/* The pieces both combinations share: the chain rule of the reference
 * partials dr into Qd, and after each face's lift l the face's normal
 * times l, then Q stored. */
static const char *const TRANSFORM =
    "for (int j = 0; j < NGR; ++j)\n"
    "  for (int d = 0; d < DIM; ++d)\n"
    "    for (int r = 0; r < DIM; ++r) Qd[j][d] += G[r * DIM + d] * dr[j][r];\n";
static const char *const FACE_LIFT_AND_STORE =
    "  for (int j = 0; j < NGR; ++j)\n"
    "    for (int d = 0; d < DIM; ++d) Qd[j][d] += fgk[f * (DIM + 1) + d] * l[j];\n"
    "}\n"
    "for (int j = 0; j < NGR; ++j)\n"
    "  for (int d = 0; d < DIM; ++d)\n"
    "    Qg[((long long)(j * DIM + d) * K + k) * NP_PAD + i] = Qd[j][d];\n";

/* Q at node (k, i) from the staged values sg(j, m) and face values sd(j, m)
 * (formats with %s for j and the index expression).  Why the loop order:
 * each matrix entry is loaded once and applied to every gradient, and the
 * accumulators (NGR x DIM partials, NGR face lifts) stay in registers; a
 * gradient at a time made the compiler hoist all 3 NP + NFNFP entries across
 * the gradients (NS 3D N = 3: 254 registers and spills). */
static void emit_combine(dg_strbuf *b, dg_codegen_target tg, int dim, const char *sg_fmt,
                         const char *sd_fmt) {
  char e[128];
  int cuda = tg == DG_CODEGEN_CUDA;
  static const char *const dn[3] = {"gDr", "gDs", "gDt"};
  dg_strbuf_lines(b,
                  "const real *G = egeo + k * NGEO;\n"
                  "const real *fgk = fgeo + k * NFACES * (DIM + 1);\n"
                  "real dr[NGR][DIM], Qd[NGR][DIM];\n"
                  "for (int j = 0; j < NGR; ++j)\n"
                  "  for (int r = 0; r < DIM; ++r) dr[j][r] = 0, Qd[j][r] = 0;\n"
                  "for (int m = 0; m < NP; ++m) {\n");
  for (int r = 0; r < dim; r++) {
    snprintf(e, sizeof e, entry(tg), dn[r], cuda ? "m" : "NP", cuda ? "NP" : "m");
    dg_strbuf_line(b, "  const real a%d = %s;", r, e);
  }
  dg_strbuf_line(b, "  for (int j = 0; j < NGR; ++j) {");
  dg_strbuf_indent(b);
  dg_strbuf_append(b, "    const real v = ");
  dg_strbuf_appendf(b, sg_fmt, "j", "m");
  dg_strbuf_append(b, ";\n");
  for (int r = 0; r < dim; r++)
    dg_strbuf_line(b, "    dr[j][%d] += a%d * v;", r, r);
  dg_strbuf_lines(b, "  }\n}\n");
  dg_strbuf_lines(b, TRANSFORM);
  if (cuda)
    dg_strbuf_line(b, "#pragma unroll");
  dg_strbuf_lines(b,
                  "for (int f = 0; f < NFACES; ++f) {\n"
                  "  real l[NGR];\n"
                  "  for (int j = 0; j < NGR; ++j) l[j] = 0;\n"
                  "  for (int jj = 0; jj < NFP; ++jj) {\n"
                  "    const int fm = f * NFP + jj;\n");
  snprintf(e, sizeof e, entry(tg), "gLIFT", cuda ? "fm" : "NFNFP", cuda ? "NP" : "fm");
  dg_strbuf_line(b, "    const real L = %s;", e);
  dg_strbuf_indent(b);
  dg_strbuf_append(b, "    for (int j = 0; j < NGR; ++j) l[j] += L * ");
  dg_strbuf_appendf(b, sd_fmt, "j", "fm");
  dg_strbuf_append(b, ";\n");
  dg_strbuf_lines(b, "  }\n");
  dg_strbuf_lines(b, FACE_LIFT_AND_STORE);
}

/* Pairs (cuda, NGR >= 2, dg_codegen_gradient_pairs): the staged values
 * node-major, a node's NGRV = NGR rounded up to even values side by side
 * (sg[s*SGS + m*NGRV + j], sd[s*SDS + fm*NGRV + j]), so the combination
 * reads them two at a time
 * (NS 3D: 120 shared loads a thread instead of 240; the profile had the
 * kernel bound by its L1/shared traffic); the slot strides are 2 reals
 * past a multiple of the bank width, so a warp's two or three elements
 * read a node's pair from different banks. */
static void emit_pairs_store(dg_strbuf *b, const char *base, const char *vals) {
  dg_strbuf_line(b, "real2 *p2 = (real2 *)(%s);", base);
  dg_strbuf_line(b, "for (int p = 0; p < NGRV / 2; ++p) { real2 v; v.x = %s[2 * p]; v.y = %s[2 * p + 1]; p2[p] = v; }",
                 vals, vals);
}

static void emit_combine_pairs(dg_strbuf *b, int dim) {
  char e[128];
  static const char *const dn[3] = {"gDr", "gDs", "gDt"};
  dg_strbuf_lines(b,
                  "const real *G = egeo + k * NGEO;\n"
                  "const real *fgk = fgeo + k * NFACES * (DIM + 1);\n"
                  "real dr[NGRV][DIM], Qd[NGR][DIM];\n"
                  "for (int j = 0; j < NGRV; ++j)\n"
                  "  for (int r = 0; r < DIM; ++r) dr[j][r] = 0;\n"
                  "for (int j = 0; j < NGR; ++j)\n"
                  "  for (int r = 0; r < DIM; ++r) Qd[j][r] = 0;\n"
                  "const real2 *sg2 = (const real2 *)(sg + e * SGS);\n"
                  "for (int m = 0; m < NP; ++m) {\n");
  for (int r = 0; r < dim; r++) {
    snprintf(e, sizeof e, entry(DG_CODEGEN_CUDA), dn[r], "m", "NP");
    dg_strbuf_line(b, "  const real a%d = %s;", r, e);
  }
  dg_strbuf_lines(b,
                  "  #pragma unroll\n"
                  "  for (int p = 0; p < NGRV / 2; ++p) {\n"
                  "    const real2 v = sg2[m * (NGRV / 2) + p];\n");
  for (int r = 0; r < dim; r++)
    dg_strbuf_line(b, "    dr[2 * p][%d] += a%d * v.x; dr[2 * p + 1][%d] += a%d * v.y;", r, r, r, r);
  dg_strbuf_lines(b, "  }\n}\n");
  dg_strbuf_lines(b, TRANSFORM);
  dg_strbuf_lines(b,
                  "#pragma unroll\n"
                  "for (int f = 0; f < NFACES; ++f) {\n"
                  "  real l[NGRV];\n"
                  "  for (int j = 0; j < NGRV; ++j) l[j] = 0;\n"
                  "  for (int jj = 0; jj < NFP; ++jj) {\n"
                  "    const int fm = f * NFP + jj;\n");
  snprintf(e, sizeof e, entry(DG_CODEGEN_CUDA), "gLIFT", "fm", "NP");
  dg_strbuf_line(b, "    const real L = %s;", e);
  dg_strbuf_lines(b,
                  "    const real2 *d2 = (const real2 *)(sd + e * SDS + fm * NGRV);\n"
                  "    #pragma unroll\n"
                  "    for (int p = 0; p < NGRV / 2; ++p) {\n"
                  "      const real2 v = d2[p];\n"
                  "      l[2 * p] += L * v.x;\n"
                  "      l[2 * p + 1] += L * v.y;\n"
                  "    }\n"
                  "  }\n");
  dg_strbuf_lines(b, FACE_LIFT_AND_STORE);
}

static void emit_cuda(dg_strbuf *b, const dg_element_ops *el, const dg_physics *ph,
                      dg_emit_ctx *vctx, dg_emit_ctx *fctx, int uses_x, int pairs) {
  /* the register budget of a block of at most 256 threads (or one element's
   * nodes), dg_codegen_gradient_elements_per_block */
  dg_strbuf_appendf(b, "#define GRAD_THREADS %d\n", el->Np > 256 ? el->Np : 256);
  dg_strbuf_append(b,
    "KERNEL void __launch_bounds__(GRAD_THREADS) dg_gradient(const real *__restrict__ q,\n"
    "    real *__restrict__ Qg, const int *__restrict__ mapM, const int *__restrict__ mapP,\n"
    "    const int *__restrict__ fbc, const real *__restrict__ fgeo,\n"
    "    const real *__restrict__ fx, const real *__restrict__ egeo, real t, long long K,\n"
    "    const real *__restrict__ fcf) {\n");
  b->indent = 2;
  dg_strbuf_lines(b,
                  "const int GEPB = (int)(blockDim.x / NP); /* the launch's elements a block */\n"
                  "extern __shared__ __align__(16) double smem_raw[];\n");
  dg_strbuf_line(b, pairs ? "real *sg = (real *)smem_raw, *sd = sg + GEPB * SGS;"
                          : "real *sg = (real *)smem_raw, *sd = sg + NGR * GEPB * NP;");
  dg_strbuf_lines(b,
                  "const int tid = threadIdx.x;\n"
                  "const int e = tid / NP, i = tid - e * NP;\n"
                  "const long long k0 = (long long)blockIdx.x * GEPB;\n"
                  "(void)t; (void)fx; (void)fcf;\n"
                  "if (k0 + e < K) {\n");
  b->indent = 4;
  dg_strbuf_line(b, "const long long k = k0 + e;");
  if (pairs) {
    dg_strbuf_line(b, "real gv[NGRV];");
    emit_node_values(b, ph, vctx, "gv[%d]");
    if (ph->ngrad % 2)
      dg_strbuf_line(b, "gv[NGR] = 0;");
    emit_pairs_store(b, "sg + e * SGS + i * NGRV", "gv");
  } else {
    emit_node_values(b, ph, vctx, "sg[(%d * GEPB + e) * NP + i]");
  }
  b->indent = 2;
  dg_strbuf_lines(b,
                  "}\n"
                  "__syncthreads(); /* the face values read the staged interior values */\n"
                  "for (int z = tid; z < GEPB * NFNFP; z += NP * GEPB) {\n"
                  "  const int s = z / NFNFP, m = z - s * NFNFP;\n"
                  "  const long long k = k0 + s;\n"
                  "  if (k < K) {\n");
  b->indent = 6;
  if (pairs) {
    dg_strbuf_line(b, "real dv[NGRV];");
    emit_face_values(b, ph, fctx, uses_x, "dv[%d]", "sg[s * SGS + gFmask[m] * NGRV + %d]");
    if (ph->ngrad % 2)
      dg_strbuf_line(b, "dv[NGR] = 0;");
    emit_pairs_store(b, "sd + s * SDS + m * NGRV", "dv");
  } else {
    emit_face_values(b, ph, fctx, uses_x, "sd[(%d * GEPB + s) * NFNFP + m]",
                     "sg[(%d * GEPB + s) * NP + gFmask[m]]");
  }
  b->indent = 2;
  dg_strbuf_lines(b,
                  "  }\n"
                  "}\n"
                  "__syncthreads();\n"
                  "const long long k = k0 + e;\n"
                  "if (k >= K) return;\n");
  if (pairs)
    emit_combine_pairs(b, el->dim);
  else
    emit_combine(b, DG_CODEGEN_CUDA, el->dim, "sg[(%s * GEPB + e) * NP + %s]",
                 "sd[(%s * GEPB + e) * NFNFP + %s]");
  b->indent = 0;
  dg_strbuf_append(b, "}\n\n");
}

static void emit_c(dg_strbuf *b, const dg_element_ops *el, const dg_physics *ph,
                   dg_emit_ctx *vctx, dg_emit_ctx *fctx, int uses_x) {
  dg_strbuf_append(b,
    "KERNEL void dg_gradient(void **args, int64_t first, int64_t count) {\n"
    "  const real *restrict q = *(const real **)args[0];\n"
    "  real *restrict Qg = *(real **)args[1];\n"
    "  const int *restrict mapM = *(const int **)args[2];\n"
    "  const int *restrict mapP = *(const int **)args[3];\n"
    "  const int *restrict fbc = *(const int **)args[4];\n"
    "  const real *restrict fgeo = *(const real **)args[5];\n"
    "  const real *restrict fx = *(const real **)args[6];\n"
    "  const real *restrict egeo = *(const real **)args[7];\n"
    "  const real t = *(const real *)args[8];\n"
    "  const long long K = *(const long long *)args[9];\n"
    "  const real *restrict fcf = *(const real **)args[10];\n"
    "  (void)t; (void)fx; (void)fcf; (void)mapM;\n");
  b->indent = 2;
  dg_strbuf_line(b, "for (long long k = first; k < first + count; ++k) {");
  b->indent = 4;
  dg_strbuf_line(b, "real sg[NGR][NP], sd[NGR][NFNFP];");
  dg_strbuf_line(b, "for (int i = 0; i < NP; ++i) {");
  b->indent = 6;
  emit_node_values(b, ph, vctx, "sg[%d][i]");
  b->indent = 4;
  dg_strbuf_line(b, "}");
  dg_strbuf_line(b, "for (int m = 0; m < NFNFP; ++m) {");
  b->indent = 6;
  emit_face_values(b, ph, fctx, uses_x, "sd[%d][m]", "sg[%d][gFmask[m]]");
  b->indent = 4;
  dg_strbuf_line(b, "}");
  dg_strbuf_line(b, "for (int i = 0; i < NP; ++i) {");
  b->indent = 6;
  emit_combine(b, DG_CODEGEN_C, el->dim, "sg[%s][%s]", "sd[%s][%s]");
  b->indent = 4;
  dg_strbuf_line(b, "}");
  b->indent = 2;
  dg_strbuf_line(b, "}");
  b->indent = 0;
  dg_strbuf_append(b, "}\n\n");
}

int dg_codegen_gradient_elements_per_block(int Np, int face_threads) {
  int e = (face_threads < 256 ? face_threads : 256) / Np;
  return e > 0 ? e : 1;
}

int dg_codegen_gradient_pairs(dg_codegen_target tg, const dg_physics *ph) {
  return tg == DG_CODEGEN_CUDA && ph->ngrad >= 2;
}

unsigned dg_codegen_gradient_shared_bytes(const dg_element_ops *el, const dg_physics *ph,
                                      int is_float, int gepb, int pairs) {
  size_t n = (size_t)ph->ngrad * gepb * (el->Np + el->Nfaces * el->Nfp);
  if (pairs) { /* SGS + SDS a slot */
    size_t ngrv = (size_t)(ph->ngrad + ph->ngrad % 2);
    n = (size_t)gepb * (el->Np * ngrv + 2 + (size_t)el->Nfaces * el->Nfp * ngrv + 2);
  }
  return (unsigned)(n * (is_float ? 4 : 8));
}

dg_error dg_gen_emit_gradient(dg_strbuf *b, dg_codegen_target tg, const dg_element_ops *el,
                              const dg_physics *ph, int is_float, int uses_x, int pairs) {
  dg_emit_ctx vctx, fctx;
  dg_gen_init_ctx(&vctx, ph, el->dim, is_float);
  vctx.field = dg_gen_volume_field;
  dg_gen_face_ctx(&fctx, ph, el->dim, is_float);
  fctx.gradq = NULL; /* the gradients are what this pass computes */
  dg_strbuf_append(b, "/* dg_gradient: the lifted gradients of the second-order terms (LDG). */\n");
  static const char *const dn[3] = {"gDr", "gDs", "gDt"};
  const double *mats[3] = {el->Dr, el->Ds, el->Dt};
  for (int r = 0; r < el->dim; r++)
    dg_gen_emit_matrix(b, tg, DG_MATRIX_GLOBAL, is_float, dn[r], mats[r], el->Np, el->Np);
  /* own names: the matrix-product volume kernels keep theirs in other forms */
  dg_gen_emit_matrix(b, tg, DG_MATRIX_GLOBAL, is_float, "gLIFT", el->LIFT, el->Np,
                     el->Nfaces * el->Nfp);
  dg_strbuf_append(b, "/* the volume node of face node m */\n");
  dg_gen_emit_int_table(b, tg, "gFmask", el->Fmask, el->Nfaces * el->Nfp);
  dg_strbuf_append(b, "\n");
  if (pairs)
    dg_strbuf_appendf(b, "typedef %s real2;\n#define NGRV (NGR + NGR %% 2)\n"
                         "#define SGS (NP * NGRV + 2)\n#define SDS (NFNFP * NGRV + 2)\n",
                      is_float ? "float2" : "double2");
  if (tg == DG_CODEGEN_CUDA)
    emit_cuda(b, el, ph, &vctx, &fctx, uses_x ? 1 : 0, pairs);
  else
    emit_c(b, el, ph, &vctx, &fctx, uses_x ? 1 : 0);
  DG_CALL(dg_emit_status(&vctx));
  DG_CALL(dg_emit_status(&fctx));
  return DG_OK;
}
