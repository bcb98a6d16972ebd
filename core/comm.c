#include "core/comm.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#if defined(DGRUN_HAVE_MPI)
#include <mpi.h>
#if defined(__has_include)
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h> /* Open MPI: MPIX_Query_cuda_support */
#endif
#endif
#endif

struct dg_comm {
  int rank, size;
  int node_rank, node_size;
  int finalize_mpi; /* this communicator initialised MPI: finalise on destroy */
#if defined(DGRUN_HAVE_MPI)
  MPI_Comm mpi;
#endif
};

struct dg_comm_request {
  int count;
#if defined(DGRUN_HAVE_MPI)
  MPI_Request *requests;
  int *expected; /* bytes expected per request, -1 for sends */
  int *peer;     /* neighbour rank per request, for messages */
#endif
};

/* Arguments of an exchange, whatever the build: ranks in range and named
 * once, buffers present, sizes that fit one MPI message. */
static dg_error check_exchange(const dg_comm *comm, int n,
                               const dg_comm_neighbor *neighbors, int tag,
                               dg_comm_request **out) {
  DG_CHECK(comm && out && n >= 0 && (neighbors || n == 0), DG_ERR_ARG,
           "dg_comm_exchange_start: bad arguments (n = %d)", n);
  DG_CHECK(tag >= 0 && tag <= 32767, DG_ERR_ARG,
           "exchange tag %d outside [0, 32767] (the smallest MPI_TAG_UB)", tag);
  *out = NULL;
  for (int k = 0; k < n; k++) {
    const dg_comm_neighbor *nb = &neighbors[k];
    DG_CHECK(nb->rank >= 0 && nb->rank < comm->size, DG_ERR_ARG,
             "exchange neighbour %d: rank %d outside [0, %d)", k, nb->rank,
             comm->size);
    DG_CHECK(nb->send_bytes <= INT_MAX && nb->recv_bytes <= INT_MAX,
             DG_ERR_UNSUPPORTED,
             "exchange with rank %d: %zu / %zu bytes exceed one MPI message "
             "(%d bytes)", nb->rank, nb->send_bytes, nb->recv_bytes, INT_MAX);
    DG_CHECK((nb->send || !nb->send_bytes) && (nb->recv || !nb->recv_bytes),
             DG_ERR_ARG, "exchange with rank %d: NULL buffer", nb->rank);
    for (int j = 0; j < k; j++)
      DG_CHECK(neighbors[j].rank != nb->rank, DG_ERR_ARG,
               "exchange names rank %d twice (neighbours %d and %d)",
               nb->rank, j, k);
  }
  return DG_OK;
}

int dg_comm_cuda_aware(void) {
#if defined(DGRUN_HAVE_MPI) && defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  /* Compiled with CUDA support; ask the library loaded at run time. */
  return MPIX_Query_cuda_support() ? 1 : 0;
#else
  return 0;
#endif
}

int dg_comm_mpi_built(void) {
#if defined(DGRUN_HAVE_MPI)
  return 1;
#else
  return 0;
#endif
}

#if defined(DGRUN_HAVE_MPI)

