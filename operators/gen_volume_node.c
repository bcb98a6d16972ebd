/* dg_volume with one node per thread (work_mode parallel, inline and
 * sequence), cuda and c: the flux quantities g(u) into shared memory (or a
 * local table), the reference derivatives and the lift as loops over the
 * matrices, the chain rule and the store or fused update per node. */
#include "operators/gen_volume_node.h"

#include <stdio.h>
#include <string.h>

#include "operators/gen_context.h"

/* The per-node part after the differentiated quantities are in G[g][j]
 * (an expression text for "g-th quantity at node j"). */
static void emit_volume_node(dg_strbuf *b, const dg_element_ops *el, const dg_physics *ph,
                             const deriv_table *dt, const dg_kernel_config *cfg,
                             dg_emit_ctx *ctx, const char *gref, const char *mat_prefix) {
  int dim = el->dim, ng = dt->ng;
  if (ng > 0) {
    dg_strbuf_line(b, "/* reference derivatives of the %d flux quantities */", ng);
    dg_strbuf_line(b, "real R[%d];", ng * dim);
    dg_strbuf_line(b, "for (int g = 0; g < %d; ++g) R[g] = 0;", ng * dim);
    dg_strbuf_line(b, "for (int j = 0; j < NP; ++j) {");
    static const char *dn[3] = {"Dr", "Ds", "Dt"};
    for (int d = 0; d < dim; d++)
      dg_strbuf_line(b, "  const real %s = %sc_%s[i * NP + j];", dn[d], mat_prefix, dn[d]);
    for (int g = 0; g < ng; g++) {
      dg_strbuf_indent(b);
      dg_strbuf_append(b, "  { const real v = ");
      dg_strbuf_appendf(b, gref, g);
      dg_strbuf_append(b, ";");
      for (int d = 0; d < dim; d++)
        dg_strbuf_appendf(b, " R[%d] += %s * v;", g * dim + d, dn[d]);
      dg_strbuf_append(b, " }\n");
    }
    dg_strbuf_lines(b,
                    "}\n"
                    "/* chain rule with the element's (affine) geometric factors */\n"
                    "const real *gk = egeo + k * NGEO;\n");
    dg_strbuf_line(b, "real P[%d];", ng * dim);
    dg_strbuf_line(b, "for (int g = 0; g < %d; ++g)", ng);
    dg_strbuf_lines(b,
                    "  for (int d = 0; d < DIM; ++d) {\n"
                    "    real s = 0;\n"
                    "    for (int a = 0; a < DIM; ++a) s += gk[a * DIM + d] * R[g * DIM + a];\n"
                    "    P[g * DIM + d] = s;\n"
                    "  }\n");
  }
  dg_strbuf_lines(b,
                  "real rl[NC];\n"
                  "for (int c = 0; c < NC; ++c) rl[c] = 0;\n"
                  "for (int mm = 0; mm < NFNFP; ++mm) {\n");
  dg_strbuf_line(b, "  const real L = %sc_LIFT[i * NFNFP + mm];", mat_prefix);
  dg_strbuf_line(b, "  for (int c = 0; c < NC; ++c) rl[c] += L * fl[((long long)c * K + k) * NFNFP + mm];");
  dg_strbuf_line(b, "}");
  dg_gen_emit_rhs_store(b, ph, cfg, ctx, "rl[%d]", "res[o]");
}

/* The position X of node i of element k. */
static void emit_load_x(dg_strbuf *b) {
  dg_strbuf_line(b, "real X[DIM];");
  dg_strbuf_line(b, "for (int d = 0; d < DIM; ++d) X[d] = vx[((long long)d * K + k) * NP_PAD + i];");
}

static void emit_load_node(dg_strbuf *b, int uses_x) {
  dg_strbuf_line(b, "real u[NC];");
  dg_strbuf_line(b, "for (int c = 0; c < NC; ++c) u[c] = q[BASE(k, i) + c * CSTRIDE(K)];");
  if (uses_x)
    emit_load_x(b);
}

