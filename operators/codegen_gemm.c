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
 * Block = NP x EPB threads, one pass (work_per_thread 1):
 *   B  face fluxes of the block's elements -> s_fl   (fused surface, or a
 *      coalesced copy of dg_surface's fl)
 *   C  flux quantities g(u) of every node -> s_g     (u kept in registers)
 *   D  the products -> s_out
 *   E  per node: pointwise terms, chain rule, store or fused LSERK update.
 * Shared arrays are [column][row][PADE] with the element fastest. */
#include <stdlib.h>
#include <string.h>

#include "operators/codegen_internal.h"

typedef struct {
  int mat; /* its matrix: D_mat (mat < dim) or LIFT (mat = dim) */
  int src; /* offset (reals) of the source column in shared memory */
  int len; /* rows j of the segment */
} gemm_seg;

typedef struct {
  int nacc, nseg;
  int *first;      /* [nacc + 1]: segments of accumulator a */
  gemm_seg *seg;   /* [nseg] */
  int *dv_acc;     /* [nd]: accumulator of divergence row g */
  int *r_acc;      /* [ng * dim]: accumulator of partial (g, d), or -1 */
  int lift0;       /* accumulator of component 0's lifted flux */
  int pade, rc, nrc, npr;
  int mma;         /* products on the tensor cores (work_mode mma) */
  int alias_out;   /* mma: OUT overlays the sources (see plan) */
  int ks[4];       /* mma: k-steps of 4 of each matrix */
  int afrag[4];    /* mma: offset of each matrix's fragments in g_AF */
  size_t off_fl, off_out, off_mt, total;
} gemm_plan;

static int odd_stride(int epb) { return epb | 1; }

/* Plans the accumulators and the shared-memory map.  Returns 0 on memory
 * failure. */
static int plan(const dg_element_ops *el, const deriv_table *dt, int ncomp,
                const dg_kernel_config *cfg, gemm_plan *p) {
  memset(p, 0, sizeof *p);
  int dim = el->dim, np = el->Np, nfnfp = el->Nfaces * el->Nfp;
  int epb = cfg->elements_per_block;
  p->pade = odd_stride(epb);
  int nr = 0;
  for (int x = 0; x < dt->n; x++)
    if (!dt->d[x].div)
      nr += dg_flux_shape_size(dt->d[x].node->args[0]->shape) * dim;
  p->nacc = dt->nd + nr + ncomp;
  p->nseg = dt->nd * dim + nr + ncomp;
  p->first = calloc((size_t)p->nacc + 1, sizeof *p->first);
  p->seg = calloc((size_t)p->nseg, sizeof *p->seg);
  p->dv_acc = calloc((size_t)dt->nd + 1, sizeof *p->dv_acc);
  p->r_acc = calloc((size_t)dt->ng * dim + 1, sizeof *p->r_acc);
  if (!p->first || !p->seg || !p->dv_acc || !p->r_acc)
    return 0;
  for (int g = 0; g < dt->ng * dim; g++)
    p->r_acc[g] = -1;
  p->mma = cfg->work_mode == DG_WORK_MMA;
  if (p->mma) { /* rows in tiles of 8; each matrix's k in steps of 4 */
    p->npr = (np + 7) / 8 * 8;
    p->rc = 8;
    p->nrc = p->npr / 8;
    int off = 0;
    for (int m = 0; m <= dim; m++) {
      p->ks[m] = ((m < dim ? np : nfnfp) + 3) / 4;
      p->afrag[m] = off;
      off += p->nrc * p->ks[m] * 32;
    }
  } else {
    /* rows per thread: enough row chunks that NACC x NRC items fill the
     * NP x EPB threads, RC even for the vector matrix loads */
    int nrc = np / p->nacc > 1 ? np / p->nacc : 1;
    p->rc = (np + nrc - 1) / nrc;
    p->rc += p->rc & 1;
    p->nrc = (np + p->rc - 1) / p->rc;
    p->npr = p->nrc * p->rc;
  }
  size_t pade = (size_t)p->pade;
  p->off_fl = (size_t)dt->ng * np * pade;
  p->off_out = p->off_fl + (size_t)ncomp * nfnfp * pade;
  p->off_out += p->off_out & 1; /* vector alignment of what follows */
  p->off_mt = p->off_out + (size_t)p->nacc * p->npr * pade;
  p->off_mt += p->off_mt & 1;
  p->total = p->off_mt;
  /* mma keeps its few results per lane in registers until every warp has
   * read its sources, so OUT may reuse the source columns' space */
  p->alias_out = p->mma && (size_t)p->nacc * p->npr * pade <= p->off_out;
  if (p->alias_out)
    p->total = p->off_out, p->off_out = 0;
  if (cfg->matrices == DG_MATRIX_SHARED && !p->mma)
    p->total += (size_t)(dim * np + nfnfp) * p->npr;
  int a = 0, s = 0;
  for (int x = 0; x < dt->n; x++) { /* divergence rows: D_a on contravariant row a */
    const deriv_entry *de = &dt->d[x];
    if (!de->div)
      continue;
    for (int row = 0; row < de->rows; row++) {
      p->dv_acc[de->dbase + row] = a;
      p->first[a++] = s;
      for (int d = 0; d < dim; d++)
        p->seg[s++] = (gemm_seg){d, (de->gbase + row * dim + d) * np * p->pade, np};
    }
  }
  for (int x = 0; x < dt->n; x++) { /* other derivatives: every partial D_d g */
    const deriv_entry *de = &dt->d[x];
    if (de->div)
      continue;
    int gsz = dg_flux_shape_size(de->node->args[0]->shape);
    for (int c = 0; c < gsz; c++)
      for (int d = 0; d < dim; d++) {
        p->r_acc[(de->gbase + c) * dim + d] = a;
        p->first[a++] = s;
        p->seg[s++] = (gemm_seg){d, (de->gbase + c) * np * p->pade, np};
      }
  }
  p->lift0 = a;
  for (int c = 0; c < ncomp; c++) { /* lifting of the face fluxes */
    p->first[a++] = s;
    p->seg[s++] = (gemm_seg){dim, (int)p->off_fl + c * nfnfp * p->pade, nfnfp};
  }
  p->first[a] = s;
  return 1;
}