/* Raise DG_ERR_MPI with MPI's own description of rc. */
#define MPI_TRY(call)                                                         \
  do {                                                                        \
    int mpi_rc_ = (call);                                                     \
    if (mpi_rc_ != MPI_SUCCESS) {                                             \
      char mpi_msg_[MPI_MAX_ERROR_STRING];                                    \
      int mpi_len_ = 0;                                                       \
      if (MPI_Error_string(mpi_rc_, mpi_msg_, &mpi_len_) != MPI_SUCCESS)      \
        strcpy(mpi_msg_, "unknown MPI error");                                \
      DG_RAISE(DG_ERR_MPI, "%s failed: %s", #call, mpi_msg_);                 \
    }                                                                         \
  } while (0)

/* Take ownership of mpi (a fresh duplicate or split) and fill in the ranks. */
static dg_error wrap(MPI_Comm mpi, dg_comm **out) {
  dg_comm *c = calloc(1, sizeof *c);
  if (!c) {
    MPI_Comm_free(&mpi);
    DG_RAISE(DG_ERR_MEMORY, "out of host memory");
  }
  c->mpi = mpi;
  dg_error err = DG_OK;
  MPI_Comm node = MPI_COMM_NULL;
  /* Errors come back as return codes, never as an abort inside MPI. */
  if (MPI_Comm_set_errhandler(mpi, MPI_ERRORS_RETURN) != MPI_SUCCESS ||
      MPI_Comm_rank(mpi, &c->rank) != MPI_SUCCESS ||
      MPI_Comm_size(mpi, &c->size) != MPI_SUCCESS ||
      MPI_Comm_split_type(mpi, MPI_COMM_TYPE_SHARED, c->rank, MPI_INFO_NULL,
                          &node) != MPI_SUCCESS ||
      MPI_Comm_rank(node, &c->node_rank) != MPI_SUCCESS ||
      MPI_Comm_size(node, &c->node_size) != MPI_SUCCESS)
    err = dg_error_raise(DG_ERR_MPI, __FILE__, __LINE__, __func__,
                         "querying a new communicator (rank, size, node-local "
                         "rank via MPI_Comm_split_type) failed");
  if (node != MPI_COMM_NULL)
    MPI_Comm_free(&node);
  if (err != DG_OK) {
    MPI_Comm_free(&c->mpi);
    free(c);
    return err;
  }
  *out = c;
  return DG_OK;
}

dg_error dg_comm_create_world(dg_comm **out) {
  DG_CHECK(out != NULL, DG_ERR_ARG, "dg_comm_create_world: out is NULL");
  *out = NULL;
  int initialized = 0, finalized = 0;
  MPI_TRY(MPI_Initialized(&initialized));
  MPI_TRY(MPI_Finalized(&finalized));
  DG_CHECK(!finalized, DG_ERR_MPI,
           "MPI was already finalised: a world communicator can no longer be "
           "created");
  if (!initialized) {
    int provided = 0;
    MPI_TRY(MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided));
  }
  MPI_Comm dup;
  MPI_TRY(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  DG_CALL(wrap(dup, out));
  (*out)->finalize_mpi = !initialized;
  return DG_OK;
}

dg_error dg_comm_create_self(dg_comm **out) {
  DG_CHECK(out != NULL, DG_ERR_ARG, "dg_comm_create_self: out is NULL");
  *out = NULL;
  int initialized = 0;
  MPI_TRY(MPI_Initialized(&initialized));
  DG_CHECK(initialized, DG_ERR_MPI,
           "MPI is not initialised: create the world communicator first");
  MPI_Comm dup;
  MPI_TRY(MPI_Comm_dup(MPI_COMM_SELF, &dup));
  DG_CALL(wrap(dup, out));
  return DG_OK;
}

dg_error dg_comm_split(dg_comm *parent, int color, int key, dg_comm **out) {
  DG_CHECK(parent && out, DG_ERR_ARG, "dg_comm_split: NULL argument");
  DG_CHECK(color >= 0, DG_ERR_ARG, "dg_comm_split: color %d must be >= 0",
           color);
  *out = NULL;
  MPI_Comm split;
  MPI_TRY(MPI_Comm_split(parent->mpi, color, key, &split));
  DG_CALL(wrap(split, out));
  return DG_OK;
}

void dg_comm_destroy(dg_comm **comm) {
  if (!comm || !*comm)
    return;
  dg_comm *c = *comm;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) {
    MPI_Comm_free(&c->mpi);
    if (c->finalize_mpi)
      MPI_Finalize();
  }
  free(c);
  *comm = NULL;
}

dg_error dg_comm_barrier(dg_comm *comm) {
  MPI_TRY(MPI_Barrier(comm->mpi));
  return DG_OK;
}

static dg_error allreduce(dg_comm *comm, double *values, int n, MPI_Op op) {
  DG_CHECK(n >= 0 && (values || n == 0), DG_ERR_ARG,
           "allreduce of %d values at %p", n, (void *)values);
  if (n == 0)
    return DG_OK;
  MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, values, n, MPI_DOUBLE, op, comm->mpi));
  return DG_OK;
}

dg_error dg_comm_allreduce_sum(dg_comm *comm, double *values, int n) {
  DG_CALL(allreduce(comm, values, n, MPI_SUM));
  return DG_OK;
}

dg_error dg_comm_allreduce_max(dg_comm *comm, double *values, int n) {
  DG_CALL(allreduce(comm, values, n, MPI_MAX));
  return DG_OK;
}

dg_error dg_comm_allreduce_sum_u64(dg_comm *comm, uint64_t *values, int n) {
  DG_CHECK(n >= 0 && (values || n == 0), DG_ERR_ARG,
           "allreduce of %d values at %p", n, (void *)values);
  if (n == 0)
    return DG_OK;
  /* unsigned C addition: wraps modulo 2^64 */
  MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, values, n, MPI_UINT64_T, MPI_SUM, comm->mpi));
  return DG_OK;
}

