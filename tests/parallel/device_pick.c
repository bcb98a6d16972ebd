/* problems.mpi_device_pick: one rank per GPU by node-local rank; more ranks
 * than GPUs only when sharing is allowed (then round-robin). */
#include <stdio.h>

#include "problems/solver/parallel.h"

int main(void) {
  struct {
    int node_rank, node_size, ndev, share, want;
  } cases[] = {
      {0, 1, 1, 0, 0},  {0, 2, 2, 0, 0},  {1, 2, 2, 0, 1},  {3, 4, 8, 0, 3},
      {1, 2, 1, 0, -1}, {1, 2, 1, 1, 0},  {5, 8, 4, 1, 1},  {0, 3, 2, 0, -1},
      {0, 1, 0, 1, -1}, {2, 2, 2, 0, -1},
  };
  int bad = 0;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    int got = dg_parallel_pick_device(cases[i].node_rank, cases[i].node_size, cases[i].ndev,
                                      cases[i].share);
    if (got != cases[i].want) {
      printf("node rank %d of %d, %d devices, share %d: got %d, want %d\n", cases[i].node_rank,
             cases[i].node_size, cases[i].ndev, cases[i].share, got, cases[i].want);
      bad = 1;
    }
  }
  printf(bad ? "FAILED\n" : "OK\n");
  return bad;
}
