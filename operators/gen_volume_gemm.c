/* work_mode = gemm: the cuda dg_volume as one small matrix product per block.
 *
 * Why: the node-per-thread kernels issue about one shared or L1 load per
 * fused multiply-add (a matrix entry and a flux value for every product
 * term), so from N = 3 on they are bound by load/store issue, not by
 * bandwidth or the fp64 units (tuning/RESULTS.md).  Here the derivative and
 * lifting products of a block of EPB elements are one matrix product
 *
 *     OUT[acc][i][e] = sum_seg sum_j M_seg^T[j][i] * SRC_seg[j][e]
 *
 * where an accumulator is a divergence row (segments D_r, D_s, D_t applied
 * to the contravariant flux rows), one partial D_d g of another derivative
 * term, or the lifted face flux of one component (segment LIFT).  A thread
 * owns RC consecutive rows i of one accumulator for one element e: per j it
 * loads one source value (conflict-free: element e is the fastest index of
 * every shared array, with an odd row stride PADE) and RC/2 vector pairs of
 * the transposed matrix (the same address across the lanes of an
 * accumulator: a broadcast), for RC multiply-adds.
 *
 * work_mode = mma runs the same products on the tensor cores: in double
 * the fp64 steps (mma.sync m8n8k4 or m16n8k4, knob mma_rows; the 16-row
 * shape has twice the throughput on the H100: 66 against 33 TFLOP/s), in
 * float split TF32 (m16n8k8: 16 rows, or pairs): each factor x = big + small
 * with both parts TF32 (11 significant bits each), and A B ~ As Bb + Ab Bs
 * + Ab Bb, three TF32 steps with fp32 accumulation, which keeps about
 * fp32's accuracy (a plain TF32 step would keep 11 bits) at a third of
 * TF32's rate; two steps (Ab Bs + Ab Bb) where the operator is TF32
 * values already, as the Bernstein-Bezier LIFT is (plan_tf32_exact).
 * The operators are A-fragment tables in global memory, the shared source
 * columns the B fragments, 8 elements the tile width.  With
 * mma_pairs the tile is transposed: two sources of one matrix (8 elements
 * each) are the 16 rows of the A side and the operator, in tiles of 8 rows,
 * the B side, so the 16-row step's rate comes with 8-row padding.  The work
 * of a row tile is split at generation time into parts (see "mma work
 * split" below), and every warp task runs straight-line code for its part.
 * Two more knobs shape the launch: mma_extra_blocks (resident blocks asked
 * of the compiler, mma_min_blocks) and l2_prefetch (emit_l2_prefetch);
 * strided_k orders the rows of each k-step (mma_step_row) so that the
 * fragment loads meet no shared-memory bank twice.  volume_warps sizes the
 * block in whole warps (the per-node phases' last pass then partly idle,
 * emit_pass_open), and compact_smem packs the overlaid face fluxes and
 * level 1's results (plan): smaller blocks, more of them or more L1 beside
 * them on a multiprocessor.  sparse_lift (Bernstein-Bezier only) reorders
 * the lift's rows and face-flux columns so that many k-steps of a row tile
 * are all zero (operators/tile_order.c) and emits each row tile's nonzero
 * steps as its own straight code (plan_sparse, emit_sparse_steps).
 *
 * Block = NP x EPB threads, one pass (work_per_thread 1):
 *   B  face fluxes of the block's elements -> s_fl   (fused surface, or a
 *      coalesced copy of dg_surface's fl)
 *   C  flux quantities g(u) of every node -> s_g     (u kept in registers;
 *      knob local_traces: C runs first, and B reads the staged state)
 *   D  the products -> s_out
 *   E  per node: pointwise terms, chain rule, store or fused LSERK update
 *      (knob early_residual: the update's residual loaded before E's
 *      barrier, while the block's slower warps finish D).
 * Shared arrays are [column][row][PADE] with the element fastest. */
