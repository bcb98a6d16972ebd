/* The halo exchange of a partitioned run (one rank per partition).
 *
 * Ghost slots.  The state array of a rank holds its owned elements first,
 * then ghost "elements" that carry the face traces of the neighbouring
 * ranks: halo face h (in the order of dg_partition_local: by rank, then by
 * the canonical face id both sides share) occupies Nfp nodes of ghost
 * element K_owned + h / fpe, fpe = np_pad / Nfp faces per ghost element.
 * mapP of a partition-boundary face node points into its ghost slot and fbc
 * of the face is -1, so the generated surface kernel treats it as an
 * interior face and needs no change.  Which ghost node matches which local
 * face node is found once at set-up by exchanging face-node coordinates
 * (shifted across periodic sides), as BuildMaps does within a rank.
 *
 * Each exchange: the generated dg_halo_pack kernel gathers the traces the
 * neighbours need into one send buffer, non-blocking MPI moves them
 * (dg_comm_exchange_*: Irecv/Isend), dg_halo_unpack scatters the received
 * traces into the ghost slots.  The solver posts the exchange, runs the
 * surface (and volume) kernels of the elements without halo faces, then
 * finishes the exchange (problems/solver/solver.c).  On cuda the buffers go to MPI
 * as device pointers when the MPI library is CUDA-aware (and not switched
 * off), else they are staged through pinned host memory by copies on a
 * separate stream; the host waits only for the pack (and its copy) before
 * posting the messages, the interior kernels are already queued on the
 * compute stream, and that stream waits for the received traces by an
 * event (no host synchronisation of the compute stream). */
#ifndef DG_PROBLEMS_HALO_H
#define DG_PROBLEMS_HALO_H

#include <stdint.h>

#include "core/comm.h"
#include "core/device.h"
#include "dg/discretization.h"
#include "dg/opdata.h"
#include "meshes/partition.h"
#include "operators/codegen.h"

typedef struct dg_halo dg_halo;

typedef struct dg_halo_spec {
  dg_comm *comm;
  const dg_partition_local *local; /* halo faces (k = local element) */
  int64_t K_interior;              /* owned elements [Kc, K_interior) have no halo face
                                    * (Kc = od->Kc: the curved elements come first, with
                                    * halo faces or not, and run after the exchange) */
  int cuda_aware;                  /* 1: hand device pointers to MPI (cuda backend) */
  int overlap;                     /* 0: finish each exchange before any kernel (timing) */
} dg_halo_spec;

/* Set-up (collective over spec->comm): matches ghost nodes, extends od to
 * K_owned + ghosts + slack element slots, patches mapP / fbc, compiles the
 * pack / unpack kernels and allocates the buffers. */
dg_error dg_halo_create(dg_device *dev, const dg_halo_spec *spec, const dg_discretization *disc,
                        dg_opdata *od, int64_t slack, dg_halo **out);
/* A second exchange over base's halo faces and ghost slots, for another
 * array of ncomp components in the field-major layout of od (the lifted
 * gradients of the second-order terms): its own buffers, kernels and
 * message tag.  Not collective (base matched the ghosts). */
dg_error dg_halo_create_companion(dg_device *dev, const dg_halo *base, const dg_halo_spec *spec,
                                  const dg_discretization *d, const dg_opdata *od, int ncomp,
                                  dg_halo **out);
/* The same for one coefficient's node values (a slice of the solver's cf
 * table: field-major K x np_pad whatever the state's layout), for shock
 * capturing's artificial viscosity (problems/solver/shock.h): the
 * neighbours' node values of its halo faces into its ghost slots, where
 * mapP points.  Its own message tag. */
dg_error dg_halo_create_coefficient(dg_device *dev, const dg_halo *base,
                                    const dg_halo_spec *spec, const dg_discretization *d,
                                    const dg_opdata *od, dg_halo **out);
void dg_halo_destroy(dg_halo **h);

/* Pack q's traces and post the exchange; finish it and unpack into q. */
dg_error dg_halo_start(dg_halo *h, void *q);
dg_error dg_halo_finish(dg_halo *h, void *q);

int64_t dg_halo_interior(const dg_halo *h);
int dg_halo_overlap(const dg_halo *h);

typedef struct dg_halo_timings {
  int64_t exchanges;
  double start_seconds; /* pack + staging + posting */
  double wait_seconds;  /* blocked in finish (waiting for messages + unpack) */
  int64_t bytes_sent;
} dg_halo_timings;
dg_halo_timings dg_halo_get_timings(const dg_halo *h);

#endif