static void plan_free(gemm_plan *p) {
  free(p->first);
  free(p->seg);
  free(p->dv_acc);
  free(p->r_acc);
  memset(p, 0, sizeof *p);
}

size_t dg_cg_gemm_shared_reals(const dg_element_ops *el, const deriv_table *dt, int ncomp,
                               const dg_kernel_config *cfg, size_t *matrix_reals) {
  gemm_plan p;
  size_t n = plan(el, dt, ncomp, cfg, &p) ? p.total : (size_t)-1 / 16;
  *matrix_reals = (size_t)(el->dim * el->Np + el->Nfaces * el->Nfp) * (size_t)p.npr;
  if (p.mma)
    *matrix_reals = 0; /* its fragment table is in global memory, never constant */
  plan_free(&p);
  return n;
}

/* Entry (i, j) of operator m: D_m (m < dim) or LIFT (m = dim); zero
 * outside the matrix (the padding of rows and k-steps). */
static double op_entry(const dg_element_ops *el, int m, int i, int j) {
  int np = el->Np, nfnfp = el->Nfaces * el->Nfp;
  const double *D[3] = {el->Dr, el->Ds, el->Dt};
  if (i >= np || j >= (m < el->dim ? np : nfnfp))
    return 0;
  return m < el->dim ? D[m][i * np + j] : el->LIFT[i * nfnfp + j];
}

/* mma: g_AF holds each operator as DMMA A-fragments, [row tile][k-step][lane]
 * with lane l holding entry (8*tile + l/4, 4*step + l%4): one coalesced load
 * per lane per tensor-core step. */
