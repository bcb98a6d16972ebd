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
}

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
  dg_strbuf_lines(b,
                  "  }\n"
                  "}\n"
                  "for (int j = 0; j < NGR; ++j)\n"
                  "  for (int d = 0; d < DIM; ++d)\n"
                  "    for (int r = 0; r < DIM; ++r) Qd[j][d] += G[r * DIM + d] * dr[j][r];\n");
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
  dg_strbuf_lines(b,
                  "  }\n"
                  "  for (int j = 0; j < NGR; ++j)\n"
                  "    for (int d = 0; d < DIM; ++d) Qd[j][d] += fgk[f * (DIM + 1) + d] * l[j];\n"
                  "}\n"
                  "for (int j = 0; j < NGR; ++j)\n"
                  "  for (int d = 0; d < DIM; ++d)\n"
                  "    Qg[((long long)(j * DIM + d) * K + k) * NP_PAD + i] = Qd[j][d];\n");
}

static void emit_cuda(dg_strbuf *b, const dg_element_ops *el, const dg_physics *ph,
                      dg_emit_ctx *vctx, dg_emit_ctx *fctx, int uses_x) {
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
                  "extern __shared__ __align__(16) double smem_raw[];\n"
                  "real *sg = (real *)smem_raw, *sd = sg + NGR * GEPB * NP;\n"
                  "const int tid = threadIdx.x;\n"
                  "const int e = tid / NP, i = tid - e * NP;\n"
                  "const long long k0 = (long long)blockIdx.x * GEPB;\n"
                  "(void)t; (void)fx; (void)fcf;\n"
                  "if (k0 + e < K) {\n");
  b->indent = 4;
  dg_strbuf_line(b, "const long long k = k0 + e;");
  emit_node_values(b, ph, vctx, "sg[(%d * GEPB + e) * NP + i]");
  b->indent = 2;
  dg_strbuf_lines(b,
                  "}\n"
                  "__syncthreads(); /* the face values read the staged interior values */\n"
                  "for (int z = tid; z < GEPB * NFNFP; z += NP * GEPB) {\n"
                  "  const int s = z / NFNFP, m = z - s * NFNFP;\n"
                  "  const long long k = k0 + s;\n"
                  "  if (k < K) {\n");
  b->indent = 6;
  emit_face_values(b, ph, fctx, uses_x, "sd[(%d * GEPB + s) * NFNFP + m]",
                   "sg[(%d * GEPB + s) * NP + gFmask[m]]");
  b->indent = 2;
  dg_strbuf_lines(b,
                  "  }\n"
                  "}\n"
                  "__syncthreads();\n"
                  "const long long k = k0 + e;\n"
                  "if (k >= K) return;\n");
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

unsigned dg_codegen_gradient_shared_bytes(const dg_element_ops *el, const dg_physics *ph,
                                      int is_float, int gepb) {
  size_t n = (size_t)ph->ngrad * gepb * (el->Np + el->Nfaces * el->Nfp);
  return (unsigned)(n * (is_float ? 4 : 8));
}

dg_error dg_gen_emit_gradient(dg_strbuf *b, dg_codegen_target tg, const dg_element_ops *el,
                              const dg_physics *ph, int is_float, int uses_x) {
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
  if (tg == DG_CODEGEN_CUDA)
    emit_cuda(b, el, ph, &vctx, &fctx, uses_x ? 1 : 0);
  else
    emit_c(b, el, ph, &vctx, &fctx, uses_x ? 1 : 0);
  DG_CALL(dg_emit_status(&vctx));
  DG_CALL(dg_emit_status(&fctx));
  return DG_OK;
}
