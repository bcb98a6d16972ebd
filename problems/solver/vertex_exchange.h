/* The maximum of a vertex value over the ranks of a partitioned run: what
 * shock capturing needs to make its element viscosity continuous
 * (problems/solver/shock.h: each vertex takes the largest viscosity of its
 * elements, and a vertex on a partition boundary has elements on several
 * ranks -- not only those across a halo face: in 2D and 3D ranks can meet
 * at a vertex or an edge alone).
 *
 * Set-up (collective): which ranks hold each vertex is found by its global
 * id (dg_partition_local's global_vertex) through a directory, rank
 * g mod P for vertex g: every rank sends its ids there, the directory
 * answers with the other ranks of each.  No rank needs the whole mesh (a
 * part read alone from a partitioned .h5 has only its own vertices).
 *
 * Each exchange: a gather of the shared vertices' values on the device
 * (the halo module's pack kernel), one download, point-to-point messages
 * with the ranks sharing vertices (values in increasing global id, the same
 * order on both sides), the maximum on the host, one upload and the
 * scatter.  A maximum is exact in any order, so every rank gets bitwise
 * the value the serial run computes over all the vertex's elements. */
#ifndef DG_PROBLEMS_SOLVER_VERTEX_EXCHANGE_H
#define DG_PROBLEMS_SOLVER_VERTEX_EXCHANGE_H

#include <stdint.h>

#include "core/comm.h"
#include "core/device.h"

typedef struct dg_vertex_exchange dg_vertex_exchange;

/* Collective over comm: nv local vertices with global ids gid[0..nv)
 * (distinct), values of real_size (4 or 8) bytes. */
dg_error dg_vertex_exchange_create(dg_device *dev, dg_comm *comm, int64_t nv, const int64_t *gid,
                                   int real_size, dg_vertex_exchange **out);
void dg_vertex_exchange_destroy(dg_vertex_exchange **x);

/* vals: a device array of the nv values; each vertex held by other ranks
 * too gets the maximum over all of them.  Point-to-point with the ranks
 * sharing vertices (all of them call it, as the halo exchange). */
dg_error dg_vertex_exchange_max(dg_vertex_exchange *x, void *vals);

/* Vertices held by other ranks too, and how many ranks those are. */
int64_t dg_vertex_exchange_shared(const dg_vertex_exchange *x);
int dg_vertex_exchange_neighbors(const dg_vertex_exchange *x);

#endif
