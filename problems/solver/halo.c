#include "problems/solver/halo.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/log.h"
#include "operators/gen_halo.h"

struct dg_halo {
  dg_device *dev;
  dg_comm *comm;
  int cuda, cuda_aware, overlap;
  int64_t K_interior;
  size_t rs;
  int nnb;
  dg_comm_neighbor *nb; /* per neighbour rank: buffers point into send/recv */
  int64_t nsend, nrecv; /* reals */
  void *d_send, *d_recv, *d_sidx, *d_ridx;
  void *h_send, *h_recv; /* pinned staging (cuda without CUDA-aware MPI) */
  dg_stream *copy_stream; /* cuda: staging copies, beside the compute stream */
  dg_event *e_pack, *e_d2h, *e_h2d;
  dg_module *mod;
  dg_kernel *k_pack, *k_unpack;
  dg_comm_request *req;
  int tag; /* of the exchange's messages (a companion's differ from its base's) */
  dg_halo_timings tm;
};

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int64_t dg_halo_interior(const dg_halo *h) { return h->K_interior; }
int dg_halo_overlap(const dg_halo *h) { return h->overlap; }
dg_halo_timings dg_halo_get_timings(const dg_halo *h) { return h->tm; }

void dg_halo_destroy(dg_halo **hp) {
  if (!hp || !*hp)
    return;
  dg_halo *h = *hp;
  if (h->req)
    dg_comm_exchange_wait(&h->req);
  void *bufs[] = {h->d_send, h->d_recv, h->d_sidx, h->d_ridx};
  for (int i = 0; i < 4; i++)
    if (bufs[i])
      dg_device_free(h->dev, bufs[i]);
  dg_device_host_free(h->dev, h->h_send);
  dg_device_host_free(h->dev, h->h_recv);
  dg_event_destroy(&h->e_pack);
  dg_event_destroy(&h->e_d2h);
  dg_event_destroy(&h->e_h2d);
  dg_stream_destroy(&h->copy_stream);
  free(h->nb);
  dg_module_destroy(&h->mod);
  free(h);
  *hp = NULL;
}

/* Neighbour ranks of the halo faces (sorted by rank) and their face ranges. */
static dg_error neighbours(const dg_partition_local *L, int *nnb, int **rank, int64_t **start) {
  *nnb = 0;
  *rank = malloc(sizeof(int) * (size_t)(L->nhalo + 1));
  *start = malloc(sizeof(int64_t) * (size_t)(L->nhalo + 2));
  DG_CHECK(*rank && *start, DG_ERR_MEMORY, "out of memory");
  for (int64_t h = 0; h < L->nhalo; h++) {
    if (h == 0 || L->halo[h].rank != L->halo[h - 1].rank) {
      DG_CHECK(h == 0 || L->halo[h].rank > L->halo[h - 1].rank, DG_ERR_ARG,
               "halo faces are not sorted by rank");
      (*rank)[*nnb] = L->halo[h].rank;
      (*start)[(*nnb)++] = h;
    }
  }
  (*start)[*nnb] = L->nhalo;
  return DG_OK;
}

/* Exchange face-node coordinates and point mapP of every halo face node at
 * the ghost slot holding the matching node of the neighbour's face. */
