#include "tuning/tune_twins.h"

#include <string.h>

/* Keeps lead[] (n of them) sorted by first score, the best DG_TUNE_LEADERS. */
void dg_tune_add_leader(dg_tune_leader *lead, int *n, const dg_kernel_config *c,
                        const dg_tune_timing *t, double score) {
  if (*n == DG_TUNE_LEADERS && score >= lead[DG_TUNE_LEADERS - 1].score[0])
    return; /* not among the leaders */
  int at = *n < DG_TUNE_LEADERS ? (*n)++ : DG_TUNE_LEADERS - 1; /* full: the last goes */
  while (at > 0 && lead[at - 1].score[0] > score) {
    lead[at] = lead[at - 1];
    at--;
  }
  lead[at].cfg = *c;
  lead[at].t[0] = *t;
  lead[at].score[0] = score;
}

/* The DG_TUNE_LEADERS best variants phase 2 timed (first timings), into
 * lead[]; only the tensor-core ones without strided_k if unstrided_mma. */
static int phase2_leaders(const dg_tune_result *r, int unstrided_mma, dg_tune_leader *lead) {
  int n = 0;
  for (int i = 0; i < r->nrows; i++) {
    const dg_tune_row *w = &r->rows[i];
    if (w->phase == 2 && !w->retime && w->t.status == 0 &&
        (!unstrided_mma || (w->cfg.work_mode == DG_WORK_MMA && !w->cfg.strided_k)))
      dg_tune_add_leader(lead, &n, &w->cfg, &w->t, w->score_ms);
  }
  return n;
}

/* The strided_k twins (operators/gen_gemm_plan.c: bank-conflict-free
 * fragment loads for more registers) of the DG_TUNE_LEADERS best tensor-core
 * variants that phase 2 timed, into twins[]; returns how many.  Why only
 * those: the knob won 8 % on the H100's best Maxwell fp64 N = 7 variant
 * and lost 5 % on Euler N = 3's (tuning/RESULTS.md), so it is worth a
 * timing on every leader, but twinning every tensor-core candidate would
 * double phase 2's compiles. */
int dg_tune_strided_twins(const dg_tune_result *r, dg_kernel_config *twins) {
  dg_tune_leader lead[DG_TUNE_LEADERS];
  int n = phase2_leaders(r, 1, lead);
  for (int i = 0; i < n; i++) {
    twins[i] = lead[i].cfg;
    twins[i].strided_k = 1;
  }
  return n;
}

static int timed_before(const dg_tune_result *r, const dg_kernel_config *c) {
  for (int i = 0; i < r->nrows; i++)
    if (memcmp(&r->rows[i].cfg, c, sizeof *c) == 0)
      return 1;
  return 0;
}

/* Keeps twins[nt] if it is new: not timed before, not among twins[0..nt)
 * (two leaders apart only in local_traces have one overlay twin). */
int dg_tune_keep_twin(const dg_tune_result *r, const dg_kernel_config *twins, int nt) {
  if (timed_before(r, &twins[nt]))
    return nt;
  for (int i = 0; i < nt; i++)
    if (memcmp(&twins[i], &twins[nt], sizeof twins[nt]) == 0)
      return nt;
  return nt + 1;
}

/* c with level 1 before the face fluxes, which take the staged state's
 * shared memory (overlay_state; they then read every trace from global
 * memory, so no local_traces). */
static dg_kernel_config overlaid(const dg_kernel_config *c) {
  dg_kernel_config o = *c;
  o.local_traces = 0;
  o.overlay_state = 1;
  return o;
}

/* The register twins of a variant, one of the DG_TUNE_LEADERS best that
 * phase 2 timed (the strided twins among them; room for 4 a leader).  Knobs
 * that trade registers for latency, whose sign
 * turns on the variant's register pressure: the residual loaded field by
 * field (batch_residual off; on: Maxwell fp64 N = 6 0.875 -> 0.833 ms, but
 * N = 7's 64-register pairs 1.217 -> 1.240), and for the two-pass
 * tensor-core kernel one more resident block (Maxwell float N = 6 0.654 ->
 * 0.600 ms, N = 7 0.782 -> 0.988; tuning/RESULTS.md, session 13); and for
 * a staged tensor-core kernel level 1 before the face fluxes, which then
 * take the state's shared memory (overlay_state: no level-1 values held
 * across the products; Maxwell fp64 N = 7 1.217 -> 1.136 ms, float N = 6
 * 0.541 -> 0.563, session 14), batched and not.  Twins
 * rather than candidates: each doubles the variants it applies to, and
 * auto mode's compiles are near its 60 s budget at N = 7.  Appends c's
 * twins to twins[nt..] and returns the new count. */
