/* work_mode mma: the products of the gemm dg_volume on the tensor cores
 * (the fragment tables, the fp64 and split-TF32 steps, the warp tasks of
 * the mma work split, sparse_lift's row tiles); see gen_volume_gemm.c. */
#include "operators/gen_volume_mma.h"

#include "operators/gen_jit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The sources' layout in shared memory, as factors of the generated
 * offsets: k-rows PADE apart and elements 1 (compact_smem: rows 1 apart,
 * elements FLES). */
static const char *src_row(const gemm_plan *p) { return p->compact ? "" : " * PADE"; }
static const char *src_elem(const gemm_plan *p) { return p->compact ? " * FLES" : ""; }

/* The shared address text of a lane's source value in k-step ks of the
 * source at offset src (col4: float's second half, 4 rows on).  strided:
 * the step is one of mma_strided_steps (base pointer xk, lane rows KW
 * apart), else base pointer x (lane rows consecutive). */
static void mma_source_at(char *at, size_t n, const gemm_plan *p, int src, int strided,
                          int col4) {
  const char *row = src_row(p);
  int rs = p->compact ? 1 : p->pade;
  char tail[16] = "";
  if (col4)
    snprintf(tail, sizeof tail, " + 4%s", row);
  if (strided)
    snprintf(at, n, "xk[%d + (ks >> 2) * %d + (ks & 3)%s%s]", src, 4 * p->kw * rs, row, tail);
  else
    snprintf(at, n, "x[%d + ks * %d%s]", src, p->kw * rs, tail);
}

/* mma: g_AF holds each operator as A-fragments, [row tile][k-step][lane]
 * [NAH] with lane l holding entries (TM*tile + l/4 + 8(h%2), column
 * dg_gen_mma_step_row(step, l%4, h/2)), h < NAH: one coalesced load per lane per
 * tensor-core step.  With mma_pairs the operator is the B side of
 * m16n8k{4,8} (B(k, n) = M(n, k)): entries (8*tile + l/4,
 * dg_gen_mma_step_row(step, l%4, h)). */
void dg_gen_mma_emit_fragments(dg_strbuf *b, const dg_element_ops *el, const gemm_plan *p) {
  int hs = p->nah, ksl = p->ks[el->dim];
  int n = p->afrag[el->dim] + (p->sparse ? p->lfrag[p->nrc * ksl] : p->nrc * ksl) * 32 * hs, z = 0;
  if (p->pairs)
    dg_strbuf_appendf(b, "/* g_AF: D_r, ..., LIFT as m16n8k%d B-fragments (transposed) "
                         "[tile][k-step][lane][%d] */\n", p->kw, hs);
  else
    dg_strbuf_appendf(b, "/* g_AF: D_r, ..., LIFT as m%dn8k%d A-fragments [tile][k-step][lane][%d] */\n",
                      p->tm, p->kw, hs);
  dg_strbuf_appendf(b, "__device__ __align__(16) const real g_AF[%d] = {", n);
  for (int m = 0; m <= el->dim; m++)
    for (int ti = 0; ti < p->nrc; ti++)
      for (int k = 0; k < p->ks[m]; k++) {
        if (m == el->dim && p->sparse && p->lfrag[ti * ksl + k + 1] == p->lfrag[ti * ksl + k])
          continue; /* sparse_lift: an all-zero step, left out */
        for (int l = 0; l < 32; l++)
          for (int h = 0; h < hs; h++, z++) {
            if (z % 4 == 0)
              dg_strbuf_append(b, "\n  ");
            double v = dg_gen_mma_frag_value(el, p, m, ti, k, l, h);
            if (p->exact[m]) /* the TF32 value the steps use (its small part is noise) */
              v = dg_gen_tf32_big(v);
            dg_strbuf_appendf(b, p->rs == 4 ? "%.9ef, " : "%.17e, ", v);
          }
      }
  dg_strbuf_append(b, "\n};\n");
}

/* mma: task (part, ti, te)'s results dd[T] into their OUT slots; expects
 * lane, part, ti and te. */