static dg_error match_ghosts(dg_comm *comm, const dg_partition_local *L,
                             const dg_discretization *d, dg_opdata *od, int nnb,
                             const int *nbr, const int64_t *start, int64_t fpe) {
  const int Nfp = d->Nfp, Nf = d->Nfaces;
  size_t n = (size_t)L->nhalo * Nfp * 3;
  double *mine = calloc(n + 1, sizeof(double)), *theirs = calloc(n + 1, sizeof(double));
  dg_comm_neighbor *nb = calloc((size_t)nnb + 1, sizeof *nb);
  dg_error err = DG_OK;
  DG_CHECK_GOTO(err, done, mine && theirs && nb, DG_ERR_MEMORY, "out of memory");
  for (int64_t h = 0; h < L->nhalo; h++)
    for (int j = 0; j < Nfp; j++) {
      int64_t idx = (L->halo[h].k * Nf + L->halo[h].f) * Nfp + j;
      for (int a = 0; a < d->dim; a++)
        mine[((size_t)h * Nfp + j) * 3 + a] = d->X[a][d->vmapM[idx]];
    }
  for (int r = 0; r < nnb; r++) {
    size_t off = (size_t)start[r] * Nfp * 3, cnt = (size_t)(start[r + 1] - start[r]) * Nfp * 3;
    nb[r] = (dg_comm_neighbor){nbr[r], mine + off, cnt * sizeof(double), theirs + off,
                               cnt * sizeof(double)};
  }
  dg_comm_request *req = NULL;
  DG_CALL_GOTO(err, done, dg_comm_exchange_start(comm, nnb, nb, 7101, &req));
  DG_CALL_GOTO(err, done, dg_comm_exchange_wait(&req));
  for (int64_t h = 0; h < L->nhalo; h++) {
    const dg_partition_halo_face *hf = &L->halo[h];
    int64_t ge = od->K_owned + h / fpe;
    double scale = dg_mesh_element_size(d->mesh, hf->k);
    for (int j = 0; j < Nfp; j++) {
      const double *x = mine + ((size_t)h * Nfp + j) * 3;
      int best = -1;
      double bd = INFINITY;
      for (int jj = 0; jj < Nfp; jj++) {
        const double *y = theirs + ((size_t)h * Nfp + jj) * 3;
        double dd = 0;
        for (int a = 0; a < d->dim; a++)
          dd += (x[a] + hf->shift[a] - y[a]) * (x[a] + hf->shift[a] - y[a]);
        if (dd < bd) {
          bd = dd;
          best = jj;
        }
      }
      DG_CHECK_GOTO(err, done, sqrt(bd) <= 1e-7 * scale, DG_ERR_INPUT,
                    "face %d of element %lld: node %d has no partner on rank %d's face "
                    "(distance %.3g): the partition's face pairing is inconsistent",
                    hf->f, (long long)hf->k, j, hf->rank, sqrt(bd));
      int gi = (int)(h % fpe) * Nfp + best;
      od->mapP[(hf->k * Nf + hf->f) * Nfp + j] = (int32_t)dg_opdata_offset(od, ge, gi, 0);
    }
    od->fbc[hf->k * Nf + hf->f] = -1;
  }
done:
  free(mine);
  free(theirs);
  free(nb);
  return err;
}

static dg_error launch_copy(dg_kernel *k, void *q, void *buf, void *idx, int64_t n) {
  if (n == 0)
    return DG_OK;
  long long nn = n;
  void *args[] = {&q, &buf, &idx, &nn};
  dg_launch l;
  memset(&l, 0, sizeof l);
  long long blocks = (n + 255) / 256;
  if (blocks > 65535LL * 8)
    blocks = 65535LL * 8;
  l.grid[0] = (unsigned)blocks;
  l.grid[1] = l.grid[2] = 1;
  l.block[0] = 256;
  l.block[1] = l.block[2] = 1;
  l.items = n;
  l.chunk = 1 << 14;
  DG_CALL(dg_kernel_launch(k, &l, args, NULL));
  return DG_OK;
}

/* The buffers, index lists and pack / unpack kernels of an exchange of nc
 * components: the state's (offsets of od's layout), or a companion array's
 * in the field-major layout of od's K and np_pad (its component c at
 * (c*K + k)*np_pad + i, c beyond od's ncomp too). */
static int64_t component_offset(const dg_opdata *od, int64_t k, int i, int c, int field_major) {
  if (c < od->ncomp && !field_major)
    return dg_opdata_offset(od, k, i, c);
  return ((int64_t)c * od->K + k) * od->np_pad + i;
}

