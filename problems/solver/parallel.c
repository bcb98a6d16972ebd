#include "problems/solver/parallel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "dg/connectivity.h"
#include "meshes/mesh_curved.h"

/* Renumber the owned elements (stable within each kind): the curved ones
 * first, then the affine ones without halo faces, then the affine ones with
 * a halo face.  The curved kernels run over one range [0, Kc) (dg/opdata.h,
 * as dg_mesh_order_curved_first orders a serial mesh), after the exchange;
 * the affine interior [Kc, K_interior) runs while it is in flight.  A mesh
 * without curved elements gets today's interior-first order.  L is the
 * dg_parallel's own part: the mesh, global ids and halo faces are
 * renumbered in place (remote_k then needs refresh_remote_k). */
static dg_error interior_first(dg_partition_local *L, int64_t *K_interior) {
  dg_mesh *m = L->mesh;
  int64_t K = m->K;
  char *kind = calloc((size_t)K + 1, 1); /* 0 curved, 1 affine interior, 2 affine halo */
  int64_t *newk = malloc(sizeof(int64_t) * (size_t)(K + 1));
  int64_t *gk = malloc(sizeof(int64_t) * (size_t)(K + 1));
  dg_error err = DG_OK;
  DG_CHECK_GOTO(err, done, kind && newk && gk, DG_ERR_MEMORY, "out of memory");
  for (int64_t k = 0; k < K; k++)
    kind[k] = m->geom_order > 1 && !dg_mesh_element_affine(m, k) ? 0 : 1;
  for (int64_t h = 0; h < L->nhalo; h++)
    if (kind[L->halo[h].k] == 1)
      kind[L->halo[h].k] = 2;
  int64_t n = 0;
  for (int pass = 0; pass < 3; pass++)
    for (int64_t k = 0; k < K; k++)
      if (kind[k] == pass)
        newk[k] = n++;
  *K_interior = 0;
  for (int64_t k = 0; k < K; k++)
    *K_interior += kind[k] != 2;
  /* vertices, face tags, regions and face pairs move with their element */
  DG_CALL_GOTO(err, done, dg_mesh_permute(m, newk));
  for (int64_t k = 0; k < K; k++)
    gk[newk[k]] = L->global_element[k];
  memcpy(L->global_element, gk, sizeof(int64_t) * (size_t)K);
  for (int64_t h = 0; h < L->nhalo; h++)
    L->halo[h].k = newk[L->halo[h].k];
done:
  free(kind);
  free(newk);
  free(gk);
  return err;
}

/* Collective over the ranks of L's halo: after every rank renumbered its
 * elements (interior_first), tell each neighbour the new local index of
 * the faces it shares with this rank.  Both sides list their shared faces
 * in the same order (meshes/partition.h), so the i-th index received from
 * rank s is remote_k of the i-th face to s here. */
static dg_error refresh_remote_k(dg_comm *comm, dg_partition_local *L) {
  int64_t *mine = malloc(sizeof(int64_t) * (size_t)(L->nhalo + 1));
  int64_t *theirs = malloc(sizeof(int64_t) * (size_t)(L->nhalo + 1));
  dg_comm_neighbor *nb = calloc((size_t)L->nneighbors + 1, sizeof *nb);
  dg_error err = DG_OK;
  DG_CHECK_GOTO(err, done, mine && theirs && nb, DG_ERR_MEMORY, "out of memory");
  int n = 0;
  for (int64_t h = 0; h < L->nhalo; h++) {
    mine[h] = L->halo[h].k;
    if (h == 0 || L->halo[h].rank != L->halo[h - 1].rank) {
      DG_CHECK_GOTO(err, done, n < L->nneighbors, DG_ERR_ARG,
                    "halo faces are not grouped by rank");
      nb[n++] = (dg_comm_neighbor){L->halo[h].rank, mine + h, 0, theirs + h, 0};
    }
    nb[n - 1].send_bytes += sizeof(int64_t);
    nb[n - 1].recv_bytes += sizeof(int64_t);
  }
  dg_comm_request *req = NULL;
  DG_CALL_GOTO(err, done, dg_comm_exchange_start(comm, n, nb, 7103, &req));
  DG_CALL_GOTO(err, done, dg_comm_exchange_wait(&req));
  for (int64_t h = 0; h < L->nhalo; h++)
    L->halo[h].remote_k = theirs[h];
done:
  free(mine);
  free(theirs);
  free(nb);
  return err;
}

