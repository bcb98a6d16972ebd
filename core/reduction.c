#include "core/reduction.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/jit_source.h"

/* Stage 1: blocks of 256 threads, 4 items per thread per tile (as the
 * elementwise kernels), at most 8 waves of resident blocks; measured on an
 * H100, dot moves 0.93 (float) to 1.0 (double) of the copy bandwidth.  One
 * stage 2 block of 1024 threads reduces the <= 8 * 8 * SMs partials.  On
 * cpu at most CPU_CHUNKS partials. */
enum {
  BLOCK1 = 256,
  ILP = 4,
  WAVES = 8,
  BLOCK2 = 1024,
  CPU_CHUNKS = 256,
  CPU_MIN_CHUNK = 16384
};

typedef enum { FINISH_NONE, FINISH_SQRT } finish_op;

struct dg_reduction {
  dg_device *dev;
  char name[DG_ELEMENTWISE_MAX_NAME];
  dg_elementwise_signature sig;
  dg_reduce_op op;
  double neutral;
  finish_op finish;
  char *source;
  dg_module *module;
  dg_kernel *stage1, *stage2; /* stage2: cuda only */
  void *partials;             /* device: max_partials + 1 doubles (the last: the result) */
  int64_t max_partials;
};

/* The neutral element as a literal of the target language. */
static void emit_neutral(dg_strbuf *t, double v, int cuda) {
  if (isinf(v))
    dg_strbuf_appendf(
        t, "#define DG_NEUTRAL (%s%s)\n", v < 0 ? "-" : "",
        cuda ? "__longlong_as_double(0x7ff0000000000000LL)" : "(double)INFINITY");
  else
    dg_strbuf_appendf(t, "#define DG_NEUTRAL ((double)%.17g)\n", v);
}

static const char *op_name(dg_reduce_op op) {
  return op == DG_REDUCE_SUM ? "sum" : "max";
}

static dg_error generate_cuda(const dg_reduction *r, const char *arguments,
                              const char *map, dg_strbuf *t) {
  char what[512];
  snprintf(what, sizeof what, "%s of (%s)", op_name(r->op), map);
  dg_elementwise_emit_header(t, "reduction", r->name, "cuda", arguments, what);
  dg_strbuf_appendf(
      t,
      " * Two-stage tree reduction, accumulated in double.  Stage 1: each\n"
      " * thread folds a grid-stride range into DG_ILP register accumulators,\n"
      " * the block combines them (warp shuffles, then shared memory) into one\n"
      " * partial per block.  Stage 2: one block reduces the partials. */\n"
      "#define DG_BLOCK %d\n"
      "#define DG_BLOCK2 %d\n"
      "#define DG_ILP %d\n",
      BLOCK1, BLOCK2, ILP);
  emit_neutral(t, r->neutral, 1);
  /* dg_reduce: + or a max that propagates NaN (fmax would drop it);
   * dg_block_reduce: warp shuffles, then shared memory, to thread 0. */
  dg_core_jit(t, r->op == DG_REDUCE_SUM ? "core/jit/reduce_sum.cuh" : "core/jit/reduce_max.cuh");
  dg_core_jit(t, "core/jit/block_reduce.cuh");
  dg_strbuf_appendf(t, "extern \"C\" __global__ void __launch_bounds__(DG_BLOCK)\n%s_stage1(\n",
                    r->name);
  dg_elementwise_emit_cuda_params(t, &r->sig);
  dg_core_jit(t, "core/jit/reduction_stage1.cuh");
  dg_strbuf body = {0};
  char *body_text = NULL;
  dg_strbuf_appendf(
      &body, "dg_acc[dg_u] = dg_reduce(dg_acc[dg_u], (double)(%s))", map);
  dg_error err = dg_strbuf_finish(&body, &body_text);
  DG_CALL(err);
  dg_elementwise_emit_cuda_loop(t, body_text);
  free(body_text);
  /* The block's partial, then stage 2: one block over the partials. */
  dg_core_jit(t, "core/jit/reduction_stage1_end.cuh");
  dg_strbuf_appendf(t,
                    "%s_stage2(const double *__restrict__ dg_partials, const long long dg_count,\n",
                    r->name);
  dg_core_jit(t, "core/jit/reduction_stage2.cuh");
  return DG_OK;
}

