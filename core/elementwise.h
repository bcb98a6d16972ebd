/* Elementwise kernels generated at run time (the seeds' PyCUDA
 * ElementwiseKernel, Kloeckner et al. 2012, sec. 5):
 *
 *   dg_elementwise *k;
 *   DG_CALL(dg_elementwise_create(dev, "axpby",
 *       "double *z, double a, const double *x, double b, const double *y",
 *       "z[i] = a*x[i] + b*y[i]", &k));
 *   DG_CALL(dg_elementwise_call(k, n, (dg_arg[]){DG_ARG_ARRAY(z),
 *       DG_ARG_REAL(a), DG_ARG_ARRAY(x), DG_ARG_REAL(b), DG_ARG_ARRAY(y)}));
 *
 * The operation is C code run for every i in [0, n); it sees the declared
 * arguments, the index `i` (64-bit) and the count `n`.  Declarations are
 * parsed, not pasted: each is `[const] float|double|int|int64_t [*]name`.
 * Identifiers starting with `dg_` are reserved for the generated code.
 * Pointer arguments are assumed not to alias except where an operation
 * reads and writes the same element i (in place updates are fine).
 *
 * The emitted CUDA is a grid-stride loop over a grid sized from the SM
 * count, several independent items per thread (ILP), `__restrict__` const
 * pointers; the emitted C is a `#pragma omp simd` loop over one chunk.
 * Modules are compiled once through dg_device_compile (kernel cache).
 *
 * This API is for framework code; user text never reaches it.  The second
 * half of this header is the signature parser and emit helpers that
 * core/reduction.c shares. */
#ifndef DG_CORE_ELEMENTWISE_H
#define DG_CORE_ELEMENTWISE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "core/array.h"
#include "core/device.h"
#include "core/error.h"
#include "core/strbuf.h"

/* One actual argument of a call. */
typedef enum dg_arg_kind {
  DG_ARG_KIND_ARRAY,   /* a dg_array, for a float / double pointer */
  DG_ARG_KIND_POINTER, /* a raw device pointer (e.g. int arrays) */
  DG_ARG_KIND_REAL,    /* a value for a float / double scalar */
  DG_ARG_KIND_INT      /* a value for an int / int64_t (or real) scalar */
} dg_arg_kind;

typedef struct dg_arg {
  dg_arg_kind kind;
  const dg_array *array;
  void *pointer;
  double real;
  int64_t integer;
} dg_arg;

#define DG_ARG_ARRAY(a) ((dg_arg){.kind = DG_ARG_KIND_ARRAY, .array = (a)})
#define DG_ARG_POINTER(p) ((dg_arg){.kind = DG_ARG_KIND_POINTER, .pointer = (p)})
#define DG_ARG_REAL(x) ((dg_arg){.kind = DG_ARG_KIND_REAL, .real = (x)})
#define DG_ARG_INT(x) ((dg_arg){.kind = DG_ARG_KIND_INT, .integer = (x)})

typedef struct dg_elementwise dg_elementwise;

/* Parse, generate, compile (or find in the cache) and load.  name must be a
 * C identifier; it names the kernel entry and the module. */
dg_error dg_elementwise_create(dg_device *dev, const char *name,
                               const char *arguments, const char *operation,
                               dg_elementwise **out);
void dg_elementwise_destroy(dg_elementwise **k);

/* Run the operation for i in [0, n) on the device's default stream
 * (asynchronous on cuda).  args has one entry per declared argument; array
 * arguments must match the declared dtype and hold at least n elements. */
dg_error dg_elementwise_call(dg_elementwise *k, int64_t n, const dg_arg *args);
dg_error dg_elementwise_call_stream(dg_elementwise *k, dg_stream *stream,
                                    int64_t n, const dg_arg *args);

