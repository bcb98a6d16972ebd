/* problems.mpi_vertex_max_np<P>: dg_vertex_exchange (problems/solver/
 * vertex_exchange.h) gives every vertex held by several ranks the maximum
 * of its values over them, and leaves the others alone.  The vertices are
 * made up: rank r holds global id g by a rule that gives ids on one rank,
 * on two, on all, and ids whose directory rank (g mod P) does not hold
 * them (the exchange knows nothing of faces: ranks that meet at a vertex
 * alone are alike to it); each rank lists its ids in an order of its own.  The expected maximum is computed from the
 * rule on every rank, independently of the exchange.  Double and float.
 * usage: mpiexec -n P test_parallel_vertex_max (P >= 2) */
#include <stdlib.h>

#include "core/device.h"
#include "problems/solver/vertex_exchange.h"
#include "tests/parallel/mpi_main.h"

enum { G = 97 };

static int holds(int r, int P, int64_t g) {
  if (g % 11 == 0)
    return 1;         /* every rank */
  if (g % 13 == 1)
    return r == 0;    /* one rank (the directory is g mod P, not 0, for most) */
  return (g / (r + 1)) % 2 == 0 || g % P == (r + 1) % P;
}

static double value(int r, int64_t g) { return (double)((g * 31 + r * 17) % 23) + 0.25 * r; }

static void check_one(dg_comm *comm, dg_device *dev, int rs) {
  int r = dg_comm_rank(comm), P = dg_comm_size(comm);
  int64_t gid[G], nv = 0, nshared = 0;
  for (int64_t g = G - 1; g >= 0; g--) /* an order of this rank's: shifted by r */
    if (holds(r, P, (g + 7 * r) % G))
      gid[nv++] = (g + 7 * r) % G;
  double want[G];
  float hf[G];
  double hd[G];
  for (int64_t v = 0; v < nv; v++) {
    int n = 0;
    want[v] = -1;
    for (int q = 0; q < P; q++)
      if (holds(q, P, gid[v])) {
        n++;
        want[v] = value(q, gid[v]) > want[v] ? value(q, gid[v]) : want[v];
      }
    nshared += n > 1;
    hd[v] = value(r, gid[v]);
    hf[v] = (float)hd[v];
  }
  dg_vertex_exchange *x = NULL;
  void *d = NULL;
  EXPECT(dg_vertex_exchange_create(dev, comm, nv, gid, rs, &x) == DG_OK);
  EXPECT(dg_device_malloc(dev, (size_t)nv * rs, &d) == DG_OK);
  void *h = rs == 4 ? (void *)hf : (void *)hd;
  EXPECT(dg_device_upload(dev, d, h, (size_t)nv * rs) == DG_OK);
  EXPECT(dg_vertex_exchange_max(x, d) == DG_OK);
  EXPECT(dg_device_download(dev, h, d, (size_t)nv * rs) == DG_OK);
  EXPECT(dg_vertex_exchange_shared(x) == nshared, "rank %d: %lld shared, want %lld", r,
         (long long)dg_vertex_exchange_shared(x), (long long)nshared);
  for (int64_t v = 0; v < nv; v++) {
    double got = rs == 4 ? (double)hf[v] : hd[v];
    double w = rs == 4 ? (double)(float)want[v] : want[v];
    EXPECT(got == w, "rank %d, id %lld: %g, want %g", r, (long long)gid[v], got, w);
  }
  dg_device_free(dev, d);
  dg_vertex_exchange_destroy(&x);
}

static dg_error run(dg_comm *comm, char **args, int nargs) {
  (void)args;
  (void)nargs;
  dg_device *dev = NULL;
  DG_CALL(dg_device_create("cpu", -1, &dev));
  check_one(comm, dev, 8);
  check_one(comm, dev, 4);
  dg_device_destroy(&dev);
  return DG_OK;
}

int main(int argc, char **argv) { return mpi_test_main(argc, argv, 0, "", run); }
