/* The plan of the gemm / mma dg_volume (gen_gemm_plan.h). */
#include "operators/gen_gemm_plan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "operators/tile_order.h"

static int odd_stride(int epb) { return epb | 1; }

/* ---- mma work split ----------------------------------------------------------
 * Why: a tensor-core step needs its A fragment (the operator, from global
 * memory) and a B fragment (the sources, from shared memory), and waits for
 * the previous step into the same accumulator.  A part that runs several
 * items of one matrix side by side loads each A fragment once for all of
 * them and keeps that many independent accumulations in flight; enough
 * parts keep every warp busy.  The cost model counts L1 wavefronts (the
 * unit the kernels are bound by, tuning/RESULTS.md): per k-step 2 for each
 * item's B fragment plus TM/4 for the matrix's A fragment. */

static int item_ks(const mma_item *it, int kw) { return (it->len + kw - 1) / kw; }

static int cmp_item(const void *x, const void *y) {
  const mma_item *a = x, *b = y;
  if (a->mat != b->mat)
    return a->mat - b->mat;
  return a->acc - b->acc;
}

/* Cuts items [0, n) into np non-empty contiguous parts of about equal cost. */
static void split_contiguous(const mma_item *it, int n, int np, int kw, int *first) {
  long total = 0, cum = 0;
  for (int k = 0; k < n; k++)
    total += item_ks(&it[k], kw);
  int k = 0;
  first[0] = 0;
  for (int q = 1; q < np; q++) {
    double target = (double)total * q / np;
    while (k < n - (np - q) &&
           (k == first[q - 1] || (double)cum + 0.5 * item_ks(&it[k], kw) <= target))
      cum += item_ks(&it[k++], kw);
    first[q] = k;
  }
  first[np] = n;
}

/* The L1 wavefronts of one part's straight-line code: a step's source
 * fragment is KW/4 loads of one real a lane (two fragments for a pair), its
 * operator fragment NAH reals a lane (128 bytes a wavefront). */
static long part_cost(const gemm_plan *p, int q) {
  long cost = 0, b = (long)p->kw * p->rs / 16, a = (long)p->nah * p->rs / 4;
  for (int k = p->part_first[q]; k < p->part_first[q + 1]; k++) {
    const mma_item *it = &p->item[k];
    cost += (it->acc2 >= 0 ? 2 : 1) * b * item_ks(it, p->kw);
    if (k == p->part_first[q] || p->item[k - 1].mat != it->mat)
      cost += a * item_ks(it, p->kw);
  }
  return cost;
}

/* Registers a lane keeps the results of its tasks in until the stores. */
static int held_registers(const gemm_plan *p, int alias) {
  return (alias ? p->tpw : 1) * p->maxslots * p->nd * p->rs / 4;
}

/* Fills item, part_first, item_slot, part_slot0 and slot_acc for nparts. */
static int fill_split(gemm_plan *p, int nparts) {
  p->nparts = nparts;
  free(p->part_first);
  free(p->part_slot0);
  p->part_first = calloc((size_t)nparts + 1, sizeof *p->part_first);
  p->part_slot0 = calloc((size_t)nparts + 1, sizeof *p->part_slot0);
  if (!p->part_first || !p->part_slot0)
    return 0;
  split_contiguous(p->item, p->nitem, nparts, p->kw, p->part_first);
  p->nslot = 0;
  p->maxslots = 0;
  int w = p->pairs ? 2 : 1; /* OUT slots a register slot fills */
  for (int q = 0; q < nparts; q++) {
    p->part_slot0[q] = p->nslot;
    int ns = 0;
    for (int k = p->part_first[q]; k < p->part_first[q + 1]; k++) {
      int slot = -1;
      for (int j = p->part_first[q]; j < k && slot < 0; j++)
        if (p->item[j].acc == p->item[k].acc && p->item[j].acc2 == p->item[k].acc2)
          slot = p->item_slot[j];
      if (slot < 0) {
        slot = ns++;
        p->slot_acc[p->nslot + w * slot] = p->item[k].acc;
        if (p->pairs)
          p->slot_acc[p->nslot + w * slot + 1] = p->item[k].acc2;
      }
      p->item_slot[k] = slot;
    }
    p->nslot += w * ns;
    p->maxslots = ns > p->maxslots ? ns : p->maxslots;
  }
  p->part_slot0[nparts] = p->nslot;
  p->ntask = p->nrc * p->nte * nparts;
  p->tpw = (p->ntask + p->nwarps - 1) / p->nwarps;
  return 1;
}

