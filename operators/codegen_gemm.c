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
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "operators/codegen_internal.h"
#include "operators/tile_order.h"

typedef struct {
  int mat; /* its matrix: D_mat (mat < dim) or LIFT (mat = dim) */
  int src; /* offset (reals) of the source column in shared memory */
  int len; /* rows j of the segment */
} gemm_seg;

/* mma: one (accumulator, segment) product, the unit the tensor-core work of
 * a row tile is split by; with mma_pairs two of one matrix side by side on
 * the tile's 16 rows (acc2, src2: the second; acc2 = -1: none, zeros). */
typedef struct {
  int acc, mat, src, len;
  int acc2, src2;
} mma_item;

typedef struct {
  int nacc, nseg;
  int *first;      /* [nacc + 1]: segments of accumulator a */
  gemm_seg *seg;   /* [nseg] */
  int *dv_acc;     /* [nd]: accumulator of divergence row g */
  int *r_acc;      /* [ng * dim]: accumulator of partial (g, d), or -1 */
  int lift0;       /* accumulator of component 0's lifted flux */
  int pade, rc, nrc, npr;
  int mma;         /* products on the tensor cores (work_mode mma) */
  int strided;     /* mma: knob strided_k (mma_strided_steps) */
  int alias_out;   /* mma: OUT overlays the sources (see plan) */
  int kw;          /* mma: k of one step, 4 (fp64) or 8 (split TF32) */
  int exact[4];    /* split TF32: operator m's entries are TF32 values (plan_tf32_exact),
                      so its fragments need no small part and its products two steps */
  int nah;         /* mma: operator values a lane holds per step */
  int pairs;       /* mma: sources on the A side, two per tile (mma_pairs) */
  int nd;          /* mma: D values a lane holds per item */
  int rs;          /* bytes of a real */
  int ks[4];       /* mma: k-steps of KW of each matrix */
  int afrag[4];    /* mma: offset of each matrix's fragments in g_AF */
  /* OUT holds one slot per (part, accumulator) of the mma work split (the
   * gemm products: slot a is accumulator a); node values are slot sums */
  int nslot;
  int *slot_acc;   /* [nslot]: the accumulator of each slot */
  /* mma work split: a row tile's items sorted by matrix, cut into nparts
   * contiguous parts of about equal cost; a warp task is (row tile, element
   * tile, part), tpw tasks per warp, at most maxslots slots per part */
  int tm, nwarps, nte, ntask, nitem, nparts, maxslots, tpw;
  mma_item *item;
  int *part_first; /* [nparts + 1] into item */
  int *item_slot;  /* [nitem]: slot of the item within its part */
  int *part_slot0; /* [nparts + 1]: first slot of each part */
  size_t off_fl, off_out, off_mt, total;
  /* Bernstein-Bezier coefficients (dg_element_ops.bernstein): the products
   * are the lifts only (accumulators prod0.. = lift0..); each derivative
   * accumulator a < lift0 is a degree-(N-1) difference of its sources at
   * the NPM points of that lattice (level 1, into s_div at off_div) and a
   * degree elevation back to the node (level 2, in phase E) */
  int bb, prod0, npm;
  int div_regs; /* level 1 held in registers across D, stored after its barrier */
  int stage;    /* stage_state: shared memory holds the state; a segment's source
                   offset / src_col is then its flux quantity's index (level 1) */
  int src_col;  /* reals of one source column: NP PADE */
  int npass;    /* passes of the per-node phases (volume_passes, or volume_warps'):
                   a thread's points of level 1 (div_regs) */
  int ragged;   /* volume_warps: the last pass leaves some threads idle */
  int overlay;  /* overlay_state: level 1 before B; s_fl and OUT over the staged state,
                   s_div after them */
  int compact;  /* compact_smem (with overlay): s_fl [NC][EPB][FLES], s_div
                   [EPB][derivative][NPM], neither padded by PADE */
  int fles;     /* compact: reals between two elements' face-flux rows */
  size_t off_div;
  /* sparse_lift (bb with mma): the lift in the orders of dg_tile_order,
   * its all-zero k-steps left out (plan_sparse) */
  int sparse;
  int unroll_k; /* mma_unroll: the k-step loops fully unrolled, not by 2 */
  int *lrow;            /* [npr]: the node of OUT row (position) r; >= NP: padding */
  int *lpos;            /* [NP]: the OUT row of node i */
  int *fl_pos;          /* [NFNFP]: the shared k-row of face node m */
  int *fl_col;          /* [NFNFP]: the face node at k-row j */
  unsigned char *lnz;   /* [NP][NFNFP]: the lift's nonzeros (dg_tile_order_pattern) */
  int *lfrag;           /* [NRC * ks + 1]: the fragment index of step (ti, k) in g_AF; the
                           step holds a nonzero where lfrag[t + 1] > lfrag[t] */
} gemm_plan;

static int odd_stride(int epb) { return epb | 1; }

/* ---- Bernstein-Bezier lattices ------------------------------------------------
 * Why: on BB coefficients d/dr is sparse (Chan & Warburton, SIAM J. Sci.
 * Comput. 39, 2017): with barycentric lambda_0 (vertex (-1,..)) and lambda_d+1
 * (coordinate d = +1), d lambda_d+1/dr_d = 1/2 = -d lambda_0/dr_d, so
 *   D_d c at degree N-1 point b  = N/2 (c[b + e_d+1] - c[b + e_0])
 * and the degree elevation back to degree N gives node a
 *   sum over v with a_v > 0 of a_v/N (D_d c)[a - e_v],
 * about 2 (DIM+1) multiply-adds a node and direction instead of Np.  The
 * points of the order-n lattice are listed as the nodes of dg/refelem.h:
 * for k: for j: for i, point (i, j, k) with a_0 = n - i - j - k. */

