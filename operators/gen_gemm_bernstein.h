/* (family-internal header of the gemm / mma dg_volume) */
#ifndef DG_OPERATORS_GEN_GEMM_BERNSTEIN_H
#define DG_OPERATORS_GEN_GEMM_BERNSTEIN_H

#include "operators/gen_gemm_plan.h"

void dg_gen_bb_emit_tables(dg_strbuf *b, int dim, int n, int is_float);
void dg_gen_bb_emit_differences(dg_strbuf *b, const gemm_plan *p, const char *th, int n,
                                const deriv_table *dt, dg_emit_ctx *ctx);
void dg_gen_bb_emit_store(dg_strbuf *b, const gemm_plan *p, const char *th);
void dg_gen_bb_div_at(char *at, size_t n, const gemm_plan *p, const char *acc, const char *pt,
                      const char *el);

#endif