static const char *volume_signature_c =
    "KERNEL void dg_volume(void **args, int64_t first, int64_t count) {\n"
    "  real *restrict q = *(real **)args[0];\n"
    "  real *restrict rhs = *(real **)args[1];\n"
    "  const real *restrict fl = *(const real **)args[2];\n"
    "  const real *restrict egeo = *(const real **)args[3];\n"
    "  const real *restrict vx = *(const real **)args[4];\n"
    "  const real t = *(const real *)args[5];\n"
    "  const long long K = *(const long long *)args[6];\n"
    "  real *restrict res = *(real **)args[7];\n"
    "  const real rk_a = *(const real *)args[8];\n"
    "  const real rk_b = *(const real *)args[9];\n"
    "  const real dt = *(const real *)args[10];\n"
    "#define QOUT q\n";

/* Open "for each of the thread's WI elements in the pass, if it exists" and
 * load its node's state u (closed by the caller at indent 4). */
static void open_slot_loop(dg_strbuf *b, const char *uload, int curved) {
  dg_strbuf_lines(b,
                  "for (int w = 0; w < WI; ++w) {\n"
                  "  const int s = w * EPB + e;\n"
                  "  const long long k = k0 + s;\n");
  /* curved: the range's own end (the affine elements after it are another kernel's) */
  dg_strbuf_line(b, curved ? "  if (k < KC) {" : "  if (k < K) {");
  b->indent = 8;
  dg_strbuf_line(b, "real u[NC];");
  dg_strbuf_line(b, "%s", uload);
  dg_strbuf_line(b, "(void)u;");
}

/* The flux quantities of a node in shared memory: NG apart in the plain
 * layout; with vector_loads, a node's NG values side by side, padded to an
 * even count (pairs) that is 2 mod 4, so that the stores of a warp's nodes
 * spread over the banks (a multiple of 4 would put every node on the same
 * bank group) and every pair stays 8- or 16-byte aligned. */
static int g_stride(int ng, const dg_kernel_config *cfg) {
  int ngs = ng > 0 ? ng : 1;
  if (!cfg->vector_loads)
    return ngs;
  int v = (ngs + 1) / 2 * 2;
  return v % 4 == 0 ? v + 2 : v;
}

/* Where s_g starts (in reals) after n reals: 16-byte aligned for pairs. */
static size_t g_offset(size_t n, const dg_kernel_config *cfg) {
  return cfg->vector_loads ? (n + 3) / 4 * 4 : n;
}

/* The number of elements one cuda dg_volume pass keeps in shared memory. */
static int volume_slots(const dg_kernel_config *cfg) {
  return cfg->elements_per_block *
         (cfg->work_mode == DG_WORK_INLINE ? cfg->work_per_thread : 1);
}

/* Shared memory of the cuda dg_volume, in reals. */
size_t dg_gen_node_shared_reals(const dg_element_ops *el, int ng, int ncomp,
                                const dg_kernel_config *cfg) {
  size_t nfnfp = (size_t)el->Nfaces * el->Nfp, slots = (size_t)volume_slots(cfg);
  size_t n = 0;
  if (cfg->matrices == DG_MATRIX_SHARED)
    n += (size_t)el->dim * el->Np * el->Np + (size_t)el->Np * nfnfp;
  n = g_offset(n, cfg) + slots * (size_t)g_stride(ng, cfg) * (size_t)el->Np;
  if (cfg->prefetch)
    n += slots * (size_t)ncomp * (size_t)el->Np;
  if (cfg->prefetch || cfg->fuse_surface)
    n += slots * (size_t)ncomp * nfnfp;
  return n;
}

/* Flux quantity g of node j in the product loop: a half of pair g/2, or a
 * shared load NP apart. */
static const char *g_value(char *buf, size_t n, int vec, int g) {
  if (vec)
    snprintf(buf, n, "gp%d.%c", g / 2, g % 2 ? 'y' : 'x');
  else
    snprintf(buf, n, "gj[%d * NP]", g);
  return buf;
}

/* The reference derivatives of the pass's nodes: DV (divergences of
 * contravariant rows) and R (the other partials), each matrix entry read
 * once for the thread's WI elements (expects s_g, i, e). */
