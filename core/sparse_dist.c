/* Distributed sparse matrices: rows split by rank into a local and a ghost
 * block, the halo exchange planned once, and y = A x overlapping the
 * exchange with the local product (core/sparse.h describes the scheme). */
#include <stdio.h>
#include <stdlib.h>

#include "core/elementwise.h"
#include "core/sparse.h"
#include "core/sparse_private.h"

struct dg_sparse_dist {
  dg_comm *comm;
  dg_device *dev;
  dg_dtype dtype;
  int64_t nloc, nglobal, row_start;
  dg_sparse *local, *ghost;
  int64_t nghost, nsend;
  int nneighbors;
  dg_comm_neighbor *neighbors; /* buffers point into send_host / recv_host */
  void *send_idx;              /* device int64: local entries to send */
  dg_array *send_buf, *x_ghost;
  void *send_host, *recv_host;
  dg_elementwise *gather;
};

enum { TAG_SETUP = 7101, TAG_SPMV = 7102 };

static int64_t find_sorted(const int64_t *v, int64_t n, int64_t key) {
  int64_t lo = 0, hi = n - 1;
  while (lo <= hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (v[mid] == key)
      return mid;
    if (v[mid] < key)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return -1;
}

static int int64_cmp(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* The owner of global column c: the last rank whose start is <= c. */
static int owner_of(const int64_t *starts, int size, int64_t c) {
  int lo = 0, hi = size - 1;
  while (lo < hi) {
    int mid = (lo + hi + 1) / 2;
    if (starts[mid] <= c)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

/* Everything a rank can check or compute without talking to the others:
 * the split of A_local into the local block and the ghost block, and the
 * sorted ghost columns (whole units of g columns). */
typedef struct {
  dg_csr *local, *ghost;
  int64_t *ghost_cols, nghost;
} split_result;

static void split_free(split_result *s) {
  dg_sparse_csr_destroy(&s->local);
  dg_sparse_csr_destroy(&s->ghost);
  free(s->ghost_cols);
  *s = (split_result){0};
}

static dg_error split_local(const dg_csr *A, int64_t row_start, int g,
                            split_result *out) {
  *out = (split_result){0};
  int64_t rs = row_start, re = row_start + A->nrows;
  /* Ghost units (column / g) in a sorted, unique list. */
  int64_t nunits = 0;
  int64_t *units = dg_sparse_alloc(A->nnz, sizeof *units);
  DG_CHECK(units != NULL, DG_ERR_MEMORY, "out of host memory");
  for (int64_t k = 0; k < A->nnz; k++)
    if (A->colind[k] < rs || A->colind[k] >= re)
      units[nunits++] = A->colind[k] / g;
  qsort(units, (size_t)nunits, sizeof *units, int64_cmp);
  int64_t u = 0;
  for (int64_t k = 0; k < nunits; k++)
    if (k == 0 || units[k] != units[k - 1])
      units[u++] = units[k];
  nunits = u;
  out->nghost = nunits * g;
  out->ghost_cols = dg_sparse_alloc(out->nghost, sizeof *out->ghost_cols);
  if (!out->ghost_cols) {
    free(units);
    DG_RAISE(DG_ERR_MEMORY, "out of host memory");
  }
  for (int64_t k = 0; k < nunits; k++)
    for (int j = 0; j < g; j++)
      out->ghost_cols[k * g + j] = units[k] * g + j;
  free(units);
  /* Count, then fill, both blocks row by row (columns stay sorted: the
   * renumberings are monotone). */
  int64_t nl = 0, ng = 0;
  for (int64_t k = 0; k < A->nnz; k++) {
    if (A->colind[k] >= rs && A->colind[k] < re)
      nl++;
    else
      ng++;
  }
  dg_error err;
  DG_CALL_GOTO(err, fail,
               dg_sparse_csr_create(A->nrows, A->nrows, nl, &out->local));
  DG_CALL_GOTO(err, fail,
               dg_sparse_csr_create(A->nrows, out->nghost, ng, &out->ghost));
  nl = ng = 0;
  for (int64_t r = 0; r < A->nrows; r++) {
    for (int64_t k = A->rowptr[r]; k < A->rowptr[r + 1]; k++) {
      int64_t c = A->colind[k];
      if (c >= rs && c < re) {
        out->local->colind[nl] = c - rs;
        out->local->values[nl++] = A->values[k];
      } else {
        out->ghost->colind[ng] = find_sorted(out->ghost_cols, out->nghost, c);
        out->ghost->values[ng++] = A->values[k];
      }
    }
    out->local->rowptr[r + 1] = nl;
    out->ghost->rowptr[r + 1] = ng;
  }
  return DG_OK;
fail:
  split_free(out);
  return err;
}

/* The row ranges of all ranks (starts[size] = global size), checked. */
static dg_error gather_ranges(dg_comm *comm, int64_t row_start, int64_t nloc,
                              int64_t ncols, int64_t *starts) {
  int size = dg_comm_size(comm), rank = dg_comm_rank(comm);
  double *v = calloc(2 * (size_t)size + 2, sizeof *v);
  DG_CHECK(v != NULL, DG_ERR_MEMORY, "out of host memory");
  v[rank] = (double)row_start;
  v[size + rank] = (double)nloc;
  dg_error err = dg_comm_allreduce_sum(comm, v, 2 * size);
  /* ncols must agree: max of ncols and of -ncols. */
  double mm[2] = {(double)ncols, -(double)ncols};
  if (err == DG_OK)
    err = dg_comm_allreduce_max(comm, mm, 2);
  if (err != DG_OK) {
    free(v);
    DG_CALL(err);
  }
  int64_t next = 0;
  for (int r = 0; r < size && err == DG_OK; r++) {
    starts[r] = (int64_t)v[r];
    if (starts[r] != next)
      err = dg_error_raise(DG_ERR_ARG, __FILE__, __LINE__, __func__,
                           "rank %d's rows start at %lld, but the rows of "
                           "ranks 0..%d end at %lld (ranges must be "
                           "consecutive in rank order)", r,
                           (long long)starts[r], r - 1, (long long)next);
    next += (int64_t)v[size + r];
  }
  free(v);
  DG_CALL(err);
  starts[size] = next;
  DG_CHECK(mm[0] == -mm[1], DG_ERR_ARG,
           "ranks disagree on the global size (%g to %g columns)", -mm[1],
           mm[0]);
  DG_CHECK(next == ncols, DG_ERR_ARG,
           "the ranks' rows cover [0, %lld) but the matrix has %lld columns "
           "(it must be square)", (long long)next, (long long)ncols);
  return DG_OK;
}

/* Tell every rank which of its entries this rank needs, learn what to send.
 * Counts travel in a size x size table (allreduced: fine for the rank
 * counts dgrun targets; an MPI_Alltoall would replace it at scale), the
 * index lists through one exchange. */
static dg_error plan_exchange(dg_sparse_dist *D, const int64_t *starts,
                              const split_result *s, int64_t **send_global) {
  int size = dg_comm_size(D->comm), rank = dg_comm_rank(D->comm);
  double *counts = calloc((size_t)size * size, sizeof *counts);
  int64_t *recv_from = calloc((size_t)size + 1, sizeof *recv_from);
  dg_error err = DG_OK;
  *send_global = NULL;
  DG_CHECK_GOTO(err, done, counts && recv_from, DG_ERR_MEMORY,
                "out of host memory");
  /* Ghost columns are sorted, hence grouped by owner in rank order. */
  for (int64_t k = 0; k < s->nghost; k++)
    recv_from[owner_of(starts, size, s->ghost_cols[k]) + 1]++;
  for (int q = 0; q < size; q++) {
    counts[(size_t)rank * size + q] = (double)recv_from[q + 1];
    recv_from[q + 1] += recv_from[q];
  }
  DG_CALL_GOTO(err, done, dg_comm_allreduce_sum(D->comm, counts, size * size));
  D->nsend = 0;
  D->nneighbors = 0;
  for (int q = 0; q < size; q++) {
    int64_t to_q = (int64_t)counts[(size_t)q * size + rank];
    int64_t from_q = recv_from[q + 1] - recv_from[q];
    DG_CHECK_GOTO(err, done, q != rank || (to_q == 0 && from_q == 0),
                  DG_ERR_INTERNAL, "rank %d lists its own columns as ghosts",
                  rank);
    D->nsend += to_q;
    D->nneighbors += to_q > 0 || from_q > 0;
  }
  D->neighbors = calloc((size_t)(D->nneighbors > 0 ? D->nneighbors : 1),
                        sizeof *D->neighbors);
  *send_global = dg_sparse_alloc(D->nsend, sizeof **send_global);
  DG_CHECK_GOTO(err, done, D->neighbors && *send_global, DG_ERR_MEMORY,
                "out of host memory");
  int n = 0;
  int64_t send_at = 0;
  for (int q = 0; q < size; q++) {
    int64_t to_q = (int64_t)counts[(size_t)q * size + rank];
    int64_t from_q = recv_from[q + 1] - recv_from[q];
    if (!to_q && !from_q)
      continue;
    /* Setup: my requests go out to q, q's requests land in send_global. */
    D->neighbors[n++] = (dg_comm_neighbor){
        .rank = q,
        .send = s->ghost_cols + recv_from[q],
        .send_bytes = (size_t)from_q * sizeof(int64_t),
        .recv = *send_global + send_at,
        .recv_bytes = (size_t)to_q * sizeof(int64_t)};
    send_at += to_q;
  }
  dg_comm_request *req = NULL;
  DG_CALL_GOTO(err, done, dg_comm_exchange_start(D->comm, D->nneighbors,
                                                 D->neighbors, TAG_SETUP,
                                                 &req));
  DG_CALL_GOTO(err, done, dg_comm_exchange_wait(&req));
  /* From now on the neighbours describe the SpMV exchange of values:
   * sends of the requested entries, receives of this rank's ghosts. */
  size_t real = dg_dtype_size(D->dtype);
  D->send_host = dg_sparse_alloc(D->nsend, real);
  D->recv_host = dg_sparse_alloc(s->nghost, real);
  DG_CHECK_GOTO(err, done, D->send_host && D->recv_host, DG_ERR_MEMORY,
                "out of host memory");
  send_at = 0;
  for (int k = 0; k < D->nneighbors; k++) {
    dg_comm_neighbor *nb = &D->neighbors[k];
    int64_t to_q = (int64_t)(nb->recv_bytes / sizeof(int64_t));
    int64_t from_q = recv_from[nb->rank + 1] - recv_from[nb->rank];
    nb->send = (char *)D->send_host + (size_t)send_at * real;
    nb->send_bytes = (size_t)to_q * real;
    nb->recv = (char *)D->recv_host + (size_t)recv_from[nb->rank] * real;
    nb->recv_bytes = (size_t)from_q * real;
    send_at += to_q;
  }
done:
  free(counts);
  free(recv_from);
  return err;
}

dg_error dg_sparse_dist_create(dg_comm *comm, dg_device *dev,
                               const dg_csr *A_local, int64_t row_start,
                               dg_sparse_format f, int block, dg_dtype dtype,
                               dg_sparse_dist **out) {
  DG_CHECK(comm && dev && A_local && out, DG_ERR_ARG,
           "dg_sparse_dist_create: NULL argument");
  *out = NULL;
  int size = dg_comm_size(comm);
  /* Local checks first, agreed on before any rank waits for another. */
  dg_error err = dg_sparse_csr_check(A_local);
  if (err == DG_OK && f == DG_SPARSE_AUTO)
    err = dg_sparse_choose(dev, A_local, block, &f);
  int g = f == DG_SPARSE_BSR ? block : 1;
  if (err == DG_OK && (g < 1 || row_start < 0 || row_start % g ||
                       A_local->nrows % g))
    err = dg_error_raise(DG_ERR_ARG, __FILE__, __LINE__, __func__,
                         "bsr block %d must divide this rank's row start "
                         "%lld and row count %lld", g, (long long)row_start,
                         (long long)A_local->nrows);
  DG_CALL(dg_comm_agree(comm, err));
  if (block > 1) {
    /* bsr on some ranks only would cut ghost blocks apart: every rank uses
     * it or none does. */
    double not_bsr = f != DG_SPARSE_BSR;
    DG_CALL(dg_comm_allreduce_max(comm, &not_bsr, 1));
    if (not_bsr > 0 && f == DG_SPARSE_BSR)
      DG_CALL(dg_sparse_choose(dev, A_local, 1, &f));
    g = f == DG_SPARSE_BSR ? block : 1;
  }
  int64_t *starts = calloc((size_t)size + 1, sizeof *starts);
  DG_CHECK(starts != NULL, DG_ERR_MEMORY, "out of host memory");
  err = gather_ranges(comm, row_start, A_local->nrows, A_local->ncols, starts);
  if (err != DG_OK) {
    free(starts);
    DG_CALL(err);
  }
  split_result s = {0};
  int64_t *send_global = NULL;
  dg_sparse_dist *D = calloc(1, sizeof *D);
  err = D ? split_local(A_local, row_start, g, &s)
          : dg_error_raise(DG_ERR_MEMORY, __FILE__, __LINE__, __func__,
                           "out of host memory");
  DG_CALL_GOTO(err, fail, dg_comm_agree(comm, err));
  D->comm = comm;
  D->dev = dev;
  D->dtype = dtype;
  D->nloc = A_local->nrows;
  D->nglobal = A_local->ncols;
  D->row_start = row_start;
  D->nghost = s.nghost;
  err = plan_exchange(D, starts, &s, &send_global);
  DG_CALL_GOTO(err, fail, dg_comm_agree(comm, err));
  /* What neighbours asked for must be this rank's own rows. */
  for (int64_t k = 0; k < D->nsend && err == DG_OK; k++) {
    if (send_global[k] < row_start || send_global[k] >= row_start + D->nloc)
      err = dg_error_raise(DG_ERR_INTERNAL, __FILE__, __LINE__, __func__,
                           "a neighbour asked for column %lld, not owned here",
                           (long long)send_global[k]);
    else
      send_global[k] -= row_start;
  }
  /* Device side. */
  if (err == DG_OK)
    err = dg_sparse_create(dev, s.local, f, block, dtype, &D->local);
  if (err == DG_OK && s.nghost > 0)
    err = dg_sparse_create(dev, s.ghost, f, block, dtype, &D->ghost);
  if (err == DG_OK && s.nghost > 0)
    err = dg_array_create(dev, dtype, s.nghost, &D->x_ghost);
  if (err == DG_OK && D->nsend > 0) {
    char decl[96], name[32];
    snprintf(decl, sizeof decl, "%s *s, const %s *x, const int64_t *idx",
             dg_dtype_name(dtype), dg_dtype_name(dtype));
    snprintf(name, sizeof name, "spmv_gather_%s", dg_dtype_name(dtype));
    err = dg_array_create(dev, dtype, D->nsend, &D->send_buf);
    if (err == DG_OK)
      err = dg_sparse_upload_int64(dev, send_global, D->nsend, &D->send_idx);
    if (err == DG_OK)
      err = dg_elementwise_create(dev, name, decl, "s[i] = x[idx[i]]",
                                  &D->gather);
  }
  DG_CALL_GOTO(err, fail, dg_comm_agree(comm, err));
  free(starts);
  free(send_global);
  split_free(&s);
  *out = D;
  return DG_OK;
fail:
  free(starts);
  free(send_global);
  split_free(&s);
  dg_sparse_dist_destroy(&D);
  return err;
}

void dg_sparse_dist_destroy(dg_sparse_dist **A) {
  if (!A || !*A)
    return;
  dg_sparse_dist *D = *A;
  dg_sparse_destroy(&D->local);
  dg_sparse_destroy(&D->ghost);
  dg_array_destroy(&D->send_buf);
  dg_array_destroy(&D->x_ghost);
  if (D->send_idx)
    dg_device_free(D->dev, D->send_idx);
  dg_elementwise_destroy(&D->gather);
  free(D->neighbors);
  free(D->send_host);
  free(D->recv_host);
  free(D);
  *A = NULL;
}

dg_error dg_sparse_dist_spmv(dg_sparse_dist *D, const dg_array *x,
                             dg_array *y) {
  DG_CHECK(D && x && y, DG_ERR_ARG, "dg_sparse_dist_spmv: NULL argument");
  DG_CHECK(dg_array_length(x) == D->nloc && dg_array_length(y) == D->nloc,
           DG_ERR_ARG, "distributed SpMV with %lld local rows: x has %lld, "
           "y %lld entries", (long long)D->nloc,
           (long long)dg_array_length(x), (long long)dg_array_length(y));
  size_t real = dg_dtype_size(D->dtype);
  if (D->nsend > 0) {
    /* x is read at the indices: a pointer, not an n-long array. */
    dg_arg args[] = {DG_ARG_ARRAY(D->send_buf), DG_ARG_POINTER(dg_array_data(x)),
                     DG_ARG_POINTER(D->send_idx)};
    DG_CALL(dg_elementwise_call(D->gather, D->nsend, args));
    DG_CALL(dg_array_download(D->send_buf, D->send_host));
  }
  dg_comm_request *req = NULL;
  if (D->nneighbors > 0)
    DG_CALL(dg_comm_exchange_start(D->comm, D->nneighbors, D->neighbors,
                                   TAG_SPMV, &req));
  /* The local product runs while the messages travel; should it fail, the
   * exchange is still completed (the other ranks are not left waiting). */
  dg_error err = dg_sparse_spmv(D->local, x, y, 0, NULL);
  dg_error werr = dg_comm_exchange_wait(&req);
  if (err != DG_OK)
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  DG_CALL(werr);
  if (D->nghost > 0) {
    DG_CALL(dg_device_upload(D->dev, dg_array_data(D->x_ghost), D->recv_host,
                             (size_t)D->nghost * real));
    DG_CALL(dg_sparse_spmv(D->ghost, D->x_ghost, y, 1, NULL));
  }
  return DG_OK;
}

dg_comm *dg_sparse_dist_comm(const dg_sparse_dist *A) { return A->comm; }
dg_device *dg_sparse_dist_device(const dg_sparse_dist *A) { return A->dev; }
dg_dtype dg_sparse_dist_dtype(const dg_sparse_dist *A) { return A->dtype; }
int64_t dg_sparse_dist_local_rows(const dg_sparse_dist *A) { return A->nloc; }
int64_t dg_sparse_dist_global_rows(const dg_sparse_dist *A) {
  return A->nglobal;
}
int64_t dg_sparse_dist_row_start(const dg_sparse_dist *A) {
  return A->row_start;
}
int64_t dg_sparse_dist_ghosts(const dg_sparse_dist *A) { return A->nghost; }
int dg_sparse_dist_neighbors(const dg_sparse_dist *A) { return A->nneighbors; }
dg_sparse *dg_sparse_dist_local(const dg_sparse_dist *A) { return A->local; }
dg_sparse *dg_sparse_dist_ghost(const dg_sparse_dist *A) { return A->ghost; }
