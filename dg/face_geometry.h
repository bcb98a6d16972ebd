/* Face geometry per face instead of per face node.  On affine (straight-
 * sided) elements the outward normal and Fscale = sJ/J are the same at every
 * node of a face, so the generated surface code reads them once per face:
 * (DIM+1) reals per face rather than per face node (N=3 tets: 40 -> 4 rows
 * per element, a fifth of the surface kernel's minimum bytes). */
#ifndef DG_DG_FACE_GEOMETRY_H
#define DG_DG_FACE_GEOMETRY_H

#include "dg/opdata.h"

/* *out (malloc'ed, caller frees) = fgeo[(k*Nfaces + f)*(dim+1) + d] in the
 * opdata's real type, taken from the first node of each face of od->fgeo. */
dg_error dg_face_geometry_per_face(const dg_opdata *od, void **out, size_t *bytes);

#endif