static int twins_of(const dg_kernel_config *c, const dg_tune_result *r, dg_kernel_config *twins,
                    int nt) {
  int unbatchable = c->fuse_update && c->batch_residual && !c->early_residual;
  if (unbatchable) {
    twins[nt] = *c;
    twins[nt].batch_residual = 0;
    nt = dg_tune_keep_twin(r, twins, nt);
  }
  if (c->work_mode == DG_WORK_MMA && c->fuse_surface && c->fuse_update &&
      c->volume_passes > 1 && c->mma_extra_blocks == 0) {
    twins[nt] = *c;
    twins[nt].mma_extra_blocks = 1;
    nt = dg_tune_keep_twin(r, twins, nt);
  }
  if (c->work_mode == DG_WORK_MMA && c->stage_state && c->fuse_surface && !c->overlay_state) {
    dg_kernel_config o = overlaid(c);
    twins[nt] = o;
    nt = dg_tune_keep_twin(r, twins, nt);
    if (unbatchable) { /* and unbatched: the registers it frees may pay for the
                        * residual's (Maxwell fp64 N = 7: 1.179 ms batched,
                        * 1.136 unbatched) */
      twins[nt] = o;
      twins[nt].batch_residual = 0;
      nt = dg_tune_keep_twin(r, twins, nt);
    }
  }
  return nt;
}

int dg_tune_register_twins(const dg_tune_result *r, dg_kernel_config *twins) {
  dg_tune_leader lead[DG_TUNE_LEADERS];
  int n = phase2_leaders(r, 0, lead), nt = 0;
  for (int i = 0; i < n; i++)
    nt = twins_of(&lead[i].cfg, r, twins, nt);
  return nt;
}

/* The block twins of the DG_TUNE_LEADERS best variants after the register
 * round, into twins[]; returns how many.  Smaller blocks of the fused
 * tensor-core kernel:
 * - whole warps, about a quarter and a third of its NP x EPB per-node
 *   points (volume_warps ceil(NP x EPB / 128) and ceil(NP x EPB / 96); the
 *   last pass may be partly idle), as the leader is and, where it stages
 *   the state, with the face fluxes over it (overlay_state) and compact;
 * - an overlaid leader with compact_smem (the face fluxes element by
 *   element in rows of a bank-conflict-free stride, level 1's results
 *   unpadded), and its warps twins compact too.
 * Why: where the register file or shared memory held two of the two-pass
 * blocks, three or four of these fit, and their phases overlap (H100,
 * Maxwell fp64 N = 6: 336 threads in 2 blocks 0.819 ms, 7 warps in 3
 * blocks 0.770; float N = 6 0.543 -> 0.493 with 8 warps, N = 7 0.739 ->
 * 0.703 with 10, and 0.679 overlaid with 8 in 4 blocks; lost at N = 5
 * and in float at N = 4, 5); and a compact block leaves the multiprocessor
 * more L1 beside the same blocks where it crosses a carveout step (228 ->
 * 196 KiB of shared memory, 28 -> 60 KiB of L1; fp64 N = 6 in 3 blocks
 * 0.774 -> 0.703 ms, float N = 7 0.688 -> 0.635; never more than 2 %
 * slower; tuning/RESULTS.md, session 15).  And a leader on Bernstein
 * coefficients with the lift's all-zero tensor-core steps left out
 * (sparse_lift: fp64 N = 7 1.136 -> 1.069 ms with the shipped orders, N
 * = 6 0.701 -> 0.682, but float N = 7 0.642 -> 0.875; session 17).  Twins of the register round's
 * leaders, after it, so that they keep its choices; one round, so their
 * modules compile in one wave (at most 6 a leader). */
int dg_tune_block_twins(const dg_tune_result *r, int np, dg_kernel_config *twins) {
  dg_tune_leader lead[DG_TUNE_LEADERS];
  int n = phase2_leaders(r, 0, lead), nt = 0;
  for (int i = 0; i < n; i++) {
    const dg_kernel_config *c = &lead[i].cfg;
    if (c->work_mode != DG_WORK_MMA || !c->fuse_surface || !c->fuse_update ||
        c->volume_warps || c->early_residual)
      continue;
    dg_kernel_config base[2] = {*c, *c};
    int nb = 1;
    if (c->overlay_state && !c->compact_smem) {
      base[0].compact_smem = 1;
      twins[nt] = base[0];
      nt = dg_tune_keep_twin(r, twins, nt);
    } else if (c->stage_state && !c->overlay_state) {
      base[1] = overlaid(c);
      base[1].compact_smem = 1;
      nb = 2;
    }
    if (c->basis && !c->sparse_lift) { /* the lift's zero steps left out */
      twins[nt] = *c;
      twins[nt].sparse_lift = 1;
      nt = dg_tune_keep_twin(r, twins, nt);
    }
    int points = np * c->elements_per_block, threads = points / c->volume_passes;
    int w[2] = {(points + 127) / 128, (points + 95) / 96};
    for (int b = 0; b < nb; b++)
      for (int k = 0; k < 2; k++) {
        if (w[k] < 2 || 32 * w[k] >= threads || (k == 1 && w[1] == w[0]))
          continue;
        twins[nt] = base[b];
        twins[nt].volume_passes = 1;
        twins[nt].volume_warps = w[k];
        nt = dg_tune_keep_twin(r, twins, nt);
      }
  }
  return nt;
}

