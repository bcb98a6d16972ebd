/* Unstructured simplex meshes: vertices, elements, boundary tags, periodicity.
 *
 * Element and face conventions are those of the reference elements
 * (dg/refelem.h, Hesthaven & Warburton 2008): an element's vertices v0..vd map
 * to the reference vertices in that order, and face f consists of the
 * vertices dg_mesh_face_vertices(dim, f):
 *   1D  f0: {v0}         f1: {v1}
 *   2D  f0: {v0,v1}      f1: {v1,v2}      f2: {v0,v2}
 *   3D  f0: {v0,v1,v2}   f1: {v0,v1,v3}   f2: {v1,v2,v3}   f3: {v0,v2,v3}
 * Positive orientation means a positive Jacobian of the affine map from the
 * reference element, i.e. a positive signed volume (dg_mesh_signed_volume).
 *
 * Boundary faces carry a tag id (index into tag_names); -1 marks a face that
 * is to be connected to a neighbour (interior, or a periodic side). */
#ifndef DG_MESHES_MESH_H
#define DG_MESHES_MESH_H

#include <stdint.h>

#include "core/error.h"

enum { DG_MESH_MAX_DIM = 3, DG_MESH_MAX_FACES = 4, DG_MESH_MAX_VERTS = 4 };

/* An explicitly paired periodic face (for Gmsh meshes later): face f1 of
 * element k1 coincides with face f2 of element k2 after shifting the former by
 * `shift` (x on k2 = x on k1 + shift).  Each pair is listed once. */
typedef struct dg_mesh_face_pair {
  int64_t k1, k2;
  int f1, f2;
  double shift[DG_MESH_MAX_DIM];
} dg_mesh_face_pair;

typedef struct dg_mesh {
  int dim;          /* 1, 2 or 3 */
  int64_t Nv;       /* vertices */
  double *VX;       /* Nv x dim vertex coordinates, row-major */
  int64_t K;        /* elements */
  int64_t *EToV;    /* K x (dim+1) vertex ids */
  int *face_tag;    /* K x (dim+1): tag id, or -1 = interior / to be connected */

  int ntags;
  char **tag_names; /* ntags names, owned */

  /* Periodicity along coordinate axes (built-in meshes): faces with tag -1
   * and no neighbour sharing their vertices lying on the plane x_a = lo[a]
   * are paired with those on x_a = hi[a]; the period is hi[a] - lo[a]. */
  int periodic[DG_MESH_MAX_DIM];
  double lo[DG_MESH_MAX_DIM], hi[DG_MESH_MAX_DIM]; /* domain extents */

  /* Explicit periodic face pairs (room for Gmsh's periodic entities). */
  int64_t nface_pairs;
  dg_mesh_face_pair *face_pairs;

  /* Element regions (material data, issue 38): the highest-dimension Gmsh
   * physical groups.  region[k] is an index into region_names, or -1 for an
   * element in none.  region is NULL exactly when nregions is 0:
   * dg_mesh_create leaves it NULL, the first dg_mesh_region_add allocates it
   * with every element in none.  Whatever makes a mesh from a mesh (copy,
   * sub-meshes, partition parts, reordering) carries both. */
  int *region;
  int nregions;
  char **region_names; /* nregions names, owned */

  /* High-order geometry (curved elements, issue 40; meshes/mesh_curved.h):
   * geom_order k (1 = straight-sided, the default, XH NULL) and per element
   * the nodes of its order-k Lagrange geometry map, K x nho x dim with
   * nho = dg_mesh_ho_count(dim, k), in the equispaced lattice order that
   * mesh_curved.h documents.  Copy, permute, orient, sub-meshes, partition
   * parts and the HDF5 format carry them. */
  int geom_order;
  double *XH;
} dg_mesh;

/* Allocate a mesh of K elements and Nv vertices with zeroed coordinates and
 * vertex ids, every face tag -1, no tags, no periodicity, no regions
 * (region NULL), geometry order 1 (XH NULL). */
dg_error dg_mesh_create(int dim, int64_t Nv, int64_t K, dg_mesh **out);
void dg_mesh_destroy(dg_mesh **mesh);
/* A deep copy (coordinates, elements, tags, periodicity, face pairs,
 * regions, high-order nodes). */
dg_error dg_mesh_copy(const dg_mesh *mesh, dg_mesh **out);

/* Append an explicit periodic face pair (see dg_mesh_face_pair). */
dg_error dg_mesh_face_pair_add(dg_mesh *mesh, int64_t k1, int f1, int64_t k2, int f2,
                               const double shift[DG_MESH_MAX_DIM]);

/* Vertices of face f of a (dim)-simplex, in the reference ordering above;
 * writes dim entries to v. */
void dg_mesh_face_vertices(int dim, int f, int v[DG_MESH_MAX_VERTS]);

/* Add a tag name (must be new and non-empty) and return its id. */
dg_error dg_mesh_tag_add(dg_mesh *mesh, const char *name, int *id);

/* Id of tag `name`; DG_ERR_INPUT naming the known tags (and the closest
 * one, if the name looks misspelt) when there is none. */
dg_error dg_mesh_tag_find(const dg_mesh *mesh, const char *name, int *id);

/* Add a region name (must be new and non-empty) and return its id (id may
 * be NULL); the first one allocates region, every element in none. */
dg_error dg_mesh_region_add(dg_mesh *mesh, const char *name, int *id);
/* Id of region `name`; DG_ERR_INPUT naming the known regions (and the
 * closest one) when there is none. */
dg_error dg_mesh_region_find(const dg_mesh *mesh, const char *name, int *id);

/* Renumber the elements: element k becomes element new_of_old[k] (a
 * permutation of 0..K-1).  Vertices, face tags, regions and high-order
 * nodes move with their element; explicit face pairs are renumbered. */
dg_error dg_mesh_permute(dg_mesh *mesh, const int64_t *new_of_old);

/* Signed volume of element k (length, area, volume; negative when its
 * vertices are ordered clockwise / left-handed). */
double dg_mesh_signed_volume(const dg_mesh *mesh, int64_t k);

/* Size of element k: its longest edge (0 for a collapsed element). */
double dg_mesh_element_size(const dg_mesh *mesh, int64_t k);

/* Check the orientation of every element.  A negatively oriented element is
 * reoriented by swapping its last two vertices (its face tags, explicit
 * face pairs and high-order nodes are renumbered to match); the number swapped is returned in
 * *nflipped (may be NULL) and logged.  A degenerate element (|volume| below
 * 1e-10 times its longest edge to the power dim) is DG_ERR_INPUT naming the
 * element and its vertex coordinates. */
dg_error dg_mesh_orient(dg_mesh *mesh, int64_t *nflipped);

#endif