static dg_error setup_exchange(dg_halo *h, const dg_partition_local *L,
                               const dg_discretization *d, const dg_opdata *od, int nc,
                               int field_major, const int *nbr, const int64_t *start,
                               int64_t fpe) {
  dg_device *dev = h->dev;
  const int Nfp = d->Nfp, Nf = d->Nfaces;
  int32_t *sidx = NULL, *ridx = NULL;
  char *src = NULL;
  dg_error err = DG_OK;
  /* Buffer order per face: [node j][component c], faces in halo order. */
  h->nsend = h->nrecv = L->nhalo * Nfp * nc;
  sidx = malloc(sizeof(int32_t) * (size_t)(h->nsend + 1));
  ridx = malloc(sizeof(int32_t) * (size_t)(h->nrecv + 1));
  DG_CHECK_GOTO(err, fail, sidx && ridx, DG_ERR_MEMORY, "out of memory");
  for (int64_t f = 0; f < L->nhalo; f++) {
    const dg_partition_halo_face *hf = &L->halo[f];
    int64_t ge = od->K_owned + f / fpe;
    for (int j = 0; j < Nfp; j++) {
      int64_t vm = d->vmapM[(hf->k * Nf + hf->f) * Nfp + j];
      for (int c = 0; c < nc; c++) {
        int64_t z = (f * Nfp + j) * nc + c;
        sidx[z] = (int32_t)component_offset(od, vm / d->Np, (int)(vm % d->Np), c, field_major);
        ridx[z] = (int32_t)component_offset(od, ge, (int)(f % fpe) * Nfp + j, c, field_major);
      }
    }
  }
  size_t bytes = (size_t)h->nsend * h->rs;
  if (bytes) {
    DG_CALL_GOTO(err, fail, dg_device_malloc(dev, bytes, &h->d_send));
    DG_CALL_GOTO(err, fail, dg_device_malloc(dev, bytes, &h->d_recv));
    DG_CALL_GOTO(err, fail, dg_device_malloc(dev, sizeof(int32_t) * (size_t)h->nsend, &h->d_sidx));
    DG_CALL_GOTO(err, fail, dg_device_malloc(dev, sizeof(int32_t) * (size_t)h->nrecv, &h->d_ridx));
    DG_CALL_GOTO(err, fail, dg_device_upload(dev, h->d_sidx, sidx, sizeof(int32_t) * (size_t)h->nsend));
    DG_CALL_GOTO(err, fail, dg_device_upload(dev, h->d_ridx, ridx, sizeof(int32_t) * (size_t)h->nrecv));
  }
  char *sbase = h->d_send, *rbase = h->d_recv;
  if (h->cuda) {
    DG_CALL_GOTO(err, fail, dg_event_create(dev, &h->e_pack));
    if (!h->cuda_aware) {
      DG_CALL_GOTO(err, fail, dg_device_host_alloc(dev, bytes, &h->h_send));
      DG_CALL_GOTO(err, fail, dg_device_host_alloc(dev, bytes, &h->h_recv));
      DG_CALL_GOTO(err, fail, dg_stream_create(dev, &h->copy_stream));
      DG_CALL_GOTO(err, fail, dg_event_create(dev, &h->e_d2h));
      DG_CALL_GOTO(err, fail, dg_event_create(dev, &h->e_h2d));
      sbase = h->h_send;
      rbase = h->h_recv;
    }
  }
  h->nb = calloc((size_t)h->nnb + 1, sizeof *h->nb);
  DG_CHECK_GOTO(err, fail, h->nb, DG_ERR_MEMORY, "out of memory");
  for (int r = 0; r < h->nnb; r++) {
    size_t off = (size_t)start[r] * Nfp * nc * h->rs;
    size_t cnt = (size_t)(start[r + 1] - start[r]) * Nfp * nc * h->rs;
    /* Device addresses are only handed to MPI when it is CUDA-aware. */
    h->nb[r] = (dg_comm_neighbor){nbr[r], sbase + off, cnt, rbase + off, cnt};
  }
  DG_CALL_GOTO(err, fail, dg_gen_halo_source(h->cuda ? DG_CODEGEN_CUDA : DG_CODEGEN_C,
                                           od->real_size == 4, &src));
  DG_CALL_GOTO(err, fail, dg_device_compile(dev, "dg_halo", src, NULL, 0, &h->mod));
  DG_CALL_GOTO(err, fail, dg_module_get_kernel(h->mod, "dg_halo_pack", &h->k_pack));
  DG_CALL_GOTO(err, fail, dg_module_get_kernel(h->mod, "dg_halo_unpack", &h->k_unpack));
fail:
  free(src);
  free(sidx);
  free(ridx);
  return err;
}

