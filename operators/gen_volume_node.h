/* Kernel family: dg_volume with one node per thread (gen_volume_node.c). */
#ifndef DG_OPERATORS_GEN_VOLUME_NODE_H
#define DG_OPERATORS_GEN_VOLUME_NODE_H

#include <stddef.h>

#include "operators/gen_context.h"

/* The cuda dg_volume of work_mode parallel, inline or sequence (ctx: the
 * volume context, gen_state.contravariant set). */
void dg_gen_emit_volume_node_cuda(dg_strbuf *b, const dg_element_ops *el, const dg_physics *ph,
                                  const deriv_table *dtab, const dg_kernel_config *cfg,
                                  dg_emit_ctx *ctx, int uses_x, int uses_fx, int is_float);
/* The c dg_volume (every work mode: the cpu target has one). */
void dg_gen_emit_volume_node_c(dg_strbuf *b, const dg_element_ops *el, const dg_physics *ph,
                               const deriv_table *dtab, const dg_kernel_config *cfg,
                               dg_emit_ctx *ctx, int uses_x);
/* The c dg_volume_curved of the curved module (el->curved; ctx with
 * gen_state.contravariant set, as the cuda kernel's). */
void dg_gen_emit_volume_curved_c(dg_strbuf *b, const dg_element_ops *el, const dg_physics *ph,
                                 const deriv_table *dtab, const dg_kernel_config *cfg,
                                 dg_emit_ctx *ctx, int uses_x);
/* Shared memory of the cuda dg_volume of these work modes, in reals. */
size_t dg_gen_node_shared_reals(const dg_element_ops *el, int ng, int ncomp,
                                const dg_kernel_config *cfg);

#endif
