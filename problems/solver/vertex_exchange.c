/* The maximum of vertex values over the ranks (vertex_exchange.h): the
 * directory that finds which ranks hold each vertex, and the exchange. */
#include "problems/solver/vertex_exchange.h"

#include <stdlib.h>
#include <string.h>

#include "operators/gen_halo.h"

/* Message tags: the state's halo is 7101-7103, its coefficient companion
 * 7104 (halo.c); these follow. */
enum { TAG_VALUES = 7105, TAG_COUNTS = 7106, TAG_IDS = 7107, TAG_NSHARE = 7108, TAG_RANKS = 7109 };

struct dg_vertex_exchange {
  dg_device *dev;
  dg_comm *comm;
  int rs;
  int64_t ns;           /* vertices held by other ranks too */
  int nnb;
  dg_comm_neighbor *nb; /* per neighbour rank: its part of h_send / h_recv */
  int64_t nlist;        /* entries of the neighbours' lists, all together */
  int64_t *list;        /* per entry: the vertex's position among the ns */
  void *h_val, *h_send, *h_recv; /* host: ns, nlist, nlist reals */
  void *d_val, *d_idx;  /* device: ns reals; ns int32 vertex indices */
  dg_module *mod;
  dg_kernel *k_pack, *k_unpack;
};

/* Rank by rank blocks of int64: send[r] to rank r, recv[r] from it (self
 * copied); counts known on both sides. */
static dg_error alltoallv(dg_comm *comm, int tag, const int64_t *send, const int64_t *scnt,
                          int64_t *recv, const int64_t *rcnt) {
  int P = dg_comm_size(comm), me = dg_comm_rank(comm);
  dg_comm_neighbor *nb = calloc((size_t)P, sizeof *nb);
  DG_CHECK(nb, DG_ERR_MEMORY, "out of memory");
  int n = 0;
  int64_t so = 0, ro = 0;
  for (int r = 0; r < P; r++) {
    if (r == me)
      memcpy(recv + ro, send + so, sizeof(int64_t) * (size_t)scnt[r]);
    else if (scnt[r] || rcnt[r])
      nb[n++] = (dg_comm_neighbor){r, send + so, sizeof(int64_t) * (size_t)scnt[r], recv + ro,
                                   sizeof(int64_t) * (size_t)rcnt[r]};
    so += scnt[r];
    ro += rcnt[r];
  }
  dg_comm_request *req = NULL;
  dg_error err = dg_comm_exchange_start(comm, n, nb, tag, &req);
  if (err == DG_OK)
    err = dg_comm_exchange_wait(&req);
  free(nb);
  DG_CALL(err);
  return DG_OK;
}

/* Every rank's count for every other one (P messages of 8 bytes each way:
 * once, at set-up). */
static dg_error alltoall_counts(dg_comm *comm, const int64_t *scnt, int64_t *rcnt) {
  int P = dg_comm_size(comm);
  int64_t *one = malloc(sizeof(int64_t) * (size_t)P);
  DG_CHECK(one, DG_ERR_MEMORY, "out of memory");
  for (int r = 0; r < P; r++)
    one[r] = 1;
  dg_error err = alltoallv(comm, TAG_COUNTS, scnt, one, rcnt, one);
  free(one);
  DG_CALL(err);
  return DG_OK;
}

typedef struct entry {
  int64_t gid, e; /* e: index in the directory's receive buffer */
  int src;
} entry;

static int entry_cmp(const void *a, const void *b) {
  const entry *x = a, *y = b;
  if (x->gid != y->gid)
    return x->gid < y->gid ? -1 : 1;
  return (x->src > y->src) - (x->src < y->src);
}

/* The directory's answers to the ids it received (n of them, src[e] the
 * sender of entry e): nshare[e] the other ranks holding id e, and ranks (in
 * entry order, nshare[e] each) those ranks.  *nranks: their total. */
static dg_error directory(const int64_t *ids, const int *src, int64_t n, int64_t *nshare,
                          int64_t **ranks, int64_t *nranks) {
  entry *en = malloc(sizeof(entry) * (size_t)(n + 1));
  int64_t *at = malloc(sizeof(int64_t) * (size_t)(n + 1));
  DG_CHECK(en && at, DG_ERR_MEMORY, "out of memory");
  for (int64_t e = 0; e < n; e++)
    en[e] = (entry){ids[e], e, src[e]};
  qsort(en, (size_t)n, sizeof *en, entry_cmp);
  for (int64_t a = 0, b; a < n; a = b) {
    for (b = a; b < n && en[b].gid == en[a].gid; b++)
      ;
    for (int64_t j = a; j < b; j++)
      nshare[en[j].e] = b - a - 1;
  }
  *nranks = 0;
  for (int64_t e = 0; e < n; e++) {
    at[e] = *nranks;
    *nranks += nshare[e];
  }
  *ranks = malloc(sizeof(int64_t) * (size_t)(*nranks + 1));
  if (!*ranks) {
    free(en);
    free(at);
    DG_RAISE(DG_ERR_MEMORY, "out of memory");
  }
  for (int64_t a = 0, b; a < n; a = b) {
    for (b = a; b < n && en[b].gid == en[a].gid; b++)
      ;
    for (int64_t j = a; j < b; j++)
      for (int64_t i = a; i < b; i++)
        if (i != j)
          (*ranks)[at[en[j].e]++] = en[i].src;
  }
  free(en);
  free(at);
  return DG_OK;
}

