/* The autotuner: which kernel variants to try, which to reject before
 * timing, the search order, and the on-disk database of choices.
 *
 * The tuner does not launch anything itself (DESIGN.md: tuning/ asks
 * operators/ for the legal variants and core/ to time them): the caller
 * passes a measure callback that builds the variant, reads its attributes
 * (dg_tune_prune) and times it with device events.
 *
 * Search (the seed paper's order): 1. the data layout (np_align, field
 * interleaving) jointly for the operator set, scored by the summed time of
 * one right-hand side (surface + volume + update) under the base slicing;
 * 2. the volume kernel's slicing (elements per block, work per thread and
 * its mode, matrix placement, shared prefetch, fused update) under that
 * layout, scored by volume + update time; 3. the surface kernel's threads
 * per block, scored by its own time.  A candidate whose first timing is
 * already 2x the best of its phase is not timed further.  The three best of
 * a phase are then timed twice more, interleaved, and the least median of
 * their three timings wins (one go of a few repeats can be lucky).
 *
 * The cpu backend has one knob that matters, the elements per chunk of the
 * OpenMP loops (cpu_chunk); layout is searched as on cuda.  The loop order
 * inside an element is fixed by the generator (node loop outside, the
 * matrix row contiguous) so it is not a knob there.
 *
 * The tuner's files: tune_space (the candidates), tune_prune (what is not
 * timed), tune_search and tune_twins (the search and its twin rounds),
 * tune_db (the database and shipped defaults).  This header includes them
 * all. */
#ifndef DG_TUNING_TUNER_H
#define DG_TUNING_TUNER_H

#include "tuning/tune_db.h"
#include "tuning/tune_prune.h"
#include "tuning/tune_search.h"
#include "tuning/tune_space.h"

#endif
