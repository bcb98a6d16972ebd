/* The generator's view of a checked flux program (operators/codegen.h's
 * dg_physics), built from the program's tables. */
#ifndef DG_OPERATORS_PHYSICS_H
#define DG_OPERATORS_PHYSICS_H

#include "core/error.h"
#include "operators/codegen.h"
#include "operators/flux.h"

typedef struct dg_physics_tables dg_physics_tables;

/* Fill *ph from prog; the arrays live in *tables (free with
 * dg_physics_tables_destroy) and the nodes in the program. */
dg_error dg_physics_from_program(const dg_flux_program *prog, dg_physics *ph,
                                 dg_physics_tables **tables);
void dg_physics_tables_destroy(dg_physics_tables **tables);

#endif
