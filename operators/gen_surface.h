/* Kernel family: dg_surface (gen_surface.c). */
#ifndef DG_OPERATORS_GEN_SURFACE_H
#define DG_OPERATORS_GEN_SURFACE_H

#include "core/strbuf.h"
#include "operators/codegen.h"

/* dg_surface of target tg; uses_x as in dg_gen_emit_surface_body. */
dg_error dg_gen_emit_surface(dg_strbuf *b, dg_codegen_target tg, const dg_element_ops *el,
                             const dg_physics *ph, int is_float, int uses_x);

#endif
