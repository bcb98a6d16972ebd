/* How much memory one rank of a run needs, before it allocates it: the
 * up-front refusal of a run that cannot fit (problems/driver/run.c).
 *
 * Counted in double per node, for this rank's own elements after
 * partitioning (a mesh read part by part holds only those, so the global
 * count divided by the ranks would be wrong for uneven parts):
 *  - coordinates and geometric factors: dim + dim^2 + 1 values per node;
 *  - per state component four copies (host state, device state, RK
 *    register, right-hand side);
 *  - the ghost slots of the partition-boundary faces (Nfp nodes each) in
 *    the three device copies of the state;
 *  - rank 0's gather buffer when snapshots and checkpoints are gathered
 *    there (one host copy of the whole state, K_global elements). */
#ifndef DG_PROBLEMS_MEMORY_ESTIMATE_H
#define DG_PROBLEMS_MEMORY_ESTIMATE_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

typedef struct dg_memory_estimate {
  int dim, N, ncomp;
  int64_t K;          /* this rank's (owned) elements */
  int64_t halo_faces; /* its partition-boundary faces (ghost traces) */
  int64_t K_gather;   /* elements of the gather buffer on this rank; 0: none */
  int64_t K_global;   /* all elements, for the message */
} dg_memory_estimate;

/* Bytes this rank needs (see above). */
double dg_memory_estimate_bytes(const dg_memory_estimate *m);

/* DG_ERR_MEMORY naming the global element count, the order, the bytes of
 * this rank and the device when they exceed total_memory (0: unknown, no
 * check). */
dg_error dg_memory_estimate_check(const dg_memory_estimate *m, size_t total_memory,
                                  const char *device_name);

#endif
