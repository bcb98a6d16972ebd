/* The search: time the candidates phase by phase through the caller's
 * measure callback, re-time the leaders, add the twin rounds
 * (tuning/tune_twins.h), pick; and the printed table. */
#ifndef DG_TUNING_TUNE_SEARCH_H
#define DG_TUNING_TUNE_SEARCH_H

#include <stdio.h>

#include "core/error.h"
#include "operators/codegen.h"
#include "tuning/tune_space.h"

typedef struct dg_tune_timing {
  double surface_ms, volume_ms, update_ms; /* medians */
  int status;     /* 0 timed, 1 pruned, 2 stopped (2x slower than the best), 3 illegal */
  char why[128];
} dg_tune_timing;

/* Build and time cfg.  cutoff_ms > 0: stop after the first repeat when the
 * phase score already exceeds it (status 2).  Set status 1 (pruned by a
 * heuristic) / 3 (illegal) with a reason for variants that are not timed;
 * return an error only for real failures.  cutoff_ms < 0: time it even where
 * a heuristic would prune it (the search asks so when a phase's every
 * candidate was pruned). */
typedef dg_error (*dg_tune_measure_fn)(void *ctx, const dg_kernel_config *cfg, int phase,
                                       double cutoff_ms, dg_tune_timing *out);

/* One table row. */
typedef struct dg_tune_row {
  int phase; /* 1 layout, 2 volume slicing, 3 surface */
  int retime; /* 0: the candidate's first timing; k > 0: a leader's k-th re-timing */
  dg_kernel_config cfg;
  dg_tune_timing t;
  double score_ms;
} dg_tune_row;

typedef struct dg_tune_result {
  dg_kernel_config best;
  double rhs_ms; /* surface + volume + update of the best */
  dg_tune_row *rows;
  int nrows;
} dg_tune_result;

/* Make the given configurations quick to time (compile them side by side);
 * best effort, may be NULL. */
typedef void (*dg_tune_prepare_fn)(void *ctx, const dg_kernel_config *cfgs, int n);

/* Phase 1 the layouts, phase 2 the volume slicing, then the strided_k twins
 * of phase 2's best tensor-core variants, the register twins
 * (batch_residual off, one more block) of its best variants, their block
 * twins (whole warps, overlay, compact, sparse_lift) and the combination
 * twins of the winner (with sparse_lift where that won on a leader,
 * without the L2 prefetch where the winner is a block twin, both, and each
 * of those and the winner with the k-step loops fully unrolled; each
 * round timed as phase 2, prepared first), then the space's kin entries as
 * they are (phase 2), phase 3 the surface threads. */
dg_error dg_tune_search(const dg_tune_space *space, const dg_kernel_config *base,
                        dg_tune_measure_fn measure, dg_tune_prepare_fn prepare, void *ctx,
                        dg_tune_result *out);
void dg_tune_result_free(dg_tune_result *r);
/* The candidate table and the choice, human-readable. */
void dg_tune_print(FILE *f, const dg_tune_result *r);

#endif