const void *dg_comm_mpi_handle(const dg_comm *comm) { return comm ? &comm->mpi : NULL; }

void dg_comm_abort(dg_comm *comm, int code) {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized)
    MPI_Abort(comm ? comm->mpi : MPI_COMM_WORLD, code);
  exit(code);
}

dg_error dg_comm_exchange_start(dg_comm *comm, int n,
                                const dg_comm_neighbor *neighbors, int tag,
                                dg_comm_request **out) {
  DG_CALL(check_exchange(comm, n, neighbors, tag, out));
  dg_comm_request *r = calloc(1, sizeof *r);
  size_t slots = 2 * (size_t)n + 1;
  if (r) {
    r->requests = malloc(slots * sizeof *r->requests);
    r->expected = malloc(slots * sizeof *r->expected);
    r->peer = malloc(slots * sizeof *r->peer);
  }
  if (!r || !r->requests || !r->expected || !r->peer) {
    if (r) {
      free(r->requests);
      free(r->expected);
      free(r->peer);
    }
    free(r);
    DG_RAISE(DG_ERR_MEMORY, "out of host memory");
  }
  /* Receives first, so that no send has to wait for a matching receive to
   * be posted (eager or rendezvous, either works). */
  for (int k = 0; k < n; k++) {
    const dg_comm_neighbor *nb = &neighbors[k];
    if (!nb->recv_bytes)
      continue;
    int rc = MPI_Irecv(nb->recv, (int)nb->recv_bytes, MPI_BYTE, nb->rank, tag,
                       comm->mpi, &r->requests[r->count]);
    if (rc != MPI_SUCCESS)
      goto mpi_fail;
    r->expected[r->count] = (int)nb->recv_bytes;
    r->peer[r->count++] = nb->rank;
  }
  for (int k = 0; k < n; k++) {
    const dg_comm_neighbor *nb = &neighbors[k];
    if (!nb->send_bytes)
      continue;
    /* MPI-3 takes const void *; older headers do not, hence the cast. */
    int rc = MPI_Isend((void *)(uintptr_t)nb->send, (int)nb->send_bytes,
                       MPI_BYTE, nb->rank, tag, comm->mpi,
                       &r->requests[r->count]);
    if (rc != MPI_SUCCESS)
      goto mpi_fail;
    r->expected[r->count] = -1;
    r->peer[r->count++] = nb->rank;
  }
  *out = r;
  return DG_OK;
mpi_fail:;
  /* Posted requests cannot be taken back safely; the communicator is now
   * unusable (see the header: the caller aborts the job). */
  int posted = r->count;
  free(r->requests);
  free(r->expected);
  free(r->peer);
  free(r);
  DG_RAISE(DG_ERR_MPI,
           "posting a non-blocking exchange failed after %d messages; the "
           "communicator is unusable, abort the job", posted);
}

dg_error dg_comm_exchange_wait(dg_comm_request **req) {
  DG_CHECK(req != NULL, DG_ERR_ARG, "dg_comm_exchange_wait: req is NULL");
  dg_comm_request *r = *req;
  if (!r)
    return DG_OK;
  *req = NULL;
  dg_error err = DG_OK;
  MPI_Status *status = r->count ? malloc((size_t)r->count * sizeof *status)
                                : NULL;
  int rc = MPI_Waitall(r->count, r->requests,
                       status ? status : MPI_STATUSES_IGNORE);
  if (rc != MPI_SUCCESS) {
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS)
      strcpy(msg, "unknown MPI error");
    err = dg_error_raise(DG_ERR_MPI, __FILE__, __LINE__, __func__,
                         "MPI_Waitall on an exchange of %d messages failed: "
                         "%s (a message size mismatch between two ranks is "
                         "the usual cause)", r->count, msg);
  } else if (status) {
    for (int k = 0; k < r->count && err == DG_OK; k++) {
      int got = 0;
      if (r->expected[k] < 0)
        continue;
      MPI_Get_count(&status[k], MPI_BYTE, &got);
      if (got != r->expected[k])
        err = dg_error_raise(DG_ERR_MPI, __FILE__, __LINE__, __func__,
                             "exchange: received %d bytes from rank %d, "
                             "expected %d", got, r->peer[k], r->expected[k]);
    }
  }
  free(status);
  free(r->requests);
  free(r->expected);
  free(r->peer);
  free(r);
  return err;
}

#else /* serial fallback: one rank, no messages but to itself */