static void emit_mma_store(dg_strbuf *b, const gemm_plan *p, const char *T) {
  if (p->pairs) { /* D rows (element l/4, first or second of the pair), nodes 2(l%4) + {0,1} */
    dg_strbuf_line(b, "const int s0 = g_part_slot[part], ns = (g_part_slot[part + 1] - s0) / 2;");
    dg_strbuf_line(b, "#pragma unroll");
    dg_strbuf_line(b, "for (int z = 0; z < %d; ++z) {", p->maxslots);
    dg_strbuf_line(b, "  if (z < ns) {");
    dg_strbuf_line(b, "    real *o = s_out + ((s0 + 2 * z) * NPR + ti * 8 + (lane & 3) * 2) * PADE + te * 8 + (lane >> 2);");
    dg_strbuf_line(b, "    o[0] = dd[%s][z][0];", T);
    dg_strbuf_line(b, "    o[PADE] = dd[%s][z][1];", T);
    dg_strbuf_line(b, "    o[NPR * PADE] = dd[%s][z][2];", T);
    dg_strbuf_line(b, "    o[NPR * PADE + PADE] = dd[%s][z][3];", T);
    dg_strbuf_line(b, "  }");
    dg_strbuf_line(b, "}");
    return;
  }
  dg_strbuf_line(b, "const int s0 = g_part_slot[part], ns = g_part_slot[part + 1] - s0;");
  dg_strbuf_line(b, "#pragma unroll");
  dg_strbuf_line(b, "for (int z = 0; z < %d; ++z) {", p->maxslots);
  dg_strbuf_line(b, "  if (z < ns) {");
  dg_strbuf_line(b, "    real *o = s_out + ((s0 + z) * NPR + ti * %d + (lane >> 2)) * PADE + te * 8 + (lane & 3) * 2;",
                 p->tm);
  dg_strbuf_line(b, "    o[0] = dd[%s][z][0];", T);
  dg_strbuf_line(b, "    o[1] = dd[%s][z][1];", T);
  if (p->tm == 16) {
    dg_strbuf_line(b, "    o[8 * PADE] = dd[%s][z][2];", T);
    dg_strbuf_line(b, "    o[8 * PADE + 1] = dd[%s][z][3];", T);
  }
  dg_strbuf_line(b, "  }");
  dg_strbuf_line(b, "}");
}

/* mma: task -> (part, row tile ti, element tile te), one line at the
 * current indent + 4 (inside the task's if). */
static void emit_mma_task_decode(dg_strbuf *b, const gemm_plan *p) {
  dg_strbuf_line(b, "    const int part = task %% %d, r = task / %d, te = r %% %d, ti = r / %d;",
                 p->nparts, p->nparts, p->nte, p->nte);
}

/* split TF32: the lane's n operator values of k-step kf (a float4 or a
 * float2 at af), as TF32 big parts ab[] and, unless the operator is TF32
 * values already (exact), small parts as[]. */
static void emit_tf32_operator(dg_strbuf *b, const char *kf, int n, int exact) {
  static const char xyzw[] = "xyzw";
  dg_strbuf_line(b, "      const float%d a = *(const float%d *)(af + %s * %d);", n, n, kf, 32 * n);
  if (exact) {
    dg_strbuf_indent(b);
    dg_strbuf_appendf(b, "      const unsigned ab[%d] = {", n);
    for (int h = 0; h < n; h++)
      dg_strbuf_appendf(b, "%s__float_as_uint(a.%c)", h ? ", " : "", xyzw[h]);
    dg_strbuf_append(b, "}; /* TF32 values */\n");
    return;
  }
  dg_strbuf_line(b, "      unsigned ab[%d], as[%d];", n, n);
  for (int h = 0; h < n; h += 2)
    dg_strbuf_line(b,
                   "      DG_TF32_SPLIT(a.%c, ab[%d], as[%d]); DG_TF32_SPLIT(a.%c, ab[%d], as[%d]);",
                   xyzw[h], h, h, xyzw[h + 1], h + 1, h + 1);
}

/* mma in float, one k-step of 8 for items k0..k1 of one matrix: the A
 * fragment (4 reals a lane) split once into TF32 big and small parts, then
 * per item its two B values (columns l%4 and l%4 + 4 of the step; zero
 * past the matrix's last column, rem < 8) and the three split steps (an
 * operator of TF32 values: no split, two steps). */
