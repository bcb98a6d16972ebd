/* tuning.search: the candidate space holds only legal configurations;
 * pruning rejects spills beyond a few words, register-file and
 * shared-memory overflows; the search finds the minimum of a synthetic cost
 * model phase by phase and stops timing candidates over 2x the best after
 * one repeat; the leaders of a phase are timed again, so one lucky timing
 * does not win; the best tensor-core variants are timed again with
 * strided_k, and the best variants with their register twins (the residual
 * loaded field by field, one more block for the two-pass tensor-core
 * kernel), prepared first, then the best of those in blocks of whole warps
 * (volume_warps), the overlaid ones compact (compact_smem) and those on
 * Bernstein coefficients with the lift's zero steps left out
 * (sparse_lift), and last the winner and its combinations with the k-step
 * loops fully unrolled (mma_unroll), nodal winners too; each twin wins
 * only where it is faster; then the shipped choices of related devices
 * (kin), whole. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "operators/kernel_knobs.h"
#include "tuning/tuner.h"

#include "tests/expect.h"

static int measured, stopped_early;

/* Lucky first timings: unroll 8 (volume phase) times 1.0 ms at its first
 * go and 3.0 ms after; unroll 2 always 1.5 ms; the rest 2.0 ms.  The
 * re-timing of the leaders must choose unroll 2. */
static int lucky_calls;
static dg_error lucky(void *ctx, const dg_kernel_config *c, int phase, double cutoff,
                      dg_tune_timing *t) {
  (void)ctx;
  (void)cutoff;
  t->surface_ms = t->update_ms = 0;
  t->volume_ms = 2.0;
  if (phase == 2 && c->unroll == 2)
    t->volume_ms = 1.5;
  if (phase == 2 && c->unroll == 8)
    t->volume_ms = lucky_calls++ == 0 ? 1.0 : 3.0;
  return DG_OK;
}

/* Tensor cores: the mma variants 1.0 ms (16-row tiles 0.1 less, the
 * basis bernstein ones 0.2 less), strided_k 0.3 less (strided_wins) or
 * more; everything else 2.0 ms; the residual loaded field by field 0.05
 * less (unbatched_wins) or more, one more block of a two-pass kernel 0.05
 * more; one pass or the early residual 0.01 more (so the leaders run two
 * passes, and each has both register twins); level 1 before the face
 * fluxes (overlay_state, a twin of the staged leaders) 0.02 more, or with
 * the residual unbatched 0.2 less (overlay_wins); blocks of whole warps
 * (volume_warps, a twin of the register round's leaders) 0.3 less
 * (warps_wins) or 0.05 more; the overlaid leaders after that with
 * compact_smem 0.1 less (compact_wins) or 0.05 more; the lift's zero
 * steps left out (sparse_lift, a twin of the same leaders) 0.01 less
 * (sparse_wins: less than any other winning twin, at least 0.03, so the
 * block round chooses it only where they lose, and the combination round
 * then adds it to the winning one) or 0.05 more; the k-step loops fully
 * unrolled (mma_unroll, a twin of the final winner) 0.005 less
 * (unroll_wins) or 0.05 more. */
static int strided_wins, unbatched_wins, overlay_wins, warps_wins, compact_wins, sparse_wins,
    unroll_wins, prepared_ok, rounds;
/* prefetch_model: the L2 prefetch 0.005 less on a variant without
 * volume_warps, 0.02 more on one with it (as on the H100, fp64 N = 6) */
static int prefetch_model;
static int round_n[4], round_strided[4], round_register[4], ahead_missing;
static dg_kernel_config round0[32];
static dg_error mma_model(void *ctx, const dg_kernel_config *c, int phase, double cutoff,
                          dg_tune_timing *t) {
  (void)ctx;
  (void)phase;
  (void)cutoff;
  t->surface_ms = t->update_ms = 0;
  t->volume_ms = 2.0;
  if (c->work_mode == DG_WORK_MMA)
    t->volume_ms = 1.0 - 0.1 * (c->mma_rows == 16) - 0.2 * c->basis +
                   (c->strided_k ? (strided_wins ? -0.3 : 0.3) : 0);
  if (!c->batch_residual)
    t->volume_ms += unbatched_wins ? -0.05 : 0.05;
  if (c->volume_passes > 1 && c->mma_extra_blocks)
    t->volume_ms += 0.05;
  if (c->volume_passes == 1 || c->early_residual)
    t->volume_ms += 0.01;
  if (c->overlay_state)
    t->volume_ms += overlay_wins && !c->batch_residual ? -0.2 : 0.02;
  if (c->volume_warps)
    t->volume_ms += warps_wins ? -0.3 : 0.05;
  if (c->compact_smem)
    t->volume_ms += compact_wins ? -0.1 : 0.05;
  if (c->sparse_lift)
    t->volume_ms += sparse_wins ? -0.01 : 0.05;
  if (c->mma_unroll)
    t->volume_ms += unroll_wins ? -0.005 : 0.05;
  if (prefetch_model && c->l2_prefetch)
    t->volume_ms += c->volume_warps ? 0.02 : -0.005;
  return DG_OK;
}
/* Counts each prepared round's twins: strided ones, register ones (legal,
 * and one knob away from a strided-or-not leader). */