void dg_parallel_destroy(dg_parallel **pp) {
  if (!pp || !*pp)
    return;
  dg_parallel *par = *pp;
  dg_partition_local_destroy(&par->local);
  free(par->tag_to_bc);
  free(par->counts);
  free(par->gk_all);
  free(par);
  *pp = NULL;
}

dg_error dg_parallel_sum(const dg_parallel *par, double *v, int n) {
  if (par->size > 1)
    DG_CALL(dg_comm_allreduce_sum(par->comm, v, n));
  return DG_OK;
}

dg_error dg_parallel_max(const dg_parallel *par, double *v, int n) {
  if (par->size > 1)
    DG_CALL(dg_comm_allreduce_max(par->comm, v, n));
  return DG_OK;
}

dg_error dg_parallel_min(const dg_parallel *par, double *v, int n) {
  if (par->size == 1)
    return DG_OK;
  for (int i = 0; i < n; i++)
    v[i] = -v[i];
  DG_CALL(dg_comm_allreduce_max(par->comm, v, n));
  for (int i = 0; i < n; i++)
    v[i] = -v[i];
  return DG_OK;
}

/* Rank 0 receives cnt[r] doubles from every rank r into buf (rank by rank,
 * its own first); the others send theirs. */
static dg_error gather_raw(dg_comm *comm, const double *mine, int64_t nmine, const int64_t *cnt,
                           double *buf) {
  int rank = dg_comm_rank(comm), size = dg_comm_size(comm);
  if (rank == 0) {
    memcpy(buf, mine, sizeof(double) * (size_t)nmine);
    dg_comm_neighbor *nb = calloc((size_t)size, sizeof *nb);
    DG_CHECK(nb, DG_ERR_MEMORY, "out of memory");
    int64_t off = cnt[0];
    for (int r = 1; r < size; r++) {
      nb[r - 1] = (dg_comm_neighbor){r, NULL, 0, buf + off, sizeof(double) * (size_t)cnt[r]};
      off += cnt[r];
    }
    dg_comm_request *req = NULL;
    dg_error err = dg_comm_exchange_start(comm, size - 1, nb, 7201, &req);
    if (err == DG_OK)
      err = dg_comm_exchange_wait(&req);
    free(nb);
    DG_CALL(err);
    return DG_OK;
  }
  dg_comm_neighbor nb = {0, mine, sizeof(double) * (size_t)nmine, NULL, 0};
  dg_comm_request *req = NULL;
  DG_CALL(dg_comm_exchange_start(comm, 1, &nb, 7201, &req));
  DG_CALL(dg_comm_exchange_wait(&req));
  return DG_OK;
}

