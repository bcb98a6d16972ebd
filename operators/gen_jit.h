/* The generator's fixed device code: the files of operators/jit/, embedded
 * at build time (operators/CMakeLists.txt, core/jit_source.h) and inserted
 * into a module verbatim by name, so that the module NVRTC or cc compiles
 * is self-contained and each file in the tree is the single source of its
 * text.  Names are paths from the source root ("operators/jit/update.cuh"):
 * .cuh for cuda modules, .h for c modules. */
#ifndef DG_OPERATORS_GEN_JIT_H
#define DG_OPERATORS_GEN_JIT_H

#include "core/strbuf.h"

/* Append the embedded file name (its own #includes of embedded files
 * expanded). */
void dg_gen_jit(dg_strbuf *b, const char *name);

#endif
