/* The values of a flux file's coefficients (`coefficients eps > 0, mu`)
 * at every node of this rank's elements, from problem.cfg (issue 38):
 *
 *   [regions]            ; predicates on the element centroid
 *   glass = x[0] > 0
 *   [coefficients]
 *   eps = 1              ; default, an expression of x (evaluated per node)
 *   eps.glass = 2.25     ; in region glass (a mesh region or a [regions] key)
 *
 * An element's regions are its mesh region (the Gmsh physical group of top
 * dimension, if any) and every [regions] predicate true at its centroid (the
 * mean of its vertices).  A region value overrides the default; two regions
 * of one element giving the same coefficient, an element without a value,
 * and a value outside the flux file's bounds are errors naming the element,
 * its centroid and the cfg's file:line:col.  PROBLEM_CFG.md documents it. */
#ifndef DG_PROBLEMS_COEFFICIENTS_H
#define DG_PROBLEMS_COEFFICIENTS_H

#include <stdint.h>

#include "core/config.h"
#include "meshes/mesh.h"
#include "operators/flux.h"

typedef struct dg_coefficients {
  int ncoef;
  int64_t K; /* this rank's owned elements */
  int Np;
  double *values; /* values[(c*K + k)*Np + i]: coefficient c at node i of element k */
  /* Regions: the mesh's, then the [regions] keys in cfg order (borrowed
   * names, valid while the mesh and the cfg are).  region[k] is the first
   * region of element k's set in that order, -1 for none (for output);
   * NULL when nregions is 0. */
  int nregions;
  const char **region_names;
  int *region;
} dg_coefficients;

/* What the values are built from. */
typedef struct dg_coefficients_input {
  const dg_flux_program *prog;
  const char *flux_name;          /* the flux file, for messages about its bounds */
  const dg_config *cfg;           /* validated against dg_problem_schema */
  const dg_mesh *mesh;            /* this rank's elements (vertices give the centroids) */
  const int *mesh_region;         /* per element of mesh: an index into mesh_region_names,
                                     -1 none; NULL: no element is in a mesh region */
  int nmesh_regions;
  char *const *mesh_region_names;
  const double *const *X;         /* node coordinates X[a][k*Np + i], a < mesh->dim */
  int Np;
  const int64_t *gk;              /* global element ids for messages (NULL: k) */
} dg_coefficients_input;

/* The names and syntax of [regions] and [coefficients] against the flux
 * program (of dimension dim) and the mesh's region names, before anything runs: unknown
 * coefficients or regions (with the closest name), a [regions] key that
 * is a mesh region, [coefficients] for a flux file without coefficients,
 * coefficients without [coefficients], a bad expression.  DG_ERR_INPUT
 * naming the cfg's file:line:col. */
dg_error dg_coefficients_check(const dg_flux_program *prog, const char *flux_name,
                               const dg_config *cfg, int dim, int nmesh_regions,
                               char *const *mesh_region_names);

/* The values at every node of in->mesh's elements (the checks above, then
 * the per-element rules of this header's comment). */
dg_error dg_coefficients_build(const dg_coefficients_input *in, dg_coefficients **out);
void dg_coefficients_destroy(dg_coefficients **c);

#endif
