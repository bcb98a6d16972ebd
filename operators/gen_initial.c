/* dg_initial: the initial condition (or exact solution at time t) at the
 * volume nodes. */
#include "operators/gen_initial.h"

#include "operators/gen_context.h"

dg_error dg_gen_emit_initial(dg_strbuf *b, dg_codegen_target tg, const dg_physics *ph,
                             int dim, int is_float) {
  dg_emit_ctx ctx;
  dg_gen_init_ctx(&ctx, ph, dim, is_float);
  ctx.field = dg_gen_volume_field; /* an initial condition reads no fields (checked) */
  /* K strides the state and vx; only the K_owned elements are evaluated:
   * the ghost slots after them hold neighbours' traces, and their zero
   * coordinates may be a singular point of the expression */
  dg_strbuf_append(b, "/* dg_initial: the initial condition at every volume node of the owned\n"
                      "   elements [0, K_owned) (ghost slots after them are left alone) */\n");
  if (tg == DG_CODEGEN_CUDA) {
    dg_strbuf_append(b, "KERNEL void dg_initial(real *__restrict__ q, const real *__restrict__ vx,\n"
                        "    real t, long long K, long long K_owned) {\n");
    b->indent = 2;
    dg_strbuf_lines(b,
                    "const long long gid = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
                    "if (gid >= K_owned * NP) return;\n"
                    "const long long k = gid / NP;\n"
                    "const int i = (int)(gid - k * NP);\n");
  } else {
    dg_strbuf_append(b, "KERNEL void dg_initial(void **args, int64_t first, int64_t count) {\n"
                        "  real *restrict q = *(real **)args[0];\n"
                        "  const real *restrict vx = *(const real **)args[1];\n"
                        "  const real t = *(const real *)args[2];\n"
                        "  const long long K = *(const long long *)args[3];\n"
                        "  /* args[4], K_owned: the launch covers [0, K_owned) */\n"
                        "  for (long long k = first; k < first + count; ++k)\n"
                        "  for (int i = 0; i < NP; ++i) {\n");
    b->indent = 4;
  }
  dg_strbuf_lines(b,
                  "(void)t;\n"
                  "real X[DIM];\n"
                  "for (int d = 0; d < DIM; ++d) X[d] = vx[((long long)d * K + k) * NP_PAD + i];\n"
                  "(void)X;\n");
  for (int f = 0; f < ph->nfields; f++)
    for (int c = 0; c < ph->field_size[f]; c++) {
      dg_strbuf_indent(b);
      dg_strbuf_appendf(b, "q[BASE(k, i) + (long long)%d * CSTRIDE(K)] = ", ph->field_offset[f] + c);
      dg_emit_expr(&ctx, b, ph->initial[f], c);
      dg_strbuf_append(b, ";\n");
    }
  b->indent = 0;
  dg_strbuf_append(b, tg == DG_CODEGEN_CUDA ? "}\n\n" : "  }\n}\n\n");
  return dg_emit_status(&ctx);
}