static void mma_prepare(void *ctx, const dg_kernel_config *cfgs, int n) {
  (void)ctx;
  if (rounds < 4) {
    round_n[rounds] = n;
    round_strided[rounds] = round_register[rounds] = 0;
  }
  for (int i = 0; i < n; i++) {
    int legal = dg_kernel_config_check(&cfgs[i], 56) == DG_OK;
    if (rounds == 0 && i < 32)
      round0[i] = cfgs[i];
    if (rounds == 1) { /* the register round: prepared in the first round already */
      int found = 0;
      for (int j = 0; j < round_n[0] && j < 32 && !found; j++)
        found = memcmp(&round0[j], &cfgs[i], sizeof cfgs[i]) == 0;
      ahead_missing += !found;
    }
    prepared_ok += cfgs[i].strided_k && cfgs[i].work_mode == DG_WORK_MMA && legal;
    if (rounds < 4) {
      round_strided[rounds] += cfgs[i].strided_k && cfgs[i].work_mode == DG_WORK_MMA && legal;
      round_register[rounds] += legal && (!cfgs[i].batch_residual ||
                                          (cfgs[i].mma_extra_blocks == 1 &&
                                           cfgs[i].volume_passes > 1) ||
                                          cfgs[i].overlay_state);
    }
  }
  rounds++;
}

/* cost model: the best variant is inline x 2, 4 elements per block, fused
 * surface (prefetch or fused: the same saving), unrolled twice where that
 * is a candidate, np_align 4, 128 face threads; epb 1 is very slow
 * (stopped after one repeat) */
static dg_error model(void *ctx, const dg_kernel_config *c, int phase, double cutoff,
                      dg_tune_timing *t) {
  (void)ctx;
  measured++;
  t->surface_ms = 1.0 + (c->face_threads == 128 ? 0 : 0.5);
  t->volume_ms = 2.0 + (c->work_mode == DG_WORK_INLINE && c->work_per_thread == 2 ? 0 : 1) +
                 (c->elements_per_block == 4 ? 0 : 0.5) +
                 (c->prefetch || c->fuse_surface ? 0 : 0.25) +
                 (c->elements_per_block == 1 ? 20 : 0) + (c->unroll == 2 ? 0 : 0.05);
  t->update_ms = c->fuse_update ? 0 : 0.5;
  if (c->fuse_surface) /* the fused surface saves the fl round trip */
    t->volume_ms -= 0.3;
  if (c->np_align != 4)
    t->volume_ms += 0.1;
  double score = phase == 3 ? t->surface_ms : t->surface_ms + t->volume_ms + t->update_ms;
  if (cutoff > 0 && score > cutoff) {
    t->status = 2;
    stopped_early++;
  }
  return DG_OK;
}

/* kin_model: model's costs, but the combination epb 8 x inline x 4 x
 * unroll 1, several knobs from model's optimum (each of them alone costs
 * more), takes 3.0 ms off; face threads as in model. */
static int kin_timed;
static dg_error kin_model(void *ctx, const dg_kernel_config *c, int phase, double cutoff,
                          dg_tune_timing *t) {
  DG_CALL(model(ctx, c, phase, cutoff, t));
  if (c->elements_per_block == 8 && c->work_mode == DG_WORK_INLINE &&
      c->work_per_thread == 4 && c->unroll == 1) {
    t->volume_ms -= 3.0; /* more than epb, work and unroll cost in model */
    t->status = 0;
    kin_timed++;
  }
  return DG_OK;
}

/* Every variant spills (a physics of very long expressions): pruned unless
 * the search asks with cutoff < 0; the model's costs then. */
static int spill_asked, spill_forced;
static dg_error spill_model(void *ctx, const dg_kernel_config *c, int phase, double cutoff,
                            dg_tune_timing *t) {
  spill_asked++;
  if (cutoff >= 0) {
    t->status = 1;
    snprintf(t->why, sizeof t->why, "spills: 4096 bytes of local memory per thread (> 64)");
    return DG_OK;
  }
  spill_forced++;
  return model(ctx, c, phase, 0, t);
}

