/* Kernel family: the Runge-Kutta stage updates (gen_update.c). */
#ifndef DG_OPERATORS_GEN_UPDATE_H
#define DG_OPERATORS_GEN_UPDATE_H

#include "core/strbuf.h"
#include "operators/codegen.h"

/* dg_update_lserk and dg_update_ssp of target tg. */
void dg_gen_emit_updates(dg_strbuf *b, dg_codegen_target tg);

#endif