dg_error dg_parallel_gather_ids(dg_comm *comm, const int64_t *counts, const int64_t *ids,
                                int64_t K_global, int nf, int Np, const double *local,
                                double *global) {
  int rank = comm ? dg_comm_rank(comm) : 0, size = comm ? dg_comm_size(comm) : 1;
  int64_t *cnt = calloc((size_t)size, sizeof(int64_t));
  double *buf = NULL;
  DG_CHECK(cnt, DG_ERR_MEMORY, "out of memory");
  for (int r = 0; r < size; r++)
    cnt[r] = (int64_t)nf * counts[r] * Np;
  if (rank == 0) {
    buf = malloc(sizeof(double) * (size_t)(nf * K_global * Np + 1));
    if (!buf) {
      free(cnt);
      DG_RAISE(DG_ERR_MEMORY, "out of memory gathering %lld elements", (long long)K_global);
    }
  }
  dg_error err = DG_OK;
  if (size == 1)
    memcpy(buf, local, sizeof(double) * (size_t)cnt[0]);
  else
    err = gather_raw(comm, local, cnt[rank], cnt, buf);
  if (err == DG_OK && rank == 0) {
    int64_t off = 0, e = 0;
    for (int r = 0; r < size; r++) {
      int64_t Kr = counts[r];
      for (int c = 0; c < nf; c++)
        for (int64_t k = 0; k < Kr; k++)
          memcpy(global + ((int64_t)c * K_global + (ids ? ids[e + k] : e + k)) * Np,
                 buf + off + ((int64_t)c * Kr + k) * Np, sizeof(double) * (size_t)Np);
      off += (int64_t)nf * Kr * Np;
      e += Kr;
    }
  }
  free(cnt);
  free(buf);
  DG_CALL(err);
  return DG_OK;
}

dg_error dg_parallel_gather(const dg_parallel *par, int nf, int Np, const double *local,
                            double *global) {
  if (par->size == 1) {
    memcpy(global, local, sizeof(double) * (size_t)nf * (size_t)par->K * Np);
    return DG_OK;
  }
  DG_CALL(dg_parallel_gather_ids(par->comm, par->counts, par->gk_all, par->K_global, nf, Np,
                                 local, global));
  return DG_OK;
}

static dg_error partition(dg_parallel *par, const dg_mesh *m, const dg_partition_options *po) {
  /* Neighbours as the discretization will see them: shared vertices,
   * explicit face pairs and axis periodicity. */
  size_t nfc = (size_t)m->K * (size_t)(m->dim + 1);
  int64_t *EToE = malloc(sizeof(int64_t) * nfc);
  int *EToF = malloc(sizeof(int) * nfc);
  double *shift = malloc(sizeof(double) * nfc * 3);
  dg_partition *part = NULL;
  dg_error err = DG_OK;
  DG_CHECK_GOTO(err, done, EToE && EToF && shift, DG_ERR_MEMORY, "out of memory");
  DG_CALL_GOTO(err, done, dg_connectivity_build(m, EToE, EToF, shift));
  DG_CALL_GOTO(err, done, dg_partition_create(m, EToE, EToF, par->size, po, &part));
  DG_CALL_GOTO(err, done, dg_partition_extract(m, EToE, EToF, part, par->rank, &par->local));
done:
  dg_partition_destroy(&part);
  free(EToE);
  free(EToF);
  free(shift);
  DG_CALL(err);
  return DG_OK;
}