/* The least phase-2 score of configuration c (1e300 where it was never
 * timed to the end). */
static double phase2_score(const dg_tune_result *r, const dg_kernel_config *c) {
  double s = 1e300;
  for (int i = 0; i < r->nrows; i++) {
    const dg_tune_row *w = &r->rows[i];
    if (w->phase == 2 && w->t.status == 0 && w->score_ms < s &&
        memcmp(&w->cfg, c, sizeof *c) == 0)
      s = w->score_ms;
  }
  return s;
}

/* The coefficient twins (at most 3, into twins[]; returns how many) of
 * the block round's winner on Bernstein-Bezier coefficients, for the
 * combination round (dg_tune_combination_twins):
 * - with sparse_lift, where a leader's sparse_lift twin beat its leader and
 *   the winner has none (another block twin won): both are twins of the
 *   same leaders, so where each wins on its own the search never times them
 *   together (Maxwell fp64 N = 6: the warps and compact twin 0.701 ms, the
 *   shipped entry combining it with sparse_lift 0.678; tuning/RESULTS.md,
 *   session 17);
 * - without the L2 prefetch, where the winner is a block twin (whole warps
 *   or compact) that carries it: phase 2 chose it for the two-pass
 *   leaders, but it costs the smaller, more numerous blocks (fp64 N = 6 as
 *   shipped 0.668 ms, with the prefetch 0.743-0.753; session 19);
 * - and both. */
static int coefficient_twins(const dg_tune_result *r, const dg_kernel_config *best,
                             dg_kernel_config *twins) {
  int pays = 0;
  for (int i = 0; i < r->nrows && !pays; i++) {
    const dg_tune_row *w = &r->rows[i];
    if (w->phase != 2 || w->t.status != 0 || !w->cfg.sparse_lift)
      continue;
    dg_kernel_config leader = w->cfg;
    leader.sparse_lift = 0;
    pays = phase2_score(r, &w->cfg) < phase2_score(r, &leader);
  }
  int block = best->volume_warps || best->compact_smem, nt = 0;
  int sparse = pays && !best->sparse_lift, unfetched = block && best->l2_prefetch;
  for (int k = 1; k < 4; k++) { /* bit 0: sparse_lift, bit 1: no L2 prefetch */
    if (((k & 1) && !sparse) || ((k & 2) && !unfetched))
      continue;
    twins[nt] = *best;
    twins[nt].sparse_lift |= k & 1;
    if (k & 2)
      twins[nt].l2_prefetch = 0;
    nt = dg_tune_keep_twin(r, twins, nt);
  }
  return nt;
}

/* The combination round (into twins[]; returns how many, at most 7, one
 * compile wave) of the block round's tensor-core winner: its coefficient
 * twins where it is on Bernstein-Bezier coefficients, then each of those
 * and the winner itself, nodal ones too, with the k-step loops fully
 * unrolled (mma_unroll).  Why last and of the final variant: unrolling
 * trades registers for fragment loads in flight, and its sign turns on
 * the variant's register pressure (H100, session 21, the shipped knobs:
 * Maxwell fp64 N = 7 1.03 -> 0.97 ms, float N = 7 0.578 -> 0.563, but
 * Euler fp64 N = 5 1.94 -> 2.05 with 104 bytes of spills, float N = 3
 * 0.41 -> 0.43). */
int dg_tune_combination_twins(const dg_tune_result *r, const dg_kernel_config *best,
                              dg_kernel_config *twins) {
  if (best->work_mode != DG_WORK_MMA)
    return 0;
  int nt = best->basis ? coefficient_twins(r, best, twins) : 0;
  if (!best->mma_unroll)
    for (int i = -1, n = nt; i < n; i++) {
      twins[nt] = i < 0 ? *best : twins[i];
      twins[nt].mma_unroll = 1;
      nt = dg_tune_keep_twin(r, twins, nt);
    }
  return nt;
}

/* What the strided round prepares: its twins, and the register twins the
 * next round may ask for (those of phase 2's leaders and of the strided
 * twins), so both rounds' modules compile side by side in one wave, not
 * one after the other (the twins the second round does not ask for cost a
 * thread's compile each, of 16).  Returns how many it put in twins[] (at
 * most 8 DG_TUNE_LEADERS). */
int dg_tune_prepared_twins(const dg_tune_result *r, const dg_kernel_config *strided, int ns,
                           dg_kernel_config *twins) {
  int n = 0;
  for (int i = 0; i < ns; i++)
    n = twins_of(&strided[i], r, twins, n);
  return n + dg_tune_register_twins(r, twins + n);
}