static dg_error make_serial(dg_comm **out) {
  DG_CHECK(out != NULL, DG_ERR_ARG, "communicator: out is NULL");
  dg_comm *c = calloc(1, sizeof *c);
  DG_CHECK(c != NULL, DG_ERR_MEMORY, "out of host memory");
  c->rank = 0;
  c->size = 1;
  c->node_rank = 0;
  c->node_size = 1;
  *out = c;
  return DG_OK;
}

dg_error dg_comm_create_world(dg_comm **out) {
  DG_CALL(make_serial(out));
  return DG_OK;
}

dg_error dg_comm_create_self(dg_comm **out) {
  DG_CALL(make_serial(out));
  return DG_OK;
}

dg_error dg_comm_split(dg_comm *parent, int color, int key, dg_comm **out) {
  (void)key;
  DG_CHECK(parent != NULL, DG_ERR_ARG, "dg_comm_split: parent is NULL");
  DG_CHECK(color >= 0, DG_ERR_ARG, "dg_comm_split: color %d must be >= 0",
           color);
  DG_CALL(make_serial(out));
  return DG_OK;
}

void dg_comm_destroy(dg_comm **comm) {
  if (!comm || !*comm)
    return;
  free(*comm);
  *comm = NULL;
}

dg_error dg_comm_barrier(dg_comm *comm) {
  (void)comm;
  return DG_OK;
}

dg_error dg_comm_allreduce_sum(dg_comm *comm, double *values, int n) {
  (void)comm;
  DG_CHECK(n >= 0 && (values || n == 0), DG_ERR_ARG,
           "allreduce of %d values at %p", n, (void *)values);
  return DG_OK;
}

dg_error dg_comm_allreduce_max(dg_comm *comm, double *values, int n) {
  DG_CALL(dg_comm_allreduce_sum(comm, values, n));
  return DG_OK;
}

dg_error dg_comm_allreduce_sum_u64(dg_comm *comm, uint64_t *values, int n) {
  (void)comm;
  DG_CHECK(n >= 0 && (values || n == 0), DG_ERR_ARG,
           "allreduce of %d values at %p", n, (void *)values);
  return DG_OK;
}

const void *dg_comm_mpi_handle(const dg_comm *comm) {
  (void)comm;
  return NULL;
}

void dg_comm_abort(dg_comm *comm, int code) {
  (void)comm;
  exit(code);
}

/* Messages to oneself are copied at the start; the request is a token. */
dg_error dg_comm_exchange_start(dg_comm *comm, int n,
                                const dg_comm_neighbor *neighbors, int tag,
                                dg_comm_request **out) {
  /* One rank: at most one neighbour, itself (checked). */
  DG_CALL(check_exchange(comm, n, neighbors, tag, out));
  if (n == 1) {
    const dg_comm_neighbor *nb = &neighbors[0];
    DG_CHECK(nb->send_bytes == nb->recv_bytes, DG_ERR_MPI,
             "exchange with itself: sends %zu bytes, expects %zu",
             nb->send_bytes, nb->recv_bytes);
    if (nb->send_bytes)
      memmove(nb->recv, nb->send, nb->send_bytes);
  }
  dg_comm_request *r = calloc(1, sizeof *r);
  DG_CHECK(r != NULL, DG_ERR_MEMORY, "out of host memory");
  r->count = n;
  *out = r;
  return DG_OK;
}

dg_error dg_comm_exchange_wait(dg_comm_request **req) {
  DG_CHECK(req != NULL, DG_ERR_ARG, "dg_comm_exchange_wait: req is NULL");
  free(*req);
  *req = NULL;
  return DG_OK;
}

#endif

int dg_comm_rank(const dg_comm *comm) { return comm->rank; }
int dg_comm_size(const dg_comm *comm) { return comm->size; }
int dg_comm_node_rank(const dg_comm *comm) { return comm->node_rank; }
int dg_comm_node_size(const dg_comm *comm) { return comm->node_size; }

dg_error dg_comm_agree(dg_comm *comm, dg_error err) {
  /* max over ranks of (size - rank) for failed ranks: the lowest failed
   * rank, and 0 when every rank succeeded. */
  double v = err != DG_OK ? (double)(comm->size - comm->rank) : 0.0;
  dg_error rc = dg_comm_allreduce_max(comm, &v, 1);
  if (rc != DG_OK)
    return dg_error_push(rc, __FILE__, __LINE__, __func__);
  if (err != DG_OK)
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  if (v > 0)
    DG_RAISE(DG_ERR_PEER, "rank %d failed (this rank %d is fine); every rank "
             "stops here", comm->size - (int)v, comm->rank);
  return DG_OK;
}