/* A phase whose every candidate is pruned times the pruned ones. */
static void check_all_pruned(void) {
  dg_tune_space sp;
  EXPECT(dg_tune_space_create(1, DG_TUNE_AUTO, 10, 12, &sp) == DG_OK);
  dg_kernel_config base = dg_kernel_config_default();
  dg_tune_result r;
  EXPECT(dg_tune_search(&sp, &base, spill_model, NULL, NULL, &r) == DG_OK);
  EXPECT(spill_forced >= sp.nlayouts + sp.nvolume + sp.nface && spill_asked > spill_forced,
         "%d asked, %d forced", spill_asked, spill_forced);
  EXPECT(r.rhs_ms > 0);
  dg_tune_result_free(&r);
  dg_tune_space_free(&sp);
}

static void check_kin(void) {
  /* the shipped choices of related devices (kin) are timed whole after the
   * staged rounds and win where they are faster; a kin entry already timed
   * is not timed again; the surface round still follows */
  for (int with_kin = 0; with_kin <= 2; with_kin++) {
    dg_tune_space sp;
    EXPECT(dg_tune_space_create(1, DG_TUNE_AUTO, 10, 12, &sp) == DG_OK);
    dg_kernel_config base = dg_kernel_config_default(), k = base;
    k.elements_per_block = 8;
    k.work_mode = DG_WORK_INLINE;
    k.work_per_thread = 4;
    k.unroll = 1;
    k.np_align = 4;
    k.fuse_update = k.fuse_surface = 1;
    k.face_threads = 256; /* phase 3 chooses 128 again */
    if (with_kin) {
      sp.nkin = with_kin;
      sp.kin = calloc(2, sizeof *sp.kin);
      sp.kin[0] = k;
      sp.kin[1] = base; /* timed in the layout round already */
    }
    dg_tune_result r;
    measured = stopped_early = kin_timed = 0;
    EXPECT(dg_tune_search(&sp, &base, kin_model, NULL, NULL, &r) == DG_OK);
    int base_rows = 0;
    for (int i = 0; i < r.nrows; i++)
      base_rows += !r.rows[i].retime && memcmp(&r.rows[i].cfg, &base, sizeof base) == 0;
    EXPECT(base_rows <= 1, "base timed %d times", base_rows);
    if (with_kin) {
      EXPECT(r.best.elements_per_block == 8 && r.best.work_per_thread == 4 && r.best.unroll == 1);
      EXPECT(r.best.face_threads == 128);
      EXPECT(kin_timed >= 1);
    } else {
      EXPECT(r.best.elements_per_block == 4 && kin_timed == 0, "epb %d, kin timed %d",
             r.best.elements_per_block, kin_timed);
    }
    dg_tune_result_free(&r);
    dg_tune_space_free(&sp);
  }
}

/* The cpu space's chunk knob, and the pruning heuristics. */
static void check_cpu_chunk_and_prune(void) {
  /* cpu: the chunk is the knob */
  dg_tune_space cs;
  EXPECT(dg_tune_space_create(0, DG_TUNE_AUTO, 20, 40, &cs) == DG_OK);
  EXPECT(cs.nvolume >= 3 && cs.volume[1].cpu_chunk != cs.volume[2].cpu_chunk);
  dg_tune_space_free(&cs);
  /* pruning */
  dg_device_info info;
  memset(&info, 0, sizeof info);
  info.backend = DG_BACKEND_CUDA;
  info.max_shared_per_block_optin = 227 * 1024;
  char why[128];
  dg_kernel_attributes ok = {64, 0, 0, 1024}, spill = {255, 0, 48, 1024},
                       regs = {128, 0, 0, 1024}, big = {32, 1024, 0, 1024};
  EXPECT(!dg_tune_prune(&ok, 256, 1000, &info, why, sizeof why));
  /* a few spilled words are timed, more are not */
  EXPECT(!dg_tune_prune(&spill, 256, 0, &info, why, sizeof why));
  spill.local_bytes = DG_TUNE_MAX_LOCAL_BYTES + 8;
  EXPECT(dg_tune_prune(&spill, 256, 0, &info, why, sizeof why) && strstr(why, "spill"));
  EXPECT(dg_tune_prune(&regs, 1024, 0, &info, why, sizeof why) && strstr(why, "register"));
  EXPECT(dg_tune_prune(&big, 128, 227 * 1024, &info, why, sizeof why) && strstr(why, "shared"));
}

/* Both modes on the model: the winner, every candidate timed once and the
 * leaders again, the strided and unbatched twins, the early stops. */
