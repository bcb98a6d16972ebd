/* Which compiled variants the tuner refuses to time (spills, register
 * file, thread and shared-memory limits). */
#ifndef DG_TUNING_TUNE_PRUNE_H
#define DG_TUNING_TUNE_PRUNE_H

#include <stddef.h>

#include "core/device.h"

/* Local memory a variant may use and still be timed.  Why not 0: the
 * tensor-core kernel at Euler 3D N = 5 (448-thread blocks, two per SM, so
 * 72 registers) keeps 40 bytes of its face-flux phase in local memory and
 * is the fastest variant there by far (2.12 ms against 2.98 ms for the best
 * one that does not spill, tuning/RESULTS.md); a few spilled words stay in
 * L1.  Heavier spills (the 128-152 bytes of its gather-ahead forms) go. */
#define DG_TUNE_MAX_LOCAL_BYTES 64

/* Whether a compiled variant may be timed: at most DG_TUNE_MAX_LOCAL_BYTES
 * of register spills (local memory), registers x threads within the SM's
 * file, threads within the kernel's limit, shared memory within the opt-in
 * limit.  why gets the reason when rejected (>= 96 chars). */
int dg_tune_prune(const dg_kernel_attributes *a, unsigned threads_per_block,
                  unsigned dynamic_shared, const dg_device_info *info, char *why,
                  size_t why_size);

#endif
