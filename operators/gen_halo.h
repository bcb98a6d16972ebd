/* Source of the two kernels of the halo exchange of partitioned runs
 * (problems/solver/halo.h): a gather of the face-trace values other ranks need
 * into a contiguous send buffer, and the scatter of received values into
 * the ghost slots of the state array.
 *
 *   dg_halo_pack   (q, buf, idx, n):  buf[z] = q[idx[z]],  z < n
 *   dg_halo_unpack (q, buf, idx, n):  q[idx[z]] = buf[z],  z < n
 * q, buf pointers to real; idx to int (32-bit state offsets, as mapM/mapP);
 * n long long.  cuda: grid-stride loops; cpu: items [first, first+count). */
#ifndef DG_OPERATORS_GEN_HALO_H
#define DG_OPERATORS_GEN_HALO_H

#include "core/error.h"
#include "operators/codegen.h"

/* Emit the module (malloc'd string in *source). */
dg_error dg_gen_halo_source(dg_codegen_target target, int precision_float, char **source);

#endif