static void emit_reference_derivatives(dg_strbuf *b, const deriv_table *dtab,
                                       const dg_kernel_config *cfg, const char *mp, int nd,
                                       int nr) {
  static const char *dn[3] = {"Dr", "Ds", "Dt"};
  int ng = dtab->ng, dim = dtab->dim, ngs = ng > 0 ? ng : 1;
  int gst = g_stride(ng, cfg), vec = cfg->vector_loads;
  dg_strbuf_line(b, "/* reference derivatives, each matrix entry used for WI elements:");
  dg_strbuf_line(b, " * DV = divergences (contravariant rows), R = other partials */");
  if (nd > 0)
    dg_strbuf_line(b, "real DVa[WI][%d];", nd);
  if (nr > 0)
    dg_strbuf_line(b, "real R[WI][%d];", ng * dim);
  dg_strbuf_line(b, "#pragma unroll");
  dg_strbuf_line(b, "for (int w = 0; w < WI; ++w) {");
  if (nd > 0) {
    dg_strbuf_line(b, "  #pragma unroll");
    dg_strbuf_line(b, "  for (int g = 0; g < %d; ++g) DVa[w][g] = 0;", nd);
  }
  if (nr > 0) {
    dg_strbuf_line(b, "  #pragma unroll");
    dg_strbuf_line(b, "  for (int g = 0; g < %d; ++g) R[w][g] = 0;", ng * dim);
  }
  dg_strbuf_line(b, "}");
  dg_strbuf_line(b, "#pragma unroll %d", cfg->unroll);
  dg_strbuf_line(b, "for (int j = 0; j < NP; ++j) {");
  for (int d = 0; d < dim; d++)
    dg_strbuf_line(b, "  const real %s = %sc_%s[j * NP + i];", dn[d], mp, dn[d]);
  dg_strbuf_line(b, "  #pragma unroll");
  dg_strbuf_line(b, "  for (int w = 0; w < WI; ++w) {");
  char gv[32];
  if (vec) { /* the node's values as pairs, one shared load per pair */
    dg_strbuf_line(b, "    const real2 *gj = (const real2 *)(s_g + ((w * EPB + e) * NP + j) * %d);",
                   gst);
    for (int q = 0; q < (ng + 1) / 2; q++)
      dg_strbuf_line(b, "    const real2 gp%d = gj[%d];", q, q);
  } else {
    dg_strbuf_line(b, "    const real *gj = s_g + (w * EPB + e) * %d * NP + j;", ngs);
  }
  for (int x = 0; x < dtab->n; x++) {
    const deriv_entry *de = &dtab->d[x];
    if (de->div) {
      for (int row = 0; row < de->rows; row++) {
        dg_strbuf_indent(b);
        dg_strbuf_appendf(b, "    DVa[w][%d] +=", de->dbase + row);
        for (int a = 0; a < dim; a++)
          dg_strbuf_appendf(b, "%s %s * %s", a ? " +" : "", dn[a],
                            g_value(gv, sizeof gv, vec, de->gbase + row * dim + a));
        dg_strbuf_append(b, ";\n");
      }
      continue;
    }
    int gsz = dg_flux_shape_size(de->node->args[0]->shape);
    for (int c = 0; c < gsz; c++) {
      int g = de->gbase + c;
      dg_strbuf_indent(b);
      dg_strbuf_appendf(b, "    { const real v = %s;", g_value(gv, sizeof gv, vec, g));
      for (int d = 0; d < dim; d++)
        dg_strbuf_appendf(b, " R[w][%d] += %s * v;", g * dim + d, dn[d]);
      dg_strbuf_append(b, " }\n");
    }
  }
  dg_strbuf_line(b, "  }");
  dg_strbuf_line(b, "}");
}

/* LIFT * fl for the thread's WI elements (sfl: the face fluxes are in
 * shared memory). */
static void emit_lifting(dg_strbuf *b, const dg_kernel_config *cfg, const char *mp, int sfl) {
  dg_strbuf_lines(b,
                  "/* lifting: LIFT * fl, each LIFT entry used for WI elements */\n"
                  "real rl[WI][NC];\n"
                  "#pragma unroll\n"
                  "for (int w = 0; w < WI; ++w)\n"
                  "  #pragma unroll\n"
                  "  for (int c = 0; c < NC; ++c) rl[w][c] = 0;\n");
  dg_strbuf_line(b, "#pragma unroll %d", cfg->unroll);
  dg_strbuf_line(b, "for (int mm = 0; mm < NFNFP; ++mm) {");
  dg_strbuf_line(b, "  const real L = %sc_LIFT[mm * NP + i];", mp);
  dg_strbuf_lines(b,
                  "  #pragma unroll\n"
                  "  for (int w = 0; w < WI; ++w) {\n"
                  "    const int s = w * EPB + e;\n");
  if (sfl) {
    dg_strbuf_line(b, "    #pragma unroll");
    dg_strbuf_line(b, "    for (int c = 0; c < NC; ++c) rl[w][c] += L * s_fl[(c * SLOTS + s) * NFNFP + mm];");
  } else {
    dg_strbuf_lines(b,
                    "    const long long k = k0 + s < K ? k0 + s : K - 1;\n"
                    "    #pragma unroll\n"
                    "    for (int c = 0; c < NC; ++c) rl[w][c] += L * fl[((long long)c * K + k) * NFNFP + mm];\n");
  }
  dg_strbuf_line(b, "  }");
  dg_strbuf_line(b, "}");
}

