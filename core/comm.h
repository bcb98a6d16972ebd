/* dg_comm: a thin communicator over MPI, with a serial fallback.
 *
 * Built with MPI (DGRUN_HAVE_MPI=1) a dg_comm wraps a private duplicate of
 * an MPI communicator, so dgrun's messages never match the application's.
 * Built without MPI every communicator has one rank: allreduce returns its
 * input, barrier does nothing, and an exchange may only name rank 0 (itself),
 * for which it copies the send buffer into the receive buffer.
 *
 * MPI start and end.  dg_comm_create_world initialises MPI (thread level
 * MPI_THREAD_FUNNELED: only the thread that created the communicator calls
 * MPI; OpenMP workers never do) when nobody has, and then finalises it when
 * that world communicator is destroyed.  When the application initialised
 * MPI itself, dgrun leaves MPI_Finalize to it.
 *
 * How errors propagate (no rank may hang because another one failed):
 *  - Every MPI call is checked (the communicators use MPI_ERRORS_RETURN);
 *    a failure is DG_ERR_MPI naming the call and the MPI error string.
 *  - Collective setup code that can fail on some ranks only (bad input, out
 *    of memory, a device error) calls dg_comm_agree(comm, err) before its
 *    next collective step: every rank learns that some rank failed, and all
 *    of them return an error together (DG_ERR_PEER "rank r failed" on the
 *    ranks that did not fail themselves, so that callers tell the two
 *    apart by the code; the failing rank keeps its own trace).
 *  - Decisions taken inside a collective algorithm (CG convergence, a
 *    breakdown test) are taken on allreduced numbers, so every rank takes
 *    the same branch and returns the same error code.
 *  - An error in the middle of a point-to-point phase (e.g. one rank's
 *    device fails between posting its receives and waiting on them) cannot
 *    be agreed on without risking a hang: such an error leaves the
 *    communicator unusable, and the caller must end the job with
 *    dg_comm_abort, which MPI_Aborts every rank of the job.  The driver does
 *    this for any error that reaches main when the job has more than one
 *    rank. */
#ifndef DG_CORE_COMM_H
#define DG_CORE_COMM_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

typedef struct dg_comm dg_comm;
typedef struct dg_comm_request dg_comm_request;

/* Whether this build has MPI. */
int dg_comm_mpi_built(void);

/* Whether the MPI library accepts CUDA device pointers (run-time query
 * MPIX_Query_cuda_support where the library offers it; 0 otherwise). */
int dg_comm_cuda_aware(void);

/* All ranks of the job (MPI_COMM_WORLD); initialises MPI when needed.
 * Collective over MPI_COMM_WORLD. */
dg_error dg_comm_create_world(dg_comm **out);
/* This rank alone (MPI_COMM_SELF, or the serial communicator): e.g. for a
 * reference solve on one rank inside a parallel job. */
dg_error dg_comm_create_self(dg_comm **out);
/* Split parent into groups of equal color, ordered by (key, parent rank)
 * (MPI_Comm_split).  Collective over parent. */
dg_error dg_comm_split(dg_comm *parent, int color, int key, dg_comm **out);
/* Frees the communicator (collective, as MPI_Comm_free); destroying the
 * world communicator that initialised MPI finalises it, so destroy it
 * last. */
void dg_comm_destroy(dg_comm **comm);

int dg_comm_rank(const dg_comm *comm);
int dg_comm_size(const dg_comm *comm);
/* Rank and number of ranks on this node (shared-memory domain, by
 * MPI_Comm_split_type): "one rank per GPU" picks GPU node_rank. */
int dg_comm_node_rank(const dg_comm *comm);
int dg_comm_node_size(const dg_comm *comm);

dg_error dg_comm_barrier(dg_comm *comm);
/* In-place elementwise sum / max over all ranks of n doubles (every rank
 * gets the result).  Sums are combined in rank order by MPI's reduction of
 * a fixed size, so every rank sees bitwise the same result. */
dg_error dg_comm_allreduce_sum(dg_comm *comm, double *values, int n);
dg_error dg_comm_allreduce_max(dg_comm *comm, double *values, int n);

/* In-place elementwise sum modulo 2^64 of n unsigned 64-bit integers over
 * all ranks (hashes that add up: a rank's share of a checksum). */
dg_error dg_comm_allreduce_sum_u64(dg_comm *comm, uint64_t *values, int n);

/* Collective error agreement (see above): returns DG_OK when err is DG_OK
 * on every rank; otherwise err on the ranks where it failed and DG_ERR_PEER
 * ("rank r failed", r the lowest failed rank) on the others. */
dg_error dg_comm_agree(dg_comm *comm, dg_error err);

/* The MPI communicator (a pointer to its MPI_Comm) for the core module that
 * hands it to an MPI-aware library (core/comm_h5.c: parallel HDF5); NULL in a
 * build without MPI. */
const void *dg_comm_mpi_handle(const dg_comm *comm);

/* End every rank of the job now (MPI_Abort with code; exit(code) without
 * MPI).  For the driver after an unrecoverable error, never for library
 * code (which returns errors). */
void dg_comm_abort(dg_comm *comm, int code);

/* One neighbour of a non-blocking exchange: what goes to it and where its
 * message lands.  Either side may be 0 bytes (no message that way). */
typedef struct dg_comm_neighbor {
  int rank;
  const void *send;
  size_t send_bytes;
  void *recv;
  size_t recv_bytes;
} dg_comm_neighbor;

/* Post the receives, then the sends, of an exchange with n neighbours
 * (MPI_Irecv / MPI_Isend with the given tag); buffers must stay untouched
 * until the wait.  Both sides must agree on the message sizes (a size
 * mismatch is DG_ERR_MPI at the wait).  Each neighbour rank at most once. */
dg_error dg_comm_exchange_start(dg_comm *comm, int n,
                                const dg_comm_neighbor *neighbors, int tag,
                                dg_comm_request **out);
/* Wait for every message of the exchange and free the request. */
dg_error dg_comm_exchange_wait(dg_comm_request **req);

#endif