int dg_cg_lattice_count(int dim, int n) {
  if (n < 0)
    return 0;
  return dim == 1 ? n + 1 : dim == 2 ? (n + 1) * (n + 2) / 2 : (n + 1) * (n + 2) * (n + 3) / 6;
}

/* Index of point (i, j, k) in the order-n lattice (closed form of the
 * listing order: whole layers below k, whole rows below j, then i). */
static int lattice_index(int dim, int n, int i, int j, int k) {
  if (dim == 1)
    return i;
  if (dim == 2)
    return j * (n + 1) - j * (j - 1) / 2 + i;
  int m = n - k; /* the order of layer k */
  return dg_cg_lattice_count(3, n) - dg_cg_lattice_count(3, m) + j * (m + 1) - j * (j - 1) / 2 + i;
}

/* The coordinates (i, j, k) of point p of the order-n lattice. */
static void lattice_point(int dim, int n, int p, int ijk[3]) {
  int z = 0;
  for (int k = 0; k <= (dim > 2 ? n : 0); k++)
    for (int j = 0; j <= (dim > 1 ? n - k : 0); j++)
      for (int i = 0; i <= n - j - k; i++, z++)
        if (z == p) {
          ijk[0] = i, ijk[1] = j, ijk[2] = k;
          return;
        }
}

/* The multi-index a of point p of the order-n lattice: a_1..a_3 = (i, j,
 * k) (zero past dim), a_0 = n - i - j - k, the weight of the vertex at
 * (-1, ...).  What the three BB tables are made of. */
static void lattice_alpha(int dim, int n, int p, int a[4]) {
  int ijk[3] = {0, 0, 0};
  lattice_point(dim, n, p, ijk);
  a[0] = n - ijk[0] - ijk[1] - ijk[2];
  a[1] = ijk[0], a[2] = ijk[1], a[3] = ijk[2];
}

/* The index of multi-index a (a_1..a_3 = i, j, k) in the order-n lattice. */
static int lattice_index_alpha(int dim, int n, const int a[4]) {
  return lattice_index(dim, n, a[1], a[2], a[3]);
}

/* The degree-(n-1) point a - e_v of node p = a of the order-n lattice, or
 * -1 where a_v = 0 or p is out of range. */
static int bb_down(int dim, int n, int p, int v) {
  int a[4];
  if (p < 0 || p >= dg_cg_lattice_count(dim, n))
    return -1;
  lattice_alpha(dim, n, p, a);
  if (a[v] == 0)
    return -1;
  a[v]--;
  return lattice_index_alpha(dim, n - 1, a);
}

/* One row of a BB table: DIM+1 entries padded to four (a vector load),
 * four rows a line. */
static void emit_bb_row(dg_strbuf *b, int p, const double *row, int dim, const char *fmt) {
  dg_strbuf_append(b, p % 4 ? " {" : "\n  {");
  for (int v = 0; v < 4; v++) {
    if (v)
      dg_strbuf_append(b, ", ");
    dg_strbuf_appendf(b, fmt, v <= dim ? row[v] : 0.0);
  }
  dg_strbuf_append(b, "},");
}

/* g_bb_up[b]: the degree-N nodes of degree-(N-1) point b + e_v (level 1);
 * g_bb_dn[a]: the degree-(N-1) points a - e_v of node a, and g_bb_w[a] =
 * a_v / N their weights (0 where a_v = 0, with a neighbour's point); v is
 * a field x, y, z, w.  Why one struct a row: a thread reads a whole row,
 * and the four separate loads of an [n][4] array each span 4 x 32 lanes x
 * 4 bytes, four L1 wavefronts a load (fp64 weights eight), where a row of
 * byte indices takes one.  The fused float kernels are bound by L1
 * wavefronts at N = 6, 7 (ncu: 75 % of the data pipe, DRAM 41 %); packed,
 * the Maxwell kernels ran 2-2.5 % faster, float N = 4, 6, 7 and fp64 N =
 * 6, 7 (H100, tuning/RESULTS.md, session 18). */
