/* (family-internal header of the gemm / mma dg_volume) */
#ifndef DG_OPERATORS_GEN_VOLUME_MMA_H
#define DG_OPERATORS_GEN_VOLUME_MMA_H

#include "operators/gen_gemm_plan.h"

void dg_gen_mma_emit_fragments(dg_strbuf *b, const dg_element_ops *el, const gemm_plan *p);
void dg_gen_mma_emit_sparse_functions(dg_strbuf *b, const gemm_plan *p);
void dg_gen_mma_emit_products(dg_strbuf *b, const gemm_plan *p);
/* The tensor-core step macros of the precision (DG_DMMA / DG_TMMA and
 * the split-TF32 steps). */
void dg_gen_mma_emit_steps(dg_strbuf *b, int is_float);

#endif