static void check_search_modes(void) {
  for (int mode = 1; mode <= 2; mode++) {
    dg_tune_space sp;
    EXPECT(dg_tune_space_create(1, (dg_tune_mode)mode, 10, 12, &sp) == DG_OK);
    EXPECT(sp.nlayouts >= 2 && sp.nvolume >= 10 && sp.nface >= 2);
    for (int i = 0; i < sp.nvolume; i++)
      EXPECT(dg_kernel_config_check(&sp.volume[i], 10) == DG_OK);
    dg_kernel_config base = dg_kernel_config_default();
    dg_tune_result r;
    measured = stopped_early = 0;
    EXPECT(dg_tune_search(&sp, &base, model, NULL, NULL, &r) == DG_OK);
    EXPECT(r.best.work_mode == DG_WORK_INLINE && r.best.work_per_thread == 2);
    EXPECT(r.best.elements_per_block == 4);
    EXPECT(r.best.np_align == 4 && r.best.face_threads == 128 && r.best.fuse_update == 1);
    EXPECT(r.best.fuse_surface == 1);
    /* unroll 2 is a full-mode candidate; auto mode finds the best of the rest */
    EXPECT(r.best.unroll == (mode == DG_TUNE_FULL ? 2 : 4));
    /* every candidate once, then each phase's leaders (up to 3) twice more;
     * full mode's tensor-core candidates (the model's slowest) bring their
     * strided_k twins, a fourth round of leaders; the three best (fused
     * update, one pass) their residual loaded field by field, a fifth */
    int again = 0, twins = 0, unbatched = 0;
    for (int i = 0; i < r.nrows; i++) {
      again += r.rows[i].retime > 0;
      twins += !r.rows[i].retime && r.rows[i].cfg.strided_k;
      unbatched += !r.rows[i].retime && !r.rows[i].cfg.batch_residual;
    }
    EXPECT(twins == (mode == DG_TUNE_FULL ? 3 : 0), "%d twins", twins);
    EXPECT(unbatched == 3, "%d unbatched twins", unbatched);
    EXPECT(measured == sp.nlayouts + sp.nvolume + sp.nface + twins + unbatched + again &&
           r.nrows == measured);
    EXPECT(again >= 4 * 2 * 2 && again <= (twins ? 5 : 4) * 3 * 2);
    EXPECT(stopped_early > 0); /* the epb = 1 variants */
    dg_tune_result_free(&r);
    dg_tune_space_free(&sp);
}
}

/* the other unroll factors and the node-major shared layout (node-per-
 * thread modes only) in full mode only; the traces gathered ahead in both
 * modes, the tensor-core kernel's too */
