/* Reductions generated at run time (the seeds' PyCUDA ReductionKernel):
 * a map expression evaluated for every i in [0, n), combined by a reduce
 * operation (sum or max) starting from a neutral element, returned to the
 * host as a double.  Accumulation is in double even for float data.
 *
 *   dg_reduction *dot;
 *   DG_CALL(dg_reduction_create_dot(dev, DG_DOUBLE, &dot));
 *   double d;
 *   DG_CALL(dg_reduction_call(dot, n, (dg_arg[]){DG_ARG_ARRAY(x),
 *                                                DG_ARG_ARRAY(y)}, &d));
 *
 * cuda: a two-stage tree reduction.  Stage 1: each thread accumulates a
 * grid-stride range in registers (several accumulators for ILP), the block
 * combines them with warp shuffles and shared memory, one partial per block.
 * Stage 2: one block reduces the partials.  No atomics: for a given device
 * and n the result is bitwise reproducible.
 * cpu: one partial per chunk (chunk size depends on n only), combined on
 * the host in chunk order, so results do not depend on the thread count.
 *
 * max propagates NaN (a NaN anywhere gives NaN), so a max-abs check also
 * detects a blown-up solution. */
#ifndef DG_CORE_REDUCTION_H
#define DG_CORE_REDUCTION_H

#include <stdint.h>

#include "core/array.h"
#include "core/device.h"
#include "core/elementwise.h"
#include "core/error.h"

typedef enum dg_reduce_op { DG_REDUCE_SUM, DG_REDUCE_MAX } dg_reduce_op;

typedef struct dg_reduction dg_reduction;

/* arguments as for dg_elementwise_create; map is a C expression in i (e.g.
 * "(double)x[i] * y[i]"); neutral is the identity of op (0 for sum, -inf or
 * a lower bound for max). */
dg_error dg_reduction_create(dg_device *dev, const char *name,
                             const char *arguments, const char *map,
                             dg_reduce_op op, double neutral,
                             dg_reduction **out);

/* Ready-made, for arrays of one dtype:
 *   sum     (x)    = sum_i x[i]
 *   dot     (x, y) = sum_i x[i] y[i]
 *   norm2   (x)    = sqrt(sum_i x[i]^2)
 *   max_abs (x)    = max_i |x[i]|  (0 for n = 0) */
dg_error dg_reduction_create_sum(dg_device *dev, dg_dtype dtype,
                                 dg_reduction **out);
dg_error dg_reduction_create_dot(dg_device *dev, dg_dtype dtype,
                                 dg_reduction **out);
dg_error dg_reduction_create_norm2(dg_device *dev, dg_dtype dtype,
                                   dg_reduction **out);
dg_error dg_reduction_create_max_abs(dg_device *dev, dg_dtype dtype,
                                     dg_reduction **out);

/* The ready-made ones by name, for dg_reduction_emit_ready_source. */
typedef enum dg_reduce_ready {
  DG_REDUCE_READY_SUM,
  DG_REDUCE_READY_DOT,
  DG_REDUCE_READY_NORM2,
  DG_REDUCE_READY_MAX_ABS,
  DG_REDUCE_NREADY
} dg_reduce_ready;

/* The module dg_reduction_create (or the ready-made create of which, for
 * dtype) compiles for the cuda (cuda != 0) or cpu backend, appended to out;
 * no device is needed (the kernel-source digest test hashes them). */
dg_error dg_reduction_emit_source(const char *name, const char *arguments,
                                  const char *map, dg_reduce_op op,
                                  double neutral, int cuda, dg_strbuf *out);
dg_error dg_reduction_emit_ready_source(dg_reduce_ready which, dg_dtype dtype,
                                        int cuda, dg_strbuf *out);

void dg_reduction_destroy(dg_reduction **r);

/* Reduce over i in [0, n); waits for the result (n = 0 gives the neutral
 * element).  The _stream variant runs on stream and synchronises it. */
dg_error dg_reduction_call(dg_reduction *r, int64_t n, const dg_arg *args,
                           double *result);
dg_error dg_reduction_call_stream(dg_reduction *r, dg_stream *stream,
                                  int64_t n, const dg_arg *args,
                                  double *result);

/* The generated source (for dumps and tests). */
const char *dg_reduction_source(const dg_reduction *r);

#endif