#include "operators/gen_volume_gemm.h"

#include "operators/gen_gemm_bernstein.h"
#include "operators/gen_gemm_plan.h"
#include "operators/gen_jit.h"
#include "operators/gen_volume_mma.h"

/* MT: the transposed operators stacked, [D_r^T; D_s^T; D_t^T; LIFT^T], each
 * row j holding column j of the matrix over NPR entries (zero padded). */
static void emit_transposed(dg_strbuf *b, const dg_element_ops *el, const gemm_plan *p,
                            dg_matrix_place place, int is_float) {
  int np = el->Np, nfnfp = el->Nfaces * el->Nfp, rows = el->dim * np + nfnfp;
  dg_strbuf_appendf(b, "/* g_MT: [D_r^T; ...; LIFT^T], %d rows of NPR = %d */\n", rows, p->npr);
  dg_strbuf_appendf(b, "%s __align__(16) const real g_MT[%d] = {",
                    place == DG_MATRIX_CONSTANT ? "__constant__" : "__device__", rows * p->npr);
  for (int r = 0; r < rows; r++)
    for (int i = 0; i < p->npr; i++) {
      double v = r < el->dim * np ? dg_gen_gemm_op_entry(el, p, r / np, i, r % np)
                                  : dg_gen_gemm_op_entry(el, p, el->dim, i, r - el->dim * np);
      if ((r * p->npr + i) % 4 == 0)
        dg_strbuf_append(b, "\n  ");
      dg_strbuf_appendf(b, is_float ? "%.9ef, " : "%.17e, ", v);
    }
  dg_strbuf_append(b, "\n};\n");
}

/* gemm: the accumulators' segments {MT row, source, length}. */
static void emit_segments(dg_strbuf *b, const dg_element_ops *el, const gemm_plan *p) {
  dg_strbuf_appendf(b, "__device__ const int g_seg_first[%d] = {", p->nacc + 1);
  for (int a = 0; a <= p->nacc; a++)
    dg_strbuf_appendf(b, "%s%d", a ? ", " : "", p->first[a]);
  dg_strbuf_append(b, "};\n");
  dg_strbuf_appendf(b, "__device__ const int g_seg[%d][3] = {\n", p->nseg);
  for (int s = 0; s < p->nseg; s++) {
    const gemm_seg *g = &p->seg[s];
    dg_strbuf_appendf(b, "  {%d, %d, %d},\n", g->mat * el->Np, g->src, g->len);
  }
  dg_strbuf_append(b, "};\n");
}

/* volume_passes > 1 (or volume_warps): a per-node phase as a loop over the
 * thread's nodes, one a pass, named (s, i) in its element and node; ragged:
 * the last pass has fewer nodes than threads. */
static void emit_pass_open(dg_strbuf *b, int ragged, const char *s, const char *i) {
  dg_strbuf_line(b, "for (int pass = 0; pass < NPASS; ++pass) {");
  b->indent += 2;
  dg_strbuf_line(b, "const int nn = tid + pass * NTHREADS, %s = nn / NP, %s = nn - %s * NP;", s,
                 i, s);
  if (ragged)
    dg_strbuf_line(b, "if (nn >= NP * EPB) break; /* the last pass's idle threads */");
}

static void emit_pass_close(dg_strbuf *b) {
  b->indent -= 2;
  dg_strbuf_line(b, "}");
}