/* Curved elements (dg/opdata_curved.c): node i's Ja = J dr_a/dx_d and 1/J
 * as ij, from egeo (the curved cgeo: factor g of node i of element k at
 * (k*NGEO + g)*NP + i, so that a block's nodes load each factor coalesced). */
static void emit_curved_node_geometry(dg_strbuf *b) {
  dg_strbuf_lines(b,
                  "/* the node's metric terms (curved): Ja and 1/J */\n"
                  "const real *gn = egeo + k * NGEO * NP + i; /* factor g at gn[g * NP] */\n"
                  "const real ij = gn[DIM * DIM * NP];\n"
                  "(void)ij;\n");
}

/* d/dx_d of the differentiated scalars that are not divergence rows, by the
 * chain rule: affine with the element's G[], P = G R, or curved with node
 * i's dr_a/dx_d = Ja_ad / J, P = ij (gn R) (expects gn and ij); rfmt: the
 * reference partial g*DIM + a. */
static void emit_chain_rule(dg_strbuf *b, const deriv_table *dtab, const char *rfmt,
                            int curved) {
  int dim = dtab->dim;
  dg_strbuf_line(b, "real P[%d];", dtab->ng * dim);
  for (int x = 0; x < dtab->n; x++) {
    const deriv_entry *de = &dtab->d[x];
    if (de->div)
      continue;
    int gsz = dg_flux_shape_size(de->node->args[0]->shape);
    for (int c = 0; c < gsz; c++)
      for (int d = 0; d < dim; d++) {
        int g = de->gbase + c;
        dg_strbuf_indent(b);
        dg_strbuf_appendf(b, curved ? "P[%d] = ij * (" : "P[%d] =", g * dim + d);
        for (int a = 0; a < dim; a++) {
          if (curved)
            dg_strbuf_appendf(b, "%sgn[%d * NP] * ", a ? " + " : "", a * dim + d);
          else
            dg_strbuf_appendf(b, "%s G[%d] * ", a ? " +" : "", a * dim + d);
          dg_strbuf_appendf(b, rfmt, g * dim + a);
        }
        dg_strbuf_append(b, curved ? ");\n" : ";\n");
      }
  }
}

/* Per node of the pass: the chain rule and the store or fused update
 * (inside open_slot_loop). */
static void emit_node_rhs(dg_strbuf *b, const dg_physics *ph, const deriv_table *dtab,
                          const dg_kernel_config *cfg, dg_emit_ctx *ctx, int uses_x, int nd,
                          int nr, int curved) {
  if (uses_x)
    emit_load_x(b);
  if (curved) /* 1/J also scales the lift (dg/opdata_curved.c) */
    emit_curved_node_geometry(b);
  if (nd > 0) {
    dg_strbuf_line(b, "real DV[%d];", nd);
    dg_strbuf_line(b, "#pragma unroll");
    dg_strbuf_line(b, curved ? "for (int g = 0; g < %d; ++g) DV[g] = DVa[w][g] * ij;"
                             : "for (int g = 0; g < %d; ++g) DV[g] = DVa[w][g];", nd);
  }
  if (nr > 0 && curved) {
    dg_strbuf_line(b, "/* chain rule with the node's geometric factors (curved) */");
    emit_chain_rule(b, dtab, "R[w][%d]", 1);
  } else if (nr > 0) {
    dg_strbuf_lines(b,
                    "/* chain rule with the element's (affine) geometric factors */\n"
                    "real G[DIM * DIM];\n"
                    "for (int a = 0; a < DIM * DIM; ++a) G[a] = egeo[k * NGEO + a];\n");
    emit_chain_rule(b, dtab, "R[w][%d]", 0);
  }
  dg_gen_emit_rhs_store(b, ph, cfg, ctx, curved ? "ij * rl[w][%d]" : "rl[w][%d]", "res[o]");
}

