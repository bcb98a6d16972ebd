#include "operators/gen_halo.h"

#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "operators/gen_jit.h"

dg_error dg_gen_halo_source(dg_codegen_target target, int precision_float, char **source) {
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
    dg_gen_jit(&b, "operators/jit/halo.cuh");
  else
    dg_gen_jit(&b, "operators/jit/halo.h");
  DG_CALL(dg_strbuf_finish(&b, source));
  return DG_OK;
}
