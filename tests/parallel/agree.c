/* problems.mpi_agree: dg_parallel_agree tells a rank's own error from the
 * word of another rank's failure (dg_comm_agree's DG_ERR_PEER) by the code,
 * not by the message: rank 0 reports the lowest rank with an error of its
 * own, with that rank's code and message, and the others return
 * DG_ERR_PEER.  The message of a DG_ERR_PEER may be gone (a handler printed
 * and cleared the trace) and an own error may read like dg_comm_agree's
 * text: neither changes who is reported.
 * usage: mpiexec -n P test_parallel_agree (P >= 2) */
#include <stdio.h>
#include <string.h>

#include "problems/solver/parallel.h"
#include "tests/parallel/mpi_main.h"

/* The last rank fails with DG_ERR_IO; every rank hears of it through
 * dg_comm_agree, then (like a caller several levels up) agrees again. */
static void case_peer(dg_comm *comm, int clear_peer_message) {
  int rank = dg_comm_rank(comm), last = dg_comm_size(comm) - 1;
  dg_error err = rank == last ? dg_error_raise(DG_ERR_IO, __FILE__, __LINE__, __func__,
                                               "disk full on the last rank")
                              : DG_OK;
  err = dg_comm_agree(comm, err);
  EXPECT(err == (rank == last ? DG_ERR_IO : DG_ERR_PEER));
  if (err == DG_ERR_PEER && clear_peer_message)
    dg_error_clear();
  err = dg_parallel_agree(comm, err);
  if (rank == 0) {
    EXPECT(err == DG_ERR_IO);
    EXPECT(strstr(dg_error_message(), "disk full on the last rank") != NULL);
  } else {
    EXPECT(err == DG_ERR_PEER);
  }
  EXPECT(dg_parallel_error_agreed() && dg_parallel_error_rank() == last);
  dg_error_clear();
}

/* The last rank's own MPI error happens to read like dg_comm_agree's text;
 * rank 0 only heard of it.  The last rank is reported. */
static void case_lookalike(dg_comm *comm) {
  int rank = dg_comm_rank(comm), last = dg_comm_size(comm) - 1;
  dg_error err = rank == last ? dg_error_raise(DG_ERR_MPI, __FILE__, __LINE__, __func__,
                                               "rank 0 failed (this rank %d is fine)", last)
                              : dg_error_raise(DG_ERR_PEER, __FILE__, __LINE__, __func__,
                                               "word of rank %d", last);
  err = dg_parallel_agree(comm, err);
  EXPECT(err == (rank == 0 ? DG_ERR_MPI : DG_ERR_PEER));
  EXPECT(dg_parallel_error_rank() == last);
  dg_error_clear();
}

static dg_error run(dg_comm *comm, char **args, int nargs) {
  (void)args;
  (void)nargs;
  EXPECT(dg_parallel_agree(comm, DG_OK) == DG_OK);
  case_peer(comm, 0);
  case_peer(comm, 1);
  case_lookalike(comm);
  return DG_OK;
}

int main(int argc, char **argv) { return mpi_test_main(argc, argv, 0, "", run); }