/* The cuda dg_volume's shared memory: the matrices (matrices = shared),
 * then s_g, s_q (prefetch) and s_fl (prefetch or the fused surface);
 * returns the matrices' name prefix ("s_" or ""). */
static const char *emit_shared_layout(dg_strbuf *b, const dg_element_ops *el,
                                      const dg_physics *ph, const deriv_table *dtab,
                                      const dg_kernel_config *cfg, int slots, int sfl) {
  int ng = dtab->ng, dim = el->dim;
  static const char *dn[3] = {"Dr", "Ds", "Dt"};
  const char *mp = "";
  size_t off = 0;
  if (cfg->matrices == DG_MATRIX_SHARED) {
    for (int d = 0; d < dim; d++) {
      dg_strbuf_line(b, "real *s_c_%s = smem + %zu;", dn[d], off);
      off += (size_t)el->Np * el->Np;
    }
    dg_strbuf_line(b, "real *s_c_LIFT = smem + %zu;", off);
    off += (size_t)el->Np * el->Nfaces * el->Nfp;
    dg_strbuf_line(b, "for (int z = tid; z < NP * NP; z += NP * EPB) {");
    for (int d = 0; d < dim; d++)
      dg_strbuf_line(b, "  s_c_%s[z] = c_%s[z];", dn[d], dn[d]);
    dg_strbuf_line(b, "}");
    dg_strbuf_line(b, "for (int z = tid; z < NP * NFNFP; z += NP * EPB) s_c_LIFT[z] = c_LIFT[z];");
    mp = "s_";
  }
  int gst = g_stride(ng, cfg), vec = cfg->vector_loads;
  off = g_offset(off, cfg);
  if (vec)
    dg_strbuf_line(b, "real *s_g = smem + %zu; /* [SLOTS][NP][%d] */", off, gst);
  else
    dg_strbuf_line(b, "real *s_g = smem + %zu; /* [SLOTS][NG][NP] */", off);
  off += (size_t)slots * gst * el->Np;
  if (cfg->prefetch) {
    dg_strbuf_line(b, "real *s_q = smem + %zu; /* [NC][SLOTS][NP] */", off);
    off += (size_t)slots * ph->ncomp * el->Np;
  }
  if (sfl)
    dg_strbuf_line(b, "real *s_fl = smem + %zu; /* [NC][SLOTS][NFNFP] */", off);
  return mp;
}

/* Prefetch: coalesced copies of the pass's state (and, without the fused
 * surface, of its face fluxes) into shared memory. */
static void emit_pass_prefetch(dg_strbuf *b, const dg_kernel_config *cfg) {
  dg_strbuf_lines(b,
                  "/* coalesced copies of the pass's state and face fluxes */\n"
                  "for (int z = tid; z < NC * SLOTS * NP; z += NP * EPB) {\n"
                  "  const int c = z / (SLOTS * NP), r = z - c * (SLOTS * NP);\n"
                  "  const int s = r / NP, j = r - s * NP;\n"
                  "  const long long kk = k0 + s;\n"
                  "  s_q[z] = kk < K ? q[BASE(kk, j) + c * CSTRIDE(K)] : (real)0;\n"
                  "}\n");
  if (!cfg->fuse_surface) {
    dg_strbuf_lines(b,
                    "for (int z = tid; z < NC * SLOTS * NFNFP; z += NP * EPB) {\n"
                    "  const int c = z / (SLOTS * NFNFP), r = z - c * (SLOTS * NFNFP);\n"
                    "  s_fl[z] = k0 * NFNFP + r < K * NFNFP ? fl[((long long)c * K + k0) * NFNFP + r] : (real)0;\n"
                    "}\n");
  }
}

/* cuda dg_volume.  Block = NP x EPB threads; thread (i, e) owns node i of
 * the elements slot = w*EPB + e of a pass (w < WI: inline mode, WI = W;
 * otherwise WI = 1), and sequence mode runs W passes.  A pass: (prefetch:
 * coalesced copy of the pass's q and fl into shared) -> the flux quantities
 * g(u) of every node into shared -> R = D_r/D_s/D_t g (each matrix entry
 * read once for the WI elements) -> LIFT * fl -> pointwise terms, chain
 * rule, store.  No thread returns early: every one reaches the barriers. */