/* What the set-up learns: per local vertex v, the other ranks holding it,
 * ranks[off[v] .. off[v+1]). */
typedef struct sharers {
  int64_t *off, *ranks;
} sharers;

/* Collective: ask the directory (rank g mod P for id g) who else holds
 * each of the nv local vertices. */
static dg_error find_sharers(dg_comm *comm, int64_t nv, const int64_t *gid, sharers *out) {
  int P = dg_comm_size(comm);
  size_t bp = sizeof(int64_t) * (size_t)P;
  int64_t *scnt = calloc(1, bp), *rcnt = calloc(1, bp), *s2 = calloc(1, bp), *r2 = calloc(1, bp);
  int64_t *sid = malloc(sizeof(int64_t) * (size_t)(nv + 1)); /* ids by directory rank */
  int64_t *sv = malloc(sizeof(int64_t) * (size_t)(nv + 1));  /* their local vertices */
  int64_t *mine = malloc(sizeof(int64_t) * (size_t)(nv + 1)); /* the answers' counts */
  int64_t *rid = NULL, *nsh = NULL, *dranks = NULL, *myranks = NULL;
  int *src = NULL;
  dg_error err = DG_OK;
  DG_CHECK_GOTO(err, done, scnt && rcnt && s2 && r2 && sid && sv && mine, DG_ERR_MEMORY,
                "out of memory");
  for (int64_t v = 0; v < nv; v++)
    scnt[gid[v] % P]++;
  int64_t pos = 0;
  for (int r = 0; r < P; r++)
    for (int64_t v = 0; v < nv; v++)
      if (gid[v] % P == r) {
        sid[pos] = gid[v];
        sv[pos++] = v;
      }
  DG_CALL_GOTO(err, done, alltoall_counts(comm, scnt, rcnt));
  int64_t nr = 0;
  for (int r = 0; r < P; r++)
    nr += rcnt[r];
  rid = malloc(sizeof(int64_t) * (size_t)(nr + 1));
  nsh = malloc(sizeof(int64_t) * (size_t)(nr + 1));
  src = malloc(sizeof(int) * (size_t)(nr + 1));
  DG_CHECK_GOTO(err, done, rid && nsh && src, DG_ERR_MEMORY, "out of memory");
  DG_CALL_GOTO(err, done, alltoallv(comm, TAG_IDS, sid, scnt, rid, rcnt));
  for (int64_t r = 0, e = 0; r < P; r++)
    for (int64_t i = 0; i < rcnt[r]; i++)
      src[e++] = (int)r;
  int64_t ndr = 0;
  DG_CALL_GOTO(err, done, directory(rid, src, nr, nsh, &dranks, &ndr));
  /* the answers, back the way the ids came */
  DG_CALL_GOTO(err, done, alltoallv(comm, TAG_NSHARE, nsh, rcnt, mine, scnt));
  for (int64_t e = 0, r = 0, left = 0; e < nr; e++) {
    while (left == 0) /* e's sender */
      left = rcnt[r++];
    s2[r - 1] += nsh[e];
    left--;
  }
  int64_t nmine = 0;
  for (int64_t j = 0, r = 0, left = 0; j < nv; j++) {
    while (left == 0)
      left = scnt[r++];
    r2[r - 1] += mine[j];
    nmine += mine[j];
    left--;
  }
  myranks = malloc(sizeof(int64_t) * (size_t)(nmine + 1));
  DG_CHECK_GOTO(err, done, myranks, DG_ERR_MEMORY, "out of memory");
  DG_CALL_GOTO(err, done, alltoallv(comm, TAG_RANKS, dranks, s2, myranks, r2));
  /* per local vertex (the answers are in the order of sid) */
  out->off = calloc((size_t)nv + 2, sizeof(int64_t));
  out->ranks = malloc(sizeof(int64_t) * (size_t)(nmine + 1));
  DG_CHECK_GOTO(err, done, out->off && out->ranks, DG_ERR_MEMORY, "out of memory");
  for (int64_t j = 0; j < nv; j++)
    out->off[sv[j] + 1] = mine[j];
  for (int64_t v = 0; v < nv; v++)
    out->off[v + 1] += out->off[v];
  for (int64_t j = 0, a = 0; j < nv; j++) {
    memcpy(out->ranks + out->off[sv[j]], myranks + a, sizeof(int64_t) * (size_t)mine[j]);
    a += mine[j];
  }
done:
  free(scnt);
  free(rcnt);
  free(s2);
  free(r2);
  free(sid);
  free(sv);
  free(mine);
  free(rid);
  free(nsh);
  free(src);
  free(dranks);
  free(myranks);
  return err;
}

