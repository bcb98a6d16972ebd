/* What a run needs to know about the other ranks (mpirun -np P dgrun):
 * this rank's part of the mesh with its halo, the device it uses, and the
 * collective steps of the time loop (reductions, gathering a field to rank
 * 0 for output).  A restart reads only this rank's elements of a
 * checkpoint (dg_checkpoint_read_part).
 *
 * Partitioning.  Every rank builds (or reads) the whole mesh, partitions it
 * the same way (meshes/partition: METIS k-way, or coordinate bisection),
 * and keeps its own part; or, from a .h5 mesh stored with as many parts as
 * ranks, each rank has read only its part (dg_problem_load_rank) and works
 * on a copy of it; the owned elements are reordered so that those
 * without a face on another rank come first (the solver runs them while the
 * halo exchange is in flight).  A partition-boundary face gets the internal
 * tag "__halo" so that the discretization sees a closed boundary; the halo
 * exchange (problems/solver/halo.h) then points it at the neighbour's traces.
 *
 * One rank is the serial run: no partition, no halo, no communication. */
#ifndef DG_PROBLEMS_PARALLEL_H
#define DG_PROBLEMS_PARALLEL_H

#include <stdint.h>

#include "core/comm.h"
#include "core/device.h"
#include "meshes/partition.h"
#include "problems/solver/halo.h"

typedef struct dg_parallel {
  dg_comm *comm; /* borrowed */
  int rank, size;
  dg_partition_local *local;  /* owned; NULL with one rank */
  const dg_mesh *mesh;        /* this rank's mesh: local->mesh or the problem's */
  int *tag_to_bc;             /* per tag of mesh */
  int64_t K, K_interior, K_global;
  const int64_t *gk;          /* K global element ids (NULL with one rank) */
  int64_t *counts;            /* size: elements per rank */
  int64_t *gk_all;            /* rank 0: global ids of all ranks' elements, rank by rank */
  dg_halo_spec halo;          /* for the solver (size > 1) */
} dg_parallel;

/* What partitioning needs besides the mesh (a caller such as the driver
 * builds it from the cfg: problems/driver/parallel_options.h). */
typedef struct dg_parallel_options {
  dg_partition_options partition;  /* method (and seed) of meshes/partition.h */
  const int *tag_to_bc;            /* per tag of the mesh: boundary condition */
  const dg_partition_local *part;  /* this rank's part, read alone from a partitioned
                                      .h5 (its mesh is then this rank's), or NULL */
  int cuda_aware;                  /* halo exchange through CUDA-aware MPI where the
                                      library is ([parallel] cuda_aware = auto) */
  int overlap;                     /* overlap the exchange with interior work */
} dg_parallel_options;

/* Collective.  Partition mesh over comm's ranks, or copy opt->part; the
 * mesh and the options are left as they are. */
dg_error dg_parallel_create(dg_comm *comm, const dg_mesh *mesh, const dg_parallel_options *opt,
                            dg_parallel **out);
void dg_parallel_destroy(dg_parallel **par);

/* The device of this rank on backend (auto | cuda | cpu): the node-local
 * rank picks the GPU unless $DGRUN_DEVICE names one.  More ranks on a node
 * than GPUs is DG_ERR_INPUT unless oversubscribe ([parallel]
 * gpu_oversubscribe; the cpu backend always shares). */
dg_error dg_parallel_device(const dg_parallel *par, const char *backend, int oversubscribe,
                            dg_device **out);
/* The same rule for any communicator (NULL: this process alone), e.g. the
 * Poisson solve, which partitions its own way. */
dg_error dg_parallel_device_for(dg_comm *comm, const char *backend, int oversubscribe,
                                dg_device **out);
/* The rule: device node_rank (node_rank % ndevices when sharing is
 * allowed), -1 when the node has more ranks than devices and may not share. */
int dg_parallel_pick_device(int node_rank, int node_size, int ndevices, int share);

dg_error dg_parallel_sum(const dg_parallel *par, double *v, int n);
dg_error dg_parallel_max(const dg_parallel *par, double *v, int n);
dg_error dg_parallel_min(const dg_parallel *par, double *v, int n);

/* Logical-order arrays of nf components: local nf x K x Np on every rank
 * to global nf x K_global x Np (global element order) on rank 0. */
dg_error dg_parallel_gather(const dg_parallel *par, int nf, int Np, const double *local,
                            double *global);
/* The same for any partition (e.g. the Poisson solve's): rank r holds
 * counts[r] elements; ids (read on rank 0; NULL: 0, 1, ...) are the global
 * ids of all ranks' elements, rank by rank.  comm NULL: one rank. */
dg_error dg_parallel_gather_ids(dg_comm *comm, const int64_t *counts, const int64_t *ids,
                                int64_t K_global, int nf, int Np, const double *local,
                                double *global);

/* Collective error agreement with one report: when err fails on some
 * ranks, the message of the lowest rank with an error of its own (err not
 * DG_ERR_PEER, which only says that another rank failed) goes to rank 0,
 * which returns it (same error code; dg_parallel_error_rank names the
 * rank); the others return DG_ERR_PEER and print nothing
 * (dg_parallel_error_agreed says so), so the driver can end every rank
 * cleanly.  comm NULL: returns err. */
dg_error dg_parallel_agree(dg_comm *comm, dg_error err);
/* 1 when the last error came from dg_parallel_agree (all ranks know). */
int dg_parallel_error_agreed(void);
int dg_parallel_error_rank(void);

/* Test hook: $DGRUN_TEST_FAIL_RANK = r and $DGRUN_TEST_FAIL_STEP = s make
 * rank r fail at step s (to test that one rank's error ends all ranks). */
dg_error dg_parallel_test_fault(const dg_parallel *par, int64_t step);

#endif