void dg_gen_emit_volume_node_cuda(dg_strbuf *b, const dg_element_ops *el, const dg_physics *ph,
                                  const deriv_table *dtab, const dg_kernel_config *cfg,
                                  dg_emit_ctx *ctx, int uses_x, int uses_fx, int is_float) {
  int ng = dtab->ng, dim = el->dim;
  int ngs = ng > 0 ? ng : 1;
  int inl = cfg->work_mode == DG_WORK_INLINE;
  int wi = inl ? cfg->work_per_thread : 1;
  int passes = cfg->work_mode == DG_WORK_SEQUENCE ? cfg->work_per_thread : 1;
  int slots = volume_slots(cfg);
  int sfl = cfg->prefetch || cfg->fuse_surface; /* face fluxes of the pass in shared */
  dg_strbuf_appendf(b, "#define EPB %d\n#define WI %d\n#define SLOTS %d\n#define PASSES %d\n",
                    cfg->elements_per_block, wi, slots, passes);
  dg_strbuf_appendf(b, "#define QOUT %s\n", cfg->fuse_surface ? "q_out" : "q");
  if (cfg->vector_loads)
    dg_strbuf_appendf(b, "typedef %s real2;\n", is_float ? "float2" : "double2");
  if (el->curved)
    dg_gen_emit_volume_signature_curved_cuda(b, "NP * EPB");
  else
    dg_gen_emit_volume_signature_cuda(b, "NP * EPB", 1, ph->ncoef, ph->ngrad);
  b->indent = 2;
  dg_strbuf_lines(b,
                  "extern __shared__ __align__(16) double smem_raw[];\n"
                  "real *smem = (real *)smem_raw;\n"
                  "(void)vx; (void)t; (void)rhs; (void)res; (void)rk_a; (void)rk_b; (void)dt;\n"
                  "(void)q_out; (void)mapM; (void)mapP; (void)fbc; (void)fgeo; (void)fx; (void)fl;\n"
                  "const int i = threadIdx.x, e = threadIdx.y, tid = e * NP + i;\n"
                  "(void)tid;\n");
  const char *mp = emit_shared_layout(b, el, ph, dtab, cfg, slots, sfl);
  int gst = g_stride(ng, cfg), vec = cfg->vector_loads;
  dg_strbuf_line(b, "for (int pass = 0; pass < PASSES; ++pass) {");
  b->indent = 4;
  dg_strbuf_line(b, "const long long k0 = ((long long)blockIdx.x * PASSES + pass) * SLOTS;");
  if (cfg->prefetch)
    emit_pass_prefetch(b, cfg);
  if (cfg->fuse_surface) /* the pass's face fluxes, straight into shared memory */
    dg_gen_emit_block_faces(b, el, ph, is_float, uses_fx, ctx, "SLOTS", "NP * EPB",
                           "s_fl[(%d * SLOTS + s) * NFNFP + m]", 0, cfg->gather_ahead, 0, 0);
  if (cfg->prefetch || cfg->fuse_surface)
    dg_strbuf_line(b, "__syncthreads();");
  const char *uload = cfg->prefetch
                          ? "for (int c = 0; c < NC; ++c) u[c] = s_q[(c * SLOTS + s) * NP + i];"
                          : "for (int c = 0; c < NC; ++c) u[c] = q[BASE(k, i) + c * CSTRIDE(K)];";
  dg_strbuf_line(b, "/* pointwise flux quantities of every node into shared */");
  dg_strbuf_line(b, "#pragma unroll");
  open_slot_loop(b, uload, el->curved);
  if (dtab->uses_x) /* a derivative's argument reads x */
    emit_load_x(b);
  if (dtab->nd > 0 && el->curved) {
    dg_strbuf_line(b, "real G[DIM * DIM]; /* Ja = J dr_a/dx_d at the node (curved) */");
    dg_strbuf_line(b, "for (int a = 0; a < DIM * DIM; ++a) G[a] = egeo[(k * NGEO + a) * NP + i];");
  } else if (dtab->nd > 0) {
    dg_strbuf_line(b, "real G[DIM * DIM]; /* dr_a/dx_d of the (affine) element */");
    dg_strbuf_line(b, "for (int a = 0; a < DIM * DIM; ++a) G[a] = egeo[k * NGEO + a];");
  }
  char fmt[64];
  if (vec)
    snprintf(fmt, sizeof fmt, "s_g[(s * NP + i) * %d + %%d]", gst);
  else
    snprintf(fmt, sizeof fmt, "s_g[(s * %d + %%d) * NP + i]", ngs);
  dg_gen_emit_gvalues(b, dtab, ctx, fmt, 1, 0);
  b->indent = 4;
  dg_strbuf_lines(b,
                  "  }\n"
                  "}\n"
                  "__syncthreads();\n");
  int nd = dtab->nd, nr = 0; /* divergence and other accumulators */
  for (int x = 0; x < dtab->n; x++)
    if (!dtab->d[x].div)
      nr += dg_flux_shape_size(dtab->d[x].node->args[0]->shape) * dim;
  if (ng > 0)
    emit_reference_derivatives(b, dtab, cfg, mp, nd, nr);
  emit_lifting(b, cfg, mp, sfl);
  dg_strbuf_line(b, "#pragma unroll");
  open_slot_loop(b, uload, el->curved);
  emit_node_rhs(b, ph, dtab, cfg, ctx, uses_x, nd, nr, el->curved);
  b->indent = 4;
  dg_strbuf_line(b, "  }");
  dg_strbuf_line(b, "}");
  if (passes > 1)
    dg_strbuf_line(b, "__syncthreads(); /* s_g (and s_q, s_fl) are reused by the next pass */");
  b->indent = 2;
  dg_strbuf_line(b, "}");
  b->indent = 0;
  dg_strbuf_append(b, "}\n\n");
}