static void emit_tf32_step(dg_strbuf *b, const gemm_plan *p, int k0, int k1, int rem,
                           int strided, const char *T, const char *kf) {
  int exact = p->exact[p->item[k0].mat];
  emit_tf32_operator(b, kf, 4, exact);
  for (int k = k0; k < k1; k++) {
    const mma_item *it = &p->item[k];
    int sl = p->item_slot[k];
    for (int h = 0; h < 2; h++) {
      char at[96];
      mma_source_at(at, sizeof at, p, it->src, strided, h);
      if (4 * h + 4 <= rem)
        dg_strbuf_line(b, "      const float b%d_%d = %s;", k - k0, h, at);
      else if (4 * h >= rem)
        dg_strbuf_line(b, "      const float b%d_%d = 0.0f;", k - k0, h);
      else
        dg_strbuf_line(b, "      const float b%d_%d = (lane & 3) + %d < %d ? %s : 0.0f;", k - k0,
                       h, 4 * h, rem, at);
    }
    if (exact)
      dg_strbuf_line(b,
                     "      DG_TMMA2(dd[%s][%d][0], dd[%s][%d][1], dd[%s][%d][2], dd[%s][%d][3], "
                     "ab, b%d_0, b%d_1);",
                     T, sl, T, sl, T, sl, T, sl, k - k0, k - k0);
    else
      dg_strbuf_line(b,
                     "      DG_TMMA3(dd[%s][%d][0], dd[%s][%d][1], dd[%s][%d][2], dd[%s][%d][3], "
                     "ab, as, b%d_0, b%d_1);",
                     T, sl, T, sl, T, sl, T, sl, k - k0, k - k0);
  }
}

/* mma_pairs, one k-step for items k0..k1 of one matrix: the operator is
 * the B fragment (1 double or 2 floats a lane, split once in float), each
 * item's two sources the A fragment (rows l/4 and l/4 + 8: element l/4 of
 * the first and of the second source; columns past the matrix's last, rem <
 * KW, and a missing second source read as zeros). */
static void emit_pair_step(dg_strbuf *b, const gemm_plan *p, int k0, int k1, int rem,
                           int strided, const char *T, const char *kf) {
  int tf32 = p->kw == 8, exact = p->exact[p->item[k0].mat];
  if (tf32) {
    emit_tf32_operator(b, kf, 2, exact);
  } else {
    dg_strbuf_line(b, "      const double a = af[%s * 32];", kf);
  }
  const char *ty = tf32 ? "float" : "double", *zero = tf32 ? "0.0f" : "0.0";
  for (int k = k0; k < k1; k++) {
    const mma_item *it = &p->item[k];
    int sl = p->item_slot[k];
    /* x%d_%d: value h of the lane's A fragment (tf32: a[h]; fp64: a0, a1) */
    for (int h = 0; h < (tf32 ? 4 : 2); h++) {
      int second = h % 2, col = 4 * (h / 2); /* row g + 8 second, column t + col */
      if (second && it->acc2 < 0) {
        dg_strbuf_line(b, "      const %s x%d_%d = %s;", ty, k - k0, h, zero);
        continue;
      }
      int src = second ? it->src2 : it->src;
      char at[96];
      mma_source_at(at, sizeof at, p, src, strided, col != 0);
      if (col + 4 <= rem)
        dg_strbuf_line(b, "      const %s x%d_%d = %s;", ty, k - k0, h, at);
      else if (col >= rem)
        dg_strbuf_line(b, "      const %s x%d_%d = %s;", ty, k - k0, h, zero);
      else
        dg_strbuf_line(b, "      const %s x%d_%d = (lane & 3) + %d < %d ? %s : %s;", ty, k - k0, h,
                       col, rem, at, zero);
    }
    if (tf32 && exact)
      dg_strbuf_line(b,
                     "      DG_TMMA2T(dd[%s][%d][0], dd[%s][%d][1], dd[%s][%d][2], dd[%s][%d][3], "
                     "x%d_0, x%d_1, x%d_2, x%d_3, ab);",
                     T, sl, T, sl, T, sl, T, sl, k - k0, k - k0, k - k0, k - k0);
    else if (tf32)
      dg_strbuf_line(b,
                     "      DG_TMMA3T(dd[%s][%d][0], dd[%s][%d][1], dd[%s][%d][2], dd[%s][%d][3], "
                     "x%d_0, x%d_1, x%d_2, x%d_3, ab, as);",
                     T, sl, T, sl, T, sl, T, sl, k - k0, k - k0, k - k0, k - k0);
    else
      dg_strbuf_line(b,
                     "      DG_DMMA16(dd[%s][%d][0], dd[%s][%d][1], dd[%s][%d][2], dd[%s][%d][3], "
                     "x%d_0, x%d_1, a);",
                     T, sl, T, sl, T, sl, T, sl, k - k0, k - k0);
  }
}

