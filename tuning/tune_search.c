#include "tuning/tune_search.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "operators/kernel_knobs.h"
#include "tuning/tune_twins.h"

/* Layout and volume slicing are scored by the whole RHS (the volume knobs
 * include fusing the surface and the update away); the surface kernel's
 * threads by its own time. */
static double phase_score(int phase, const dg_tune_timing *t) {
  if (phase == 3)
    return t->surface_ms;
  return t->surface_ms + t->volume_ms + t->update_ms;
}

static dg_error add_row(dg_tune_result *r, int phase, const dg_kernel_config *c,
                        const dg_tune_timing *t) {
  dg_tune_row *rows = realloc(r->rows, (size_t)(r->nrows + 1) * sizeof *rows);
  DG_CHECK(rows, DG_ERR_MEMORY, "out of memory");
  r->rows = rows;
  dg_tune_row *row = &rows[r->nrows++];
  row->phase = phase;
  row->cfg = *c;
  row->t = *t;
  row->score_ms = t->status == 0 ? phase_score(phase, t) : 0;
  row->retime = 0;
  return DG_OK;
}

/* The median of three (the first timing and the re-timings). */
_Static_assert(DG_TUNE_RETIMES == 2, "median_of takes a leader's three timings");
static int median_of(const double *v) {
  int lo = v[0] <= v[1] ? 0 : 1, hi = 1 - lo;
  if (v[2] >= v[hi])
    return hi;
  return v[2] <= v[lo] ? lo : 2;
}

/* Every candidate of a phase pruned by the heuristics of tuning/tune_prune.h
 * (spills, say: a physics with very long expressions, such as the
 * manufactured Navier-Stokes sources, spills in every variant) is no reason to
 * give up: a spilling kernel is still correct.  Time the pruned ones
 * (cutoff < 0: not pruned), announced; the illegal ones stay out. */
static dg_error time_pruned(int phase, const dg_kernel_config *cands, int n,
                            dg_tune_leader *lead, int *nlead, dg_tune_measure_fn measure,
                            void *ctx, dg_tune_result *r) {
  int first = r->nrows - n, npruned = 0;
  for (int i = 0; i < n; i++)
    npruned += r->rows[first + i].t.status == 1;
  if (npruned == 0)
    return DG_OK;
  dg_log(DG_LOG_WARN, "autotuner: every variant of phase %d was pruned (the first: %s); "
                      "timing the %d pruned ones",
         phase, r->rows[first].t.why, npruned);
  for (int i = 0; i < n; i++) {
    if (r->rows[first + i].t.status != 1)
      continue;
    dg_tune_timing t;
    memset(&t, 0, sizeof t);
    DG_CALL(measure(ctx, &cands[i], phase, -1.0, &t));
    DG_CALL(add_row(r, phase, &cands[i], &t));
    if (t.status == 0)
      dg_tune_add_leader(lead, nlead, &cands[i], &t, phase_score(phase, &t));
  }
  return DG_OK;
}

/* Time every candidate of a phase, re-time its leaders, keep the best in
 * *best (the previous phase's best, in *best_t, competes as a leader). */
static dg_error run_phase(int phase, const dg_kernel_config *cands, int n,
                          dg_kernel_config *best, dg_tune_timing *best_t,
                          dg_tune_measure_fn measure, void *ctx, dg_tune_result *r) {
  dg_tune_leader lead[DG_TUNE_LEADERS];
  int nlead = 0;
  if (best_t->status == 0)
    dg_tune_add_leader(lead, &nlead, best, best_t, phase_score(phase, best_t));
  int ntimed = 0, first_row = r->nrows;
  for (int i = 0; i < n; i++) {
    dg_tune_timing t;
    memset(&t, 0, sizeof t);
    double cutoff = nlead ? 2.0 * lead[0].score[0] : 0;
    DG_CALL(measure(ctx, &cands[i], phase, cutoff, &t));
    DG_CALL(add_row(r, phase, &cands[i], &t));
    ntimed += t.status == 0 || t.status == 2;
    if (t.status == 0)
      dg_tune_add_leader(lead, &nlead, &cands[i], &t, phase_score(phase, &t));
  }
  if (ntimed == 0)
    DG_CALL(time_pruned(phase, cands, n, lead, &nlead, measure, ctx, r));
  DG_CHECK(nlead > 0, DG_ERR_UNSUPPORTED,
           "autotuner: no variant of phase %d could be timed (the first: %s)", phase,
           n > 0 ? r->rows[first_row].t.why : "no candidates");
  int choice = 0;
  if (nlead > 1) {
    for (int k = 1; k <= DG_TUNE_RETIMES; k++)
      for (int l = 0; l < nlead; l++) {
        dg_tune_timing t;
        memset(&t, 0, sizeof t);
        DG_CALL(measure(ctx, &lead[l].cfg, phase, 0, &t));
        DG_CALL(add_row(r, phase, &lead[l].cfg, &t));
        r->rows[r->nrows - 1].retime = k;
        /* a leader that cannot be timed again (it could before) keeps its
         * first timing for this round */
        lead[l].t[k] = t.status == 0 ? t : lead[l].t[0];
        lead[l].score[k] = phase_score(phase, &lead[l].t[k]);
      }
    double bs = 0;
    for (int l = 0; l < nlead; l++) {
      double m = lead[l].score[median_of(lead[l].score)];
      if (l == 0 || m < bs) {
        bs = m;
        choice = l;
      }
    }
  }
  *best = lead[choice].cfg;
  *best_t = nlead > 1 ? lead[choice].t[median_of(lead[choice].score)] : lead[choice].t[0];
  return DG_OK;
}