/* The c dg_volume's (curved: dg_volume_curved's) signature, its element
 * loop and the flux quantities of every node into g_all (curved: the
 * divergence rows contravariant with the node's Ja); leaves indent 4. */
static void emit_c_flux_quantities(dg_strbuf *b, const dg_physics *ph, const deriv_table *dtab,
                                   dg_emit_ctx *ctx, int curved) {
  int ng = dtab->ng;
  if (curved) {
    dg_strbuf_append(b, "KERNEL void dg_volume_curved");
    dg_strbuf_append(b, strstr(volume_signature_c, "(void **args"));
  } else {
    dg_strbuf_append(b, volume_signature_c);
  }
  if (ph->ncoef > 0) /* after the 17 arguments of the cuda kernel */
    dg_strbuf_append(b, "  const real *restrict cf = *(const real **)args[17];\n"
                        "  (void)cf;\n");
  if (ph->ngrad > 0) /* after cf and fcf */
    dg_strbuf_append(b, "  const real *restrict Qg = *(const real **)args[19];\n"
                        "  (void)Qg;\n");
  b->indent = 2;
  dg_strbuf_line(b, "(void)vx; (void)t; (void)rhs; (void)res; (void)rk_a; (void)rk_b; (void)dt;");
  dg_strbuf_line(b, "for (long long k = first; k < first + count; ++k) {");
  b->indent = 4;
  dg_strbuf_line(b, curved ? "real g_all[%d][NP]; /* flux quantities (contravariant rows) */"
                           : "real g_all[%d][NP]; /* flux quantities at every node */",
                 ng > 0 ? ng : 1);
  dg_strbuf_line(b, "for (int i = 0; i < NP; ++i) {");
  b->indent = 6;
  emit_load_node(b, dtab->uses_x);
  dg_strbuf_line(b, "(void)u;");
  if (curved && dtab->nd > 0) {
    dg_strbuf_line(b, "real G[DIM * DIM]; /* Ja = J dr_a/dx_d at the node */");
    dg_strbuf_line(b, "for (int a = 0; a < DIM * DIM; ++a) G[a] = egeo[(k * NGEO + a) * NP + i];");
  }
  dg_gen_emit_gvalues(b, dtab, ctx, "g_all[%d][i]", curved, 0);
  b->indent = 4;
  dg_strbuf_line(b, "}");
}

void dg_gen_emit_volume_node_c(dg_strbuf *b, const dg_element_ops *el, const dg_physics *ph,
                               const deriv_table *dtab, const dg_kernel_config *cfg,
                               dg_emit_ctx *ctx, int uses_x) {
  emit_c_flux_quantities(b, ph, dtab, ctx, 0);
  dg_strbuf_line(b, "for (int i = 0; i < NP; ++i) {");
  b->indent = 6;
  emit_load_node(b, uses_x);
  emit_volume_node(b, el, ph, dtab, cfg, ctx, "g_all[%d][j]", "");
  b->indent = 4;
  dg_strbuf_line(b, "}");
  b->indent = 2;
  dg_strbuf_line(b, "}");
  b->indent = 0;
  dg_strbuf_append(b, "}\n\n");
}