/* mma, phase D: the k-steps a..e of items k0..k1 (one matrix; a..e all
 * strided, all consecutive, or the last partial step), their fragments at
 * af[(ks + kfo) * 32 NAH]: a loop, or one step. */
static void emit_step_run(dg_strbuf *b, const gemm_plan *p, int k0, int k1, int a, int e,
                          int kfo, const char *T) {
  if (a >= e)
    return;
  int len = p->item[k0].len, full = len / p->kw, rem = len % p->kw, hs = p->nah;
  int strided = a < dg_gen_mma_strided_steps(p, len), partial = a == full && rem;
  char kf[32] = "ks";
  /* mma_unroll: every k-step in the open, so later steps' fragment loads
   * issue before earlier steps' products (H100, tuning/RESULTS.md session
   * 21: Maxwell fp64 N = 7 1.03 -> 0.97 ms, float 0.578 -> 0.563); by 2
   * otherwise, fewer registers */
  const char *unroll = p->unroll_k ? "#pragma unroll" : "#pragma unroll 2";
  if (kfo)
    snprintf(kf, sizeof kf, "(ks %c %d)", kfo > 0 ? '+' : '-', abs(kfo));
  if (partial) {
    dg_strbuf_line(b, "    { /* last k-step: %d of its %d columns exist */", rem, p->kw);
    dg_strbuf_line(b, "      const int ks = %d;", full);
  } else if (e - a == 1 && p->sparse) {
    if (strided)
      dg_strbuf_line(b, "    { /* k-step %d, rows %d apart */", a, p->kw);
    else
      dg_strbuf_line(b, "    { /* k-step %d */", a);
    dg_strbuf_line(b, "      const int ks = %d;", a);
  } else if (strided) {
    dg_strbuf_line(b, "    %s", unroll);
    if (a)
      dg_strbuf_line(b, "    for (int ks = %d; ks < %d; ++ks) { /* rows %d apart */", a, e, p->kw);
    else
      dg_strbuf_line(b, "    for (int ks = 0; ks < %d; ++ks) { /* rows %d apart */", e, p->kw);
  } else {
    dg_strbuf_line(b, "    %s", unroll);
    dg_strbuf_line(b, "    for (int ks = %d; ks < %d; ++ks) {", a, e);
  }
  int r = partial ? rem : p->kw;
  if (p->pairs || p->kw == 8) {
    if (p->pairs)
      emit_pair_step(b, p, k0, k1, r, strided, T, kf);
    else
      emit_tf32_step(b, p, k0, k1, r, strided, T, kf);
    dg_strbuf_line(b, "    }");
    return;
  }
  if (hs == 2)
    dg_strbuf_line(b, "      const double2 a = *(const double2 *)(af + %s * 64);", kf);
  else
    dg_strbuf_line(b, "      const double a = af[%s * 32];", kf);
  for (int k = k0; k < k1; k++) {
    const mma_item *it = &p->item[k];
    int sl = p->item_slot[k];
    char at[96];
    mma_source_at(at, sizeof at, p, it->src, strided, 0);
    if (!partial)
      dg_strbuf_line(b, "      const double b%d = %s;", k - k0, at);
    else
      dg_strbuf_line(b, "      const double b%d = (lane & 3) < %d ? %s : 0.0;", k - k0, rem, at);
    if (hs == 2)
      dg_strbuf_line(b,
                     "      DG_DMMA16(dd[%s][%d][0], dd[%s][%d][1], dd[%s][%d][2], "
                     "dd[%s][%d][3], a.x, a.y, b%d);",
                     T, sl, T, sl, T, sl, T, sl, k - k0);
    else
      dg_strbuf_line(b, "      DG_DMMA(dd[%s][%d][0], dd[%s][%d][1], a, b%d);", T, sl, T, sl,
                     k - k0);
  }
  dg_strbuf_line(b, "    }");
}

/* The end of the run of items from k0 on in part q that share k0's
 * matrix (one A-fragment table, one k-step loop). */
