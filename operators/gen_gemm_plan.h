/* The gemm / mma volume family's plan (gen_gemm_plan.c): which products
 * the block runs, the shared-memory layout, tile sizes and the mma work
 * split, computed at generation time from the element operators and the
 * knobs.  Internal to the family (gen_volume_gemm.c, gen_volume_mma.c,
 * gen_gemm_bernstein.c). */
#ifndef DG_OPERATORS_GEN_GEMM_PLAN_H
#define DG_OPERATORS_GEN_GEMM_PLAN_H

#include "operators/gen_context.h"

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

int dg_gen_gemm_plan(const dg_element_ops *el, const deriv_table *dt, int ncomp,
                     const dg_kernel_config *cfg, int is_float, gemm_plan *p);
void dg_gen_gemm_plan_free(gemm_plan *p);
int dg_gen_mma_strided_steps(const gemm_plan *p, int len);
int dg_gen_mma_step_row(const gemm_plan *p, int len, int ks, int l4, int h);
double dg_gen_gemm_op_entry(const dg_element_ops *el, const gemm_plan *p, int m, int i, int j);
float dg_gen_tf32_big(double v);
void dg_gen_gemm_plan_tf32_exact(const dg_element_ops *el, gemm_plan *p);
int dg_gen_gemm_plan_sparse(const dg_element_ops *el, int epb, gemm_plan *p);
int dg_gen_mma_min_blocks(const gemm_plan *p, int threads, int extra);
double dg_gen_mma_frag_value(const dg_element_ops *el, const gemm_plan *p, int m, int ti, int k,
                             int l, int h);

#endif
