/* The main of a test program run under mpiexec: MPI up, the check on every
 * rank, a failure count (tests/expect.h) as the exit status. */
#ifndef DG_TESTS_PARALLEL_MPI_MAIN_H
#define DG_TESTS_PARALLEL_MPI_MAIN_H

#include <stdio.h>

#include "core/comm.h"
#include "core/error.h"
#include "tests/expect.h"

/* argv[1..nargs] are required (usage names them); check gets the rest too. */
static int mpi_test_main(int argc, char **argv, int nargs, const char *usage,
                         dg_error (*check)(dg_comm *comm, char **args, int nargs)) {
  if (argc < 1 + nargs) {
    fprintf(stderr, "usage: %s %s\n", argv[0], usage);
    return 2;
  }
  dg_comm *comm = NULL;
  dg_error err = dg_comm_create_world(&comm);
  if (err == DG_OK) {
    if (dg_comm_size(comm) < 2) {
      printf("needs at least 2 ranks\n");
      failures++;
    }
    err = check(comm, argv + 1, argc - 1);
  }
  if (err != DG_OK) {
    dg_error_print(stderr);
    failures++;
  }
  dg_comm_destroy(&comm);
  if (failures == 0)
    printf("OK\n");
  return failures;
}

#endif