static int matrix_items_end(const gemm_plan *p, int q, int k0) {
  int k1 = k0;
  while (k1 < p->part_first[q + 1] && p->item[k1].mat == p->item[k0].mat)
    k1++;
  return k1;
}

/* The lift's matrix index (sparse_lift takes its zero steps out). */
static int lift_matrix(const gemm_plan *p) { return p->seg[p->first[p->lift0]].mat; }

/* sparse_lift, phase D: the lift's steps of items k0..k1 for row tile ti
 * (known at generation time), each run of consecutive nonzero steps of one
 * region (strided, consecutive, partial) one emit_step_run on the
 * compacted fragments.  Why straight code per row tile (H100, Maxwell
 * fp64 N = 7, tuning/RESULTS.md session 17): one loop over every step with
 * a warp-uniform test of a step mask keeps the addresses affine, but no
 * step's loads overlap the previous step's products any more (1.136 ->
 * 1.225 ms); a table of step indices costs the loop its constant offsets
 * (session 16: 1.138 -> 1.515); this form 1.136 -> 1.096 ms, and N = 6
 * 0.701 -> 0.682. */
static void emit_sparse_tile(dg_strbuf *b, const gemm_plan *p, int k0, int k1, int ti,
                             const char *T) {
  int len = p->item[k0].len, ks = p->ks[p->item[k0].mat];
  int full = len / p->kw, nstr = dg_gen_mma_strided_steps(p, len);
  const int *f = p->lfrag + ti * ks; /* step k holds a nonzero: f[k + 1] > f[k] */
  for (int a = 0; a < ks;) {
    if (f[a + 1] == f[a]) {
      a++;
      continue;
    }
    int region = a < nstr ? 0 : a < full ? 1 : 2, e = a + 1;
    while (e < ks && f[e + 1] > f[e] && (e < nstr ? 0 : e < full ? 1 : 2) == region)
      e++;
    emit_step_run(b, p, k0, k1, a, e, f[a] - a, T);
    a = e;
  }
}

/* sparse_lift: the row tiles' steps of the lift items k0.. as functions
 * dg_lift_<k0>_<ti>, forced inline, emitted before the kernel.  Why not
 * the same code in the kernel's switch cases: NVVM's optimizer takes time
 * quadratic in the cases of one function (fp64 N = 7, two parts of 15 row
 * tiles: 4.3 s of a 5 s compile here, 11 s on the H200 machine's cores),
 * while forced-inline functions of the same code give the same PTX (the
 * shipped N = 7 variant's byte for byte) in 1.5 s (tuning/RESULTS.md,
 * session 23).  The results array is the caller's dd[task], passed by
 * address (gone after inlining). */
void dg_gen_mma_emit_sparse_functions(dg_strbuf *b, const gemm_plan *p) {
  int tf32 = p->kw == 8;
  for (int q = 0; q < p->nparts; q++)
    for (int k0 = p->part_first[q]; k0 < p->part_first[q + 1];) {
      int m = p->item[k0].mat, k1 = matrix_items_end(p, q, k0);
      for (int ti = 0; m == lift_matrix(p) && ti < p->nrc; ti++) {
        const int *f = p->lfrag + ti * p->ks[m];
        dg_strbuf_appendf(b,
                          "/* sparse_lift: row tile %d, items %d..%d: %d of %d k-steps hold a "
                          "nonzero */\n",
                          ti, k0, k1 - 1, f[p->ks[m]] - f[0], p->ks[m]);
        dg_strbuf_appendf(b,
                          "static __device__ __forceinline__ void dg_lift_%d_%d(%s (*dd)[%d][%d], "
                          "const real *af, const real *x%s, int lane) {\n",
                          k0, ti, tf32 ? "float" : "double", p->maxslots, p->nd,
                          p->strided ? ", const real *xk" : "");
        dg_strbuf_appendf(b, "  (void)x;%s (void)lane;\n", p->strided ? " (void)xk;" : "");
        int indent = b->indent;
        b->indent = 0; /* the step emitters' own 4 spaces */
        emit_sparse_tile(b, p, k0, k1, ti, "0");
        b->indent = indent;
        dg_strbuf_append(b, "}\n");
      }
      k0 = k1;
    }
}

/* sparse_lift, phase D: the lift's steps of the items from k0 on, a
 * switch over the row tile ti into emit_sparse_functions' functions. */
