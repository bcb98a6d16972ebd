/* The partitioning options of a problem (problems/solver/parallel.h) from
 * its cfg: [parallel] partition, cuda_aware and overlap, the boundary
 * mapping of its mesh and the part a rank read alone; the device of a
 * rank from its backend and [parallel] gpu_oversubscribe. */
#ifndef DG_PROBLEMS_PARALLEL_OPTIONS_H
#define DG_PROBLEMS_PARALLEL_OPTIONS_H

#include "problems/driver/problem.h"
#include "problems/solver/parallel.h"

/* *opt borrows from p (tag_to_bc, part): p outlives its use. */
dg_error dg_parallel_options_from_problem(const dg_problem *p, dg_parallel_options *opt);

/* dg_parallel_create of p's mesh with those options (collective). */
dg_error dg_parallel_create_for_problem(dg_comm *comm, const dg_problem *p, dg_parallel **out);

/* dg_parallel_device_for on p's backend and [parallel] gpu_oversubscribe. */
dg_error dg_parallel_device_for_problem(dg_comm *comm, const dg_problem *p, dg_device **out);

#endif