static void emit_fragments(dg_strbuf *b, const dg_element_ops *el, const gemm_plan *p) {
  int n = p->afrag[el->dim] + p->nrc * p->ks[el->dim] * 32, z = 0;
  dg_strbuf_appendf(b, "/* g_AF: D_r, ..., LIFT as m8n8k4 A-fragments [tile][k-step][lane] */\n");
  dg_strbuf_appendf(b, "__device__ __align__(16) const real g_AF[%d] = {", n);
  for (int m = 0; m <= el->dim; m++)
    for (int ti = 0; ti < p->nrc; ti++)
      for (int k = 0; k < p->ks[m]; k++)
        for (int l = 0; l < 32; l++, z++) {
          if (z % 4 == 0)
            dg_strbuf_append(b, "\n  ");
          dg_strbuf_appendf(b, "%.17e, ", op_entry(el, m, 8 * ti + l / 4, 4 * k + l % 4));
        }
  dg_strbuf_append(b, "\n};\n");
}

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
      double v = r < el->dim * np ? op_entry(el, r / np, i, r % np)
                                  : op_entry(el, el->dim, i, r - el->dim * np);
      if ((r * p->npr + i) % 4 == 0)
        dg_strbuf_append(b, "\n  ");
      dg_strbuf_appendf(b, is_float ? "%.9ef, " : "%.17e, ", v);
    }
  dg_strbuf_append(b, "\n};\n");
}

/* The accumulators' segments: gemm {MT row, source, length}; mma
 * {fragment offset, source, length, k-steps}. */
static void emit_segments(dg_strbuf *b, const dg_element_ops *el, const gemm_plan *p) {
  dg_strbuf_appendf(b, "__device__ const int g_seg_first[%d] = {", p->nacc + 1);
  for (int a = 0; a <= p->nacc; a++)
    dg_strbuf_appendf(b, "%s%d", a ? ", " : "", p->first[a]);
  dg_strbuf_append(b, "};\n");
  dg_strbuf_appendf(b, "__device__ const int g_seg[%d][4] = {\n", p->nseg);
  for (int s = 0; s < p->nseg; s++) {
    const gemm_seg *g = &p->seg[s];
    dg_strbuf_appendf(b, "  {%d, %d, %d, %d},\n", p->mma ? p->afrag[g->mat] : g->mat * el->Np,
                      g->src, g->len, p->mma ? p->ks[g->mat] : 0);
  }
  dg_strbuf_append(b, "};\n");
}

