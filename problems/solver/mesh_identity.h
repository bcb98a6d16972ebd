/* The identity of a run's mesh, stored in checkpoints (problems/checkpoint.h)
 * so that a restart on another mesh with as many elements (a 3x3 mesh's
 * state on a 9x1 mesh) is refused instead of silently continuing from a
 * state that belongs to other elements.
 *
 * The hash covers the geometry and connectivity: for every element its
 * global id, its vertices' coordinates (bit for bit, in its vertex order)
 * and, per face, the global id and face of the neighbour (periodic
 * partners included) or the boundary tag's name.  It is the sum modulo
 * 2^64 over the elements of an FNV-1a hash of these bytes, mixed with the
 * dimension and element count: each rank hashes its own elements (halo
 * neighbours through their global ids), so the hash is the same for any
 * number of ranks and any partition.  The mesh's name for messages (how
 * the problem made it) is the driver's, which reads the configuration. */
#ifndef DG_PROBLEMS_MESH_IDENTITY_H
#define DG_PROBLEMS_MESH_IDENTITY_H

#include <stdint.h>

#include "core/error.h"
#include "dg/discretization.h"
#include "problems/solver/parallel.h"

/* Collective over par's ranks: the hash of the mesh of par (this rank's
 * elements) with the face connectivity of d (discretized from par->mesh). */
dg_error dg_mesh_identity_hash(const dg_parallel *par, const dg_discretization *d,
                               uint64_t *hash);

#endif