static void emit_bb_tables(dg_strbuf *b, int dim, int n, int is_float) {
  int np = dg_cg_lattice_count(dim, n), npm = dg_cg_lattice_count(dim, n - 1), a[4];
  dg_strbuf_appendf(b, "/* Bernstein-Bezier lattices: order %d (NP nodes) and %d (NPM points) */\n",
                    n, n - 1);
  dg_strbuf_appendf(b, "#define NPM %d\n", npm);
  /* node indices as bytes where they fit (the tensor-core kernels: NP x
   * EPB <= 1024 threads with EPB a multiple of 8, so NP <= 128); work_mode
   * gemm at one element a block reaches NP = 286 (N = 10 in 3D) */
  if (np <= 256)
    dg_strbuf_append(b, "typedef struct __align__(4) { unsigned char x, y, z, w; } dg_bb_index;\n");
  else
    dg_strbuf_append(b, "typedef struct __align__(8) { unsigned short x, y, z, w; } dg_bb_index;\n");
  dg_strbuf_appendf(b, "typedef struct __align__(%d) { real x, y, z, w; } dg_bb_weight;\n",
                    is_float ? 16 : 32);
  dg_strbuf_appendf(b, "__device__ const dg_bb_index g_bb_up[%d] = {", npm);
  for (int p = 0; p < npm; p++) { /* the nodes b + e_v of point b */
    double up[4];
    lattice_alpha(dim, n - 1, p, a);
    for (int v = 0; v < 4; v++) {
      a[v]++;
      up[v] = lattice_index_alpha(dim, n, a);
      a[v]--;
    }
    emit_bb_row(b, p, up, dim, "%.0f");
  }
  dg_strbuf_append(b, "\n};\n");
  dg_strbuf_appendf(b, "__device__ const dg_bb_index g_bb_dn[%d] = {", np);
  for (int p = 0; p < np; p++) {
    double dn[4] = {0, 0, 0, 0};
    for (int v = 0; v <= dim; v++) {
      /* where a_v = 0 (weight 0), the point that the nearest node with a_v
       * > 0 reads: the lanes of one warp then meet that address together
       * (a broadcast), where point 0 met other lanes' points in its bank
       * (float Maxwell N = 7: 1.48 shared wavefronts a load, now 1.00) */
      int q = bb_down(dim, n, p, v);
      for (int d = 1; q < 0 && d < np; d++) {
        q = bb_down(dim, n, p - d, v);
        if (q < 0)
          q = bb_down(dim, n, p + d, v);
      }
      dn[v] = q;
    }
    emit_bb_row(b, p, dn, dim, "%.0f");
  }
  dg_strbuf_append(b, "\n};\n");
  dg_strbuf_appendf(b, "__device__ const dg_bb_weight g_bb_w[%d] = {", np);
  for (int p = 0; p < np; p++) { /* a_v / N */
    double w[4];
    lattice_alpha(dim, n, p, a);
    for (int v = 0; v < 4; v++)
      w[v] = (double)a[v] / n;
    emit_bb_row(b, p, w, dim, is_float ? "%.9ef" : "%.17e");
  }
  dg_strbuf_append(b, "\n};\n");
}

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

/* Plans the accumulators and the shared-memory map.  Returns 0 on memory
 * failure. */
static int plan(const dg_element_ops *el, const deriv_table *dt, int ncomp,
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
  p->npass = dg_kernel_config_volume_npass(cfg, np);
  p->ragged = p->npass * dg_kernel_config_volume_threads(cfg, np) != np * epb;
  p->bb = el->bernstein;
  p->prod0 = p->bb ? p->lift0 : 0;
  p->npm = dg_cg_lattice_count(dim, el->N - 1);
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
  return 1;
}