static void check_full_mode_space(void) {
for (int mode = 1; mode <= 2; mode++) {
  dg_tune_space sp;
  EXPECT(dg_tune_space_create(1, (dg_tune_mode)mode, 56, 84, &sp) == DG_OK);
  int seen[9] = {0}, vec = 0, vec_gemm = 0, ga = 0, ga_mma = 0, rows16 = 0, xb = 0,
      pairs = 0, l2pf = 0, vpass = 0, eres = 0, eres_rows8 = 0;
  for (int i = 0; i < sp.nvolume; i++) {
    const dg_kernel_config *c = &sp.volume[i];
    EXPECT(dg_kernel_config_check(c, 56) == DG_OK);
    seen[c->unroll]++;
    vec += c->vector_loads;
    vec_gemm += c->vector_loads && c->work_mode >= DG_WORK_GEMM;
    ga += c->gather_ahead;
    ga_mma += c->gather_ahead && c->work_mode == DG_WORK_MMA;
    rows16 += c->mma_rows == 16;
    pairs += c->mma_pairs;
    l2pf += c->l2_prefetch;
    vpass += c->volume_passes == 2;
    eres += c->early_residual;
    eres_rows8 += c->early_residual && c->mma_rows == 8 && !c->mma_pairs;
    EXPECT(c->volume_passes == 1 || c->work_mode == DG_WORK_MMA);
    EXPECT(!c->l2_prefetch || c->work_mode == DG_WORK_MMA);
    /* the early residual: the fused (update) tensor-core kernel in one pass */
    EXPECT(!c->early_residual || (c->work_mode == DG_WORK_MMA && c->fuse_update &&
                                  c->volume_passes == 1));
    EXPECT(!c->mma_pairs || (c->work_mode == DG_WORK_MMA && c->mma_rows == 8));
    EXPECT(c->mma_rows == 8 || c->work_mode == DG_WORK_MMA);
    /* one more resident block: the fused tensor-core kernel's knob only */
    xb += c->mma_extra_blocks == 1;
    EXPECT(c->mma_extra_blocks == 0 ||
           (c->work_mode == DG_WORK_MMA && c->fuse_surface && c->fuse_update));
  }
  int full = mode == DG_TUNE_FULL;
  EXPECT(seen[4] > 0 && (seen[1] > 0) == full && (seen[2] > 0) == full &&
         (seen[8] > 0) == full);
  EXPECT((vec >= 8) == full && vec_gemm == 0);
  EXPECT(ga >= 10 && ga_mma >= 2); /* check() above: only with fuse_surface */
  EXPECT(rows16 >= 2);             /* both tensor-core tile shapes */
  EXPECT(xb >= 6);                 /* every tile, traces gathered ahead or not */
  EXPECT(pairs >= 4);
  EXPECT(l2pf >= 12); /* every fused tensor-core candidate, with and without */
  EXPECT(vpass >= 4);
  /* every fused tensor-core candidate (every tile shape), with and without */
  EXPECT(eres_rows8 >= 8 && eres >= 24);
  /* Bernstein-Bezier coefficients: the fused tensor-core kernel, every
   * tile, with and without one more block, with the early residual or the
   * state staged (and staged in two passes), the staged ones also with
   * the update streamed, the two-pass ones also with the traces from the
   * staged state and without the L2 prefetch; gone for a physics that is
   * not affine */
  int bb = 0, staged = 0, streamed = 0, local = 0, unfetched = 0;
  for (int i = 0; i < sp.nvolume; i++) {
    bb += sp.volume[i].basis && sp.volume[i].work_mode == DG_WORK_MMA &&
          sp.volume[i].fuse_surface && sp.volume[i].fuse_update;
    staged += sp.volume[i].stage_state;
    streamed += sp.volume[i].stream_update;
    local += sp.volume[i].local_traces;
    unfetched += sp.volume[i].stage_state && sp.volume[i].volume_passes == 2 &&
                 !sp.volume[i].l2_prefetch;
    EXPECT(!sp.volume[i].local_traces || sp.volume[i].volume_passes == 2);
    EXPECT(!sp.volume[i].stage_state || sp.volume[i].basis);
    EXPECT(!sp.volume[i].stream_update || sp.volume[i].stage_state);
  }
  EXPECT(bb == 40 && staged == 28 && streamed == 14 && local == 8 && unfetched == 8,
         "bb %d staged %d streamed %d local %d unfetched %d", bb, staged, streamed, local,
         unfetched);
  int before = sp.nvolume;
  { /* an affine physics in auto mode: the coefficient forms stand in for
     * the nodal tensor-core ones, and every other candidate stays */
    dg_tune_space aff;
    EXPECT(dg_tune_space_create(1, (dg_tune_mode)mode, 56, 84, &aff) == DG_OK);
    int nodal_mma = 0, other = 0;
    for (int i = 0; i < aff.nvolume; i++) {
      nodal_mma += aff.volume[i].work_mode == DG_WORK_MMA && !aff.volume[i].basis;
      other += aff.volume[i].work_mode != DG_WORK_MMA;
    }
    dg_tune_space_drop_nodal_mma(&aff);
    int left_bb = 0, left_other = 0;
    for (int i = 0; i < aff.nvolume; i++) {
      EXPECT(aff.volume[i].work_mode != DG_WORK_MMA || aff.volume[i].basis);
      left_bb += aff.volume[i].basis && aff.volume[i].work_mode == DG_WORK_MMA;
      left_other += aff.volume[i].work_mode != DG_WORK_MMA;
    }
    EXPECT(nodal_mma >= 48 && aff.nvolume == before - nodal_mma && left_bb == 40 &&
           left_other == other, "nodal mma %d, %d -> %d", nodal_mma, before, aff.nvolume);
    dg_tune_space_free(&aff);
    /* no coefficient candidate (Np < 20): nothing to stand in, nothing dropped */
    EXPECT(dg_tune_space_create(1, (dg_tune_mode)mode, 10, 12, &aff) == DG_OK);
    int n10 = aff.nvolume;
    dg_tune_space_drop_nodal_mma(&aff);
    EXPECT(aff.nvolume == n10);
    dg_tune_space_free(&aff);
  }
  dg_tune_space_drop_bernstein(&sp);
  EXPECT(sp.nvolume == before - 40);
  for (int i = 0; i < sp.nvolume; i++)
    EXPECT(!sp.volume[i].basis);
  dg_tune_space_free(&sp);
}
}

/* one lucky timing does not win: the leaders are timed again */
static void check_lucky(void) {
dg_tune_space sp;
EXPECT(dg_tune_space_create(1, DG_TUNE_FULL, 10, 12, &sp) == DG_OK);
int n8 = 0, n2 = 0;
for (int i = 0; i < sp.nvolume; i++) {
  n8 += sp.volume[i].unroll == 8;
  n2 += sp.volume[i].unroll == 2;
}
EXPECT(n8 > 0 && n2 > 0); /* full mode has both unroll factors */
dg_kernel_config base = dg_kernel_config_default();
dg_tune_result r;
lucky_calls = 0;
EXPECT(dg_tune_search(&sp, &base, lucky, NULL, NULL, &r) == DG_OK);
EXPECT(r.best.unroll == 2);
EXPECT(lucky_calls >= 3); /* the lucky one was timed again too */
dg_tune_result_free(&r);
dg_tune_space_free(&sp);
}