typedef struct pair {
  int64_t rank, gid, v;
} pair;

static int pair_cmp(const void *a, const void *b) {
  const pair *x = a, *y = b;
  if (x->rank != y->rank)
    return x->rank < y->rank ? -1 : 1;
  return (x->gid > y->gid) - (x->gid < y->gid);
}

/* The neighbours' lists from the sharers: per neighbour rank (increasing),
 * its shared vertices in increasing global id; the shared vertices' device
 * indices. */
static dg_error build_lists(dg_vertex_exchange *x, int64_t nv, const int64_t *gid,
                            const sharers *sh) {
  int64_t np = sh->off[nv];
  pair *pr = malloc(sizeof(pair) * (size_t)(np + 1));
  int64_t *at = malloc(sizeof(int64_t) * (size_t)(nv + 1));
  int32_t *idx = malloc(sizeof(int32_t) * (size_t)(nv + 1));
  dg_error err = DG_OK;
  DG_CHECK_GOTO(err, done, pr && at && idx, DG_ERR_MEMORY, "out of memory");
  x->ns = 0;
  for (int64_t v = 0; v < nv; v++) {
    at[v] = sh->off[v + 1] > sh->off[v] ? x->ns : -1;
    if (at[v] >= 0)
      idx[x->ns++] = (int32_t)v;
    for (int64_t j = sh->off[v]; j < sh->off[v + 1]; j++)
      pr[j] = (pair){sh->ranks[j], gid[v], v};
  }
  qsort(pr, (size_t)np, sizeof *pr, pair_cmp);
  x->nlist = np;
  x->list = malloc(sizeof(int64_t) * (size_t)(np + 1));
  x->nb = calloc((size_t)np + 1, sizeof *x->nb);
  DG_CHECK_GOTO(err, done, x->list && x->nb, DG_ERR_MEMORY, "out of memory");
  size_t rs = (size_t)x->rs;
  DG_CALL_GOTO(err, done, dg_device_host_alloc(x->dev, rs * (size_t)(x->ns + 1), &x->h_val));
  DG_CALL_GOTO(err, done, dg_device_host_alloc(x->dev, rs * (size_t)(np + 1), &x->h_send));
  DG_CALL_GOTO(err, done, dg_device_host_alloc(x->dev, rs * (size_t)(np + 1), &x->h_recv));
  for (int64_t j = 0; j < np; j++) {
    x->list[j] = at[pr[j].v];
    if (j == 0 || pr[j].rank != pr[j - 1].rank)
      x->nb[x->nnb++] = (dg_comm_neighbor){(int)pr[j].rank, (char *)x->h_send + j * rs, 0,
                                           (char *)x->h_recv + j * rs, 0};
    x->nb[x->nnb - 1].send_bytes += rs;
    x->nb[x->nnb - 1].recv_bytes += rs;
  }
  if (x->ns > 0) {
    DG_CALL_GOTO(err, done, dg_device_malloc(x->dev, rs * (size_t)x->ns, &x->d_val));
    DG_CALL_GOTO(err, done, dg_device_malloc(x->dev, sizeof(int32_t) * (size_t)x->ns, &x->d_idx));
    DG_CALL_GOTO(err, done, dg_device_upload(x->dev, x->d_idx, idx, sizeof(int32_t) * (size_t)x->ns));
  }
done:
  free(pr);
  free(at);
  free(idx);
  return err;
}

void dg_vertex_exchange_destroy(dg_vertex_exchange **xp) {
  if (!xp || !*xp)
    return;
  dg_vertex_exchange *x = *xp;
  if (x->d_val)
    dg_device_free(x->dev, x->d_val);
  if (x->d_idx)
    dg_device_free(x->dev, x->d_idx);
  dg_device_host_free(x->dev, x->h_val);
  dg_device_host_free(x->dev, x->h_send);
  dg_device_host_free(x->dev, x->h_recv);
  dg_module_destroy(&x->mod);
  free(x->list);
  free(x->nb);
  free(x);
  *xp = NULL;
}

