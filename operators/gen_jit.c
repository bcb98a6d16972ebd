#include "operators/gen_jit.h"

#include "core/jit_source.h"

/* generated from operators/jit/ (cmake/embed_sources.cmake) */
extern const dg_jit_source dg_operators_jit[];

void dg_gen_jit(dg_strbuf *b, const char *name) { dg_jit_source_append(b, dg_operators_jit, name); }