/* strided_k: the three best tensor-core variants again with it, prepared
 * first; chosen where it is faster, not where it is slower; the space
 * itself has no strided_k candidate.  Then the register twins of the
 * three best (strided or not): the residual loaded field by field, and
 * one more block where a leader runs two passes, and for the staged
 * leaders level 1 before the face fluxes (overlay_state), batched and
 * not, prepared first; the unbatched and overlay ones chosen where they
 * are faster only, the extra block (slower in the model) never; no twin
 * of a variant timed before; then the warps, compact and sparse twins of
 * the leaders; last the winner and its combinations fully unrolled */
static void check_twins(int w) {
  strided_wins = w & 1;
  unbatched_wins = (w >> 1) & 1;
  overlay_wins = (w >> 2) & 1;
  warps_wins = (w >> 3) & 1;
  compact_wins = (w >> 4) & 1;
  sparse_wins = (w >> 5) & 1;
  unroll_wins = w >> 6;
  dg_tune_space sp;
  EXPECT(dg_tune_space_create(1, DG_TUNE_AUTO, 56, 84, &sp) == DG_OK);
  for (int i = 0; i < sp.nvolume; i++)
    EXPECT(!sp.volume[i].strided_k && sp.volume[i].batch_residual);
  dg_kernel_config base = dg_kernel_config_default();
  dg_tune_result r;
  prepared_ok = rounds = ahead_missing = 0;
  EXPECT(dg_tune_search(&sp, &base, mma_model, mma_prepare, NULL, &r) == DG_OK);
  /* the first round prepares the strided twins, their register twins and
   * the leaders' (3 + 10 + 10, in one compile wave: each leader unbatched
   * and with one more block, and the two staged ones with the fused
   * surface also overlaid, batched and not); the second asks for none it
   * did not prepare */
  EXPECT(rounds >= 3 && round_n[0] == 23 && round_strided[0] == 13,
         "rounds %d, first %d (%d strided)", rounds, round_n[0], round_strided[0]);
  EXPECT(ahead_missing == 0, "%d register twins not prepared ahead", ahead_missing);
  EXPECT(round_n[1] == 10 && round_register[1] == 10,
         "register round %d (%d legal twins)", round_n[1], round_register[1]);
  int twins = 0, unbatched = 0, extra = 0, overlay = 0, warps = 0, warps4 = 0, compact = 0,
      sparse = 0, combined = 0, unrolled = 0;
  /* the combination round: the block round's winner, a warps or compact
   * twin, with sparse_lift where that won on a leader too */
  int combine = sparse_wins && (warps_wins || compact_wins);
  for (int i = 0; i < r.nrows; i++) {
    const dg_tune_row *x = &r.rows[i];
    /* the unrolled twins apart (first2 and first leave them out) */
    unrolled += x->phase == 2 && !x->retime && x->cfg.mma_unroll;
    EXPECT(!x->cfg.mma_unroll || x->phase == 3 || /* phase 3: the winner's */
           (x->phase == 2 && x->cfg.work_mode == DG_WORK_MMA));
    int first2 = x->phase == 2 && !x->retime && !x->cfg.mma_unroll;
    int both = x->cfg.sparse_lift && (x->cfg.volume_warps || x->cfg.compact_smem);
    combined += first2 && both;
    compact += first2 && x->cfg.compact_smem && !x->cfg.sparse_lift;
    sparse += first2 && x->cfg.sparse_lift && !both;
    EXPECT(!x->cfg.sparse_lift || x->cfg.basis); /* the leaders' own, or the combination */
    EXPECT(!x->cfg.compact_smem || x->cfg.overlay_state);
    warps += first2 && x->cfg.volume_warps && !x->cfg.compact_smem && !x->cfg.sparse_lift;
    warps4 += first2 && x->cfg.volume_warps == 4 && !x->cfg.compact_smem && !x->cfg.sparse_lift;
    /* W = 56 x 8 / 96 = 4 and 5 warps, one pass of the leader's knobs */
    EXPECT(!x->cfg.volume_warps ||
           ((x->cfg.volume_warps == 4 || x->cfg.volume_warps == 5) &&
            x->cfg.volume_passes == 1 && x->cfg.fuse_surface && x->cfg.fuse_update));
    int first = first2 && !x->cfg.volume_warps &&
                !x->cfg.compact_smem && !x->cfg.sparse_lift; /* before the block round */
    twins += first && x->cfg.strided_k;
    unbatched += first && !x->cfg.batch_residual;
    extra += first && x->cfg.volume_passes > 1 && x->cfg.mma_extra_blocks == 1;
    overlay += first && x->cfg.overlay_state;
    EXPECT(!x->cfg.overlay_state || !x->cfg.local_traces);
    for (int j = 0; j < i; j++) /* no variant timed twice in phase 2 but re-timed */
      EXPECT(x->phase != 2 || r.rows[j].phase != 2 || x->retime || r.rows[j].retime ||
             memcmp(&x->cfg, &r.rows[j].cfg, sizeof x->cfg) != 0);
  }
  /* the register twins of strided leaders are strided too */
  EXPECT(twins == (strided_wins ? 13 : 3), "%d strided", twins);
  for (int i = 0; i < sp.nvolume; i++) /* the space's own (nodal two-pass ones) */
    extra -= sp.volume[i].volume_passes > 1 && sp.volume[i].mma_extra_blocks == 1;
  EXPECT(unbatched == 5 && extra == 3, "unbatched %d extra twins %d", unbatched, extra);
  /* (a compact twin is overlaid: with compact winning the overlay comes along) */
  EXPECT(overlay == 4 && r.best.overlay_state == (overlay_wins || compact_wins),
         "%d overlay twins", overlay);
  EXPECT(r.best.work_mode == DG_WORK_MMA && r.best.basis && r.best.mma_rows == 16);
  EXPECT(r.best.strided_k == strided_wins);
  /* the block round (the third and last): the three leaders after the
   * register round (two-pass, fused) with 4 and 5 warps (ceil(448 / 128),
   * ceil(448 / 96)); a staged leader not overlaid also overlaid and
   * compact with them, an overlaid one compact, and its warps twins
   * compact too: 3 leaders, 2 staged, 1 non-staged: 4 + 4 + 2 = 10; with
   * the overlay won 2 overlaid + 1 staged (3 + 3 + 4 = 10), or, with the
   * overlay won unbatched, 2 overlaid + 1 non-staged (3 + 3 + 2 = 8); and
   * each leader (all on Bernstein coefficients) with sparse_lift: 3 more */
  int expect_block = (overlay_wins && unbatched_wins ? 8 : 10) + 3;
  EXPECT(rounds == 4 && round_n[2] == warps + compact + sparse &&
             round_n[2] == expect_block && sparse == 3 && warps4 == warps - warps4,
         "%d rounds, block round %d (%d warps twins, %d with 4; %d compact; %d sparse)",
         rounds, round_n[2], warps, warps4, compact, sparse);
  /* the combination round: the winner with sparse_lift where that won on
   * a leader too, and the winner and that twin fully unrolled */
  EXPECT(combined == combine && unrolled == 1 + combine && round_n[3] == 1 + 2 * combine,
         "%d combination twins (expected %d), %d unrolled, last round %d", combined, combine,
         unrolled, round_n[3]);
  EXPECT(r.best.mma_unroll == unroll_wins, "best: mma_unroll %d", r.best.mma_unroll);
  EXPECT(r.best.sparse_lift == sparse_wins, "best: sparse_lift %d", r.best.sparse_lift);
  /* chosen where faster, but an overlaid leader's warps twins are compact
   * only (so with the warps and the overlay winning, compact comes along),
   * and a compact twin of a leader not overlaid has warps */
  int want_vw = warps_wins || (compact_wins && !overlay_wins) ? 4 : 0;
  int want_compact = compact_wins || (warps_wins && overlay_wins);
  EXPECT(r.best.volume_warps == want_vw && r.best.volume_passes == (want_vw ? 1 : 2) &&
             r.best.compact_smem == want_compact,
         "best: %d warps, %d passes, compact %d", r.best.volume_warps, r.best.volume_passes,
         r.best.compact_smem);
  EXPECT(r.best.batch_residual == !(unbatched_wins || overlay_wins) &&
         r.best.mma_extra_blocks == 0);
  dg_tune_result_free(&r);
  /* no tensor-core variant timed: no strided twins, no extra blocks */
  prepared_ok = rounds = 0;
  dg_tune_space_drop_bernstein(&sp);
  for (int i = 0; i < sp.nvolume; i++)
    if (sp.volume[i].work_mode == DG_WORK_MMA)
      sp.volume[i] = sp.volume[0];
  EXPECT(dg_tune_search(&sp, &base, mma_model, mma_prepare, NULL, &r) == DG_OK);
  EXPECT(prepared_ok == 0 && !r.best.strided_k && r.best.work_mode != DG_WORK_MMA);
  EXPECT(rounds == 1 && round_register[0] == round_n[0] && round_n[0] <= 3);
  dg_tune_result_free(&r);
  dg_tune_space_free(&sp);
}