/* c dg_volume_curved (el->curved): per element of the chunk, the flux
 * quantities of every node, divergence rows contravariant with the node's
 * Ja (ghat_a = sum_d Ja_ad F_d), then per node their reference derivatives,
 * DV = (1/J) sum_a D_a ghat_a (the conservative form of
 * dg/opdata_curved.c), the chain rule for the other partials, the lift and
 * the store: the arithmetic of the cuda kernel, so the two agree to
 * round-off. */
void dg_gen_emit_volume_curved_c(dg_strbuf *b, const dg_element_ops *el, const dg_physics *ph,
                                 const deriv_table *dtab, const dg_kernel_config *cfg,
                                 dg_emit_ctx *ctx, int uses_x) {
  static const char *dn[3] = {"Dr", "Ds", "Dt"};
  int ng = dtab->ng, dim = el->dim, nd = dtab->nd;
  int nr = 0;
  for (int x = 0; x < dtab->n; x++)
    if (!dtab->d[x].div)
      nr += dg_flux_shape_size(dtab->d[x].node->args[0]->shape) * dim;
  emit_c_flux_quantities(b, ph, dtab, ctx, 1);
  dg_strbuf_line(b, "for (int i = 0; i < NP; ++i) {");
  b->indent = 6;
  emit_load_node(b, uses_x);
  if (nd > 0)
    dg_strbuf_line(b, "real DVa[%d] = {0};", nd);
  if (nr > 0)
    dg_strbuf_line(b, "real R[%d] = {0};", ng * dim);
  if (ng > 0) {
    dg_strbuf_line(b, "for (int j = 0; j < NP; ++j) {");
    for (int d = 0; d < dim; d++)
      dg_strbuf_line(b, "  const real %s = c_%s[i * NP + j];", dn[d], dn[d]);
    for (int x = 0; x < dtab->n; x++) {
      const deriv_entry *de = &dtab->d[x];
      if (de->div) {
        for (int row = 0; row < de->rows; row++) {
          dg_strbuf_indent(b);
          dg_strbuf_appendf(b, "  DVa[%d] +=", de->dbase + row);
          for (int a = 0; a < dim; a++)
            dg_strbuf_appendf(b, "%s %s * g_all[%d][j]", a ? " +" : "", dn[a],
                              de->gbase + row * dim + a);
          dg_strbuf_append(b, ";\n");
        }
        continue;
      }
      int gsz = dg_flux_shape_size(de->node->args[0]->shape);
      for (int c = 0; c < gsz; c++) {
        int g = de->gbase + c;
        dg_strbuf_indent(b);
        dg_strbuf_appendf(b, "  { const real v = g_all[%d][j];", g);
        for (int d = 0; d < dim; d++)
          dg_strbuf_appendf(b, " R[%d] += %s * v;", g * dim + d, dn[d]);
        dg_strbuf_append(b, " }\n");
      }
    }
    dg_strbuf_line(b, "}");
  }
  emit_curved_node_geometry(b); /* 1/J: the volume terms and the lift */
  if (nd > 0) {
    dg_strbuf_line(b, "real DV[%d];", nd);
    dg_strbuf_line(b, "for (int g = 0; g < %d; ++g) DV[g] = DVa[g] * ij;", nd);
  }
  if (nr > 0) {
    dg_strbuf_line(b, "/* chain rule with the node's geometric factors (curved) */");
    emit_chain_rule(b, dtab, "R[%d]", 1);
  }
  dg_strbuf_lines(b,
                  "real rl[NC];\n"
                  "for (int c = 0; c < NC; ++c) rl[c] = 0;\n"
                  "for (int mm = 0; mm < NFNFP; ++mm) {\n"
                  "  const real L = c_LIFT[i * NFNFP + mm];\n"
                  "  for (int c = 0; c < NC; ++c) rl[c] += L * fl[((long long)c * K + k) * NFNFP + mm];\n"
                  "}\n");
  dg_gen_emit_rhs_store(b, ph, cfg, ctx, "ij * rl[%d]", "res[o]");
  b->indent = 4;
  dg_strbuf_line(b, "}");
  b->indent = 2;
  dg_strbuf_line(b, "}");
  b->indent = 0;
  dg_strbuf_append(b, "}\n\n");
}