static void emit_l2_prefetch(dg_strbuf *b, const gemm_plan *p, int fused_update) {
  int npass = p->npass;
  dg_strbuf_line(b, "{ /* L2 prefetch of the lines phases C and E read */");
  b->indent += 2;
  if (npass > 1)
    emit_pass_open(b, p->ragged, "ps", "pi");
  else
    dg_strbuf_line(b, "const int ps = tid / NP, pi = tid - ps * NP;");
  dg_strbuf_lines(b,
                  "if (k0 + ps < K)\n"
                  "  for (int c = 0; c < NC; ++c) {\n"
                  "    DG_PREFETCH_L2(q + BASE(k0 + ps, pi) + c * CSTRIDE(K));\n");
  if (fused_update)
    dg_strbuf_line(b, "    DG_PREFETCH_L2(res + BASE(k0 + ps, pi) + c * CSTRIDE(K));");
  dg_strbuf_line(b, "  }");
  if (npass > 1)
    emit_pass_close(b);
  b->indent -= 2;
  dg_strbuf_line(b, "}");
}

/* The value of accumulator a at node (s, i): the sum of its OUT slots, or
 * for a Bernstein-Bezier derivative the degree elevation of its level-1
 * differences (bd, bw: the node's lower neighbours and weights, from E). */
static void append_acc(dg_strbuf *b, const gemm_plan *p, int a, int dim) {
  if (a < p->prod0) {
    dg_strbuf_append(b, "(");
    for (int v = 0; v <= dim; v++) {
      char acc[16], pt[16], at[96];
      snprintf(acc, sizeof acc, "%d", a);
      snprintf(pt, sizeof pt, "bd%d", v);
      dg_gen_bb_div_at(at, sizeof at, p, acc, pt, "s");
      dg_strbuf_appendf(b, "%sbw%d * %s", v ? " + " : "", v, at);
    }
    dg_strbuf_append(b, ")");
    return;
  }
  int n = 0;
  dg_strbuf_append(b, "(");
  for (int z = 0; z < p->nslot; z++)
    if (p->slot_acc[z] == a)
      dg_strbuf_appendf(b, "%ss_out[(%d * NPR + %s) * PADE + s]", n++ ? " + " : "", z,
                        p->sparse ? "li" : "i");
  dg_strbuf_append(b, n ? ")" : "(real)0)");
}

/* Phase C: each thread's node(s) (s, i) load their state and write the flux
 * quantities (or, stage_state, the state itself) to shared memory.  With
 * one pass s, i, k and u stay declared for E; with passes E loads u again
 * (a node per pass, no registers held across D).  No barrier. */
static void emit_phase_c(dg_strbuf *b, const gemm_plan *p, const deriv_table *dt,
                         dg_emit_ctx *ctx, int npass, int uses_x, int ldg) {
  if (npass > 1) {
    dg_strbuf_line(b, "/* C: flux quantities of the thread's nodes (s, i), NPASS passes, into s_g */");
    emit_pass_open(b, p->ragged, "s", "i");
  } else {
    dg_strbuf_line(b, "/* C: flux quantities of node (s, i) into s_g; u kept for E */");
    dg_strbuf_line(b, "const int s = tid / NP, i = tid - s * NP;");
  }
  dg_strbuf_line(b, "const long long k = k0 + s;");
  dg_strbuf_line(b, "real u[NC];");
  char qv[128];
  dg_gen_load(qv, ldg ? "NC" : "", "q", "BASE(k, i) + c * CSTRIDE(K)");
  dg_strbuf_line(b, "for (int c = 0; c < NC; ++c) u[c] = k < K ? %s : (real)1;", qv);
  if (uses_x) {
    dg_strbuf_line(b, "real X[DIM];");
    dg_strbuf_line(b, "for (int d = 0; d < DIM; ++d) X[d] = k < K ? vx[((long long)d * K + k) * NP_PAD + i] : (real)0;");
  }
  if (npass > 1)
    dg_strbuf_line(b, "(void)u;");
  if (p->stage) {
    dg_strbuf_line(b, "/* stage_state: the node's state (level 1 makes the flux quantities) */");
    dg_strbuf_line(b, "for (int c = 0; c < NC; ++c) smem[(c * NP + i) * PADE + s] = u[c];");
  } else if (dt->ng > 0) {
    dg_strbuf_line(b, "{");
    b->indent += 2;
    if (dt->nd > 0) {
      dg_strbuf_line(b, "real G[DIM * DIM]; /* dr_a/dx_d of the (affine) element */");
      dg_strbuf_line(b, "for (int a = 0; a < DIM * DIM; ++a) G[a] = k < K ? egeo[k * NGEO + a] : (real)0;");
    }
    dg_gen_emit_gvalues(b, dt, ctx, "smem[(%d * NP + i) * PADE + s]", 1, 0);
    b->indent -= 2;
    dg_strbuf_line(b, "}");
  }
  if (npass > 1)
    emit_pass_close(b);
}