/* Chooses the number of parts: the least time of the busiest warp (tasks
 * go round-robin, task t to warp t % nwarps) among the splits whose shared
 * memory fits a block (227 KiB) and whose results fit 64 registers a lane,
 * preferring those whose OUT fits over the sources (else OUT takes shared
 * memory of its own, and each task's results go there at once instead of
 * waiting in registers). */
static int plan_mma_split(gemm_plan *p, int nwarps, int nte) {
  p->nwarps = nwarps;
  p->nte = nte;
  p->nitem = p->nseg - p->first[p->prod0];
  p->item = calloc((size_t)p->nitem, sizeof *p->item);
  p->item_slot = calloc((size_t)p->nitem, sizeof *p->item_slot);
  p->slot_acc = calloc((size_t)p->nitem + 1, 2 * sizeof *p->slot_acc);
  if (!p->item || !p->item_slot || !p->slot_acc)
    return 0;
  for (int a = p->prod0, k = 0; a < p->nacc; a++)
    for (int sg = p->first[a]; sg < p->first[a + 1]; sg++, k++)
      p->item[k] = (mma_item){a, p->seg[sg].mat, p->seg[sg].src, p->seg[sg].len, -1, 0};
  qsort(p->item, (size_t)p->nitem, sizeof *p->item, cmp_item);
  if (p->pairs) { /* neighbours of one matrix side by side (the accumulators
                   * in order: the same pairs under every matrix of a
                   * divergence, so they share their registers) */
    int n = 0;
    for (int k = 0; k < p->nitem; n++) {
      p->item[n] = p->item[k];
      if (k + 1 < p->nitem && p->item[k + 1].mat == p->item[k].mat) {
        p->item[n].acc2 = p->item[k + 1].acc;
        p->item[n].src2 = p->item[k + 1].src;
        k += 2;
      } else {
        k += 1;
      }
    }
    p->nitem = n;
  }
  int best = 1, best_rank = -1;
  long best_span = 0;
  int maxp = p->nitem < 32 ? p->nitem : 32;
  for (int np = 1; np <= maxp; np++) {
    if (!fill_split(p, np))
      return 0;
    long *cost = calloc((size_t)np, sizeof *cost);
    long *busy = calloc((size_t)nwarps, sizeof *busy);
    if (!cost || !busy) {
      free(cost);
      free(busy);
      return 0;
    }
    for (int q = 0; q < np; q++)
      cost[q] = part_cost(p, q);
    long span = 0;
    for (int t = 0; t < p->ntask; t++) {
      busy[t % nwarps] += cost[t % np];
      span = busy[t % nwarps] > span ? busy[t % nwarps] : span;
    }
    free(cost);
    free(busy);
    size_t out = (size_t)p->nslot * p->npr * p->pade;
    int alias = out <= p->off_out;
    int fits = (alias ? p->off_out : p->off_out + out) * (size_t)p->rs <= 227 * 1024;
    int rank = 4 * fits + 2 * (held_registers(p, alias) <= 64) + alias;
    if (rank > best_rank || (rank == best_rank && span < best_span)) {
      best = np;
      best_span = span;
      best_rank = rank;
    }
  }
  return fill_split(p, best);
}

/* Tile shapes: mma rows in tiles of TM and each matrix's k in steps of KW
 * (the fragment table's offsets), gemm RC rows a thread. */
