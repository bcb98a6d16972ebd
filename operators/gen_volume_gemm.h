/* Kernel family: the cuda dg_volume as matrix products, work_mode gemm
 * (cuda cores) and mma (tensor cores): gen_volume_gemm.c with its planner
 * (gen_gemm_plan.c), the tensor-core products (gen_volume_mma.c) and the
 * Bernstein-Bezier pieces (gen_gemm_bernstein.c). */
#ifndef DG_OPERATORS_GEN_VOLUME_GEMM_H
#define DG_OPERATORS_GEN_VOLUME_GEMM_H

#include <stddef.h>

#include "operators/gen_context.h"

/* work_mode gemm / mma: shared memory in reals (and in *matrix_reals the
 * size of its transposed operator table), and the kernel. */
size_t dg_gen_gemm_shared_reals(const dg_element_ops *el, const deriv_table *dt, int ncomp,
                                const dg_kernel_config *cfg, int is_float, size_t *matrix_reals);
void dg_gen_emit_volume_gemm(dg_strbuf *b, const dg_element_ops *el, const dg_physics *ph,
                             const deriv_table *dt, const dg_kernel_config *cfg,
                             dg_emit_ctx *ctx, int uses_x, int uses_fx, int is_float);

#endif