static void emit_sparse_steps(dg_strbuf *b, const gemm_plan *p, int k0, const char *T) {
  dg_strbuf_line(b, "    const real *af = g_AF + %d + lane * %d; /* sparse_lift: compacted */",
                 p->afrag[p->item[k0].mat], p->nah);
  dg_strbuf_line(b, "    switch (ti) {");
  for (int ti = 0; ti < p->nrc; ti++)
    dg_strbuf_line(b, "    case %d: dg_lift_%d_%d(&dd[%s], af, x%s, lane); break;", ti, k0, ti, T,
                   p->strided ? ", xk" : "");
  dg_strbuf_line(b, "    }");
}

/* mma, phase D: the warp tasks (row tile ti, element tile te, part) on the
 * tensor cores.  Each part is emitted as straight code: per matrix, one
 * k-step loop that loads the A fragment once and runs every item of that
 * matrix on it, each into its own accumulator (independent chains).  The
 * results stay in registers until all warps have read their sources (OUT
 * may overlay them), then go to their slots. */
void dg_gen_mma_emit_products(dg_strbuf *b, const gemm_plan *p) {
  int hs = p->nah, nd = p->nd, tf32 = p->kw == 8;
  dg_strbuf_line(b, "/* D: warp tasks (row tile, element tile, part) on the tensor cores; whole");
  if (p->pairs) {
    dg_strbuf_line(b, " * warps only (a partial last warp idles).  Pairs: sources on the A side, lane");
    dg_strbuf_line(b, " * l holds A (element l/4 of the first (rows 0-7) and second source (rows 8-15),");
    dg_strbuf_line(b, " * k l%%4 + 4h'), B (the operator: k l%%4 + 4h', row l/4 of the tile), D (element");
    dg_strbuf_line(b, " * l/4 of both sources, tile rows 2(l%%4) + {0,1})%s */",
                   tf32 ? "; split TF32: x = big + small, three steps (two for an operator "
                          "of TF32 values)"
                        : "");
  } else if (tf32) {
    dg_strbuf_line(b, " * warps only (a partial last warp idles).  Lane l holds A (rows l/4 + 8h,");
    dg_strbuf_line(b, " * k l%%4 + 4h'), B (k l%%4 + 4h', element l/4), D (rows l/4 + 8h, elements");
    dg_strbuf_line(b, " * 2(l%%4) + {0,1}); split TF32: x = big + small, three steps (two for an");
    dg_strbuf_line(b, " * operator of TF32 values) */");
  } else {
    dg_strbuf_line(b, " * warps only (a partial last warp idles).  Lane l holds A (rows l/4 + 8h,");
    dg_strbuf_line(b, " * k l%%4), B (k l%%4, element l/4), D (rows l/4 + 8h, elements 2(l%%4) + {0,1}) */");
  }
  dg_strbuf_line(b, "{");
  b->indent += 2;
  dg_strbuf_line(b, "const int lane = tid & 31, warp = tid >> 5;");
  /* the lane's source: element l/4, k-row l%4 (strided_k: 4 (l%4)) */
  dg_strbuf_line(b, "const real *xb = smem + (lane >> 2)%s + (lane & 3)%s;", src_elem(p),
                 src_row(p));
  if (p->strided)
    dg_strbuf_line(b, "const real *xkb = smem + (lane >> 2)%s + (lane & 3) * %d%s; /* strided_k */",
                   src_elem(p), p->kw, src_row(p));
  const char *T = p->alias_out ? "tt" : "0"; /* results wait in registers, or go at once */
  dg_strbuf_line(b, "%s dd[%d][%d][%d]; /* [task][slot][h] */", tf32 ? "float" : "double",
                 p->alias_out ? p->tpw : 1, p->maxslots, nd);
  dg_strbuf_line(b, "#pragma unroll");
  dg_strbuf_line(b, "for (int tt = 0; tt < %d; ++tt) {", p->tpw);
  dg_strbuf_line(b, "  #pragma unroll");
  dg_strbuf_line(b, "  for (int z = 0; z < %d; ++z) dd[%s][z / %d][z %% %d] = 0;", p->maxslots * nd,
                 T, nd, nd);
  dg_strbuf_line(b, "  const int task = warp + tt * %d;", p->nwarps);
  dg_strbuf_line(b, "  if (warp < %d && task < %d) {", p->nwarps, p->ntask);
  emit_mma_task_decode(b, p);
  const char *el = src_elem(p); /* the element tile */
  if (p->strided) {
    dg_strbuf_line(b, "    const real *x = xb + te * 8%s, *xk = xkb + te * 8%s;", el, el);
    dg_strbuf_line(b, "    (void)x; (void)xk; (void)ti;");
  } else {
    dg_strbuf_line(b, "    const real *x = xb + te * 8%s;", el);
    dg_strbuf_line(b, "    (void)x; (void)ti;");
  }
  dg_strbuf_line(b, "    switch (part) {");
  b->indent += 4;
  for (int q = 0; q < p->nparts; q++) {
    dg_strbuf_line(b, "case %d: {", q);
    for (int k0 = p->part_first[q]; k0 < p->part_first[q + 1];) {
      int m = p->item[k0].mat, k1 = matrix_items_end(p, q, k0);
      /* items k0..k1 share matrix m (and so its length and k-steps) */
      int len = p->item[k0].len, full = len / p->kw, nstr = dg_gen_mma_strided_steps(p, len);
      dg_strbuf_line(b, "  { /* matrix %d: %d item(s) */", m, k1 - k0);
      if (p->sparse && m == lift_matrix(p)) {
        emit_sparse_steps(b, p, k0, T);
      } else {
        dg_strbuf_line(b, "    const real *af = g_AF + %d + ti * %d + lane * %d;", p->afrag[m],
                       p->ks[m] * 32 * hs, hs);
        /* loops: the strided k-steps, the consecutive ones, the last partial step */
        emit_step_run(b, p, k0, k1, 0, nstr, 0, T);
        emit_step_run(b, p, k0, k1, nstr, full, 0, T);
        emit_step_run(b, p, k0, k1, full, (len + p->kw - 1) / p->kw, 0, T);
      }
      dg_strbuf_line(b, "  }");
      k0 = k1;
    }
    dg_strbuf_line(b, "  break;");
    dg_strbuf_line(b, "}");
  }
  b->indent -= 4;
  dg_strbuf_line(b, "    }");
  if (!p->alias_out) {
    b->indent += 4;
    emit_mma_store(b, p, T);
    b->indent -= 4;
  }
  dg_strbuf_line(b, "  }");
  dg_strbuf_line(b, "}");
  if (p->alias_out) {
    dg_strbuf_line(b, "__syncthreads(); /* OUT overlays the sources */");
    dg_strbuf_line(b, "#pragma unroll");
    dg_strbuf_line(b, "for (int tt = 0; tt < %d; ++tt) {", p->tpw);
    dg_strbuf_line(b, "  const int task = warp + tt * %d;", p->nwarps);
    dg_strbuf_line(b, "  if (warp < %d && task < %d) {", p->nwarps, p->ntask);
    emit_mma_task_decode(b, p);
    b->indent += 4;
    emit_mma_store(b, p, T);
    b->indent -= 4;
    dg_strbuf_line(b, "  }");
    dg_strbuf_line(b, "}");
  }
  b->indent -= 2;
  dg_strbuf_line(b, "}");
}

/* The tensor-core steps of the precision, from operators/jit/.
 * double (mma_fp64.cuh): the fp64 steps m8n8k4 and m16n8k4 (the test
 * emulator defines them itself).  No volatile: the steps have no side
 * effects, and the compiler may then move the fragment loads ahead of them.
 * float (mma_tf32.cuh): the TF32 step (m16n8k8, fp32 accumulation; the test emulator
 * defines DG_TMMA itself), the split x = big + small, and the three split
 * steps, small products first so the big one lands on the most accurate
 * sum (two where the operator is TF32 values, plan_tf32_exact).  The
 * split is bit masks, not cvt.rna: big = x with its low 13
 * mantissa bits cleared (a TF32 value), small = x - big (exact in fp32,
 * at most 13 significant bits) cleared the same way, so both operands are
 * valid TF32 and x - big - small loses at most 2 of x's 24 bits, for one
 * logic op, one add and one logic op a value. */
void dg_gen_mma_emit_steps(dg_strbuf *b, int is_float) {
  dg_gen_jit(b, is_float ? "operators/jit/mma_tf32.cuh" : "operators/jit/mma_fp64.cuh");
}
