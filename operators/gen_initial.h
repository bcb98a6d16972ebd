/* Kernel family: dg_initial, the initial condition (gen_initial.c). */
#ifndef DG_OPERATORS_GEN_INITIAL_H
#define DG_OPERATORS_GEN_INITIAL_H

#include "core/strbuf.h"
#include "operators/codegen.h"

/* dg_initial of target tg (ph->initial set for every field). */
dg_error dg_gen_emit_initial(dg_strbuf *b, dg_codegen_target tg, const dg_physics *ph, int dim,
                             int is_float);

#endif
