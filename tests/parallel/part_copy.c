/* problems.mpi_part_copy: dg_parallel_create renumbers its part (interior
 * elements first) without touching the problem's, and keeps the halo's
 * remote_k right: for every halo face, remote_k is the element that the
 * neighbour rank lists for the same face, after the neighbour's own
 * renumbering.  Both for a part read alone from a partitioned .h5 (written
 * here by rank 0) and for a mesh the ranks partition themselves.
 * usage: mpiexec -n P test_parallel_part_copy problem.cfg workdir [overrides...] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/comm.h"
#include "core/error.h"
#include "meshes/mesh_h5.h"
#include "meshes/partition.h"
#include "problems/solver/parallel.h"
#include "problems/driver/problem.h"
#include "tests/parallel/mpi_main.h"
#include "problems/driver/parallel_options.h"

/* For every halo face, remote_k is the neighbour's local index of the
 * face's neighbour element (global id global_k): every rank learns every
 * element's local index by one sum over the global ids. */
static dg_error check_remote_k(dg_comm *comm, const dg_parallel *par) {
  const dg_partition_local *L = par->local;
  double *local_of = calloc((size_t)par->K_global + 1, sizeof(double));
  DG_CHECK(local_of, DG_ERR_MEMORY, "out of memory");
  for (int64_t k = 0; k < par->K; k++)
    local_of[par->gk[k]] = (double)k;
  dg_error err = dg_comm_allreduce_sum(comm, local_of, (int)par->K_global);
  int64_t bad = 0;
  for (int64_t h = 0; h < L->nhalo && err == DG_OK; h++)
    bad += L->halo[h].remote_k != (int64_t)local_of[L->halo[h].global_k];
  free(local_of);
  DG_CALL(err);
  if (bad)
    printf("rank %d: %lld of %lld halo faces have a stale remote_k\n", dg_comm_rank(comm),
           (long long)bad, (long long)L->nhalo);
  EXPECT(bad == 0);
  EXPECT(L->nhalo > 0);
  return DG_OK;
}

/* The two parts are the same as read (bitwise where it matters). */
static void expect_same_part(const dg_partition_local *a, const dg_partition_local *b) {
  const dg_mesh *ma = a->mesh, *mb = b->mesh;
  size_t nf = (size_t)(ma->dim + 1);
  EXPECT(ma->K == mb->K && ma->Nv == mb->Nv && ma->ntags == mb->ntags);
  if (ma->K != mb->K || ma->Nv != mb->Nv)
    return;
  EXPECT(!memcmp(ma->EToV, mb->EToV, sizeof(int64_t) * (size_t)ma->K * nf));
  EXPECT(!memcmp(ma->face_tag, mb->face_tag, sizeof(int) * (size_t)ma->K * nf));
  EXPECT(!memcmp(a->global_element, b->global_element, sizeof(int64_t) * (size_t)ma->K));
  EXPECT(a->nhalo == b->nhalo);
  for (int64_t h = 0; h < a->nhalo && a->nhalo == b->nhalo; h++)
    EXPECT(a->halo[h].k == b->halo[h].k && a->halo[h].remote_k == b->halo[h].remote_k);
}

static dg_error check(dg_comm *comm, const char *cfg, const char *dir, char **ov, int nov) {
  int rank = dg_comm_rank(comm), size = dg_comm_size(comm);
  char path[4096], file_ov[4200];
  snprintf(path, sizeof path, "%s/parts.h5", dir);
  snprintf(file_ov, sizeof file_ov, "mesh.file=%s", path);
  dg_problem *p = NULL;
  dg_parallel *par = NULL;
  dg_partition *part = NULL;
  dg_partition_local *as_read = NULL;
  const char **ov2 = calloc((size_t)nov + 3, sizeof *ov2);
  dg_error err = DG_OK;
  DG_CHECK_GOTO(err, done, ov2, DG_ERR_MEMORY, "out of memory");
  /* The ranks partition the mesh themselves. */
  DG_CALL_GOTO(err, done, dg_problem_load_rank(cfg, (const char *const *)ov, nov, rank, size, &p));
  DG_CALL_GOTO(err, done, dg_parallel_create_for_problem(comm, p, &par));
  DG_CALL_GOTO(err, done, check_remote_k(comm, par));
  dg_parallel_destroy(&par);
  /* Rank 0 writes the mesh partitioned into size parts; each rank reads its own. */
  if (rank == 0) {
    DG_CALL_GOTO(err, done, dg_partition_create(p->mesh, NULL, NULL, size, NULL, &part));
    DG_CALL_GOTO(err, done, dg_mesh_h5_write(path, p->mesh, part, NULL, NULL));
  }
  dg_problem_destroy(&p);
  DG_CALL_GOTO(err, done, dg_comm_barrier(comm));
  for (int i = 0; i < nov; i++)
    ov2[i] = ov[i];
  ov2[nov] = "mesh.type=file";
  ov2[nov + 1] = file_ov;
  DG_CALL_GOTO(err, done, dg_problem_load_rank(cfg, ov2, nov + 2, rank, size, &p));
  EXPECT(p->part != NULL);
  DG_CALL_GOTO(err, done, dg_mesh_h5_read_part(path, rank, &as_read));
  DG_CALL_GOTO(err, done, dg_parallel_create_for_problem(comm, p, &par));
  DG_CALL_GOTO(err, done, check_remote_k(comm, par));
  if (p->part) {
    EXPECT(par->local != p->part && par->mesh != p->mesh);
    expect_same_part(p->part, as_read);
  }
  /* the parallel's part outlives nothing of the problem's */
  dg_problem_destroy(&p);
  DG_CALL_GOTO(err, done, check_remote_k(comm, par));
done:
  free(ov2);
  dg_partition_local_destroy(&as_read);
  dg_partition_destroy(&part);
  dg_parallel_destroy(&par);
  dg_problem_destroy(&p);
  return err;
}

static dg_error run(dg_comm *comm, char **args, int nargs) {
  return check(comm, args[0], args[1], args + 2, nargs - 2);
}

int main(int argc, char **argv) {
  return mpi_test_main(argc, argv, 2, "problem.cfg workdir [section.key=value...]", run);
}
