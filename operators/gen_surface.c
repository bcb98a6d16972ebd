/* dg_surface: the scaled face fluxes of every face node, one a thread
 * (cuda) or a loop over the chunk's elements (c). */
#include "operators/gen_surface.h"

#include <string.h>

#include "operators/gen_context.h"


static const char *surface_signature_c =
    "KERNEL void dg_surface(void **args, int64_t first, int64_t count) {\n"
    "  const real *restrict q = *(const real **)args[0];\n"
    "  real *restrict fl = *(real **)args[1];\n"
    "  const int *restrict mapM = *(const int **)args[2];\n"
    "  const int *restrict mapP = *(const int **)args[3];\n"
    "  const int *restrict fbc = *(const int **)args[4];\n"
    "  const real *restrict fgeo = *(const real **)args[5];\n"
    "  const real *restrict fx = *(const real **)args[6];\n"
    "  const real t = *(const real *)args[7];\n"
    "  const long long K = *(const long long *)args[8];\n"
    "  (void)fx; (void)t;\n";

/* The curved dg_surface_curved (el->curved): the same face fluxes with the
 * normal and Fscale of every face node (fgeo = dg/opdata_curved.c's cfgeo),
 * over the curved elements [0, KC); cuda takes fcf and Qg always, then KC,
 * so that one argument list serves every physics (its threads past the
 * range return: the affine elements after it are another kernel's). */
static void emit_surface_curved_head(dg_strbuf *b, dg_codegen_target tg, const dg_physics *ph) {
  dg_strbuf_append(b, "/* dg_surface_curved: one face node per iteration (thread), per-node geometry. */\n");
  if (tg == DG_CODEGEN_CUDA) {
    dg_strbuf_append(b, "KERNEL void dg_surface_curved(const real *__restrict__ q, real *__restrict__ fl,\n"
                        "    const int *__restrict__ mapM, const int *__restrict__ mapP,\n"
                        "    const int *__restrict__ fbc, const real *__restrict__ fgeo,\n"
                        "    const real *__restrict__ fx, real t, long long K,\n"
                        "    const real *__restrict__ fcf, const real *__restrict__ Qg, long long KC) {\n"
                        "  (void)fcf; (void)Qg;\n"
                        "  const long long gid = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
                        "  if (gid >= KC * NFNFP) return;\n"
                        "  const long long k = gid / NFNFP;\n"
                        "  const int m = (int)(gid - k * NFNFP);\n"
                        "  (void)fx; (void)t;\n");
    return;
  }
  dg_strbuf_append(b, "KERNEL void dg_surface_curved");
  dg_strbuf_append(b, strstr(surface_signature_c, "(void **args"));
  if (ph->ncoef > 0)
    dg_strbuf_append(b, "  const real *restrict fcf = *(const real **)args[9];\n");
}

dg_error dg_gen_emit_surface(dg_strbuf *b, dg_codegen_target tg, const dg_element_ops *el,
                             const dg_physics *ph, int is_float, int uses_x) {
  dg_emit_ctx ctx;
  dg_gen_face_ctx(&ctx, ph, el->dim, is_float);
  if (el->curved) {
    emit_surface_curved_head(b, tg, ph);
    b->indent = 2;
    if (tg == DG_CODEGEN_C) {
      dg_strbuf_line(b, "for (long long k = first; k < first + count; ++k) {");
      dg_strbuf_line(b, "  for (int m = 0; m < NFNFP; ++m) {");
      b->indent = 6;
    }
    dg_gen_emit_surface_body(b, el, ph, is_float, uses_x, &ctx,
                             "fl[((long long)%d * K + k) * NFNFP + m]", 0, 0, 0, 0);
    b->indent = 2;
    if (tg == DG_CODEGEN_C) {
      dg_strbuf_line(b, "  }");
      dg_strbuf_line(b, "}");
    }
    b->indent = 0;
    dg_strbuf_append(b, "}\n\n");
    return dg_emit_status(&ctx);
  }
  dg_strbuf_append(b, "/* dg_surface: one face node per iteration (thread). */\n");
  dg_strbuf_append(b,
                   tg == DG_CODEGEN_CUDA
                       ? "KERNEL void dg_surface(const real *__restrict__ q, real *__restrict__ fl,\n"
                         "    const int *__restrict__ mapM, const int *__restrict__ mapP,\n"
                         "    const int *__restrict__ fbc, const real *__restrict__ fgeo,\n"
                         "    const real *__restrict__ fx, real t, long long K"
                       : surface_signature_c);
  if (tg == DG_CODEGEN_CUDA && ph->ngrad > 0) /* fcf too: Qg's position is fixed */
    dg_strbuf_append(b, ",\n    const real *__restrict__ fcf, const real *__restrict__ Qg) {\n"
                        "  (void)fcf;\n");
  else if (tg == DG_CODEGEN_CUDA)
    dg_strbuf_append(b, ph->ncoef > 0 ? ",\n    const real *__restrict__ fcf) {\n" : ") {\n");
  else if (ph->ncoef > 0)
    dg_strbuf_append(b, "  const real *restrict fcf = *(const real **)args[9];\n");
  if (tg == DG_CODEGEN_C && ph->ngrad > 0)
    dg_strbuf_append(b, "  const real *restrict Qg = *(const real **)args[10];\n");
  b->indent = 2;
  if (tg == DG_CODEGEN_CUDA) {
    dg_strbuf_lines(b,
                    "const long long gid = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
                    "if (gid >= K * NFNFP) return;\n"
                    "const long long k = gid / NFNFP;\n"
                    "const int m = (int)(gid - k * NFNFP);\n"
                    "(void)fx; (void)t;\n");
    dg_gen_emit_surface_body(b, el, ph, is_float, uses_x, &ctx, "fl[((long long)%d * K + k) * NFNFP + m]", 0, 0, 0, 0);
  } else {
    dg_strbuf_line(b, "for (long long k = first; k < first + count; ++k) {");
    dg_strbuf_line(b, "  for (int m = 0; m < NFNFP; ++m) {");
    b->indent = 6;
    dg_gen_emit_surface_body(b, el, ph, is_float, uses_x, &ctx, "fl[((long long)%d * K + k) * NFNFP + m]", 0, 0, 0, 0);
    b->indent = 2;
    dg_strbuf_line(b, "  }");
    dg_strbuf_line(b, "}");
  }
  b->indent = 0;
  dg_strbuf_append(b, "}\n\n");
  return dg_emit_status(&ctx);
}