void dg_cg_emit_volume_gemm(dg_strbuf *b, const dg_element_ops *el, const dg_physics *ph,
                            const deriv_table *dt, const dg_kernel_config *cfg,
                            dg_emit_ctx *ctx, int uses_x, int uses_fx, int is_float) {
  gemm_plan p;
  if (!plan(el, dt, ph->ncomp, cfg, &p)) {
    plan_free(&p);
    ctx->failed = 1;
    snprintf(ctx->failure, sizeof ctx->failure, "out of memory planning the gemm volume kernel");
    return;
  }
  int dim = el->dim;
  if (p.mma) {
    emit_fragments(b, el, &p);
    dg_strbuf_append(b, "#ifndef DG_DMMA /* D += A B on the fp64 tensor cores, m8n8k4 */\n"
                        "#define DG_DMMA(d0, d1, a, b) asm volatile(\"mma.sync.aligned.m8n8k4."
                        "row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\" : \"+d\"(d0), "
                        "\"+d\"(d1) : \"d\"(a), \"d\"(b))\n#endif\n");
  } else {
    emit_transposed(b, el, &p, cfg->matrices, is_float);
  }
  emit_segments(b, el, &p);
  dg_strbuf_appendf(b, "typedef %s real2;\n", is_float ? "float2" : "double2");
  dg_strbuf_appendf(b,
                    "#define EPB %d\n#define PADE %d\n#define RC %d\n#define NRC %d\n"
                    "#define NPR %d\n#define NACC %d\n#define QOUT %s\n",
                    cfg->elements_per_block, p.pade, p.rc, p.nrc, p.npr, p.nacc,
                    cfg->fuse_surface ? "q_out" : "q");
  dg_strbuf_append(b, dg_cg_volume_signature_cuda);
  b->indent = 2;
  dg_strbuf_line(b, "extern __shared__ __align__(16) double smem_raw[];");
  dg_strbuf_line(b, "real *smem = (real *)smem_raw;");
  dg_strbuf_line(b, "(void)vx; (void)t; (void)rhs; (void)res; (void)rk_a; (void)rk_b; (void)dt;");
  dg_strbuf_line(b, "(void)q_out; (void)mapM; (void)mapP; (void)fbc; (void)fgeo; (void)fx; (void)fl;");
  dg_strbuf_line(b, "const int tid = threadIdx.y * NP + threadIdx.x;");
  dg_strbuf_line(b, "const long long k0 = (long long)blockIdx.x * EPB;");
  dg_strbuf_line(b, "real *s_fl = smem + %zu; /* [NC][NFNFP][PADE] */", p.off_fl);
  dg_strbuf_line(b, "real *s_out = smem + %zu; /* [NACC][NPR][PADE] */", p.off_out);
  if (cfg->matrices == DG_MATRIX_SHARED) {
    int n2 = (dim * el->Np + el->Nfaces * el->Nfp) * p.npr / 2;
    dg_strbuf_line(b, "const real *MT = smem + %zu;", p.off_mt);
    dg_strbuf_line(b, "for (int z = tid; z < %d; z += NP * EPB)", n2);
    dg_strbuf_line(b, "  ((real2 *)(smem + %zu))[z] = ((const real2 *)g_MT)[z];", p.off_mt);
  } else if (!p.mma) {
    dg_strbuf_line(b, "const real *MT = g_MT;");
  }
  /* B: face fluxes */
  if (cfg->fuse_surface) {
    dg_cg_emit_block_faces(b, el, ph, is_float, uses_fx, ctx, "EPB",
                           "s_fl[(%d * NFNFP + m) * PADE + s]", 1, cfg->gather_ahead);
  } else {
    dg_strbuf_line(b, "/* B: the block's face fluxes from dg_surface, coalesced */");
    dg_strbuf_line(b, "for (int z = tid; z < NC * EPB * NFNFP; z += NP * EPB) {");
    dg_strbuf_line(b, "  const int c = z / (EPB * NFNFP), r = z - c * (EPB * NFNFP);");
    dg_strbuf_line(b, "  const int s = r / NFNFP, m = r - s * NFNFP;");
    dg_strbuf_line(b, "  s_fl[(c * NFNFP + m) * PADE + s] =");
    dg_strbuf_line(b, "      k0 + s < K ? fl[((long long)c * K + k0) * NFNFP + r] : (real)0;");
    dg_strbuf_line(b, "}");
  }
  /* C: flux quantities; the thread's node stays in u for E */
  dg_strbuf_line(b, "/* C: flux quantities of node (s, i) into s_g; u kept for E */");
  dg_strbuf_line(b, "const int s = tid / NP, i = tid - s * NP;");
  dg_strbuf_line(b, "const long long k = k0 + s;");
  dg_strbuf_line(b, "real u[NC];");
  dg_strbuf_line(b, "for (int c = 0; c < NC; ++c) u[c] = k < K ? q[BASE(k, i) + c * CSTRIDE(K)] : (real)1;");
  if (uses_x) {
    dg_strbuf_line(b, "real X[DIM];");
    dg_strbuf_line(b, "for (int d = 0; d < DIM; ++d) X[d] = k < K ? vx[((long long)d * K + k) * NP_PAD + i] : (real)0;");
  }
  if (dt->ng > 0) {
    dg_strbuf_line(b, "{");
    b->indent += 2;
    if (dt->nd > 0) {
      dg_strbuf_line(b, "real G[DIM * DIM]; /* dr_a/dx_d of the (affine) element */");
      dg_strbuf_line(b, "for (int a = 0; a < DIM * DIM; ++a) G[a] = k < K ? egeo[k * NGEO + a] : (real)0;");
    }
    dg_cg_emit_gvalues(b, dt, ctx, "smem[(%d * NP + i) * PADE + s]", 1);
    b->indent -= 2;
    dg_strbuf_line(b, "}");
  }
  dg_strbuf_line(b, "__syncthreads();");
  /* D: the products */
  if (p.mma) {
    dg_strbuf_line(b, "/* D: OUT[a][8 rows][8 elements] per warp task on the tensor cores; whole");
    dg_strbuf_line(b, " * warps only (a partial last warp idles); lane l holds A (row l/4, k l%%4),");
    dg_strbuf_line(b, " * B (k l%%4, element l/4), D (row l/4, elements 2(l%%4) + {0, 1}) */");
    int ntask = p.nacc * p.nrc * (cfg->elements_per_block / 8);
    int nwarps = el->Np * cfg->elements_per_block / 32;
    dg_strbuf_line(b, "{");
    dg_strbuf_line(b, "  const int lane = tid & 31, warp = tid >> 5, nwarps = %d;", nwarps);
    dg_strbuf_line(b, "  double dd[%d][2]; /* this lane's results of its warp's tasks */",
                   (ntask + nwarps - 1) / nwarps);
    dg_strbuf_line(b, "  #pragma unroll");
    dg_strbuf_line(b, "  for (int tt = 0; tt < %d; ++tt) {", (ntask + nwarps - 1) / nwarps);
    dg_strbuf_line(b, "    const int task = warp + tt * nwarps;");
    dg_strbuf_line(b, "    dd[tt][0] = dd[tt][1] = 0;");
    dg_strbuf_line(b, "    if (warp < nwarps && task < %d) {", ntask);
    dg_strbuf_line(b, "      const int te = task %% (EPB / 8), r2 = task / (EPB / 8), ti = r2 %% NRC, a = r2 / NRC;");
    dg_strbuf_line(b, "      for (int sg = g_seg_first[a]; sg < g_seg_first[a + 1]; ++sg) {");
    dg_strbuf_line(b, "        const int len = g_seg[sg][2], nks = g_seg[sg][3];");
    dg_strbuf_line(b, "        const real *af = g_AF + g_seg[sg][0] + ti * nks * 32 + lane;");
    dg_strbuf_line(b, "        const real *x = smem + g_seg[sg][1] + te * 8 + (lane >> 2);");
    dg_strbuf_line(b, "        #pragma unroll 4");
    dg_strbuf_line(b, "        for (int ks = 0; ks < nks; ++ks) {");
    dg_strbuf_line(b, "          const int j = ks * 4 + (lane & 3);");
    dg_strbuf_line(b, "          const double bv = j < len ? x[j * PADE] : 0.0;");
    dg_strbuf_line(b, "          DG_DMMA(dd[tt][0], dd[tt][1], af[ks * 32], bv);");
    dg_strbuf_line(b, "        }");
    dg_strbuf_line(b, "      }");
    dg_strbuf_line(b, "    }");
    dg_strbuf_line(b, "  }");
    if (p.alias_out)
      dg_strbuf_line(b, "  __syncthreads(); /* OUT overlays the sources */");
    dg_strbuf_line(b, "  #pragma unroll");
    dg_strbuf_line(b, "  for (int tt = 0; tt < %d; ++tt) {", (ntask + nwarps - 1) / nwarps);
    dg_strbuf_line(b, "    const int task = warp + tt * nwarps;");
    dg_strbuf_line(b, "    if (warp < nwarps && task < %d) {", ntask);
    dg_strbuf_line(b, "      const int te = task %% (EPB / 8), r2 = task / (EPB / 8), ti = r2 %% NRC, a = r2 / NRC;");
    dg_strbuf_line(b, "      real *o = s_out + (a * NPR + ti * 8 + (lane >> 2)) * PADE + te * 8 + (lane & 3) * 2;");
    dg_strbuf_line(b, "      o[0] = dd[tt][0];");
    dg_strbuf_line(b, "      o[1] = dd[tt][1];");
    dg_strbuf_line(b, "    }");
    dg_strbuf_line(b, "  }");
    dg_strbuf_line(b, "}");
  } else {
  dg_strbuf_line(b, "/* D: OUT[a][i][s] = sum over a's segments of MT^T x source column */");
  dg_strbuf_line(b, "for (int it = tid; it < NACC * NRC * EPB; it += NP * EPB) {");
  dg_strbuf_line(b, "  const int es = it %% EPB, r2 = it / EPB, a = r2 %% NACC, i0 = (r2 / NACC) * RC;");
  dg_strbuf_line(b, "  real acc[RC];");
  dg_strbuf_line(b, "  #pragma unroll");
  dg_strbuf_line(b, "  for (int h = 0; h < RC; ++h) acc[h] = 0;");
  dg_strbuf_line(b, "  for (int sg = g_seg_first[a]; sg < g_seg_first[a + 1]; ++sg) {");
  dg_strbuf_line(b, "    const real *x = smem + g_seg[sg][1] + es;");
  dg_strbuf_line(b, "    const real2 *M = (const real2 *)(MT + g_seg[sg][0] * NPR + i0);");
  dg_strbuf_line(b, "    const int len = g_seg[sg][2];");
  dg_strbuf_line(b, "    #pragma unroll 2");
  dg_strbuf_line(b, "    for (int j = 0; j < len; ++j) {");
  dg_strbuf_line(b, "      const real xv = x[j * PADE];");
  dg_strbuf_line(b, "      #pragma unroll");
  dg_strbuf_line(b, "      for (int h = 0; h < RC / 2; ++h) {");
  dg_strbuf_line(b, "        const real2 m2 = M[j * (NPR / 2) + h];");
  dg_strbuf_line(b, "        acc[2 * h] += m2.x * xv;");
  dg_strbuf_line(b, "        acc[2 * h + 1] += m2.y * xv;");
  dg_strbuf_line(b, "      }");
  dg_strbuf_line(b, "    }");
  dg_strbuf_line(b, "  }");
  dg_strbuf_line(b, "  real *o = s_out + (a * NPR + i0) * PADE + es;");
  dg_strbuf_line(b, "  #pragma unroll");
  dg_strbuf_line(b, "  for (int h = 0; h < RC; ++h) o[h * PADE] = acc[h];");
  dg_strbuf_line(b, "}");
  }
  dg_strbuf_line(b, "__syncthreads();");
  /* E: per node */
  dg_strbuf_line(b, "/* E: pointwise terms and the store / fused update of node (s, i) */");
  dg_strbuf_line(b, "if (k < K) {");
  b->indent += 2;
  if (dt->nd > 0) {
    dg_strbuf_line(b, "real DV[%d];", dt->nd);
    for (int g = 0; g < dt->nd; g++)
      dg_strbuf_line(b, "DV[%d] = s_out[(%d * NPR + i) * PADE + s];", g, p.dv_acc[g]);
  }
  int any_r = 0;
  for (int g = 0; g < dt->ng * dim; g++)
    any_r |= p.r_acc[g] >= 0;
  if (any_r) {
    dg_strbuf_line(b, "/* chain rule with the element's (affine) geometric factors */");
    dg_strbuf_line(b, "real G[DIM * DIM];");
    dg_strbuf_line(b, "for (int a = 0; a < DIM * DIM; ++a) G[a] = egeo[k * NGEO + a];");
    dg_strbuf_line(b, "real P[%d];", dt->ng * dim);
    for (int g = 0; g < dt->ng; g++) {
      if (p.r_acc[g * dim] < 0)
        continue;
      for (int d = 0; d < dim; d++) {
        dg_strbuf_indent(b);
        dg_strbuf_appendf(b, "P[%d] =", g * dim + d);
        for (int a = 0; a < dim; a++)
          dg_strbuf_appendf(b, "%s G[%d] * s_out[(%d * NPR + i) * PADE + s]", a ? " +" : "",
                            a * dim + d, p.r_acc[g * dim + a]);
        dg_strbuf_append(b, ";\n");
      }
    }
  }
  dg_strbuf_line(b, "real rl[NC];");
  dg_strbuf_line(b, "for (int c = 0; c < NC; ++c) rl[c] = s_out[((%d + c) * NPR + i) * PADE + s];",
                 p.lift0);
  dg_cg_emit_rhs_store(b, ph, cfg, ctx, "rl[%d]");
  b->indent -= 2;
  dg_strbuf_line(b, "}");
  b->indent = 0;
  dg_strbuf_append(b, "}\n\n");
  plan_free(&p);
}
