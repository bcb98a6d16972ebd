/* Gmsh input through the Gmsh SDK (C API gmshc.h; no hand-written parser).
 *
 *  - `.msh` files of any version Gmsh reads (2.2, 4.1; ASCII or binary), and
 *    `.geo` scripts, which are meshed on the spot (Mesh.MeshSizeMax = the
 *    size given by the caller, if positive).
 *  - The mesh dimension is the model's dimension; its elements must be
 *    simplices of one order: linear (2-node lines, 3-node triangles, 4-node
 *    tetrahedra) or complete high-order Lagrange ones (3-node lines, 6- and
 *    10-node triangles, 10- and 20-node tetrahedra, ... up to order
 *    DG_MESH_MAX_GEOM_ORDER).  High-order elements give a mesh of that
 *    geometry order (meshes/mesh_curved.h): the primary nodes are the
 *    vertices, and every node is reordered from Gmsh's numbering to dgrun's
 *    lattice by its reference coordinates (gmshModelMeshGetElementProperties).
 *    Any other element type of that dimension (quadrangles, hexahedra,
 *    prisms, serendipity or mixed-order elements, ...) is DG_ERR_INPUT naming
 *    the type and count.  A 2D mesh must lie in the plane z = 0, a 1D mesh
 *    on the x axis.
 *  - Physical groups of dimension dim-1 are boundary tags, by NAME (a group
 *    without a name is an error); their elements are matched to element faces
 *    by vertex sets.
 *  - Physical groups of dimension dim (Physical Curve / Surface / Volume in
 *    1D / 2D / 3D) are element regions (mesh->region, region_names), by NAME
 *    (a group without a name is an error; groups of one name are one
 *    region); an element in two regions is an error naming it, an element in
 *    none has region -1; no such groups: no regions.  Every element of the
 *    dimension is read, in a group or not (a .msh file written by Gmsh holds
 *    only the elements of physical groups when there are any).  Groups of
 *    lower dimensions are ignored.
 *  - Gmsh periodic entities (Periodic Curve/Surface, $Periodic) become
 *    explicit periodic face pairs (mesh->face_pairs), slave face first, with
 *    the translation from slave to master; rotations are not supported.
 *    Faces in a pair carry no tag.
 *  - Vertices are the nodes used by the elements, numbered in increasing
 *    Gmsh node tag order; elements keep the file's order.  Orientation is
 *    left as in the file: run dg_mesh_validate next.
 *
 * Gmsh keeps global state: the reader initializes and finalizes the Gmsh
 * library around each call, so it must not run in two threads at once.
 * Built without Gmsh, dg_mesh_read_gmsh is DG_ERR_UNSUPPORTED. */
#ifndef DG_MESHES_GMSH_READER_H
#define DG_MESHES_GMSH_READER_H

#include "core/error.h"
#include "meshes/mesh.h"

/* Read (or, for .geo, mesh) path.  geo_size > 0 caps the element size of a
 * .geo mesh; ignored for .msh files. */
dg_error dg_mesh_read_gmsh(const char *path, double geo_size, dg_mesh **out);

/* The same, with a .geo meshed at geometry order geo_order (1..
 * DG_MESH_MAX_GEOM_ORDER; Gmsh's Mesh.ElementOrder, with
 * Mesh.HighOrderOptimize = 2 in 2D and 3D so that elements along curved
 * boundaries are untangled).  A .msh file keeps its own order. */
dg_error dg_mesh_read_gmsh_order(const char *path, double geo_size, int geo_order,
                                 dg_mesh **out);

/* 1 when this build can read Gmsh files, 0 otherwise. */
int dg_gmsh_reader_available(void);

#endif