/* The generated source (for dumps and tests). */
const char *dg_elementwise_source(const dg_elementwise *k);
/* The module dg_elementwise_create compiles for the cuda (cuda != 0) or
 * cpu backend, appended to out; no device is needed (the kernel-source
 * digest test hashes it). */
dg_error dg_elementwise_emit_source(const char *name, const char *arguments,
                                    const char *operation, int cuda,
                                    dg_strbuf *out);

/* ---- Shared with core/reduction.c ---------------------------------------- */

enum { DG_ELEMENTWISE_MAX_PARAMS = 32, DG_ELEMENTWISE_MAX_NAME = 64 };

typedef enum dg_ctype {
  DG_CTYPE_FLOAT,
  DG_CTYPE_DOUBLE,
  DG_CTYPE_INT,
  DG_CTYPE_INT64
} dg_ctype;

typedef struct dg_elementwise_param {
  dg_ctype type;
  int is_pointer;
  int is_const;
  char name[DG_ELEMENTWISE_MAX_NAME];
} dg_elementwise_param;

typedef struct dg_elementwise_signature {
  int count;
  dg_elementwise_param params[DG_ELEMENTWISE_MAX_PARAMS];
} dg_elementwise_signature;

/* Parse "[const] type [*]name, ..." (possibly empty).  Errors name the
 * offending declaration and its position. */
dg_error dg_elementwise_parse_signature(const char *text,
                                        dg_elementwise_signature *out);
/* Check that name is a C identifier not reserved by the generator. */
dg_error dg_elementwise_check_name(const char *what, const char *name);

/* Emitters.  CUDA parameter list ("double *z, const double a, ...");
 * cpu unpacking of void **dg_args into typed locals, one line each. */
void dg_elementwise_emit_cuda_params(dg_strbuf *t,
                                     const dg_elementwise_signature *sig);
void dg_elementwise_emit_cpu_unpack(dg_strbuf *t,
                                    const dg_elementwise_signature *sig);
/* The CUDA loop over i in [0, n) in tiles of DG_BLOCK * DG_ILP items (both
 * macros defined by the caller's source); body is run for each i and may
 * use dg_u, the item's slot 0 .. DG_ILP-1 within the thread. */
void dg_elementwise_emit_cuda_loop(dg_strbuf *t, const char *body);
/* A comment block: what the kernel computes and its arguments. */
void dg_elementwise_emit_header(dg_strbuf *t, const char *kind,
                                const char *name, const char *backend,
                                const char *arguments, const char *what);

/* Values of the actual arguments converted to the declared types, and the
 * void* array a launch takes (pointing into this struct). */
typedef union dg_elementwise_value {
  void *pointer;
  float f;
  double d;
  int i;
  int64_t l;
} dg_elementwise_value;

typedef struct dg_elementwise_packed {
  dg_elementwise_value values[DG_ELEMENTWISE_MAX_PARAMS + 4];
  void *args[DG_ELEMENTWISE_MAX_PARAMS + 4];
  int count;
} dg_elementwise_packed;

/* Check args against sig (kinds, dtypes, lengths >= n) and pack them, then
 * the trailing int64 n.  kernel names the kernel in messages. */
dg_error dg_elementwise_pack(const char *kernel,
                             const dg_elementwise_signature *sig, int64_t n,
                             const dg_arg *args, dg_elementwise_packed *out);
/* Append one extra launch argument (e.g. the partials pointer). */
void dg_elementwise_pack_extra(dg_elementwise_packed *p,
                               dg_elementwise_value v);

/* Grid for a loop over n items in tiles of block * ilp: one block per tile,
 * at most waves times the blocks that fit on all SMs at once (grid-stride
 * beyond that). */
unsigned dg_elementwise_grid(const dg_device_info *info, int64_t n,
                             unsigned block, unsigned ilp, int waves);
/* cpu chunk for n items: about 4 chunks per thread, none tiny. */
int64_t dg_elementwise_cpu_chunk(const dg_device_info *info, int64_t n);

#endif
