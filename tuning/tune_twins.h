/* The twin rounds of the search (tuning/tune_search.c): variants one or
 * two knobs away from phase 2's leaders, timed after it (the why of each
 * round is at its definition in tune_twins.c), and the leaders they start
 * from.  Internal to the tuner. */
#ifndef DG_TUNING_TUNE_TWINS_H
#define DG_TUNING_TUNE_TWINS_H

#include "tuning/tune_search.h"

/* The re-timing of a phase's leaders.  Why: a candidate's score is the
 * median of a few repeats in one go, and on the H100 the same variant has
 * timed 10 % apart in two goes (Maxwell fp64 N = 6: chosen at 1.515 ms, the
 * sweep's benchmark of it then 1.670 ms, where another tuning's choice ran
 * 1.530 ms; tuning/RESULTS.md, session 9).  So the DG_TUNE_LEADERS best of a phase are
 * timed DG_TUNE_RETIMES more times, interleaved (A B C A B C: a slow spell
 * of the device hits every leader alike), and the choice is the least
 * median of each leader's timings. */
#define DG_TUNE_LEADERS 3
#define DG_TUNE_RETIMES 2

typedef struct dg_tune_leader {
  dg_kernel_config cfg;
  dg_tune_timing t[1 + DG_TUNE_RETIMES];
  double score[1 + DG_TUNE_RETIMES];
} dg_tune_leader;

/* Keeps lead[] (n of them) sorted by first score, the best DG_TUNE_LEADERS. */
void dg_tune_add_leader(dg_tune_leader *lead, int *n, const dg_kernel_config *c,
                        const dg_tune_timing *t, double score);
/* Keeps twins[nt] if it is new (not timed before, not among twins[0..nt)):
 * returns nt + 1, else nt. */
int dg_tune_keep_twin(const dg_tune_result *r, const dg_kernel_config *twins, int nt);
/* Each round writes its twins into twins[] and returns how many. */
int dg_tune_strided_twins(const dg_tune_result *r, dg_kernel_config *twins);
int dg_tune_register_twins(const dg_tune_result *r, dg_kernel_config *twins);
int dg_tune_block_twins(const dg_tune_result *r, int np, dg_kernel_config *twins);
int dg_tune_combination_twins(const dg_tune_result *r, const dg_kernel_config *best,
                              dg_kernel_config *twins);
/* What the strided round prepares (its twins and the register round's). */
int dg_tune_prepared_twins(const dg_tune_result *r, const dg_kernel_config *strided, int ns,
                           dg_kernel_config *twins);

#endif
