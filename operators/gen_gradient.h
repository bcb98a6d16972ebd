/* Kernel family: dg_gradient, the lifted gradients of the second-order
 * terms (gen_gradient.c). */
#ifndef DG_OPERATORS_GEN_GRADIENT_H
#define DG_OPERATORS_GEN_GRADIENT_H

#include "core/strbuf.h"
#include "operators/codegen.h"

/* dg_gradient of target tg for a physics with ngrad > 0; uses_x: the
 * boundary conditions read x; pairs: dg_codegen_gradient_pairs. */
dg_error dg_gen_emit_gradient(dg_strbuf *b, dg_codegen_target tg, const dg_element_ops *el,
                              const dg_physics *ph, int is_float, int uses_x, int pairs);

#endif