static void plan_tiles(gemm_plan *p, const dg_element_ops *el, const dg_kernel_config *cfg,
                       int is_float) {
  int dim = el->dim, np = el->Np, nfnfp = el->Nfaces * el->Nfp;
  p->mma = cfg->work_mode == DG_WORK_MMA;
  p->strided = p->mma && cfg->strided_k;
  p->unroll_k = p->mma && cfg->mma_unroll;
  if (p->mma) { /* rows in tiles of TM; each matrix's k in steps of KW */
    p->pairs = cfg->mma_pairs;
    p->tm = cfg->mma_rows; /* 8 with pairs (dg_kernel_config_check) */
    p->kw = is_float ? 8 : 4;
    p->nah = p->pairs ? p->kw / 4 : is_float ? 4 : p->tm / 8;
    p->nd = p->pairs ? 4 : p->tm / 4;
    p->npr = (np + p->tm - 1) / p->tm * p->tm;
    p->rc = p->tm;
    p->nrc = p->npr / p->tm;
    int off = 0;
    for (int m = 0; m <= dim; m++) {
      p->ks[m] = ((m < dim ? np : nfnfp) + p->kw - 1) / p->kw;
      p->afrag[m] = off;
      off += p->nrc * p->ks[m] * 32 * p->nah;
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
}

/* The accumulators and their segments: divergence rows, the other
 * partials, the lifts (their sources' offsets in shared memory). */
static void plan_segments(gemm_plan *p, const dg_element_ops *el, const deriv_table *dt,
                          int ncomp, int epb) {
  int dim = el->dim, np = el->Np, nfnfp = el->Nfaces * el->Nfp;
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
    p->seg[s++] = (gemm_seg){dim,
                             (int)p->off_fl + c * (p->compact ? epb * p->fles : nfnfp * p->pade),
                             nfnfp};
  }
  p->first[a] = s;
}

/* Where OUT, the matrices and Bernstein-Bezier level 1 go after the
 * sources, and the total. */
static void plan_shared_layout(gemm_plan *p, const dg_element_ops *el,
                               const dg_kernel_config *cfg) {
  int dim = el->dim, np = el->Np, nfnfp = el->Nfaces * el->Nfp, epb = cfg->elements_per_block;
  size_t pade = (size_t)p->pade;
  p->off_mt = p->off_out + (size_t)p->nslot * p->npr * pade;
  p->off_mt += p->off_mt & 1;
  p->total = p->off_mt;
  /* mma keeps its few results per lane in registers until every warp has
   * read its sources, so OUT may reuse the source columns' space */
  p->alias_out = p->mma && (size_t)p->nslot * p->npr * pade <= p->off_out;
  if (p->alias_out)
    p->total = p->off_out, p->off_out = 0;
  if (cfg->matrices == DG_MATRIX_SHARED && !p->mma)
    p->total += (size_t)(dim * np + nfnfp) * p->npr;
  if (p->bb) {
    /* level 1's results: where OUT overlays the sources, each thread holds
     * those of its points (one a pass) across the products and stores them
     * beside OUT in the freed sources; otherwise after everything OUT may
     * overlay */
    size_t out = (size_t)p->nslot * p->npr * pade,
           div = (size_t)p->lift0 * p->npm * (p->compact ? (size_t)epb : pade);
    out += out & 1;
    p->div_regs = p->alias_out && out + div <= p->total && !p->overlay;
    if (p->div_regs && p->npass > 1) {
      /* with passes a thread holds a point per pass across the products (at
       * N = 6: 48 bytes of spills where the separate layout had none), so
       * only where that layout would keep a second block off the
       * multiprocessor (228 KiB, 1 KiB a block; N = 7: 150 -> 114 KiB) */
      long half = 228L * 1024 / 2 - 1024, separate = (long)(p->total + div + 1) * p->rs;
      p->div_regs = separate > half && (long)p->total * p->rs <= half;
    }
    if (p->div_regs) {
      p->off_div = out;
    } else {
      p->total += p->total & 1;
      p->off_div = p->total;
      p->total += div;
    }
  }
}

/* Plans the accumulators and the shared-memory map.  Returns 0 on memory
 * failure. */
int dg_gen_gemm_plan(const dg_element_ops *el, const deriv_table *dt, int ncomp,
                     const dg_kernel_config *cfg, int is_float, gemm_plan *p) {
  memset(p, 0, sizeof *p);
  p->rs = is_float ? 4 : 8;
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
  plan_tiles(p, el, cfg, is_float);
  size_t pade = (size_t)p->pade;
  /* stage_state: the sources in shared memory are the state's NC arrays */
  p->stage = el->bernstein && cfg->stage_state;
  p->src_col = np * p->pade;
  p->overlay = p->stage && cfg->overlay_state; /* mma only (dg_kernel_config_check) */
  p->compact = p->overlay && cfg->compact_smem;
  if (p->compact) {
    /* Why this stride: a B (or pairs A) fragment load has lane l read
     * element l/4 at k-row l%4 (strided_k: row 4 (l%4)), i.e. offset
     * e FLES + k (+ 4k); 8-byte loads go by half warps over 16 banks of
     * 8 bytes, 4-byte loads by warps over 32: FLES = 4 (1 strided) mod 16
     * in double and 4 mod 32 in float keeps every lane on its own bank
     * (strided float: a 2-way conflict remains) */
    int w = p->rs == 8 ? 16 : 32, r = p->strided && p->rs == 8 ? 1 : 4;
    p->fles = nfnfp + ((r - nfnfp % w) % w + w) % w;
  }
  p->off_fl = (size_t)(p->stage ? ncomp : dt->ng) * np * pade;
  p->off_out = p->off_fl + (size_t)ncomp * nfnfp * pade;
  if (p->overlay) { /* the face fluxes over the staged state (level 1 has read it) */
    size_t fl = p->compact ? (size_t)ncomp * epb * p->fles : (size_t)ncomp * nfnfp * pade;
    p->off_out = p->off_fl > fl ? p->off_fl : fl;
    p->off_fl = 0;
  }
  p->off_out += p->off_out & 1; /* vector alignment of what follows */
  plan_segments(p, el, dt, ncomp, epb);
  p->npass = dg_kernel_config_volume_npass(cfg, np);
  p->ragged = p->npass * dg_kernel_config_volume_threads(cfg, np) != np * epb;
  p->bb = el->bernstein;
  p->prod0 = p->bb ? p->lift0 : 0;
  p->npm = dg_gen_lattice_count(dim, el->N - 1);
  if (p->mma) {
    if (!plan_mma_split(p, dg_kernel_config_volume_threads(cfg, np) / 32, epb / 8))
      return 0;
  } else {
    p->nslot = p->nacc;
    p->slot_acc = calloc((size_t)p->nslot, sizeof *p->slot_acc);
    if (!p->slot_acc)
      return 0;
    for (int x = 0; x < p->nslot; x++)
      p->slot_acc[x] = x;
  }
  plan_shared_layout(p, el, cfg);
  return 1;
}

void dg_gen_gemm_plan_free(gemm_plan *p) {
  free(p->first);
  free(p->seg);
  free(p->dv_acc);
  free(p->r_acc);
  free(p->slot_acc);
  free(p->item);
  free(p->part_first);
  free(p->item_slot);
  free(p->part_slot0);
  free(p->lrow);
  free(p->lpos);
  free(p->fl_pos);
  free(p->fl_col);
  free(p->lnz);
  free(p->lfrag);
  memset(p, 0, sizeof *p);
}

size_t dg_gen_gemm_shared_reals(const dg_element_ops *el, const deriv_table *dt, int ncomp,
                                const dg_kernel_config *cfg, int is_float, size_t *matrix_reals) {
  gemm_plan p;
  size_t n = dg_gen_gemm_plan(el, dt, ncomp, cfg, is_float, &p) ? p.total : (size_t)-1 / 16;
  *matrix_reals = (size_t)(el->dim * el->Np + el->Nfaces * el->Nfp) * (size_t)p.npr;
  if (p.mma)
    *matrix_reals = 0; /* its fragment table is in global memory, never constant */
  dg_gen_gemm_plan_free(&p);
  return n;
}

/* mma: the k order of a step.  A fragment's source values are 8 elements
 * (lane l/4, the fastest shared index) of the step's rows (lane l%4, and
 * l%4 + 4 in float), with row stride PADE = EPB + 1.  Taken as KW
 * consecutive rows, which start PADE = 9 reals apart, the 4 elements x 4
 * rows of an fp64 half warp put two lanes on some banks, and a load takes
 * twice its wavefronts (ncu, fp64 N = 7: 3.7 wavefronts a shared load,
 * L1TEX 85 % busy).  So the k-steps of each whole block of 4 KW rows
 * take their rows strided: step 4q + u holds rows 4 KW q + u + KW (l%4)
 * (+ 4 in float's second half), i.e. the lanes' rows lie KW apart, KW PADE
 * = 4 (mod 16) doubles or 8 (mod 32) floats, and the 32 lanes meet no bank
 * twice.  The rows past the last whole block keep the consecutive order.
 * H100, Maxwell fp64 N = 7 (pairs): 1.404 -> 1.290 ms, shared load
 * wavefronts 198M -> 130M; N = 4 0.373 -> 0.353 ms.  But the addresses are
 * no longer affine in the step, and the extra registers cost more than the
 * conflicts where registers were tight: Euler fp64 N = 3 0.640 -> 0.676 ms,
 * Maxwell float N = 6 0.660 -> 0.686 ms (tuning/RESULTS.md).  So a knob,
 * strided_k. */
int dg_gen_mma_strided_steps(const gemm_plan *p, int len) {
  return p->strided ? len / (4 * p->kw) * 4 : 0;
}

/* The row (column of the operator) that k-step ks of a matrix of len
 * columns gives lane l (l4 = l%4) in its half h (float: 0, 1; double 0). */
int dg_gen_mma_step_row(const gemm_plan *p, int len, int ks, int l4, int h) {
  if (ks < dg_gen_mma_strided_steps(p, len))
    return 4 * p->kw * (ks / 4) + ks % 4 + p->kw * l4 + 4 * h;
  return p->kw * ks + l4 + 4 * h;
}

/* Entry (i, j) of operator m: D_m (m < dim) or LIFT (m = dim); zero
 * outside the matrix (the padding of rows and k-steps).  sparse_lift: the
 * LIFT's row i is OUT row i (node lrow[i]) and its column j the face node
 * at k-row j, and its structural zeros are exact zeros. */
double dg_gen_gemm_op_entry(const dg_element_ops *el, const gemm_plan *p, int m, int i, int j) {
  int np = el->Np, nfnfp = el->Nfaces * el->Nfp;
  const double *D[3] = {el->Dr, el->Ds, el->Dt};
  if (m == el->dim && p->sparse) {
    if (j >= nfnfp || p->lrow[i] >= np)
      return 0;
    int z = p->lrow[i] * nfnfp + p->fl_col[j];
    return p->lnz[z] ? el->LIFT[z] : 0;
  }
  if (i >= np || j >= (m < el->dim ? np : nfnfp))
    return 0;
  return m < el->dim ? D[m][i * np + j] : el->LIFT[i * nfnfp + j];
}

/* x as TF32: fp32 with its low 13 mantissa bits cleared (DG_TF32_SPLIT's
 * big part). */
float dg_gen_tf32_big(double v) {
  float f = (float)v;
  unsigned u;
  memcpy(&u, &f, sizeof u);
  u &= 0xffffe000u;
  memcpy(&f, &u, sizeof f);
  return f;
}

/* split TF32: which operators are TF32 values already.  Why: the
 * Bernstein-Bezier LIFT (LIFT_f = E_L L0_f, dg/bernstein_lift.h) has dyadic
 * entries of at most 9 significant bits up to N = 7 (10 at N = 8; TF32
 * holds 11), its structural zeros aside, which come out of invV LIFT V as
 * noise under 1e-14 of the largest entry.  For such an operator the small
 * part of the split is zero, and so is the product As Bb: two steps do
 * what three did, with no split of the fragments, and the same results.
 * The test: every entry's small part (fp32 value minus its TF32 big part)
 * is at most 2^-32 of the largest entry, 256 times below fp32's unit
 * round-off, so leaving it out changes no sum by more than its own
 * rounding.  Nodal D and LIFT fail it by far. */
void dg_gen_gemm_plan_tf32_exact(const dg_element_ops *el, gemm_plan *p) {
  for (int m = 0; m <= el->dim; m++) {
    p->exact[m] = 0;
    if (!p->mma || p->kw != 8)
      continue;
    int cols = p->ks[m] * p->kw;
    double amax = 0, smax = 0;
    for (int i = 0; i < p->npr; i++)
      for (int j = 0; j < cols; j++) {
        double v = dg_gen_gemm_op_entry(el, p, m, i, j);
        float f = (float)v;
        amax = fmax(amax, fabs((double)f));
        smax = fmax(smax, fabs((double)(f - dg_gen_tf32_big(v))));
      }
    p->exact[m] = smax <= ldexp(amax, -32);
  }
}

/* sparse_lift: the bank groups of n items per element (nodes or face
 * nodes) for dg_tile_order_spread.  A warp's threads take consecutive
 * items, (element, item) with the element slowest, from a multiple of nb
 * on; so in element s a window of nb items starts where i + s n is a
 * multiple of nb.  grp[i * per + a]: item i's window under the a-th
 * distinct shift s n mod nb; returns per. */
static int bank_groups(int n, int epb, int nb, int *grp) {
  int shift[32], per = 0;
  for (int s = 0; s < epb && per < nb; s++) {
    int sh = s * n % nb, seen = 0;
    for (int a = 0; a < per; a++)
      seen |= shift[a] == sh;
    if (!seen)
      shift[per++] = sh;
  }
  for (int i = 0; i < n; i++)
    for (int a = 0; a < per; a++)
      grp[i * per + a] = a * (n / nb + 2) + (i + shift[a]) / nb;
  return per;
}

/* sparse_lift: the lift's row and column orders (dg_tile_order on its
 * pattern, tiles of TM rows by KW columns: one tensor-core step), the face
 * nodes' k-rows (column c of the order is lane (c%KW)%4, half (c%KW)/4 of
 * step c/KW, whose k-row mma_step_row gives), and the steps that hold a
 * nonzero.  0: out of memory. */
int dg_gen_gemm_plan_sparse(const dg_element_ops *el, int epb, gemm_plan *p) {
  int np = el->Np, nf = el->Nfaces * el->Nfp, dim = el->dim, kw = p->kw, ks = p->ks[dim];
  int ntile = p->nrc * ks;
  int *col_at = malloc((size_t)nf * sizeof *col_at);
  p->lnz = malloc((size_t)np * nf);
  p->lrow = malloc((size_t)p->npr * sizeof *p->lrow);
  p->lpos = malloc((size_t)np * sizeof *p->lpos);
  p->fl_pos = malloc((size_t)nf * sizeof *p->fl_pos);
  p->fl_col = malloc((size_t)nf * sizeof *p->fl_col);
  p->lfrag = malloc((size_t)(ntile + 1) * sizeof *p->lfrag);
  int ok = p->lnz && col_at && p->lrow && p->lpos && p->fl_pos && p->fl_col && p->lfrag;
  if (ok) {
    dg_tile_order_pattern(el->LIFT, np, nf, p->lnz);
    ok = dg_tile_order(p->lnz, np, nf, p->tm, kw, p->lrow, col_at) >= 0;
  }
  if (ok) {
    /* E reads node i's lifted flux at its OUT row, B writes face node m's
     * flux at its k-row, a warp on consecutive nodes (face nodes) of an
     * element: spread each bank-width group of them over the banks (rows
     * PADE apart, PADE odd; 16 banks of 8 bytes a half warp in double, 32
     * of 4 in float).  H100, fp64 N = 7: the orders' bank conflicts cost
     * 0.018 ms of 1.15. */
    int nb = p->rs == 8 ? 16 : 32, full = nf / kw * kw;
    int *key = malloc((size_t)(p->npr > nf ? p->npr : nf) * sizeof *key);
    int *grp = malloc((size_t)(np > nf ? np : nf) * nb * sizeof *grp);
    ok = key && grp;
    if (ok) {
      for (int r = 0; r < p->npr; r++)
        key[r] = r % nb;
      int per = bank_groups(np, epb, nb, grp);
      ok = dg_tile_order_spread(p->lrow, p->npr, np, p->tm, key, nb, grp, per,
                                per * (np / nb + 2)) >= 0;
    }
    if (ok) {
      for (int c = 0; c < full; c++) {
        int w = c % kw;
        key[c] = dg_gen_mma_step_row(p, nf, c / kw, w % 4, w / 4) % nb;
      }
      int per = bank_groups(nf, epb, nb, grp);
      ok = dg_tile_order_spread(col_at, full, nf, kw, key, nb, grp, per,
                                per * (nf / nb + 2)) >= 0;
    }
    free(key);
    free(grp);
  }
  if (ok) {
    for (int r = 0; r < p->npr; r++)
      if (p->lrow[r] < np)
        p->lpos[p->lrow[r]] = r;
    for (int c = 0; c < nf; c++) {
      int w = c % kw, j = c / kw < nf / kw ? dg_gen_mma_step_row(p, nf, c / kw, w % 4, w / 4) : c;
      p->fl_pos[col_at[c]] = j;
      p->fl_col[j] = col_at[c];
    }
    p->sparse = 1;
    p->lfrag[0] = 0;
    for (int t = 0; t < ntile; t++) {
      int any = 0;
      for (int l = 0; l < 32 && !any; l++)
        for (int h = 0; h < p->nah && !any; h++)
          any = dg_gen_mma_frag_value(el, p, dim, t / ks, t % ks, l, h) != 0;
      p->lfrag[t + 1] = p->lfrag[t] + any;
    }
  }
  free(col_at);
  return ok;
}

/* mma: the kernel's __launch_bounds__ minimum of blocks per
 * multiprocessor (limits of compute capability 8.0-9.0: 228 KiB of shared
 * memory, 65536 registers and 2048 threads per multiprocessor; the
 * generator does not see the device, and on a GPU with less shared memory
 * the bound only costs registers).  Why: the face fluxes of the fused surface want ~85-100
 * registers, which would hold a 448-thread block (N = 5, EPB 8) to one per
 * multiprocessor, and with it the phases that move data could not overlap
 * another block's tensor-core products.  So: as many blocks as shared
 * memory and threads allow, but never fewer registers a thread than the
 * products' results held across tasks (two per double) plus 32, nor 64
 * (65536 registers per multiprocessor, H100).  The knob mma_extra_blocks
 * asks for more, up to what shared memory and threads allow: the estimate
 * is a guess on either side (H100, Maxwell fp64: one more block won 9 % at
 * N = 4 with 8-row tiles, and 30 % at N = 5 with 16-row tiles, whose held
 * results put the estimate at one block; tuning/RESULTS.md). */
int dg_gen_mma_min_blocks(const gemm_plan *p, int threads, int extra) {
  long bytes = (long)p->total * p->rs + 1024; /* the runtime's 1 KiB per block */
  int lanes = (threads + 31) / 32 * 32;       /* registers go to whole warps */
  int regs = 32 + held_registers(p, p->alias_out);
  regs = regs < 64 ? 64 : (regs + 7) / 8 * 8;
  int by_smem = (int)(228L * 1024 / bytes), by_threads = 2048 / lanes;
  int by_regs = 65536 / (lanes * regs), n = by_smem;
  n = by_threads < n ? by_threads : n;
  n = by_regs < n ? by_regs : n;
  /* the extra blocks within shared memory, threads and, in double, 64
   * registers a thread (below that ptxas refuses the fp64 m16n8k4 step:
   * "cannot be compiled with specified register target constraints"; the
   * TF32 step assembles at 32) */
  int cap = by_smem < by_threads ? by_smem : by_threads;
  if (p->rs == 8)
    cap = 65536 / (lanes * 64) < cap ? 65536 / (lanes * 64) : cap;
  cap = n > cap ? n : cap;
  return n + extra < cap ? n + extra : cap;
}

/* Value h of lane l's fragment of k-step k of row tile ti of operator m
 * (the layout of g_AF, emit_fragments). */
double dg_gen_mma_frag_value(const dg_element_ops *el, const gemm_plan *p, int m, int ti, int k,
                             int l, int h) {
  int len = m < el->dim ? el->Np : el->Nfaces * el->Nfp;
  return p->pairs ? dg_gen_gemm_op_entry(el, p, m, p->tm * ti + l / 4, dg_gen_mma_step_row(p, len, k, l % 4, h))
                  : dg_gen_gemm_op_entry(el, p, m, p->tm * ti + l / 4 + 8 * (h % 2),
                             dg_gen_mma_step_row(p, len, k, l % 4, h / 2));
}
