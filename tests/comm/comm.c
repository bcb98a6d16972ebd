/* core.comm (1 rank, no mpiexec) / core.comm_mpi2, _mpi4: the
 * communicator.  Sizes and ranks agree with a hand count (allreduce of
 * ones, of rank + 1); max; a ring exchange whose message sizes differ per
 * rank, with the bytes checked against the sender's pattern; an exchange
 * with oneself; a size mismatch is an error, not a hang; dg_comm_agree
 * reports one rank's failure on all ranks; split by parity; node ranks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/comm.h"
#include "tests/device/devtest.h"

static unsigned char pattern(int from, int to, size_t k) {
  return (unsigned char)(from * 31 + to * 7 + k * 13);
}

int main(void) {
  dg_comm *world;
  MUST(dg_comm_create_world(&world));
  int rank = dg_comm_rank(world), size = dg_comm_size(world);
  CHECK(size >= 1 && rank >= 0 && rank < size, "rank %d of %d", rank, size);
  CHECK(dg_comm_mpi_built() || size == 1, "a serial build with %d ranks",
        size);

  double v[3] = {1.0, rank + 1.0, -(double)rank};
  MUST(dg_comm_allreduce_sum(world, v, 2));
  CHECK(v[0] == size && v[1] == size * (size + 1) / 2.0,
        "sums %g %g on %d ranks", v[0], v[1], size);
  MUST(dg_comm_allreduce_max(world, &v[2], 1));
  CHECK(v[2] == 0.0, "max of -rank is %g", v[2]);
  MUST(dg_comm_barrier(world));

  /* Node-local ranks: a partition of the ranks into nodes. */
  double nodes[2] = {dg_comm_node_rank(world) == 0, 1.0 / dg_comm_node_size(world)};
  CHECK(dg_comm_node_rank(world) >= 0 &&
            dg_comm_node_rank(world) < dg_comm_node_size(world) &&
            dg_comm_node_size(world) <= size,
        "node rank %d of %d", dg_comm_node_rank(world),
        dg_comm_node_size(world));
  MUST(dg_comm_allreduce_sum(world, nodes, 2));
  CHECK(nodes[0] >= 1 && nodes[0] - nodes[1] < 1e-9 && nodes[1] - nodes[0] < 1e-9,
        "%g node leaders for %g nodes", nodes[0], nodes[1]);

  /* Ring: rank r sends r + 3 bytes to r + 1 and receives from r - 1.  With
   * one or two ranks both neighbours are the same rank: one entry. */
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  size_t send_n = (size_t)rank + 3, recv_n = (size_t)left + 3;
  unsigned char *sb = malloc(send_n), *rb = malloc(recv_n), *rb2 = malloc(16);
  CHECK(sb && rb && rb2, "out of memory");
  for (size_t k = 0; k < send_n; k++)
    sb[k] = pattern(rank, right, k);
  memset(rb, 0xEE, recv_n);
  dg_comm_neighbor nb[2];
  int n = 0;
  if (left == right) {
    nb[n++] = (dg_comm_neighbor){right, sb, send_n, rb, recv_n};
  } else {
    nb[n++] = (dg_comm_neighbor){right, sb, send_n, NULL, 0};
    nb[n++] = (dg_comm_neighbor){left, NULL, 0, rb, recv_n};
  }
  dg_comm_request *req;
  MUST(dg_comm_exchange_start(world, n, nb, 5, &req));
  MUST(dg_comm_exchange_wait(&req));
  CHECK(req == NULL, "wait must clear the request");
  for (size_t k = 0; k < recv_n; k++)
    CHECK(rb[k] == pattern(left, rank, k), "rank %d byte %zu from %d: %u",
          rank, k, left, rb[k]);

  /* Self exchange. */
  unsigned char self_in[5] = {1, 2, 3, 4, 5}, self_out[5] = {0};
  dg_comm_neighbor me = {rank, self_in, 5, self_out, 5};
  MUST(dg_comm_exchange_start(world, 1, &me, 6, &req));
  MUST(dg_comm_exchange_wait(&req));
  CHECK(memcmp(self_in, self_out, 5) == 0, "self exchange");

  /* Argument errors name the problem. */
  dg_comm_neighbor twice[2] = {me, me};
  CHECK(dg_comm_exchange_start(world, 2, twice, 6, &req) == DG_ERR_ARG &&
            strstr(dg_error_message(), "twice"),
        "a rank named twice: %s", dg_error_message());
  dg_comm_neighbor far = {size, self_in, 1, self_out, 1};
  CHECK(dg_comm_exchange_start(world, 1, &far, 6, &req) == DG_ERR_ARG,
        "rank %d accepted", size);
  dg_error_clear();

  /* Size mismatch: rank 1 expects 16 bytes from rank 0, which sends 3. */
  if (size >= 2 && rank <= 1) {
    dg_comm_neighbor mm = rank == 0
        ? (dg_comm_neighbor){1, sb, 3, NULL, 0}
        : (dg_comm_neighbor){0, NULL, 0, rb2, 16};
    MUST(dg_comm_exchange_start(world, 1, &mm, 8, &req));
    dg_error err = dg_comm_exchange_wait(&req);
    if (rank == 0)
      CHECK(err == DG_OK, "the sender of a short message failed");
    else
      CHECK(err == DG_ERR_MPI && strstr(dg_error_message(), "received 3 bytes"),
            "short message: %s (%s)", dg_error_name(err), dg_error_message());
    dg_error_clear();
  }

  /* Agreement: rank size - 1 fails; everyone returns an error. */
  dg_error mine = rank == size - 1 ? DG_ERR_IO : DG_OK;
  dg_error got = dg_comm_agree(world, mine);
  if (rank == size - 1)
    CHECK(got == DG_ERR_IO, "the failing rank got %s", dg_error_name(got));
  else {
    char want[64];
    snprintf(want, sizeof want, "rank %d failed", size - 1);
    CHECK(got == DG_ERR_PEER && strstr(dg_error_message(), want),
          "rank %d: %s: %s", rank, dg_error_name(got), dg_error_message());
  }
  dg_error_clear();
  MUST(dg_comm_agree(world, DG_OK));

  /* Split by parity: sizes (size + 1) / 2 and size / 2. */
  dg_comm *half, *self;
  MUST(dg_comm_split(world, rank % 2, rank, &half));
  int want = rank % 2 ? size / 2 : (size + 1) / 2;
  CHECK(dg_comm_size(half) == want && dg_comm_rank(half) == rank / 2,
        "split: rank %d of %d, expected %d of %d", dg_comm_rank(half),
        dg_comm_size(half), rank / 2, want);
  double one = 1;
  MUST(dg_comm_allreduce_sum(half, &one, 1));
  CHECK(one == want, "allreduce over the half: %g", one);
  MUST(dg_comm_create_self(&self));
  CHECK(dg_comm_size(self) == 1 && dg_comm_rank(self) == 0, "self comm");
  dg_comm_destroy(&self);
  dg_comm_destroy(&half);
  CHECK(half == NULL, "destroy must clear the handle");

  free(sb);
  free(rb);
  free(rb2);
  MUST(dg_comm_barrier(world));
  if (rank == 0)
    printf("communicator on %d rank(s): all checks passed\n", size);
  dg_comm_destroy(&world);
  return 0;
}