static dg_error generate_cpu(const dg_reduction *r, const char *arguments,
                             const char *map, dg_strbuf *t) {
  char what[512];
  snprintf(what, sizeof what, "%s of (%s)", op_name(r->op), map);
  dg_elementwise_emit_header(t, "reduction", r->name, "cpu", arguments, what);
  dg_strbuf_appendf(
      t,
      " * One call folds the chunk [dg_first, dg_first + dg_count) into one\n"
      " * double partial, stored at dg_partials[dg_first / dg_chunk]; the host\n"
      " * combines the partials in chunk order. */\n"
      "#include <math.h>\n"
      "#include <stdint.h>\n\n");
  emit_neutral(t, r->neutral, 0);
  dg_strbuf_appendf(
      t, "\nvoid %s(void **dg_args, int64_t dg_first, int64_t dg_count)\n{\n",
      r->name);
  dg_elementwise_emit_cpu_unpack(t, &r->sig);
  dg_strbuf_appendf(
      t,
      "  double *const dg_partials = *(double *const *)dg_args[%d];\n"
      "  const int64_t dg_chunk = *(const int64_t *)dg_args[%d];\n"
      "  const int64_t dg_end = dg_first + dg_count;\n"
      "  double dg_acc = DG_NEUTRAL;\n",
      r->sig.count + 1, r->sig.count + 2);
  if (r->op == DG_REDUCE_SUM)
    dg_strbuf_appendf(
        t,
        "#pragma omp simd reduction(+:dg_acc)\n"
        "  for (int64_t i = dg_first; i < dg_end; ++i)\n"
        "    dg_acc += (double)(%s);\n",
        map);
  else
    /* The simd max reduction's NaN behaviour is unspecified: track NaN in
     * a flag of its own. */
    dg_strbuf_appendf(
        t,
        "  int dg_nan = 0;\n"
        "#pragma omp simd reduction(max:dg_acc) reduction(|:dg_nan)\n"
        "  for (int64_t i = dg_first; i < dg_end; ++i) {\n"
        "    const double dg_v = (double)(%s);\n"
        "    dg_nan |= dg_v != dg_v;\n"
        "    dg_acc = dg_v > dg_acc ? dg_v : dg_acc;\n"
        "  }\n"
        "  if (dg_nan)\n"
        "    dg_acc = NAN;\n",
        map);
  dg_strbuf_appendf(t, "  dg_partials[dg_first / dg_chunk] = dg_acc;\n}\n");
  return DG_OK;
}

static int64_t cpu_chunk(int64_t n) {
  int64_t chunk = (n + CPU_CHUNKS - 1) / CPU_CHUNKS;
  return chunk > CPU_MIN_CHUNK ? chunk : CPU_MIN_CHUNK;
}

static double combine(dg_reduce_op op, double a, double b) {
  if (op == DG_REDUCE_SUM)
    return a + b;
  return (a != a || a > b) ? a : b; /* NaN-propagating max, as on device */
}

/* The checks of a reduction's description, and its fields in r (what the
 * generated text depends on). */
static dg_error describe(const char *name, const char *arguments,
                         const char *map, dg_reduce_op op, double neutral,
                         dg_reduction *r) {
  DG_CHECK(name && arguments && map, DG_ERR_ARG,
           "dg_reduction_create: NULL argument");
  DG_CALL(dg_elementwise_check_name("reduction name", name));
  DG_CHECK(strlen(name) + 8 < DG_ELEMENTWISE_MAX_NAME, DG_ERR_ARG,
           "reduction name '%s' is too long", name);
  DG_CHECK(op == DG_REDUCE_SUM || op == DG_REDUCE_MAX, DG_ERR_ARG,
           "reduce operation %d is neither DG_REDUCE_SUM nor DG_REDUCE_MAX",
           (int)op);
  DG_CHECK(!isnan(neutral), DG_ERR_ARG, "reduction %s: neutral element is NaN",
           name);
  strcpy(r->name, name);
  r->op = op;
  r->neutral = neutral;
  DG_CALL(dg_elementwise_parse_signature(arguments, &r->sig));
  return DG_OK;
}

dg_error dg_reduction_emit_source(const char *name, const char *arguments,
                                  const char *map, dg_reduce_op op,
                                  double neutral, int cuda, dg_strbuf *out) {
  DG_CHECK(out != NULL, DG_ERR_ARG, "dg_reduction_emit_source: NULL argument");
  dg_reduction r = {0};
  DG_CALL(describe(name, arguments, map, op, neutral, &r));
  if (cuda)
    DG_CALL(generate_cuda(&r, arguments, map, out));
  else
    DG_CALL(generate_cpu(&r, arguments, map, out));
  return DG_OK;
}