/* operators/jit/l2_prefetch.cuh, for l2_prefetch: before the face fluxes,
 * each thread asks L2 for the lines of its node's state (read again in phase
 * C) and, with the fused update, its residual (read in phase E, after the
 * products). Why: a block's phases run in turn, so those loads otherwise
 * start only after the products; a prefetch holds no register. On the H100
 * (Maxwell, fp64) it took N = 3 from 0.270 to 0.254 ms and N = 4 from 0.571
 * to 0.514 ms, and lost at N = 6 (tuning/RESULTS.md): a knob. */
/* operators/jit/stream_access.cuh, for stream_update: the fused update's
 * residual is read once and written once, and so is the new state; stored
 * and loaded evict-first (st.global.cs, ld.global.cs) they leave L2 to the
 * state, which the face gathers of the neighbouring blocks read again; with
 * the fused surface the state is read through the read-only path
 * (ld.global.nc). H100, Maxwell fp64, Hilbert order: N = 6 0.903 -> 0.875
 * ms, N = 5 0.558 -> 0.547; lost in float at N = 3, 4 (0.123 -> 0.125, 0.237
 * -> 0.242): a knob. The test emulator defines the three as plain accesses. */
/* The module-scope part of the kernel: the operator tables (mma fragments
 * or transposed matrices and segments), the BB lattices, the access macros
 * and the block's constants. */
static void emit_tables_and_defines(dg_strbuf *b, const dg_element_ops *el,
                                    const dg_kernel_config *cfg, const gemm_plan *p,
                                    int is_float) {
  if (p->mma) {
    dg_gen_mma_emit_fragments(b, el, p);
    dg_gen_mma_emit_steps(b, is_float);
    dg_strbuf_appendf(b, "__device__ const int g_part_slot[%d] = {", p->nparts + 1);
    for (int q = 0; q <= p->nparts; q++)
      dg_strbuf_appendf(b, "%s%d", q ? ", " : "", p->part_slot0[q]);
    dg_strbuf_append(b, "}; /* first OUT slot of each part of a row tile's products */\n");
    if (p->sparse) {
      int nf = el->Nfaces * el->Nfp;
      dg_strbuf_appendf(b, "/* sparse_lift: the shared k-row of each face node's flux */\n"
                           "__device__ const short g_fl_pos[%d] = {", nf);
      for (int m = 0; m < nf; m++)
        dg_strbuf_appendf(b, "%s%d", m ? (m % 16 ? ", " : ",\n  ") : "", p->fl_pos[m]);
      dg_strbuf_appendf(b, "};\n/* sparse_lift: the OUT row of each node's lifted flux */\n"
                           "__device__ const short g_lift_pos[%d] = {", el->Np);
      for (int i = 0; i < el->Np; i++)
        dg_strbuf_appendf(b, "%s%d", i ? (i % 16 ? ", " : ",\n  ") : "", p->lpos[i]);
      dg_strbuf_append(b, "};\n");
    }
  } else {
    emit_transposed(b, el, p, cfg->matrices, is_float);
    emit_segments(b, el, p);
  }
  if (p->bb)
    dg_gen_bb_emit_tables(b, el->dim, el->N, is_float);
  if (cfg->l2_prefetch)
    dg_gen_jit(b, "operators/jit/l2_prefetch.cuh");
  if (cfg->stream_update)
    dg_gen_jit(b, "operators/jit/stream_access.cuh");
  dg_strbuf_appendf(b, "typedef %s real2;\n", is_float ? "float2" : "double2");
  dg_strbuf_appendf(b,
                    "#define EPB %d\n#define PADE %d\n#define RC %d\n#define NRC %d\n"
                    "#define NPR %d\n#define NACC %d\n#define QOUT %s\n",
                    cfg->elements_per_block, p->pade, p->rc, p->nrc, p->npr, p->nacc,
                    cfg->fuse_surface ? "q_out" : "q");
  if (p->compact)
    dg_strbuf_appendf(b, "#define FLES %d /* compact_smem: face-flux row stride */\n", p->fles);
  /* the block's threads: NP x EPB, or that over volume_passes, or
   * volume_warps' (the per-node phases then loop; the source of passes = 1
   * stays as it was) */
  int npass = p->npass, nthreads = dg_kernel_config_volume_threads(cfg, el->Np);
  if (cfg->volume_warps)
    dg_strbuf_appendf(b, "#define NPASS %d\n#define NTHREADS %d /* volume_warps */\n", npass,
                      nthreads);
  else if (npass > 1)
    dg_strbuf_appendf(b, "#define NPASS %d\n#define NTHREADS (NP * (EPB / NPASS))\n", npass);
  if (p->mma && p->sparse)
    dg_gen_mma_emit_sparse_functions(b, p);
}

