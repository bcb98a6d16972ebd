/* dg_filter: the state times the filter matrix per element (see
 * gen_filter.h). */
#include "operators/gen_filter.h"

#include "operators/codegen.h"
#include "operators/gen_context.h"

static void emit_prelude(dg_strbuf *b, dg_codegen_target tg, const dg_filter_spec *sp) {
  dg_strbuf_appendf(b,
                    "/* dgrun generated modal filter (generator version %d)\n"
                    " * target %s, state %s, %d nodes, %d components */\n",
                    dg_codegen_version(), tg == DG_CODEGEN_CUDA ? "cuda" : "c",
                    sp->state_float ? "float" : "double", sp->Np, sp->ncomp);
  if (tg == DG_CODEGEN_C)
    dg_strbuf_append(b, "#include <stdint.h>\n#define KERNEL\n");
  else /* the test emulator defines its own KERNEL */
    dg_strbuf_append(b, "#ifndef KERNEL\n#define KERNEL extern \"C\" __global__\n#endif\n");
  dg_strbuf_appendf(b, "typedef %s real;\n#define NP %d\n#define NP_PAD %d\n#define NC %d\n",
                    sp->state_float ? "float" : "double", sp->Np, sp->np_pad, sp->ncomp);
  dg_gen_emit_state_layout(b, sp->layout);
  /* cuda: column-major FM[j * NP + i] (thread i reads row i: coalesced) */
  dg_gen_emit_matrix(b, tg, DG_MATRIX_CONSTANT, sp->state_float, "FM", sp->F, sp->Np, sp->Np);
}

/* One thread per element: the matrix entries are the same for every thread
 * of a warp at each step (a broadcast from constant memory), and the
 * element's values, read once into registers, are reused NP times; no
 * barriers, so the kernel runs in place. */
static const char *CUDA_BODY =
    "KERNEL void dg_filter(real *__restrict__ q, long long K, long long K_owned) {\n"
    "  const long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (k >= K_owned) return;\n"
    "  for (int c = 0; c < NC; ++c) {\n"
    "    real *__restrict__ u = q + BASE(k, 0) + (long long)c * CSTRIDE(K);\n"
    "    real s[NP];\n"
    "    for (int j = 0; j < NP; ++j) s[j] = u[j];\n"
    "    for (int i = 0; i < NP; ++i) {\n"
    "      real v = 0;\n"
    "      for (int j = 0; j < NP; ++j) v += FM[j * NP + i] * s[j];\n"
    "      u[i] = v;\n"
    "    }\n"
    "  }\n"
    "}\n";

static const char *C_BODY =
    "KERNEL void dg_filter(void **args, int64_t first, int64_t count) {\n"
    "  real *restrict q = *(real **)args[0];\n"
    "  const long long K = *(const long long *)args[1];\n"
    "  for (long long k = first; k < first + count; ++k)\n"
    "    for (int c = 0; c < NC; ++c) {\n"
    "      real *restrict u = q + BASE(k, 0) + (long long)c * CSTRIDE(K);\n"
    "      real s[NP];\n"
    "      for (int j = 0; j < NP; ++j) s[j] = u[j];\n"
    "      for (int i = 0; i < NP; ++i) {\n"
    "        real v = 0;\n"
    "        for (int j = 0; j < NP; ++j) v += FM[i * NP + j] * s[j];\n"
    "        u[i] = v;\n"
    "      }\n"
    "    }\n"
    "}\n";

dg_error dg_gen_filter(dg_codegen_target tg, const dg_filter_spec *sp, char **source) {
  *source = NULL;
  DG_CHECK(sp && sp->F && sp->Np > 0 && sp->np_pad >= sp->Np && sp->ncomp > 0, DG_ERR_ARG,
           "bad filter module description");
  dg_strbuf b;
  dg_strbuf_init(&b);
  emit_prelude(&b, tg, sp);
  dg_strbuf_append(&b, "/* dg_filter: q = FM q on each owned element, component by component */\n");
  dg_strbuf_append(&b, tg == DG_CODEGEN_CUDA ? CUDA_BODY : C_BODY);
  DG_CALL(dg_strbuf_finish(&b, source));
  return DG_OK;
}