static dg_error create(dg_device *dev, const char *name, const char *arguments,
                       const char *map, dg_reduce_op op, double neutral,
                       finish_op finish, dg_reduction **out) {
  DG_CHECK(dev && out, DG_ERR_ARG, "dg_reduction_create: NULL argument");
  *out = NULL;
  dg_reduction *r = calloc(1, sizeof *r);
  DG_CHECK(r != NULL, DG_ERR_MEMORY, "out of host memory");
  dg_error err;
  dg_strbuf text;
  dg_strbuf_init(&text);
  r->dev = dev;
  r->finish = finish;
  DG_CALL_GOTO(err, fail, describe(name, arguments, map, op, neutral, r));
  const dg_device_info *info = dg_device_get_info(dev);
  int cuda = info->backend == DG_BACKEND_CUDA;
  char entry[DG_ELEMENTWISE_MAX_NAME + 8];
  r->max_partials = cuda ? dg_elementwise_grid(info, INT64_MAX / 2, BLOCK1, ILP, WAVES)
                         : CPU_CHUNKS;
  DG_CALL_GOTO(err, fail, dg_reduction_emit_source(name, arguments, map, op,
                                                   neutral, cuda, &text));
  DG_CALL_GOTO(err, fail, dg_strbuf_finish(&text, &r->source));
  DG_CALL_GOTO(err, fail,
               dg_device_compile(dev, name, r->source, NULL, 0, &r->module));
  snprintf(entry, sizeof entry, cuda ? "%s_stage1" : "%s", name);
  DG_CALL_GOTO(err, fail, dg_module_get_kernel(r->module, entry, &r->stage1));
  if (cuda) {
    snprintf(entry, sizeof entry, "%s_stage2", name);
    DG_CALL_GOTO(err, fail, dg_module_get_kernel(r->module, entry, &r->stage2));
  }
  DG_CALL_GOTO(err, fail,
               dg_device_malloc(dev, (size_t)(r->max_partials + 1) * sizeof(double),
                                &r->partials));
  *out = r;
  return DG_OK;
fail:
  dg_strbuf_free(&text);
  dg_reduction_destroy(&r);
  return err;
}

dg_error dg_reduction_create(dg_device *dev, const char *name,
                             const char *arguments, const char *map,
                             dg_reduce_op op, double neutral,
                             dg_reduction **out) {
  DG_CALL(create(dev, name, arguments, map, op, neutral, FINISH_NONE, out));
  return DG_OK;
}

/* The ready-made ones convert each element to double before multiplying:
 * a product of two floats is exact in double (24 + 24 < 53 bits), so float
 * data loses nothing before the double accumulation.  Arguments take the
 * dtype's name for each %s. */
static const struct {
  const char *what, *arguments, *map;
  dg_reduce_op op;
  finish_op finish;
} ready[DG_REDUCE_NREADY] = {
    [DG_REDUCE_READY_SUM] = {"sum", "const %s *x", "x[i]", DG_REDUCE_SUM, FINISH_NONE},
    [DG_REDUCE_READY_DOT] = {"dot", "const %s *x, const %s *y",
                             "(double)x[i] * (double)y[i]", DG_REDUCE_SUM, FINISH_NONE},
    [DG_REDUCE_READY_NORM2] = {"norm2", "const %s *x", "(double)x[i] * (double)x[i]",
                               DG_REDUCE_SUM, FINISH_SQRT},
    [DG_REDUCE_READY_MAX_ABS] = {"max_abs", "const %s *x", "fabs((double)x[i])",
                                 DG_REDUCE_MAX, FINISH_NONE}};

static dg_error ready_names(dg_reduce_ready which, dg_dtype dtype,
                            char name[DG_ELEMENTWISE_MAX_NAME], char args[128]) {
  DG_CHECK(dtype == DG_FLOAT || dtype == DG_DOUBLE, DG_ERR_ARG,
           "dtype %d is neither DG_FLOAT nor DG_DOUBLE", (int)dtype);
  DG_CHECK((unsigned)which < DG_REDUCE_NREADY, DG_ERR_ARG,
           "unknown ready-made reduction %d", (int)which);
  const char *t = dg_dtype_name(dtype);
  snprintf(name, DG_ELEMENTWISE_MAX_NAME, "%s_%s", ready[which].what, t);
  snprintf(args, 128, ready[which].arguments, t, t);
  return DG_OK;
}

dg_error dg_reduction_emit_ready_source(dg_reduce_ready which, dg_dtype dtype,
                                        int cuda, dg_strbuf *out) {
  char name[DG_ELEMENTWISE_MAX_NAME], args[128];
  DG_CALL(ready_names(which, dtype, name, args));
  DG_CALL(dg_reduction_emit_source(name, args, ready[which].map, ready[which].op,
                                   0.0, cuda, out));
  return DG_OK;
}

static dg_error create_ready(dg_device *dev, dg_dtype dtype, dg_reduce_ready which,
                             dg_reduction **out) {
  char name[DG_ELEMENTWISE_MAX_NAME], args[128];
  DG_CALL(ready_names(which, dtype, name, args));
  DG_CALL(create(dev, name, args, ready[which].map, ready[which].op, 0.0,
                 ready[which].finish, out));
  return DG_OK;
}

dg_error dg_reduction_create_sum(dg_device *dev, dg_dtype dtype,
                                 dg_reduction **out) {
  DG_CALL(create_ready(dev, dtype, DG_REDUCE_READY_SUM, out));
  return DG_OK;
}