/* a nodal tensor-core winner: the combination round is its unrolled
 * twin alone, chosen where it is faster */
static void check_nodal_mma_winner(void) {
  for (unroll_wins = 0; unroll_wins < 2; unroll_wins++) {
    strided_wins = unbatched_wins = overlay_wins = warps_wins = compact_wins = 0;
    sparse_wins = 0;
    dg_tune_space sp;
    EXPECT(dg_tune_space_create(1, DG_TUNE_AUTO, 56, 84, &sp) == DG_OK);
    dg_tune_space_drop_bernstein(&sp);
    dg_kernel_config base = dg_kernel_config_default();
    dg_tune_result r;
    rounds = 0;
    EXPECT(dg_tune_search(&sp, &base, mma_model, mma_prepare, NULL, &r) == DG_OK);
    int last = rounds - 1 < 4 ? rounds - 1 : 3, unrolled = 0;
    for (int i = 0; i < r.nrows; i++)
      unrolled += r.rows[i].phase == 2 && r.rows[i].cfg.mma_unroll && !r.rows[i].retime;
    EXPECT(r.best.work_mode == DG_WORK_MMA && !r.best.basis && last >= 0 && round_n[last] == 1 &&
               unrolled == 1 && r.best.mma_unroll == unroll_wins,
           "nodal: %d rounds, the last %d, %d unrolled, best mma_unroll %d", rounds,
           last >= 0 ? round_n[last] : -1, unrolled, r.best.mma_unroll);
    dg_tune_result_free(&r);
    dg_tune_space_free(&sp);
}
}