dg_error dg_tune_search(const dg_tune_space *sp, const dg_kernel_config *base,
                        dg_tune_measure_fn measure, dg_tune_prepare_fn prepare, void *ctx,
                        dg_tune_result *out) {
  memset(out, 0, sizeof *out);
  dg_error err = DG_OK;
  int nmax = sp->nlayouts > sp->nvolume ? sp->nlayouts : sp->nvolume;
  if (sp->nface > nmax)
    nmax = sp->nface;
  if (nmax < 9 * DG_TUNE_LEADERS)
    nmax = 9 * DG_TUNE_LEADERS; /* the twins: strided, register, both */
  if (nmax < sp->nkin)
    nmax = sp->nkin;
  dg_kernel_config *c = calloc((size_t)nmax + 1, sizeof *c);
  DG_CHECK(c, DG_ERR_MEMORY, "out of memory");
  dg_kernel_config best = *base;
  dg_tune_timing bt;
  memset(&bt, 0, sizeof bt);
  bt.status = 1; /* nothing timed yet */
  for (int i = 0; i < sp->nlayouts; i++) {
    c[i] = best;
    dg_tune_apply_layout(&c[i], &sp->layouts[i]);
  }
  DG_CALL_GOTO(err, fail, run_phase(1, c, sp->nlayouts, &best, &bt, measure, ctx, out));
  for (int i = 0; i < sp->nvolume; i++) {
    c[i] = best;
    dg_tune_apply_volume(&c[i], &sp->volume[i]);
  }
  DG_CALL_GOTO(err, fail, run_phase(2, c, sp->nvolume, &best, &bt, measure, ctx, out));
  int ntwin = dg_tune_strided_twins(out, c);
  if (ntwin) {
    if (prepare) {
      int np = dg_tune_prepared_twins(out, c, ntwin, c + ntwin);
      prepare(ctx, c, ntwin + np);
    }
    DG_CALL_GOTO(err, fail, run_phase(2, c, ntwin, &best, &bt, measure, ctx, out));
  }
  ntwin = dg_tune_register_twins(out, c);
  if (ntwin) {
    if (prepare)
      prepare(ctx, c, ntwin);
    DG_CALL_GOTO(err, fail, run_phase(2, c, ntwin, &best, &bt, measure, ctx, out));
  }
  ntwin = dg_tune_block_twins(out, sp->np, c);
  if (ntwin) {
    if (prepare)
      prepare(ctx, c, ntwin);
    DG_CALL_GOTO(err, fail, run_phase(2, c, ntwin, &best, &bt, measure, ctx, out));
  }
  ntwin = dg_tune_combination_twins(out, &best, c);
  if (ntwin) { /* at most 7 more compiles, in one wave */
    if (prepare)
      prepare(ctx, c, ntwin);
    DG_CALL_GOTO(err, fail, run_phase(2, c, ntwin, &best, &bt, measure, ctx, out));
  }
  ntwin = 0;
  for (int i = 0; i < sp->nkin; i++) { /* other models' choices, whole */
    c[ntwin] = sp->kin[i];
    ntwin = dg_tune_keep_twin(out, c, ntwin);
  }
  if (ntwin) {
    if (prepare)
      prepare(ctx, c, ntwin);
    DG_CALL_GOTO(err, fail, run_phase(2, c, ntwin, &best, &bt, measure, ctx, out));
  }
  for (int i = 0; i < sp->nface; i++) {
    c[i] = best;
    c[i].face_threads = sp->face_threads[i];
  }
  DG_CALL_GOTO(err, fail, run_phase(3, c, sp->nface, &best, &bt, measure, ctx, out));
  out->best = best;
  out->rhs_ms = bt.surface_ms + bt.volume_ms + bt.update_ms;
  free(c);
  return DG_OK;
fail:
  free(c);
  dg_tune_result_free(out);
  return err;
}

void dg_tune_result_free(dg_tune_result *r) {
  free(r->rows);
  memset(r, 0, sizeof *r);
}


void dg_tune_print(FILE *f, const dg_tune_result *r) {
  static const char *phases[] = {"", "layout", "volume", "surface"};
  static const char *status[] = {"", "pruned", "stopped", "illegal"};
  fprintf(f, "%-7s %-96s %9s %9s %9s %9s\n", "phase", "variant", "surf ms", "vol ms",
          "upd ms", "score");
  for (int i = 0; i < r->nrows; i++) {
    const dg_tune_row *w = &r->rows[i];
    char cs[DG_KERNEL_CONFIG_TEXT];
    dg_kernel_config_describe(&w->cfg, cs, sizeof cs);
    const char *ph = w->retime ? "again" : phases[w->phase]; /* a leader re-timed */
    if (w->t.status == 0)
      fprintf(f, "%-7s %-96s %9.4f %9.4f %9.4f %9.4f\n", ph, cs, w->t.surface_ms,
              w->t.volume_ms, w->t.update_ms, w->score_ms);
    else
      fprintf(f, "%-7s %-96s %s: %s\n", ph, cs, status[w->t.status], w->t.why);
  }
  char cs[DG_KERNEL_CONFIG_TEXT];
  dg_kernel_config_describe(&r->best, cs, sizeof cs);
  fprintf(f, "chosen: %s  (RHS %.4f ms)\n", cs, r->rhs_ms);
}
