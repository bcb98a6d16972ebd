/* Partitioning a mesh for P ranks, and one rank's local mesh with its halo.
 *
 * The graph partitioned is the dual graph: one vertex per element, one edge
 * per face shared by two elements (through vertex sharing, explicit periodic
 * pairs, or whatever connectivity the caller hands in), so the edge cut is
 * the number of faces whose two sides live on different ranks, i.e. what the
 * halo exchange moves.
 *
 *  - METIS (k-way, METIS_PartGraphKway, objective: edge cut, fixed seed)
 *    when dgrun is built with METIS;
 *  - otherwise, or on request, recursive coordinate bisection (RCB) of the
 *    element centroids: the set is cut across its longest extent into two
 *    halves sized in proportion to the ranks each side gets (ties broken by
 *    element id), recursively.  Balanced to one element; its cut is
 *    larger (up to about twice METIS's on the sample meshes).
 * Both are deterministic: the same mesh, P and seed give the same partition
 * on every machine (METIS: given the same METIS build).
 *
 * Local elements of part r are the elements with part[k] == r in increasing
 * global id order (elements[offsets[r] .. offsets[r+1])). */
#ifndef DG_MESHES_PARTITION_H
#define DG_MESHES_PARTITION_H

#include <stdint.h>

#include "core/error.h"
#include "meshes/mesh.h"

typedef enum dg_partition_method {
  DG_PARTITION_AUTO = 0, /* METIS when built with it, else RCB */
  DG_PARTITION_METIS,
  DG_PARTITION_RCB
} dg_partition_method;

typedef struct dg_partition_options {
  dg_partition_method method;
  int seed; /* METIS random seed (METIS_OPTION_SEED); the default is 0 */
} dg_partition_options;

typedef struct dg_partition {
  int nparts;
  int64_t K;
  int *part;          /* K: rank owning each element */
  int64_t *offsets;   /* nparts + 1 */
  int64_t *elements;  /* K: element ids grouped by part, increasing in a part */
  int64_t *local;     /* K: index of each element among its part's elements */
  int64_t edge_cut;   /* faces between different parts */
  double imbalance;   /* largest part / mean part size (1 = perfect) */
  dg_partition_method method; /* the method used (METIS or RCB) */
} dg_partition;

/* Partition the mesh into nparts (1 <= nparts <= K).  EToE/EToF (K x
 * (dim+1)) give the face neighbours, with -1 or the element itself for a
 * face without one (dg_mesh_validate_neighbors or dg/connectivity); NULL:
 * computed with dg_mesh_validate_neighbors (vertex sharing + explicit face
 * pairs).  opt may be NULL. */
dg_error dg_partition_create(const dg_mesh *mesh, const int64_t *EToE, const int *EToF,
                             int nparts, const dg_partition_options *opt, dg_partition **out);

/* A partition from a given owner per element (e.g. read from a file);
 * edge cut and imbalance are computed from EToE (may be NULL: cut 0). */
dg_error dg_partition_from_parts(int64_t K, int nparts, const int *part, int dim,
                                 const int64_t *EToE, dg_partition **out);

void dg_partition_destroy(dg_partition **p);

/* A local face whose neighbour lives on another rank.  Both ranks list the
 * faces they share in the same order: sorted by (rank, canonical id), the
 * canonical id of a face pair being min(gk * Nfaces + f) over its two
 * sides, so the i-th face to rank s here is the i-th face to this rank
 * there. */
typedef struct dg_partition_halo_face {
  int64_t k;        /* local element */
  int f;            /* its face */
  int rank;         /* owner of the neighbour */
  int64_t remote_k; /* neighbour's local index on that rank */
  int remote_f;     /* neighbour's face */
  int64_t global_k; /* neighbour's global element id */
  double shift[DG_MESH_MAX_DIM]; /* x on the neighbour's face = x here + shift */
} dg_partition_halo_face;

typedef struct dg_partition_local {
  int rank, nparts;
  /* The part's elements (global order), its vertices (increasing global id),
   * all tag names, all region names and each element's region, the
   * periodic pairs with both sides local, the axis periodicity.  Halo
   * faces keep tag -1 and have no partner here. */
  dg_mesh *mesh;
  int64_t *global_element; /* mesh->K global element ids */
  int64_t *global_vertex;  /* mesh->Nv global vertex ids */
  int64_t nhalo;
  dg_partition_halo_face *halo;
  int nneighbors;          /* ranks sharing faces with this one */
} dg_partition_local;

/* Local mesh and halo of part `rank`.  EToE/EToF as for
 * dg_partition_create (NULL: computed), normally the same ones. */
dg_error dg_partition_extract(const dg_mesh *mesh, const int64_t *EToE, const int *EToF,
                              const dg_partition *part, int rank, dg_partition_local **out);

void dg_partition_local_destroy(dg_partition_local **local);
/* A deep copy (for a user that reorders or retags its part). */
dg_error dg_partition_local_copy(const dg_partition_local *local, dg_partition_local **out);

/* What dg_partition_extract and readers of one part from a file (mesh_h5)
 * know about a part, in global numbering, from which dg_partition_build_local
 * makes the local mesh and halo. */
typedef struct dg_partition_rows {
  int dim, rank, nparts;
  int64_t K;          /* the part's elements */
  int64_t *gk;        /* K global ids, increasing */
  int64_t *EToV;      /* K x (dim+1) global vertex ids */
  int *face_tag;      /* K x (dim+1) */
  int64_t *nbr_k;     /* K x (dim+1) neighbour's global id, -1: none */
  int *nbr_f;         /* K x (dim+1) neighbour's face */
  int *nbr_rank;      /* K x (dim+1) neighbour's part */
  int64_t *nbr_local; /* K x (dim+1) neighbour's index in its part */
  double *shift;      /* K x (dim+1) x 3: x there = x here + shift (zeroed) */
  int *region;        /* K: region id, -1 = none (all -1; read when nregions > 0) */
  /* Geometry order (1 from dg_partition_rows_alloc) and, above 1, the
   * part's high-order nodes K x nho x dim (meshes/mesh_curved.h), malloc'ed
   * by the caller and freed by dg_partition_rows_free. */
  int geom_order;
  double *XH;
  /* Global tags, axis periodicity, explicit face pairs (global ids). */
  int ntags;
  char *const *tag_names;
  const int *periodic;
  const double *lo, *hi;
  int64_t nface_pairs;
  const dg_mesh_face_pair *face_pairs;
  /* Global region names (region above indexes them). */
  int nregions;
  char *const *region_names;
  /* Coordinates (n x dim) of the n global vertices gids (increasing). */
  dg_error (*coords)(void *ctx, int64_t n, const int64_t *gids, double *out);
  void *ctx;
} dg_partition_rows;

/* Allocate the per-element arrays above for K elements (shift zeroed,
 * region -1; the other fields are left for the caller); free them (and only
 * them). */
dg_error dg_partition_rows_alloc(dg_partition_rows *rows, int dim, int64_t K);
void dg_partition_rows_free(dg_partition_rows *rows);

dg_error dg_partition_build_local(const dg_partition_rows *rows, dg_partition_local **out);

#endif