/* the combination round without the L2 prefetch: phase 2's leaders carry
 * it (it wins there), the warps twin keeps it although it loses there,
 * and the round times the winner with sparse_lift, without the prefetch
 * and both (3 twins), and the four fully unrolled: all three chosen */
static void check_combination_round(void) {
strided_wins = unbatched_wins = overlay_wins = compact_wins = 0;
warps_wins = sparse_wins = prefetch_model = unroll_wins = 1;
dg_tune_space sp;
EXPECT(dg_tune_space_create(1, DG_TUNE_AUTO, 56, 84, &sp) == DG_OK);
dg_kernel_config base = dg_kernel_config_default();
dg_tune_result r;
rounds = 0;
EXPECT(dg_tune_search(&sp, &base, mma_model, mma_prepare, NULL, &r) == DG_OK);
int fetched_warps = 0;
for (int i = 0; i < r.nrows; i++)
  fetched_warps += r.rows[i].phase == 2 && r.rows[i].cfg.volume_warps &&
                   r.rows[i].cfg.l2_prefetch && !r.rows[i].cfg.sparse_lift;
EXPECT(fetched_warps > 0 && rounds == 4 && round_n[3] == 7,
       "%d warps twins with the prefetch, %d rounds, the last %d", fetched_warps, rounds,
       round_n[3]);
EXPECT(r.best.volume_warps && r.best.sparse_lift && !r.best.l2_prefetch && r.best.mma_unroll,
       "best: %d warps, sparse_lift %d, l2_prefetch %d, mma_unroll %d", r.best.volume_warps,
       r.best.sparse_lift, r.best.l2_prefetch, r.best.mma_unroll);
dg_tune_result_free(&r);
dg_tune_space_free(&sp);
prefetch_model = 0;
}

/* the printed table and choice carry every knob, the last (cpu_chunk)
 * too, at every knob's longest value */
static void check_print_every_knob(void) {
dg_tune_result r;
memset(&r, 0, sizeof r);
dg_kernel_config c = dg_kernel_config_default();
c.elements_per_block = 16;
c.face_threads = 1024;
c.matrices = DG_MATRIX_CONSTANT;
c.np_align = 16;
c.layout = DG_LAYOUT_ELEMENT_MAJOR;
c.work_mode = DG_WORK_SEQUENCE;
c.basis = c.stage_state = c.stream_update = c.local_traces = c.strided_k = 1;
c.overlay_state = 1;
c.volume_warps = 32;
c.compact_smem = 1;
c.mma_extra_blocks = 2;
c.cpu_chunk = 100000;
c.sparse_lift = 1;
c.mma_unroll = 1;
r.best = c;
dg_tune_row row;
memset(&row, 0, sizeof row);
row.phase = 2;
row.cfg = c;
r.rows = &row;
r.nrows = 1;
char *text = NULL;
size_t len = 0;
FILE *f = open_memstream(&text, &len);
EXPECT(f != NULL);
if (f) {
  dg_tune_print(f, &r);
  fclose(f);
  const char *tail = "ltr=1 sk=1 bres=1 ovs=1 csm=1 spl=1 mun=1 chunk=100000";
  const char *row_at = text ? strstr(text, tail) : NULL;
  EXPECT(row_at && strstr(row_at + 1, tail), "%s", text);
  free(text);
}
char d[DG_KERNEL_CONFIG_TEXT];
dg_kernel_config_describe(&c, d, sizeof d);
EXPECT(strlen(d) < sizeof d - 1 && strstr(d, "chunk=100000") != NULL);
}

int main(void) {
  dg_log_set_level(DG_LOG_WARN);
  check_all_pruned();
  check_search_modes();
  check_full_mode_space();
  check_lucky();
  for (int w = 0; w < 128; w++)
    check_twins(w);
  check_nodal_mma_winner();
  check_combination_round();
  check_print_every_knob();
  check_kin();
  check_cpu_chunk_and_prune();
  printf("%d failures\n", failures);
  return failures ? 1 : 0;
}
