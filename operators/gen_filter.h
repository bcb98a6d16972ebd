/* Kernel family: dg_filter, the modal filter of the state (gen_filter.c): a
 * module of its own, compiled only for a run that asks for a filter
 * ([discretization] filter), so that the right-hand side's modules stay as
 * they are.
 *
 * For each owned element k and component c the element's nodal values are
 * replaced by F times them, F the NP x NP filter matrix (dg/filter.h).
 * Arguments (args[i] points at the value, both backends): (q, K, K_owned),
 * q the state (device layout, sreal, in place), K its stride and K_owned the
 * elements filtered (long long).  cuda: one thread per element, blocks of
 * DG_GEN_FILTER_THREADS; c: one element per loop iteration. */
#ifndef DG_OPERATORS_GEN_FILTER_H
#define DG_OPERATORS_GEN_FILTER_H

#include "core/strbuf.h"
#include "operators/codegen.h"

typedef struct dg_filter_spec {
  int Np, np_pad, ncomp;
  dg_field_layout layout; /* of the state */
  int state_float;
  const double *F; /* Np x Np, row-major */
} dg_filter_spec;

enum { DG_GEN_FILTER_THREADS = 128 };

/* The whole dg_filter module for target tg into *source (malloc'd). */
dg_error dg_gen_filter(dg_codegen_target tg, const dg_filter_spec *spec, char **source);

#endif