/* D, work_mode gemm: OUT = the transposed operators' segments times the
 * source columns, RC rows of one accumulator for one element a thread. */
static void emit_gemm_products(dg_strbuf *b, const gemm_plan *p, const char *th) {
  dg_strbuf_line(b, "/* D: OUT[a][i][s] = sum over a's segments of MT^T x source column */");
  dg_strbuf_line(b, "for (int it = tid; it < (NACC - %d) * NRC * EPB; it += %s) {", p->prod0, th);
  dg_strbuf_line(b, "  const int es = it %% EPB, r2 = it / EPB, a = %d + r2 %% (NACC - %d), i0 = (r2 / (NACC - %d)) * RC;",
                 p->prod0, p->prod0, p->prod0);
  dg_strbuf_lines(b,
                  "  real acc[RC];\n"
                  "  #pragma unroll\n"
                  "  for (int h = 0; h < RC; ++h) acc[h] = 0;\n"
                  "  for (int sg = g_seg_first[a]; sg < g_seg_first[a + 1]; ++sg) {\n"
                  "    const real *x = smem + g_seg[sg][1] + es;\n"
                  "    const real2 *M = (const real2 *)(MT + g_seg[sg][0] * NPR + i0);\n"
                  "    const int len = g_seg[sg][2];\n"
                  "    #pragma unroll 2\n"
                  "    for (int j = 0; j < len; ++j) {\n"
                  "      const real xv = x[j * PADE];\n"
                  "      #pragma unroll\n"
                  "      for (int h = 0; h < RC / 2; ++h) {\n"
                  "        const real2 m2 = M[j * (NPR / 2) + h];\n"
                  "        acc[2 * h] += m2.x * xv;\n"
                  "        acc[2 * h + 1] += m2.y * xv;\n"
                  "      }\n"
                  "    }\n"
                  "  }\n"
                  "  real *o = s_out + (a * NPR + i0) * PADE + es;\n"
                  "  #pragma unroll\n"
                  "  for (int h = 0; h < RC; ++h) o[h * PADE] = acc[h];\n"
                  "}\n");
}

/* E: per node, the pointwise terms, the chain rule and the store or the
 * fused update (expects k0, tid and the products in OUT). */
