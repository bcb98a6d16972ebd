/* The Runge-Kutta stage updates (LSERK and SSP), cuda and c. */
#include "operators/gen_update.h"

#include "operators/gen_jit.h"

void dg_gen_emit_updates(dg_strbuf *b, dg_codegen_target tg) {
  if (tg == DG_CODEGEN_CUDA) {
    dg_gen_jit(b, "operators/jit/update.cuh");
  } else {
    dg_gen_jit(b, "operators/jit/update.h");
  }
}
