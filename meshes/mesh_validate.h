/* Checks of a mesh read from a file (Gmsh, HDF5) before anything is built on
 * it, and face matching by vertex sets, which the checks, the Gmsh reader and
 * the partitioner share.
 *
 * dg_mesh_validate checks, in this order, and stops at the first error with
 * a message naming the elements/vertices and their coordinates:
 *   1. vertex ids in range, no two distinct vertices at the same place
 *      (tolerance relative to the bounding-box diagonal);
 *   2. orientation: negatively oriented elements are reoriented
 *      (dg_mesh_orient) with a warning; zero-volume elements are errors;
 *      curved elements: vertex nodes on the vertices, no tangled or
 *      inverted element (dg_mesh_curved_check);
 *   3. no face shared by more than two elements;
 *   4. explicit periodic face pairs: faces in range, on the boundary, each in
 *      one pair, and congruent under the pair's shift;
 *   5. every boundary face (no neighbour, not periodic) has a tag; untagged
 *      ones are an error unless a default tag name is given, which they then
 *      get (added to the tag list if new). */
#ifndef DG_MESHES_MESH_VALIDATE_H
#define DG_MESHES_MESH_VALIDATE_H

#include <stdint.h>

#include "core/error.h"
#include "meshes/mesh.h"

typedef struct dg_mesh_validate_options {
  /* Tag given to boundary faces that have none; NULL: they are an error. */
  const char *default_tag;
  /* Two vertices closer than rtol times the bounding-box diagonal are
   * duplicates; 0 selects 1e-10 (far above the ~1e-16 round-off of
   * coordinates written by mesh generators, far below any sane element). */
  double duplicate_rtol;
} dg_mesh_validate_options;

typedef struct dg_mesh_validate_report {
  int64_t nflipped;        /* elements reoriented */
  int64_t ndefault_tagged; /* boundary faces given the default tag */
  int64_t nboundary;       /* boundary faces (tagged) */
  int64_t nperiodic;       /* faces on periodic sides (pairs or axes) */
} dg_mesh_validate_report;

/* Run all checks (opt and report may be NULL).  Modifies the mesh only by
 * reorienting elements and assigning the default tag. */
dg_error dg_mesh_validate(dg_mesh *mesh, const dg_mesh_validate_options *opt,
                          dg_mesh_validate_report *report);

/* Check that every one of the n tag names (e.g. the boundary conditions
 * named in problem.cfg) exists in the mesh.  `where` names their origin for
 * the message ("problem.cfg"); a missing one is DG_ERR_INPUT listing the
 * mesh's tags and, if it looks misspelt, the closest one. */
dg_error dg_mesh_validate_tags(const dg_mesh *mesh, const char *const *names, int n,
                               const char *where);

/* One element face keyed by its vertex ids in increasing order (entries past
 * dim are -1). */
typedef struct dg_mesh_face_key {
  int64_t v[DG_MESH_MAX_DIM];
  int64_t k;
  int f;
} dg_mesh_face_key;

/* All K x (dim+1) faces, sorted by vertex set (then element, face) so that
 * equal faces are adjacent; *keys is malloc'ed, n = K * (dim+1). */
dg_error dg_mesh_validate_face_table(const dg_mesh *mesh, dg_mesh_face_key **keys,
                                     int64_t *n);

/* Sort nv vertex ids into a key (v[nv..] = -1). */
void dg_mesh_validate_face_key(const int64_t *vertices, int nv, int64_t key[DG_MESH_MAX_DIM]);

/* Index of the first entry of the sorted table with the given key, or -1. */
int64_t dg_mesh_validate_face_find(const dg_mesh_face_key *keys, int64_t n,
                                   const int64_t key[DG_MESH_MAX_DIM]);

/* Centroid of face f of an element with vertex ids row[0..dim], summed over
 * the face's vertices in increasing id order, so that the two sides of a
 * shared face get bitwise the same point (and a periodic shift computed as a
 * difference of centroids is exactly 0 across ordinary faces).  Vertex v's
 * coordinates are X[j * dim ..] with j = v, or, when ids != NULL, j = the
 * position of v in the sorted ids[0..nids) (which must hold it). */
void dg_mesh_validate_face_centroid(int dim, const int64_t *row, int f, const double *X,
                                    const int64_t *ids, int64_t nids, double c[3]);

/* Face neighbours, arrays K x (dim+1): EToE/EToF of the other element with
 * the same vertex set, and, when with_pairs, the partner of an explicit
 * periodic face pair; -1 / -1 for faces without (boundary, axis-periodic
 * sides).  A face shared by more than two elements is DG_ERR_INPUT naming
 * the elements and the face's coordinates. */
dg_error dg_mesh_validate_neighbors(const dg_mesh *mesh, int with_pairs, int64_t *EToE,
                                    int *EToF);

#endif