static void emit_phase_e(dg_strbuf *b, const dg_element_ops *el, const dg_physics *ph,
                         const deriv_table *dt, const dg_kernel_config *cfg, dg_emit_ctx *ctx,
                         const gemm_plan *p, int uses_x, int ldg) {
  int dim = el->dim, npass = p->npass;
  const char *res_form = cfg->stream_update ? "CS" : "";
  char load[128];
  /* E: per node */
  dg_strbuf_line(b, "/* E: pointwise terms and the store / fused update of node (s, i) */");
  if (npass > 1) {
    emit_pass_open(b, p->ragged, "s", "i");
    dg_strbuf_line(b, "const long long k = k0 + s;");
  }
  dg_strbuf_line(b, "if (k < K) {");
  b->indent += 2;
  if (p->bb) {
    dg_strbuf_line(b, "/* Bernstein-Bezier level 2: node i from its lower neighbours i - e_v */");
    dg_strbuf_line(b, "const dg_bb_index dn = g_bb_dn[i]; const dg_bb_weight dw = g_bb_w[i];");
    for (int v = 0; v <= dim; v++)
      dg_strbuf_line(b, "const int bd%d = dn.%c; const real bw%d = dw.%c;", v, "xyzw"[v], v,
                     "xyzw"[v]);
  }
  if (npass > 1) { /* this pass's node again (q is not written before E) */
    dg_strbuf_line(b, "real u[NC];");
    dg_strbuf_line(b, "for (int c = 0; c < NC; ++c) u[c] = %s;",
                   dg_gen_load(load, ldg ? "NC" : "", "q", "BASE(k, i) + c * CSTRIDE(K)"));
    if (uses_x) {
      dg_strbuf_line(b, "real X[DIM];");
      dg_strbuf_line(b, "for (int d = 0; d < DIM; ++d) X[d] = vx[((long long)d * K + k) * NP_PAD + i];");
    }
  }
  if (dt->nd > 0) {
    dg_strbuf_line(b, "real DV[%d];", dt->nd);
    for (int g = 0; g < dt->nd; g++) {
      dg_strbuf_indent(b);
      dg_strbuf_appendf(b, "DV[%d] = ", g);
      append_acc(b, p, p->dv_acc[g], dim);
      dg_strbuf_append(b, ";\n");
    }
  }
  int any_r = 0;
  for (int g = 0; g < dt->ng * dim; g++)
    any_r |= p->r_acc[g] >= 0;
  if (any_r) {
    dg_strbuf_lines(b,
                    "/* chain rule with the element's (affine) geometric factors */\n"
                    "real G[DIM * DIM];\n"
                    "for (int a = 0; a < DIM * DIM; ++a) G[a] = egeo[k * NGEO + a];\n");
    dg_strbuf_line(b, "real P[%d];", dt->ng * dim);
    for (int g = 0; g < dt->ng; g++) {
      if (p->r_acc[g * dim] < 0)
        continue;
      for (int d = 0; d < dim; d++) {
        dg_strbuf_indent(b);
        dg_strbuf_appendf(b, "P[%d] =", g * dim + d);
        for (int a = 0; a < dim; a++) {
          dg_strbuf_appendf(b, "%s G[%d] * ", a ? " +" : "", a * dim + d);
          append_acc(b, p, p->r_acc[g * dim + a], dim);
        }
        dg_strbuf_append(b, ";\n");
      }
    }
  }
  if (p->sparse)
    dg_strbuf_line(b, "const int li = g_lift_pos[i]; /* sparse_lift: node i's OUT row */");
  dg_strbuf_line(b, "real rl[NC];");
  for (int c = 0; c < ph->ncomp; c++) {
    dg_strbuf_indent(b);
    dg_strbuf_appendf(b, "rl[%d] = ", c);
    append_acc(b, p, p->lift0 + c, dim);
    dg_strbuf_append(b, ";\n");
  }
  dg_gen_emit_rhs_store(b, ph, cfg, ctx, "rl[%d]",
                       cfg->early_residual ? "rr[c]" : dg_gen_load(load, res_form, "res", "o"));
  b->indent -= 2;
  dg_strbuf_line(b, "}");
  if (npass > 1)
    emit_pass_close(b);
}

