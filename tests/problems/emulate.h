/* The CUDA source of a side module (dg_quantities, dg_wave_speed: one
 * thread per element, no shared memory or barriers) as C for the cpu
 * backend: first compiled by NVRTC as it is, where NVRTC exists (no GPU
 * needed), then wrapped so that the cpu entry point of the same name runs
 * its blocks and threads in turn.  call: the body of that entry point (it
 * has the kernel's args a[] and calls name_cuda(...) for each thread). */
#ifndef DG_TESTS_PROBLEMS_EMULATE_H
#define DG_TESTS_PROBLEMS_EMULATE_H

#include <stdio.h>
#include <stdlib.h>

#include "core/nvrtc.h"
#include "core/strbuf.h"
#include "tests/expect.h"

static inline char *emulate_module(const char *name, const char *cuda, const char *call,
                                   int *nvrtc_compiled) {
  void *cubin = NULL;
#ifdef DG_TEST_NO_NVRTC /* sanitizer builds: the plain pass compiles it */
  dg_error e = DG_ERR_UNSUPPORTED;
  (void)name;
#else
  size_t size = 0;
  dg_error e = dg_nvrtc_compile(name, cuda, "sm_90", NULL, 0, &cubin, &size);
#endif
  free(cubin);
  if (e == DG_OK)
    (*nvrtc_compiled)++;
  else if (e != DG_ERR_UNSUPPORTED) {
    dg_error_print(stdout);
    EXPECT(0, "NVRTC does not compile the CUDA module");
  }
  dg_error_clear();
  dg_strbuf b;
  dg_strbuf_init(&b);
  dg_strbuf_appendf(&b, "#include <math.h>\n#include <stdint.h>\n"
                        "#define __restrict__ restrict\n"
                        "typedef struct { unsigned x, y, z; } emu_dim3;\n"
                        "static emu_dim3 threadIdx, blockIdx, blockDim;\n"
                        "#define KERNEL static\n#define %s %s_cuda\n",
                    name, name);
  dg_strbuf_append(&b, cuda);
  dg_strbuf_appendf(&b, "#undef %s\nvoid %s(void **a, int64_t first, int64_t count) {\n", name,
                    name);
  dg_strbuf_append(&b, call);
  dg_strbuf_append(&b, "}\n");
  char *s = NULL;
  if (dg_strbuf_finish(&b, &s) != DG_OK)
    return NULL;
  return s;
}

#endif