dg_error dg_reduction_create_dot(dg_device *dev, dg_dtype dtype,
                                 dg_reduction **out) {
  DG_CALL(create_ready(dev, dtype, DG_REDUCE_READY_DOT, out));
  return DG_OK;
}

dg_error dg_reduction_create_norm2(dg_device *dev, dg_dtype dtype,
                                   dg_reduction **out) {
  DG_CALL(create_ready(dev, dtype, DG_REDUCE_READY_NORM2, out));
  return DG_OK;
}

dg_error dg_reduction_create_max_abs(dg_device *dev, dg_dtype dtype,
                                     dg_reduction **out) {
  DG_CALL(create_ready(dev, dtype, DG_REDUCE_READY_MAX_ABS, out));
  return DG_OK;
}

void dg_reduction_destroy(dg_reduction **r) {
  if (!r || !*r)
    return;
  if ((*r)->partials)
    dg_device_free((*r)->dev, (*r)->partials);
  dg_module_destroy(&(*r)->module);
  free((*r)->source);
  free(*r);
  *r = NULL;
}

const char *dg_reduction_source(const dg_reduction *r) { return r->source; }

/* Work on a stream must finish before the download reads its result; the
 * download itself is ordered after the device's default stream (and the
 * cpu backend's launches are complete on return). */
static dg_error await_result(dg_reduction *r, dg_stream *stream) {
  (void)r;
  if (stream)
    DG_CALL(dg_stream_synchronize(stream));
  return DG_OK;
}

static dg_error call_cuda(dg_reduction *r, dg_stream *stream, int64_t n,
                          dg_elementwise_packed *packed, double *result) {
  const dg_device_info *info = dg_device_get_info(r->dev);
  unsigned grid = dg_elementwise_grid(info, n, BLOCK1, ILP, WAVES);
  dg_elementwise_pack_extra(packed, (dg_elementwise_value){.pointer = r->partials});
  dg_launch l1 = {.grid = {grid, 1, 1}, .block = {BLOCK1, 1, 1}, .items = n};
  DG_CALL(dg_kernel_launch(r->stage1, &l1, packed->args, stream));
  void *partials = r->partials;
  long long count = grid;
  void *result_ptr =
      dg_device_offset(r->partials, (size_t)r->max_partials * sizeof(double));
  void *args2[] = {&partials, &count, &result_ptr};
  dg_launch l2 = {.grid = {1, 1, 1}, .block = {BLOCK2, 1, 1}, .items = count};
  DG_CALL(dg_kernel_launch(r->stage2, &l2, args2, stream));
  DG_CALL(await_result(r, stream));
  DG_CALL(dg_device_download(r->dev, result, result_ptr, sizeof *result));
  return DG_OK;
}

static dg_error call_cpu(dg_reduction *r, dg_stream *stream, int64_t n,
                         dg_elementwise_packed *packed, double *result) {
  int64_t chunk = cpu_chunk(n);
  int64_t nchunks = (n + chunk - 1) / chunk;
  dg_elementwise_pack_extra(packed, (dg_elementwise_value){.pointer = r->partials});
  dg_elementwise_pack_extra(packed, (dg_elementwise_value){.l = chunk});
  dg_launch l = {.grid = {1, 1, 1}, .block = {1, 1, 1}, .items = n, .chunk = chunk};
  DG_CALL(dg_kernel_launch(r->stage1, &l, packed->args, stream));
  DG_CALL(await_result(r, stream));
  double host[CPU_CHUNKS];
  DG_CALL(dg_device_download(r->dev, host, r->partials,
                             (size_t)nchunks * sizeof *host));
  double acc = r->neutral;
  for (int64_t c = 0; c < nchunks; c++)
    acc = combine(r->op, acc, host[c]);
  *result = acc;
  return DG_OK;
}

dg_error dg_reduction_call_stream(dg_reduction *r, dg_stream *stream,
                                  int64_t n, const dg_arg *args,
                                  double *result) {
  DG_CHECK(r && result, DG_ERR_ARG, "dg_reduction_call: NULL argument");
  dg_elementwise_packed packed;
  DG_CALL(dg_elementwise_pack(r->name, &r->sig, n, args, &packed));
  double value = r->neutral;
  if (n > 0) {
    if (dg_device_get_info(r->dev)->backend == DG_BACKEND_CUDA)
      DG_CALL(call_cuda(r, stream, n, &packed, &value));
    else
      DG_CALL(call_cpu(r, stream, n, &packed, &value));
  }
  *result = r->finish == FINISH_SQRT ? sqrt(value) : value;
  return DG_OK;
}

dg_error dg_reduction_call(dg_reduction *r, int64_t n, const dg_arg *args,
                           double *result) {
  DG_CALL(dg_reduction_call_stream(r, NULL, n, args, result));
  return DG_OK;
}