void dg_gen_emit_volume_gemm(dg_strbuf *b, const dg_element_ops *el, const dg_physics *ph,
                             const deriv_table *dt, const dg_kernel_config *cfg,
                             dg_emit_ctx *ctx, int uses_x, int uses_fx, int is_float) {
  gemm_plan p;
  if (!dg_gen_gemm_plan(el, dt, ph->ncomp, cfg, is_float, &p) ||
      (cfg->sparse_lift && p.mma && p.bb && !dg_gen_gemm_plan_sparse(el, cfg->elements_per_block, &p))) {
    dg_gen_gemm_plan_free(&p);
    ctx->failed = 1;
    snprintf(ctx->failure, sizeof ctx->failure, "out of memory planning the gemm volume kernel");
    return;
  }
  dg_gen_gemm_plan_tf32_exact(el, &p); /* after plan_sparse: its orders place the entries */
  int dim = el->dim;
  /* stream_update with the fused surface: this kernel writes q_out, never
   * the state it reads, so the state may take the read-only path */
  int ldg = cfg->stream_update && cfg->fuse_surface;
  const char *res_form = cfg->stream_update ? "CS" : ""; /* the residual: evict-first */
  char load[128];
  int npass = p.npass, nthreads = dg_kernel_config_volume_threads(cfg, el->Np);
  const char *th = npass > 1 ? "NTHREADS" : "NP * EPB";
  emit_tables_and_defines(b, el, cfg, &p, is_float);
  dg_gen_emit_volume_signature_cuda(
      b, th, p.mma ? dg_gen_mma_min_blocks(&p, nthreads, cfg->mma_extra_blocks) : 1, ph->ncoef,
      ph->ngrad);
  b->indent = 2;
  dg_strbuf_lines(b,
                  "extern __shared__ __align__(16) double smem_raw[];\n"
                  "real *smem = (real *)smem_raw;\n"
                  "(void)vx; (void)t; (void)rhs; (void)res; (void)rk_a; (void)rk_b; (void)dt;\n"
                  "(void)q_out; (void)mapM; (void)mapP; (void)fbc; (void)fgeo; (void)fx; (void)fl;\n"
                  "const int tid = threadIdx.y * NP + threadIdx.x;\n"
                  "const long long k0 = (long long)blockIdx.x * EPB;\n");
  if (cfg->l2_prefetch)
    emit_l2_prefetch(b, &p, cfg->fuse_update);
  if (p.compact)
    dg_strbuf_line(b, "real *s_fl = smem + %zu; /* [NC][EPB][FLES] */", p.off_fl);
  else
    dg_strbuf_line(b, "real *s_fl = smem + %zu; /* [NC][NFNFP][PADE] */", p.off_fl);
  dg_strbuf_line(b, "real *s_out = smem + %zu; /* [NACC][NPR][PADE] */", p.off_out);
  if (p.bb)
    dg_strbuf_line(b, "real *s_div = smem + %zu; /* %s */", p.off_div,
                   p.compact ? "[EPB][derivative][NPM]" : "[derivative][NPM][PADE]");
  if (cfg->matrices == DG_MATRIX_SHARED) {
    int n2 = (dim * el->Np + el->Nfaces * el->Nfp) * p.npr / 2;
    dg_strbuf_line(b, "const real *MT = smem + %zu;", p.off_mt);
    dg_strbuf_line(b, "for (int z = tid; z < %d; z += %s)", n2, th);
    dg_strbuf_line(b, "  ((real2 *)(smem + %zu))[z] = ((const real2 *)g_MT)[z];", p.off_mt);
  } else if (!p.mma) {
    dg_strbuf_line(b, "const real *MT = g_MT;");
  }
  /* C first with local_traces, so that B reads the block's own traces (and
   * its neighbours' in the block) from the staged state; C and level 1
   * first with overlay_state, so that the face fluxes may take the staged
   * state's place (a smaller block, and level 1's results go straight to
   * s_div instead of waiting in registers across D) */
  int local = cfg->local_traces, c_first = local || p.overlay;
  if (c_first) {
    emit_phase_c(b, &p, dt, ctx, npass, uses_x, ldg);
    dg_strbuf_line(b, "__syncthreads(); /* the staged state, for %s */",
                   p.overlay ? "level 1" : "the face fluxes");
  }
  if (p.overlay) {
    dg_gen_bb_emit_differences(b, &p, th, el->N, dt, ctx);
    dg_strbuf_line(b, "__syncthreads(); /* level 1 has read the state: B may overwrite it */");
  }
  /* B: face fluxes */
  if (cfg->fuse_surface) {
    dg_gen_emit_block_faces(b, el, ph, is_float, uses_fx, ctx, "EPB", th,
                           p.compact ? (p.sparse ? "s_fl[(%d * EPB + s) * FLES + g_fl_pos[m]]"
                                                 : "s_fl[(%d * EPB + s) * FLES + m]")
                                     : (p.sparse ? "s_fl[(%d * NFNFP + g_fl_pos[m]) * PADE + s]"
                                                 : "s_fl[(%d * NFNFP + m) * PADE + s]"),
                           1, cfg->gather_ahead, ldg, local);
  } else {
    dg_strbuf_line(b, "/* B: the block's face fluxes from dg_surface, coalesced */");
    dg_strbuf_line(b, "for (int z = tid; z < NC * EPB * NFNFP; z += %s) {", th);
    dg_strbuf_line(b, "  const int c = z / (EPB * NFNFP), r = z - c * (EPB * NFNFP);");
    dg_strbuf_line(b, "  const int s = r / NFNFP, m = r - s * NFNFP;");
    dg_strbuf_line(b, "  s_fl[(c * NFNFP + %s) * PADE + s] =", p.sparse ? "g_fl_pos[m]" : "m");
    dg_strbuf_line(b, "      k0 + s < K ? fl[((long long)c * K + k0) * NFNFP + r] : (real)0;");
    dg_strbuf_line(b, "}");
  }
  if (!c_first)
    emit_phase_c(b, &p, dt, ctx, npass, uses_x, ldg);
  dg_strbuf_line(b, "__syncthreads();");
  if (p.bb && !p.overlay)
    dg_gen_bb_emit_differences(b, &p, th, el->N, dt, ctx);
  /* D: the products */
  if (p.mma) {
    dg_gen_mma_emit_products(b, &p);
    if (p.div_regs)
      dg_gen_bb_emit_store(b, &p, th);
  } else {
  emit_gemm_products(b, &p, th);
  }
  if (cfg->early_residual) {
    /* Why: E's first global load, the residual, used to wait after this
     * barrier; the products' results are in OUT now (their registers are
     * free), so the load flies while the block's slower warps finish
     * (H100, Maxwell fp64, 8-row tiles: N = 3 0.254 -> 0.237 ms, N = 4
     * 0.514 -> 0.485 ms; with 16-row tiles it lost at N = 5, 6) */
    dg_strbuf_line(b, "real rr[NC]; /* early_residual: the node's residual, for E */");
    dg_strbuf_line(b, "for (int c = 0; c < NC; ++c) rr[c] = k < K ? %s : (real)0;",
                   dg_gen_load(load, res_form, "res", "BASE(k, i) + c * CSTRIDE(K)"));
  }
  dg_strbuf_line(b, "__syncthreads();");
  emit_phase_e(b, el, ph, dt, cfg, ctx, &p, uses_x, ldg);
  b->indent = 0;
  dg_strbuf_append(b, "}\n\n");
  dg_gen_gemm_plan_free(&p);
}
