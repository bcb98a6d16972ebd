/* Whether the numerical fluxes read the lifted gradients of one side of a
 * face only (physics_ldg_side.c): LDG with |beta| = 1/2, every gradient
 * trace inside ldg(...).  The face-trace emitter then loads that side's
 * gradient traces once instead of both sides' (gen_face_flux.c). */
#ifndef DG_OPERATORS_PHYSICS_LDG_SIDE_H
#define DG_OPERATORS_PHYSICS_LDG_SIDE_H

#include "operators/codegen.h"

/* 1 when ph has gradients, |ldg_beta| = 1/2 and no gradient trace of a
 * numerical flux lies outside an ldg(...) (directly or through a let). */
int dg_physics_ldg_one_sided(const dg_physics *ph);

#endif