dg_error dg_parallel_create(dg_comm *comm, const dg_mesh *gm, const dg_parallel_options *opt,
                            dg_parallel **out) {
  *out = NULL;
  dg_parallel *par = calloc(1, sizeof *par);
  DG_CHECK(par, DG_ERR_MEMORY, "out of memory");
  dg_error err = DG_OK;
  par->comm = comm;
  par->rank = comm ? dg_comm_rank(comm) : 0;
  par->size = comm ? dg_comm_size(comm) : 1;
  par->counts = calloc((size_t)par->size, sizeof(int64_t));
  DG_CHECK_GOTO(err, fail, par->counts, DG_ERR_MEMORY, "out of memory");
  int ntags = gm->ntags;
  if (par->size == 1) {
    par->mesh = gm;
    par->K = par->K_interior = par->K_global = gm->K;
    par->counts[0] = gm->K;
    par->tag_to_bc = malloc(sizeof(int) * (size_t)(ntags + 1));
    DG_CHECK_GOTO(err, fail, par->tag_to_bc, DG_ERR_MEMORY, "out of memory");
    memcpy(par->tag_to_bc, opt->tag_to_bc, sizeof(int) * (size_t)ntags);
    *out = par;
    return DG_OK;
  }
  if (opt->part) {
    /* renumbered and retagged below: a copy, the caller's part stays as read */
    DG_CALL_GOTO(err, fail, dg_partition_local_copy(opt->part, &par->local));
  } else {
    DG_CHECK_GOTO(err, fail, gm->K >= par->size, DG_ERR_INPUT,
                  "%d ranks for a mesh of %lld elements: use at most one rank per element",
                  par->size, (long long)gm->K);
    DG_CALL_GOTO(err, fail, partition(par, gm, &opt->partition));
  }
  dg_partition_local *L = par->local;
  DG_CALL_GOTO(err, fail, interior_first(L, &par->K_interior));
  DG_CALL_GOTO(err, fail, refresh_remote_k(comm, L));
  int halo_tag;
  DG_CALL_GOTO(err, fail, dg_mesh_tag_add(L->mesh, "__halo", &halo_tag));
  for (int64_t h = 0; h < L->nhalo; h++)
    L->mesh->face_tag[L->halo[h].k * (L->mesh->dim + 1) + L->halo[h].f] = halo_tag;
  par->tag_to_bc = malloc(sizeof(int) * (size_t)(L->mesh->ntags + 1));
  DG_CHECK_GOTO(err, fail, par->tag_to_bc, DG_ERR_MEMORY, "out of memory");
  for (int t = 0; t < L->mesh->ntags; t++)
    par->tag_to_bc[t] = t < ntags ? opt->tag_to_bc[t] : 0; /* __halo: replaced by the halo */
  par->mesh = L->mesh;
  par->K = L->mesh->K;
  par->gk = L->global_element;

  /* Element counts of every rank, and (rank 0) their global ids. */
  double *v = calloc((size_t)par->size, sizeof(double));
  DG_CHECK_GOTO(err, fail, v, DG_ERR_MEMORY, "out of memory");
  v[par->rank] = (double)par->K;
  err = dg_comm_allreduce_sum(comm, v, par->size);
  par->K_global = 0;
  for (int r = 0; r < par->size; r++) {
    par->counts[r] = (int64_t)v[r];
    par->K_global += par->counts[r];
  }
  free(v);
  DG_CALL_GOTO(err, fail, err);
  double *mine = malloc(sizeof(double) * (size_t)(par->K + 1));
  double *all = par->rank == 0 ? malloc(sizeof(double) * (size_t)(par->K_global + 1)) : NULL;
  par->gk_all = par->rank == 0 ? malloc(sizeof(int64_t) * (size_t)(par->K_global + 1)) : NULL;
  if (!mine || (par->rank == 0 && (!all || !par->gk_all))) {
    free(mine);
    free(all);
    DG_CHECK_GOTO(err, fail, 0, DG_ERR_MEMORY, "out of memory");
  }
  for (int64_t k = 0; k < par->K; k++)
    mine[k] = (double)par->gk[k];
  err = gather_raw(par->comm, mine, par->K, par->counts, all);
  if (err == DG_OK && par->rank == 0)
    for (int64_t k = 0; k < par->K_global; k++)
      par->gk_all[k] = (int64_t)all[k];
  free(mine);
  free(all);
  DG_CALL_GOTO(err, fail, err);

  par->halo.comm = comm;
  par->halo.local = L;
  par->halo.K_interior = par->K_interior;
  par->halo.cuda_aware = opt->cuda_aware && dg_comm_cuda_aware();
  par->halo.overlap = opt->overlap;
  *out = par;
  return DG_OK;
fail:
  dg_parallel_destroy(&par);
  return err;
}

dg_error dg_parallel_device(const dg_parallel *par, const char *backend, int oversubscribe,
                            dg_device **out) {
  DG_CALL(dg_parallel_device_for(par->size > 1 ? par->comm : NULL, backend, oversubscribe, out));
  return DG_OK;
}