dg_error dg_halo_create(dg_device *dev, const dg_halo_spec *spec, const dg_discretization *d,
                        dg_opdata *od, int64_t slack, dg_halo **out) {
  *out = NULL;
  const dg_partition_local *L = spec->local;
  dg_halo *h = calloc(1, sizeof *h);
  DG_CHECK(h, DG_ERR_MEMORY, "out of memory");
  int *nbr = NULL;
  int64_t *start = NULL;
  dg_error err = DG_OK;
  h->dev = dev;
  h->tag = 7102;
  h->comm = spec->comm;
  h->cuda = dg_device_get_info(dev)->backend == DG_BACKEND_CUDA;
  h->cuda_aware = h->cuda && spec->cuda_aware;
  h->overlap = spec->overlap;
  h->K_interior = spec->K_interior;
  h->rs = od->real_size;
  const int Nfp = d->Nfp, nc = od->ncomp;
  int64_t fpe = od->np_pad / Nfp;
  int64_t nghost = (L->nhalo + fpe - 1) / fpe;
  DG_CALL_GOTO(err, fail, dg_opdata_extend(od, od->K_owned + nghost + slack));
  DG_CALL_GOTO(err, fail, neighbours(L, &h->nnb, &nbr, &start));
  DG_CALL_GOTO(err, fail, match_ghosts(spec->comm, L, d, od, h->nnb, nbr, start, fpe));

  DG_CALL_GOTO(err, fail, setup_exchange(h, L, d, od, nc, 0, nbr, start, fpe));
  char curved[64] = "";
  if (od->Kc > 0) /* their kernels run over [0, Kc) after the exchange */
    snprintf(curved, sizeof curved, " (%lld curved ones after it)", (long long)od->Kc);
  if (dg_comm_rank(h->comm) == 0)
    dg_info("halo exchange (rank 0): %d neighbour rank(s), %lld face(s), %.3g kB per exchange, "
            "%lld of %lld elements computed while it is in flight%s; %s",
            h->nnb, (long long)L->nhalo, (double)h->nsend * (double)h->rs / 1e3,
            (long long)(h->K_interior - od->Kc), (long long)od->K_owned, curved,
            !h->cuda         ? "host memory"
            : h->cuda_aware  ? "device buffers straight to CUDA-aware MPI"
                             : "staged through pinned host memory");
  free(nbr);
  free(start);
  *out = h;
  return DG_OK;
fail:
  free(nbr);
  free(start);
  dg_halo_destroy(&h);
  return err;
}

/* A second exchange over base's faces and ghost slots: nc components,
 * field-major (or, field_major 0, the state's offsets for the first
 * od->ncomp), messages of tag base's + dtag. */
