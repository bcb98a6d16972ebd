/* What the solver's side modules share (quantities.h, wave_speed.h): a
 * generated module of one kernel with one cuda thread per owned element,
 * compiled beside dg_operators, dumped with it (--dump-kernels), and for
 * tests generated for the other target and handed through a wrapper (the
 * CUDA source run on the CPU by an emulation shim). */
#ifndef DG_PROBLEMS_ELEMENT_MODULE_H
#define DG_PROBLEMS_ELEMENT_MODULE_H

#include <stdint.h>

#include "core/device.h"
#include "operators/codegen.h"
#include "problems/solver/solver.h"

/* The target of the module: target >= 0 as given, else the device's. */
dg_codegen_target dg_element_module_target(const dg_solver *s, int target);

/* Compile src (malloc'd, taken over: freed here) as module `name` with its
 * kernel of the same name: written to the solver's dump directory as
 * name.cu / name.c first, then passed through wrap (NULL: none). */
dg_error dg_element_module_load(dg_solver *s, const char *name, dg_codegen_target tg,
                                char *src, char *(*wrap)(const char *), dg_module **mod,
                                dg_kernel **k);

/* Launch k over the K_owned elements (cuda: 128 threads a block, one per
 * element; cpu: the solver's chunks, or one chunk for a wrapped module). */
dg_error dg_element_module_launch(dg_solver *s, dg_kernel *k, int64_t K_owned, int one_chunk,
                                  void **args);

#endif