static void plan_free(gemm_plan *p) {
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

size_t dg_cg_gemm_shared_reals(const dg_element_ops *el, const deriv_table *dt, int ncomp,
                               const dg_kernel_config *cfg, int is_float, size_t *matrix_reals) {
  gemm_plan p;
  size_t n = plan(el, dt, ncomp, cfg, is_float, &p) ? p.total : (size_t)-1 / 16;
  *matrix_reals = (size_t)(el->dim * el->Np + el->Nfaces * el->Nfp) * (size_t)p.npr;
  if (p.mma)
    *matrix_reals = 0; /* its fragment table is in global memory, never constant */
  plan_free(&p);
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
static int mma_strided_steps(const gemm_plan *p, int len) {
  return p->strided ? len / (4 * p->kw) * 4 : 0;
}

/* The row (column of the operator) that k-step ks of a matrix of len
 * columns gives lane l (l4 = l%4) in its half h (float: 0, 1; double 0). */
static int mma_step_row(const gemm_plan *p, int len, int ks, int l4, int h) {
  if (ks < mma_strided_steps(p, len))
    return 4 * p->kw * (ks / 4) + ks % 4 + p->kw * l4 + 4 * h;
  return p->kw * ks + l4 + 4 * h;
}

/* The sources' layout in shared memory, as factors of the generated
 * offsets: k-rows PADE apart and elements 1 (compact_smem: rows 1 apart,
 * elements FLES). */
static const char *src_row(const gemm_plan *p) { return p->compact ? "" : " * PADE"; }
static const char *src_elem(const gemm_plan *p) { return p->compact ? " * FLES" : ""; }

/* Level 1's result of derivative acc at lattice point pt of element el (C
 * expressions): [derivative][NPM][PADE], compact [EPB][derivative][NPM]. */
static void div_at(char *at, size_t n, const gemm_plan *p, const char *acc, const char *pt,
                   const char *el) {
  if (p->compact)
    snprintf(at, n, "s_div[(%s * %d + %s) * NPM + %s]", el, p->prod0, acc, pt);
  else
    snprintf(at, n, "s_div[(%s * NPM + %s) * PADE + %s]", acc, pt, el);
}

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

/* Entry (i, j) of operator m: D_m (m < dim) or LIFT (m = dim); zero
 * outside the matrix (the padding of rows and k-steps).  sparse_lift: the
 * LIFT's row i is OUT row i (node lrow[i]) and its column j the face node
 * at k-row j, and its structural zeros are exact zeros. */
static double op_entry(const dg_element_ops *el, const gemm_plan *p, int m, int i, int j) {
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

/* Value h of lane l's fragment of k-step k of row tile ti of operator m
 * (the layout of g_AF, emit_fragments). */
static double frag_value(const dg_element_ops *el, const gemm_plan *p, int m, int ti, int k,
                         int l, int h) {
  int len = m < el->dim ? el->Np : el->Nfaces * el->Nfp;
  return p->pairs ? op_entry(el, p, m, p->tm * ti + l / 4, mma_step_row(p, len, k, l % 4, h))
                  : op_entry(el, p, m, p->tm * ti + l / 4 + 8 * (h % 2),
                             mma_step_row(p, len, k, l % 4, h / 2));
}

/* x as TF32: fp32 with its low 13 mantissa bits cleared (DG_TF32_SPLIT's
 * big part). */
static float tf32_big(double v) {
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
static void plan_tf32_exact(const dg_element_ops *el, gemm_plan *p) {
  for (int m = 0; m <= el->dim; m++) {
    p->exact[m] = 0;
    if (!p->mma || p->kw != 8)
      continue;
    int cols = p->ks[m] * p->kw;
    double amax = 0, smax = 0;
    for (int i = 0; i < p->npr; i++)
      for (int j = 0; j < cols; j++) {
        double v = op_entry(el, p, m, i, j);
        float f = (float)v;
        amax = fmax(amax, fabs((double)f));
        smax = fmax(smax, fabs((double)(f - tf32_big(v))));
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
static int plan_sparse(const dg_element_ops *el, int epb, gemm_plan *p) {
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
        key[c] = mma_step_row(p, nf, c / kw, w % 4, w / 4) % nb;
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
      int w = c % kw, j = c / kw < nf / kw ? mma_step_row(p, nf, c / kw, w % 4, w / 4) : c;
      p->fl_pos[col_at[c]] = j;
      p->fl_col[j] = col_at[c];
    }
    p->sparse = 1;
    p->lfrag[0] = 0;
    for (int t = 0; t < ntile; t++) {
      int any = 0;
      for (int l = 0; l < 32 && !any; l++)
        for (int h = 0; h < p->nah && !any; h++)
          any = frag_value(el, p, dim, t / ks, t % ks, l, h) != 0;
      p->lfrag[t + 1] = p->lfrag[t] + any;
    }
  }
  free(col_at);
  return ok;
}

/* mma: g_AF holds each operator as A-fragments, [row tile][k-step][lane]
 * [NAH] with lane l holding entries (TM*tile + l/4 + 8(h%2), column
 * mma_step_row(step, l%4, h/2)), h < NAH: one coalesced load per lane per
 * tensor-core step.  With mma_pairs the operator is the B side of
 * m16n8k{4,8} (B(k, n) = M(n, k)): entries (8*tile + l/4,
 * mma_step_row(step, l%4, h)). */
static void emit_fragments(dg_strbuf *b, const dg_element_ops *el, const gemm_plan *p) {
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
            double v = frag_value(el, p, m, ti, k, l, h);
            if (p->exact[m]) /* the TF32 value the steps use (its small part is noise) */
              v = tf32_big(v);
            dg_strbuf_appendf(b, p->rs == 4 ? "%.9ef, " : "%.17e, ", v);
          }
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
      double v = r < el->dim * np ? op_entry(el, p, r / np, i, r % np)
                                  : op_entry(el, p, el->dim, i, r - el->dim * np);
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
  int strided = a < mma_strided_steps(p, len), partial = a == full && rem;
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
  int full = len / p->kw, nstr = mma_strided_steps(p, len);
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
static void emit_sparse_functions(dg_strbuf *b, const gemm_plan *p) {
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
static void emit_mma_products(dg_strbuf *b, const gemm_plan *p) {
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
      int len = p->item[k0].len, full = len / p->kw, nstr = mma_strided_steps(p, len);
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
static int mma_min_blocks(const gemm_plan *p, int threads, int extra) {
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

/* double mma: the fp64 steps m8n8k4 and m16n8k4 (the test emulator defines
 * them itself).  No volatile: the steps have no side effects, and the
 * compiler may then move the fragment loads ahead of them. */
static const char *const FP64_STEPS =
    "#ifndef DG_DMMA /* D += A B on the fp64 tensor cores, m8n8k4, m16n8k4 */\n"
    "#define DG_DMMA(d0, d1, a, b) asm(\"mma.sync.aligned.m8n8k4."
    "row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\" : \"+d\"(d0), "
    "\"+d\"(d1) : \"d\"(a), \"d\"(b))\n"
    "#define DG_DMMA16(d0, d1, d2, d3, a0, a1, b) asm(\"mma.sync.aligned."
    "m16n8k4.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5}, {%6}, "
    "{%0,%1,%2,%3};\" : \"+d\"(d0), \"+d\"(d1), \"+d\"(d2), \"+d\"(d3) : "
    "\"d\"(a0), \"d\"(a1), \"d\"(b))\n#endif\n";

/* float mma: the TF32 step (m16n8k8, fp32 accumulation; the test emulator
 * defines DG_TMMA itself), the split x = big + small, and the three split
 * steps, small products first so the big one lands on the most accurate
 * sum (two where the operator is TF32 values, plan_tf32_exact).  The
 * split is bit masks, not cvt.rna: big = x with its low 13
 * mantissa bits cleared (a TF32 value), small = x - big (exact in fp32,
 * at most 13 significant bits) cleared the same way, so both operands are
 * valid TF32 and x - big - small loses at most 2 of x's 24 bits, for one
 * logic op, one add and one logic op a value. */
static const char *const TF32_STEPS =
    "#ifndef DG_TMMA /* D += A B, TF32 m16n8k8 with fp32 accumulation */\n"
    "#define DG_TMMA(d0, d1, d2, d3, a, b0, b1) asm(\"mma.sync.aligned.m16n8k8.row.col.f32."
    "tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\" : \"+f\"(d0), "
    "\"+f\"(d1), \"+f\"(d2), \"+f\"(d3) : \"r\"(a[0]), \"r\"(a[1]), \"r\"(a[2]), "
    "\"r\"(a[3]), \"r\"(b0), \"r\"(b1))\n"
    "#endif\n"
    "#define DG_TF32_SPLIT(x, big, small) \\\n"
    "  do { \\\n"
    "    big = __float_as_uint(x) & 0xffffe000u; \\\n"
    "    small = __float_as_uint((x) - __uint_as_float(big)) & 0xffffe000u; \\\n"
    "  } while (0)\n"
    "#define DG_TF32_SPLIT4(x0, x1, x2, x3, big, small) \\\n"
    "  do { \\\n"
    "    DG_TF32_SPLIT(x0, big[0], small[0]); \\\n"
    "    DG_TF32_SPLIT(x1, big[1], small[1]); \\\n"
    "    DG_TF32_SPLIT(x2, big[2], small[2]); \\\n"
    "    DG_TF32_SPLIT(x3, big[3], small[3]); \\\n"
    "  } while (0)\n"
    "#define DG_TMMA3T(d0, d1, d2, d3, x0, x1, x2, x3, bb, bs) \\\n"
    "  do { \\\n"
    "    unsigned ab_[4], as_[4]; \\\n"
    "    DG_TF32_SPLIT4(x0, x1, x2, x3, ab_, as_); \\\n"
    "    DG_TMMA(d0, d1, d2, d3, as_, bb[0], bb[1]); \\\n"
    "    DG_TMMA(d0, d1, d2, d3, ab_, bs[0], bs[1]); \\\n"
    "    DG_TMMA(d0, d1, d2, d3, ab_, bb[0], bb[1]); \\\n"
    "  } while (0)\n"
    "#define DG_TMMA2T(d0, d1, d2, d3, x0, x1, x2, x3, bb) /* bb: TF32 values */ \\\n"
    "  do { \\\n"
    "    unsigned ab_[4], as_[4]; \\\n"
    "    DG_TF32_SPLIT4(x0, x1, x2, x3, ab_, as_); \\\n"
    "    DG_TMMA(d0, d1, d2, d3, as_, bb[0], bb[1]); \\\n"
    "    DG_TMMA(d0, d1, d2, d3, ab_, bb[0], bb[1]); \\\n"
    "  } while (0)\n"
    "#define DG_TMMA2(d0, d1, d2, d3, a, x0, x1) /* a: TF32 values */ \\\n"
    "  do { \\\n"
    "    unsigned bb0_, bs0_, bb1_, bs1_; \\\n"
    "    DG_TF32_SPLIT(x0, bb0_, bs0_); \\\n"
    "    DG_TF32_SPLIT(x1, bb1_, bs1_); \\\n"
    "    DG_TMMA(d0, d1, d2, d3, a, bs0_, bs1_); \\\n"
    "    DG_TMMA(d0, d1, d2, d3, a, bb0_, bb1_); \\\n"
    "  } while (0)\n"
    "#define DG_TMMA3(d0, d1, d2, d3, ab, as, x0, x1) \\\n"
    "  do { \\\n"
    "    unsigned xb0_, xs0_, xb1_, xs1_; /* the split again in DG_TMMA2: the compiler shares it */ \\\n"
    "    DG_TF32_SPLIT(x0, xb0_, xs0_); \\\n"
    "    DG_TF32_SPLIT(x1, xb1_, xs1_); \\\n"
    "    (void)xs0_; (void)xs1_; \\\n"
    "    DG_TMMA(d0, d1, d2, d3, as, xb0_, xb1_); \\\n"
    "    DG_TMMA2(d0, d1, d2, d3, ab, x0, x1); \\\n"
    "  } while (0)\n";

/* l2_prefetch: before the face fluxes, each thread asks L2 for the lines
 * of its node's state (read again in phase C) and, with the fused update,
 * its residual (read in phase E, after the products).  Why: a block's
 * phases run in turn, so those loads otherwise start only after the
 * products; a prefetch holds no register.  On the H100 (Maxwell, fp64)
 * it took N = 3 from 0.270 to 0.254 ms and N = 4 from 0.571 to 0.514 ms,
 * and lost at N = 6 (tuning/RESULTS.md): a knob. */
static const char *const L2_PREFETCH =
    "#ifndef DG_PREFETCH_L2 /* the test emulator defines it away */\n"
    "#define DG_PREFETCH_L2(p) asm volatile(\"prefetch.global.L2 [%0];\" :: \"l\"(p))\n"
    "#endif\n";
/* stream_update: the fused update's residual is read once and written
 * once, and so is the new state; stored and loaded evict-first (st.global.cs,
 * ld.global.cs) they leave L2 to the state, which the face gathers of the
 * neighbouring blocks read again; with the fused surface the state is read
 * through the read-only path (ld.global.nc).  H100, Maxwell fp64, Hilbert
 * order: N = 6 0.903 -> 0.875 ms, N = 5 0.558 -> 0.547; lost in float at
 * N = 3, 4 (0.123 -> 0.125, 0.237 -> 0.242): a knob.  The test emulator
 * defines the three as plain accesses. */
static const char *const STREAM_ACCESS =
    "#ifndef DG_LD_NC\n"
    "#define DG_LD_NC(p) __ldg(p)\n"
    "#define DG_LD_CS(p) __ldcs(p)\n"
    "#define DG_ST_CS(p, v) __stcs(p, v)\n"
    "#endif\n";
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
  dg_strbuf_line(b, "if (k0 + ps < K)");
  dg_strbuf_line(b, "  for (int c = 0; c < NC; ++c) {");
  dg_strbuf_line(b, "    DG_PREFETCH_L2(q + BASE(k0 + ps, pi) + c * CSTRIDE(K));");
  if (fused_update)
    dg_strbuf_line(b, "    DG_PREFETCH_L2(res + BASE(k0 + ps, pi) + c * CSTRIDE(K));");
  dg_strbuf_line(b, "  }");
  if (npass > 1)
    emit_pass_close(b);
  b->indent -= 2;
  dg_strbuf_line(b, "}");
}

/* Bernstein-Bezier level 1: every derivative accumulator's N/2 (source at
 * b + e_m+1 - source at b + e_0), summed over its segments (matrix m), at the
 * NPM points b of the degree-(N-1) lattice of every element of the block. */
static void emit_bb_differences(dg_strbuf *b, const gemm_plan *p, const char *th, int n,
                                const deriv_table *dt, dg_emit_ctx *ctx) {
  dg_strbuf_line(b, "/* Bernstein-Bezier level 1: degree-(N-1) differences of the sources%s */",
                 p->div_regs ? ", point i of element s (held until OUT is stored)" : "");
  if (p->div_regs) { /* the thread's node(s) (s, i) of the per-node phases: point i */
    dg_strbuf_line(b, "real bdv[%d][%d];", p->npass, p->prod0);
    dg_strbuf_line(b, "#pragma unroll");
    dg_strbuf_line(b, "for (int pz = 0; pz < %d; ++pz) {", p->npass);
    dg_strbuf_line(b, "  const int nz = tid + pz * %s, sb = nz / NP, pb = nz - sb * NP;", th);
    dg_strbuf_line(b, "  if (pb >= NPM%s) continue;", p->ragged ? " || sb >= EPB" : "");
  } else {
    dg_strbuf_line(b, "for (int z = tid; z < NPM * EPB; z += %s) {", th);
    dg_strbuf_line(b, "  const int sb = z / NPM, pb = z - sb * NPM;");
    if (p->compact)
      dg_strbuf_line(b, "  real *o = s_div + sb * %d * NPM + pb; /* [element][derivative][point] */",
                     p->prod0);
    else
      dg_strbuf_line(b, "  real *o = s_div + pb * PADE + sb;");
  }
  dg_strbuf_line(b, "  const real *x = smem + sb;");
  int maxm = 0;
  for (int a = 0; a < p->prod0; a++)
    for (int sg = p->first[a]; sg < p->first[a + 1]; sg++)
      maxm = p->seg[sg].mat + 1 > maxm ? p->seg[sg].mat + 1 : maxm;
  dg_strbuf_line(b, "  const dg_bb_index up = g_bb_up[pb];");
  for (int v = 0; v <= maxm; v++)
    dg_strbuf_line(b, "  const int u%d = up.%c * PADE;", v, "xyzw"[v]);
  if (p->stage) {
    /* Why: the flux quantities are affine in the state, g(u) = A u + g(0),
     * so their difference between two points is g(difference) - g(0): the
     * state's NC arrays in shared memory serve every quantity and direction
     * (Maxwell: 6 arrays instead of 18 contravariant rows) */
    int slots = dt->ng;
    dg_strbuf_line(b, "  const long long kb = k0 + sb;");
    dg_strbuf_line(b, "  real G[DIM * DIM]; /* dr_a/dx_d of element sb */");
    dg_strbuf_line(b, "  for (int a = 0; a < DIM * DIM; ++a) G[a] = kb < K ? egeo[kb * NGEO + a] : (real)0;");
    for (int m = -1; m < maxm; m++) {
      char dst[32];
      snprintf(dst, sizeof dst, "gd%c[%%d]", m < 0 ? 'z' : (char)('0' + m));
      dg_strbuf_line(b, "  real gd%c[%d];", m < 0 ? 'z' : (char)('0' + m), slots);
      dg_strbuf_line(b, "  {");
      dg_strbuf_line(b, "    real u[NC]; /* %s */",
                     m < 0 ? "zero: the quantities' constant part" : "the difference along one direction");
      if (m < 0)
        dg_strbuf_line(b, "    for (int c = 0; c < NC; ++c) u[c] = 0;");
      else
        dg_strbuf_line(b, "    for (int c = 0; c < NC; ++c) u[c] = x[c * NP * PADE + u%d] - x[c * NP * PADE + u0];",
                       m + 1);
      b->indent += 4;
      dg_cg_emit_gvalues(b, dt, ctx, dst, 1, m < 0); /* g(0): zero rows fold away */
      b->indent -= 4;
      dg_strbuf_line(b, "  }");
    }
  }
  for (int a = 0; a < p->prod0; a++) {
    dg_strbuf_indent(b);
    if (p->div_regs)
      dg_strbuf_appendf(b, "  bdv[pz][%d] = (real)%.17g * (", a, 0.5 * n);
    else
      dg_strbuf_appendf(b, p->compact ? "  o[%d * NPM] = (real)%.17g * (" : "  o[%d * NPM * PADE] = (real)%.17g * (", a, 0.5 * n);
    for (int sg = p->first[a]; sg < p->first[a + 1]; sg++) {
      const gemm_seg *g = &p->seg[sg];
      if (p->stage)
        dg_strbuf_appendf(b, "%sgd%d[%d] - gdz[%d]", sg > p->first[a] ? " + " : "", g->mat,
                          g->src / p->src_col, g->src / p->src_col);
      else
        dg_strbuf_appendf(b, "%sx[%d + u%d] - x[%d + u0]", sg > p->first[a] ? " + " : "",
                          g->src, g->mat + 1, g->src);
    }
    dg_strbuf_append(b, ");\n");
  }
  dg_strbuf_line(b, "}");
}

/* div_regs: after D's barrier, level 1's results beside OUT (a thread's
 * points: those of its per-node passes). */
static void emit_bb_store(dg_strbuf *b, const gemm_plan *p, const char *th) {
  dg_strbuf_line(b, "#pragma unroll /* level 1's results beside OUT, in the freed sources */");
  dg_strbuf_line(b, "for (int pz = 0; pz < %d; ++pz) {", p->npass);
  dg_strbuf_line(b, "  const int nz = tid + pz * %s, sb = nz / NP, pb = nz - sb * NP;", th);
  char at[96];
  div_at(at, sizeof at, p, "a", "pb", "sb");
  dg_strbuf_line(b, "  if (pb < NPM%s)", p->ragged ? " && sb < EPB" : "");
  dg_strbuf_line(b, "    for (int a = 0; a < %d; ++a) %s = bdv[pz][a];", p->prod0, at);
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
      div_at(at, sizeof at, p, acc, pt, "s");
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
  dg_cg_load(qv, ldg ? "NC" : "", "q", "BASE(k, i) + c * CSTRIDE(K)");
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
    dg_cg_emit_gvalues(b, dt, ctx, "smem[(%d * NP + i) * PADE + s]", 1, 0);
    b->indent -= 2;
    dg_strbuf_line(b, "}");
  }
  if (npass > 1)
    emit_pass_close(b);
}

void dg_cg_emit_volume_gemm(dg_strbuf *b, const dg_element_ops *el, const dg_physics *ph,
                            const deriv_table *dt, const dg_kernel_config *cfg,
                            dg_emit_ctx *ctx, int uses_x, int uses_fx, int is_float) {
  gemm_plan p;
  if (!plan(el, dt, ph->ncomp, cfg, is_float, &p) ||
      (cfg->sparse_lift && p.mma && p.bb && !plan_sparse(el, cfg->elements_per_block, &p))) {
    plan_free(&p);
    ctx->failed = 1;
    snprintf(ctx->failure, sizeof ctx->failure, "out of memory planning the gemm volume kernel");
    return;
  }
  plan_tf32_exact(el, &p); /* after plan_sparse: its orders place the entries */
  int dim = el->dim;
  /* stream_update with the fused surface: this kernel writes q_out, never
   * the state it reads, so the state may take the read-only path */
  int ldg = cfg->stream_update && cfg->fuse_surface;
  const char *res_form = cfg->stream_update ? "CS" : ""; /* the residual: evict-first */
  char load[128];
  if (p.mma) {
    emit_fragments(b, el, &p);
    dg_strbuf_append(b, is_float ? TF32_STEPS : FP64_STEPS);
    dg_strbuf_appendf(b, "__device__ const int g_part_slot[%d] = {", p.nparts + 1);
    for (int q = 0; q <= p.nparts; q++)
      dg_strbuf_appendf(b, "%s%d", q ? ", " : "", p.part_slot0[q]);
    dg_strbuf_append(b, "}; /* first OUT slot of each part of a row tile's products */\n");
    if (p.sparse) {
      int nf = el->Nfaces * el->Nfp;
      dg_strbuf_appendf(b, "/* sparse_lift: the shared k-row of each face node's flux */\n"
                           "__device__ const short g_fl_pos[%d] = {", nf);
      for (int m = 0; m < nf; m++)
        dg_strbuf_appendf(b, "%s%d", m ? (m % 16 ? ", " : ",\n  ") : "", p.fl_pos[m]);
      dg_strbuf_appendf(b, "};\n/* sparse_lift: the OUT row of each node's lifted flux */\n"
                           "__device__ const short g_lift_pos[%d] = {", el->Np);
      for (int i = 0; i < el->Np; i++)
        dg_strbuf_appendf(b, "%s%d", i ? (i % 16 ? ", " : ",\n  ") : "", p.lpos[i]);
      dg_strbuf_append(b, "};\n");
    }
  } else {
    emit_transposed(b, el, &p, cfg->matrices, is_float);
    emit_segments(b, el, &p);
  }
  if (p.bb)
    emit_bb_tables(b, dim, el->N, is_float);
  if (cfg->l2_prefetch)
    dg_strbuf_append(b, L2_PREFETCH);
  if (cfg->stream_update)
    dg_strbuf_append(b, STREAM_ACCESS);
  dg_strbuf_appendf(b, "typedef %s real2;\n", is_float ? "float2" : "double2");
  dg_strbuf_appendf(b,
                    "#define EPB %d\n#define PADE %d\n#define RC %d\n#define NRC %d\n"
                    "#define NPR %d\n#define NACC %d\n#define QOUT %s\n",
                    cfg->elements_per_block, p.pade, p.rc, p.nrc, p.npr, p.nacc,
                    cfg->fuse_surface ? "q_out" : "q");
  if (p.compact)
    dg_strbuf_appendf(b, "#define FLES %d /* compact_smem: face-flux row stride */\n", p.fles);
  /* the block's threads: NP x EPB, or that over volume_passes, or
   * volume_warps' (the per-node phases then loop; the source of passes = 1
   * stays as it was) */
  int npass = p.npass, nthreads = dg_kernel_config_volume_threads(cfg, el->Np);
  const char *th = npass > 1 ? "NTHREADS" : "NP * EPB";
  if (cfg->volume_warps)
    dg_strbuf_appendf(b, "#define NPASS %d\n#define NTHREADS %d /* volume_warps */\n", npass,
                      nthreads);
  else if (npass > 1)
    dg_strbuf_appendf(b, "#define NPASS %d\n#define NTHREADS (NP * (EPB / NPASS))\n", npass);
  if (p.mma && p.sparse)
    emit_sparse_functions(b, &p);
  dg_cg_emit_volume_signature_cuda(
      b, th, p.mma ? mma_min_blocks(&p, nthreads, cfg->mma_extra_blocks) : 1);
  b->indent = 2;
  dg_strbuf_line(b, "extern __shared__ __align__(16) double smem_raw[];");
  dg_strbuf_line(b, "real *smem = (real *)smem_raw;");
  dg_strbuf_line(b, "(void)vx; (void)t; (void)rhs; (void)res; (void)rk_a; (void)rk_b; (void)dt;");
  dg_strbuf_line(b, "(void)q_out; (void)mapM; (void)mapP; (void)fbc; (void)fgeo; (void)fx; (void)fl;");
  dg_strbuf_line(b, "const int tid = threadIdx.y * NP + threadIdx.x;");
  dg_strbuf_line(b, "const long long k0 = (long long)blockIdx.x * EPB;");
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
    emit_bb_differences(b, &p, th, el->N, dt, ctx);
    dg_strbuf_line(b, "__syncthreads(); /* level 1 has read the state: B may overwrite it */");
  }
  /* B: face fluxes */
  if (cfg->fuse_surface) {
    dg_cg_emit_block_faces(b, el, ph, is_float, uses_fx, ctx, "EPB", th,
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
    emit_bb_differences(b, &p, th, el->N, dt, ctx);
  /* D: the products */
  if (p.mma) {
    emit_mma_products(b, &p);
    if (p.div_regs)
      emit_bb_store(b, &p, th);
  } else {
  dg_strbuf_line(b, "/* D: OUT[a][i][s] = sum over a's segments of MT^T x source column */");
  dg_strbuf_line(b, "for (int it = tid; it < (NACC - %d) * NRC * EPB; it += %s) {", p.prod0, th);
  dg_strbuf_line(b, "  const int es = it %% EPB, r2 = it / EPB, a = %d + r2 %% (NACC - %d), i0 = (r2 / (NACC - %d)) * RC;",
                 p.prod0, p.prod0, p.prod0);
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
  if (cfg->early_residual) {
    /* Why: E's first global load, the residual, used to wait after this
     * barrier; the products' results are in OUT now (their registers are
     * free), so the load flies while the block's slower warps finish
     * (H100, Maxwell fp64, 8-row tiles: N = 3 0.254 -> 0.237 ms, N = 4
     * 0.514 -> 0.485 ms; with 16-row tiles it lost at N = 5, 6) */
    dg_strbuf_line(b, "real rr[NC]; /* early_residual: the node's residual, for E */");
    dg_strbuf_line(b, "for (int c = 0; c < NC; ++c) rr[c] = k < K ? %s : (real)0;",
                   dg_cg_load(load, res_form, "res", "BASE(k, i) + c * CSTRIDE(K)"));
  }
  dg_strbuf_line(b, "__syncthreads();");
  /* E: per node */
  dg_strbuf_line(b, "/* E: pointwise terms and the store / fused update of node (s, i) */");
  if (npass > 1) {
    emit_pass_open(b, p.ragged, "s", "i");
    dg_strbuf_line(b, "const long long k = k0 + s;");
  }
  dg_strbuf_line(b, "if (k < K) {");
  b->indent += 2;
  if (p.bb) {
    dg_strbuf_line(b, "/* Bernstein-Bezier level 2: node i from its lower neighbours i - e_v */");
    dg_strbuf_line(b, "const dg_bb_index dn = g_bb_dn[i]; const dg_bb_weight dw = g_bb_w[i];");
    for (int v = 0; v <= dim; v++)
      dg_strbuf_line(b, "const int bd%d = dn.%c; const real bw%d = dw.%c;", v, "xyzw"[v], v,
                     "xyzw"[v]);
  }
  if (npass > 1) { /* this pass's node again (q is not written before E) */
    dg_strbuf_line(b, "real u[NC];");
    dg_strbuf_line(b, "for (int c = 0; c < NC; ++c) u[c] = %s;",
                   dg_cg_load(load, ldg ? "NC" : "", "q", "BASE(k, i) + c * CSTRIDE(K)"));
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
      append_acc(b, &p, p.dv_acc[g], dim);
      dg_strbuf_append(b, ";\n");
    }
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
        for (int a = 0; a < dim; a++) {
          dg_strbuf_appendf(b, "%s G[%d] * ", a ? " +" : "", a * dim + d);
          append_acc(b, &p, p.r_acc[g * dim + a], dim);
        }
        dg_strbuf_append(b, ";\n");
      }
    }
  }
  if (p.sparse)
    dg_strbuf_line(b, "const int li = g_lift_pos[i]; /* sparse_lift: node i's OUT row */");
  dg_strbuf_line(b, "real rl[NC];");
  for (int c = 0; c < ph->ncomp; c++) {
    dg_strbuf_indent(b);
    dg_strbuf_appendf(b, "rl[%d] = ", c);
    append_acc(b, &p, p.lift0 + c, dim);
    dg_strbuf_append(b, ";\n");
  }
  dg_cg_emit_rhs_store(b, ph, cfg, ctx, "rl[%d]",
                       cfg->early_residual ? "rr[c]" : dg_cg_load(load, res_form, "res", "o"));
  b->indent -= 2;
  dg_strbuf_line(b, "}");
  if (npass > 1)
    emit_pass_close(b);
  b->indent = 0;
  dg_strbuf_append(b, "}\n\n");
  plan_free(&p);
}