dg_error dg_parallel_device_for(dg_comm *comm, const char *backend, int oversubscribe,
                                dg_device **out) {
  *out = NULL;
  if (!comm || dg_comm_size(comm) == 1 || dg_device_env_index_set()) {
    DG_CALL(dg_device_create(backend, -1, out));
    return DG_OK;
  }
  int n = 0;
  DG_CALL(dg_device_count(backend, &n));
  DG_CHECK(n > 0, DG_ERR_DEVICE, "backend %s has no device", backend);
  int node_rank = dg_comm_node_rank(comm), node_size = dg_comm_node_size(comm);
  int share = oversubscribe;
  /* The cpu backend has one "device" that every rank may use. */
  if (n == 1 && (strcmp(backend, "cpu") == 0 || !dg_device_cuda_available()))
    share = 1;
  int index = dg_parallel_pick_device(node_rank, node_size, n, share);
  DG_CHECK(index >= 0, DG_ERR_INPUT,
           "%d ranks on this node but %d GPU(s): run one rank per GPU, or allow sharing "
           "with parallel.gpu_oversubscribe=true",
           node_size, n);
  DG_CALL(dg_device_create(backend, index, out));
  return DG_OK;
}

int dg_parallel_pick_device(int node_rank, int node_size, int ndevices, int share) {
  if (ndevices <= 0 || node_rank < 0 || node_rank >= node_size)
    return -1;
  if (node_size > ndevices && !share)
    return -1;
  return node_rank % ndevices;
}

dg_error dg_parallel_test_fault(const dg_parallel *par, int64_t step) {
  const char *r = getenv("DGRUN_TEST_FAIL_RANK"), *s = getenv("DGRUN_TEST_FAIL_STEP");
  if (!r || !s)
    return DG_OK;
  DG_CHECK(!(atoi(r) == par->rank && atoll(s) == step), DG_ERR_INTERNAL,
           "induced failure on rank %d at step %lld ($DGRUN_TEST_FAIL_RANK, a test hook)",
           par->rank, (long long)step);
  return DG_OK;
}

static int error_agreed, error_rank = -1;

int dg_parallel_error_agreed(void) { return error_agreed; }
int dg_parallel_error_rank(void) { return error_rank; }

dg_error dg_parallel_agree(dg_comm *comm, dg_error err) {
  if (!comm || dg_comm_size(comm) == 1)
    return err == DG_OK ? DG_OK : dg_error_push(err, __FILE__, __LINE__, __func__);
  int rank = dg_comm_rank(comm), size = dg_comm_size(comm);
  /* The lowest rank with an error of its own; ranks that only learnt of
   * another's failure (DG_ERR_PEER) come after all of them. */
  int stub = err == DG_ERR_PEER;
  double v = err != DG_OK ? (double)(stub ? size - rank : 2 * size - rank) : 0.0;
  DG_CALL(dg_comm_allreduce_max(comm, &v, 1));
  if (v == 0)
    return DG_OK;
  int bad = v > size ? 2 * size - (int)v : size - (int)v;
  /* The failing rank's code and message, to rank 0. */
  struct {
    double code;
    char msg[2048];
  } report;
  memset(&report, 0, sizeof report);
  if (rank == bad) {
    report.code = (double)err;
    snprintf(report.msg, sizeof report.msg, "%s", dg_error_message());
  }
  if (bad != 0 && (rank == 0 || rank == bad)) {
    dg_comm_neighbor nb = {rank == 0 ? bad : 0, &report, rank == 0 ? 0 : sizeof report,
                           &report, rank == 0 ? sizeof report : 0};
    dg_comm_request *req = NULL;
    DG_CALL(dg_comm_exchange_start(comm, 1, &nb, 7301, &req));
    DG_CALL(dg_comm_exchange_wait(&req));
  }
  error_agreed = 1;
  error_rank = bad;
  if (rank == 0) {
    if (bad == 0)
      return dg_error_push(err, __FILE__, __LINE__, __func__);
    DG_RAISE((dg_error)(int)report.code, "%s", report.msg);
  }
  DG_RAISE(DG_ERR_PEER, "rank %d failed; rank 0 reports it", bad);
}
