#include "operators/halo_codegen.h"

#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"

dg_error dg_halo_codegen(dg_codegen_target target, int precision_float, char **source) {
  *source = NULL;
  dg_strbuf b;
  dg_strbuf_init(&b);
  dg_strbuf_append(&b, "/* dgrun halo exchange: gather face traces for other ranks, scatter\n"
                       " * received traces into ghost slots. */\n");
  if (target == DG_CODEGEN_C)
    dg_strbuf_append(&b, "#include <stdint.h>\n#define KERNEL\n");
  else
    dg_strbuf_append(&b, "#define KERNEL extern \"C\" __global__\n");
  dg_strbuf_appendf(&b, "typedef %s real;\n\n", precision_float ? "float" : "double");
  if (target == DG_CODEGEN_CUDA)
    dg_strbuf_append(&b,
        "KERNEL void dg_halo_pack(const real *__restrict__ q, real *__restrict__ buf,\n"
        "    const int *__restrict__ idx, long long n) {\n"
        "  for (long long z = (long long)blockIdx.x * blockDim.x + threadIdx.x; z < n;\n"
        "       z += (long long)gridDim.x * blockDim.x)\n"
        "    buf[z] = q[idx[z]];\n"
        "}\n\n"
        "KERNEL void dg_halo_unpack(real *__restrict__ q, const real *__restrict__ buf,\n"
        "    const int *__restrict__ idx, long long n) {\n"
        "  for (long long z = (long long)blockIdx.x * blockDim.x + threadIdx.x; z < n;\n"
        "       z += (long long)gridDim.x * blockDim.x)\n"
        "    q[idx[z]] = buf[z];\n"
        "}\n");
  else
    dg_strbuf_append(&b,
        "KERNEL void dg_halo_pack(void **args, int64_t first, int64_t count) {\n"
        "  const real *restrict q = *(const real **)args[0];\n"
        "  real *restrict buf = *(real **)args[1];\n"
        "  const int *restrict idx = *(const int **)args[2];\n"
        "  for (int64_t z = first; z < first + count; ++z)\n"
        "    buf[z] = q[idx[z]];\n"
        "}\n\n"
        "KERNEL void dg_halo_unpack(void **args, int64_t first, int64_t count) {\n"
        "  real *restrict q = *(real **)args[0];\n"
        "  const real *restrict buf = *(const real **)args[1];\n"
        "  const int *restrict idx = *(const int **)args[2];\n"
        "  for (int64_t z = first; z < first + count; ++z)\n"
        "    q[idx[z]] = buf[z];\n"
        "}\n");
  DG_CALL(dg_strbuf_finish(&b, source));
  return DG_OK;
}