static dg_error create_second(dg_device *dev, const dg_halo *base, const dg_halo_spec *spec,
                              const dg_discretization *d, const dg_opdata *od, int ncomp,
                              int field_major, int dtag, dg_halo **out) {
  *out = NULL;
  dg_halo *h = calloc(1, sizeof *h);
  DG_CHECK(h, DG_ERR_MEMORY, "out of memory");
  int *nbr = NULL;
  int64_t *start = NULL;
  dg_error err = DG_OK;
  h->dev = dev;
  h->comm = base->comm;
  h->cuda = base->cuda;
  h->cuda_aware = base->cuda_aware;
  h->overlap = base->overlap;
  h->K_interior = base->K_interior;
  h->rs = base->rs;
  h->tag = base->tag + dtag;
  DG_CALL_GOTO(err, fail, neighbours(spec->local, &h->nnb, &nbr, &start));
  DG_CALL_GOTO(err, fail, setup_exchange(h, spec->local, d, od, ncomp, field_major, nbr, start,
                                         od->np_pad / d->Nfp));
  free(nbr);
  free(start);
  *out = h;
  return DG_OK;
fail:
  free(nbr);
  free(start);
  dg_halo_destroy(&h);
  return err;
}

dg_error dg_halo_create_companion(dg_device *dev, const dg_halo *base, const dg_halo_spec *spec,
                                  const dg_discretization *d, const dg_opdata *od, int ncomp,
                                  dg_halo **out) {
  *out = NULL;
  DG_CHECK(!od->element_major, DG_ERR_ARG, "a companion exchange needs the field-major layout");
  DG_CALL(create_second(dev, base, spec, d, od, ncomp, 0, 1, out));
  return DG_OK;
}

dg_error dg_halo_create_coefficient(dg_device *dev, const dg_halo *base,
                                    const dg_halo_spec *spec, const dg_discretization *d,
                                    const dg_opdata *od, dg_halo **out) {
  DG_CALL(create_second(dev, base, spec, d, od, 1, 1, 2, out));
  return DG_OK;
}

/* cpu: pack and post; the kernels run on this thread afterwards and the
 * messages travel meanwhile.  cuda: queue the pack (and, staged, its copy
 * to pinned memory on the copy stream) and return at once, so the
 * interior kernels queue behind it; the messages are posted in finish,
 * when the host first has to wait. */
dg_error dg_halo_start(dg_halo *h, void *q) {
  double t0 = now_s();
  DG_CALL(launch_copy(h->k_pack, q, h->d_send, h->d_sidx, h->nsend));
  if (h->cuda) {
    DG_CALL(dg_event_record(h->e_pack, NULL));
    if (!h->cuda_aware) {
      DG_CALL(dg_stream_wait_event(h->copy_stream, h->e_pack));
      DG_CALL(dg_device_download_async(h->dev, h->h_send, h->d_send,
                                       (size_t)h->nsend * h->rs, h->copy_stream));
      DG_CALL(dg_event_record(h->e_d2h, h->copy_stream));
    }
  } else {
    DG_CALL(dg_comm_exchange_start(h->comm, h->nnb, h->nb, h->tag, &h->req));
  }
  h->tm.start_seconds += now_s() - t0;
  h->tm.bytes_sent += h->nsend * (int64_t)h->rs;
  return DG_OK;
}

/* Wait for the traces and scatter them into the ghost slots.  cuda: the
 * compute stream waits for the staged copy by an event, never the host. */
dg_error dg_halo_finish(dg_halo *h, void *q) {
  double t0 = now_s();
  if (h->cuda) {
    DG_CALL(dg_event_synchronize(h->cuda_aware ? h->e_pack : h->e_d2h));
    DG_CALL(dg_comm_exchange_start(h->comm, h->nnb, h->nb, h->tag, &h->req));
  }
  DG_CALL(dg_comm_exchange_wait(&h->req));
  h->tm.wait_seconds += now_s() - t0;
  if (h->cuda && !h->cuda_aware && h->nrecv) {
    DG_CALL(dg_device_upload_async(h->dev, h->d_recv, h->h_recv, (size_t)h->nrecv * h->rs,
                                   h->copy_stream));
    DG_CALL(dg_event_record(h->e_h2d, h->copy_stream));
    DG_CALL(dg_stream_wait_event(NULL, h->e_h2d));
  }
  DG_CALL(launch_copy(h->k_unpack, q, h->d_recv, h->d_ridx, h->nrecv));
  h->tm.exchanges++;
  return DG_OK;
}