dg_error dg_vertex_exchange_create(dg_device *dev, dg_comm *comm, int64_t nv, const int64_t *gid,
                                   int real_size, dg_vertex_exchange **out) {
  *out = NULL;
  DG_CHECK(real_size == 4 || real_size == 8, DG_ERR_ARG, "real size %d", real_size);
  DG_CHECK(nv < INT32_MAX, DG_ERR_ARG, "%lld vertices on one rank", (long long)nv);
  for (int64_t v = 0; v < nv; v++)
    DG_CHECK(gid[v] >= 0, DG_ERR_ARG, "vertex %lld: global id %lld", (long long)v,
             (long long)gid[v]);
  dg_vertex_exchange *x = calloc(1, sizeof *x);
  DG_CHECK(x, DG_ERR_MEMORY, "out of memory");
  x->dev = dev;
  x->comm = comm;
  x->rs = real_size;
  sharers sh = {NULL, NULL};
  char *src = NULL;
  dg_error err = find_sharers(comm, nv, gid, &sh);
  DG_CALL_GOTO(err, fail, err);
  DG_CALL_GOTO(err, fail, build_lists(x, nv, gid, &sh));
  /* the halo's gather / scatter kernels (the same module) */
  dg_codegen_target tg = dg_device_get_info(dev)->backend == DG_BACKEND_CUDA ? DG_CODEGEN_CUDA
                                                                             : DG_CODEGEN_C;
  DG_CALL_GOTO(err, fail, dg_gen_halo_source(tg, real_size == 4, &src));
  DG_CALL_GOTO(err, fail, dg_device_compile(dev, "dg_halo", src, NULL, 0, &x->mod));
  DG_CALL_GOTO(err, fail, dg_module_get_kernel(x->mod, "dg_halo_pack", &x->k_pack));
  DG_CALL_GOTO(err, fail, dg_module_get_kernel(x->mod, "dg_halo_unpack", &x->k_unpack));
  free(src);
  free(sh.off);
  free(sh.ranks);
  *out = x;
  return DG_OK;
fail:
  free(src);
  free(sh.off);
  free(sh.ranks);
  dg_vertex_exchange_destroy(&x);
  return err;
}

static dg_error launch_copy(dg_vertex_exchange *x, dg_kernel *k, void *vals) {
  long long n = x->ns;
  void *args[] = {&vals, &x->d_val, &x->d_idx, &n};
  dg_launch l;
  memset(&l, 0, sizeof l);
  l.grid[0] = (unsigned)((n + 255) / 256 < 65535 ? (n + 255) / 256 : 65535);
  l.grid[1] = l.grid[2] = 1;
  l.block[0] = 256; /* (the kernels loop over the grid's stride) */
  l.block[1] = l.block[2] = 1;
  l.items = n;
  l.chunk = 1 << 14;
  DG_CALL(dg_kernel_launch(k, &l, args, NULL));
  return DG_OK;
}

#define MAX_INTO(T)                                                                            \
  do {                                                                                         \
    T *val = x->h_val, *snd = x->h_send;                                                       \
    const T *rcv = x->h_recv;                                                                  \
    if (!recv) {                                                                               \
      for (int64_t j = 0; j < x->nlist; j++)                                                   \
        snd[j] = val[x->list[j]];                                                              \
    } else {                                                                                   \
      for (int64_t j = 0; j < x->nlist; j++) /* as dg_shock_vertex's m = e > m ? e : m */     \
        val[x->list[j]] = rcv[j] > val[x->list[j]] ? rcv[j] : val[x->list[j]];                 \
    }                                                                                          \
  } while (0)

/* recv 0: the send buffers from the values; 1: the received maxima in. */
static void host_step(dg_vertex_exchange *x, int recv) {
  if (x->rs == 4)
    MAX_INTO(float);
  else
    MAX_INTO(double);
}

dg_error dg_vertex_exchange_max(dg_vertex_exchange *x, void *vals) {
  if (x->ns == 0)
    return DG_OK;
  size_t bytes = (size_t)x->ns * (size_t)x->rs;
  DG_CALL(launch_copy(x, x->k_pack, vals));
  DG_CALL(dg_device_download(x->dev, x->h_val, x->d_val, bytes)); /* (after the gather) */
  host_step(x, 0);
  dg_comm_request *req = NULL;
  DG_CALL(dg_comm_exchange_start(x->comm, x->nnb, x->nb, TAG_VALUES, &req));
  DG_CALL(dg_comm_exchange_wait(&req));
  host_step(x, 1);
  DG_CALL(dg_device_upload(x->dev, x->d_val, x->h_val, bytes));
  DG_CALL(launch_copy(x, x->k_unpack, vals));
  return DG_OK;
}

int64_t dg_vertex_exchange_shared(const dg_vertex_exchange *x) { return x->ns; }
int dg_vertex_exchange_neighbors(const dg_vertex_exchange *x) { return x->nnb; }
