#include "core/elementwise.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/jit_source.h"

/* Launch shape of the CUDA emitter, measured on an H100 (dgbench, 2^26
 * elements): 256 threads, 4 items per thread per tile, and a grid of up to
 * 32 waves of resident blocks.  axpy then moves as many bytes per second as
 * cuMemcpyDtoD for float and double data; 8 or 16 items per thread for
 * float, or a single wave of blocks striding over the array, were 2-10%
 * slower. */
enum { BLOCK = 256, ILP = 4, WAVES = 32 };

struct dg_elementwise {
  dg_device *dev;
  char name[DG_ELEMENTWISE_MAX_NAME];
  dg_elementwise_signature sig;
  char *source;
  dg_module *module;
  dg_kernel *kernel;
};

/* ---- the declaration parser --------------------------------------------- */

static const char *const c_keywords[] = {
    "auto",     "break",    "case",     "char",   "const",    "continue",
    "default",  "do",       "double",   "else",   "enum",     "extern",
    "float",    "for",      "goto",     "if",     "inline",   "int",
    "long",     "register", "restrict", "return", "short",    "signed",
    "sizeof",   "static",   "struct",   "switch", "typedef",  "union",
    "unsigned", "void",     "volatile", "while",  "int64_t",  "_Bool",
    "bool",     "true",     "false",    "class",  "new",      "delete",
    "template", "this",     "private",  "public", "operator", "namespace"};

dg_error dg_elementwise_check_name(const char *what, const char *name) {
  size_t len = strlen(name);
  DG_CHECK(len > 0 && len < DG_ELEMENTWISE_MAX_NAME, DG_ERR_ARG,
           "%s '%s' must have 1 to %d characters", what, name,
           DG_ELEMENTWISE_MAX_NAME - 1);
  DG_CHECK(isalpha((unsigned char)name[0]) || name[0] == '_', DG_ERR_ARG,
           "%s '%s' is not a C identifier", what, name);
  for (size_t k = 1; k < len; k++)
    DG_CHECK(isalnum((unsigned char)name[k]) || name[k] == '_', DG_ERR_ARG,
             "%s '%s' is not a C identifier (character '%c')", what, name,
             name[k]);
  DG_CHECK(strncmp(name, "dg_", 3) != 0 && name[0] != '_', DG_ERR_ARG,
           "%s '%s': names starting with 'dg_' or '_' are reserved for "
           "generated code", what, name);
  for (size_t k = 0; k < sizeof c_keywords / sizeof *c_keywords; k++)
    DG_CHECK(strcmp(name, c_keywords[k]) != 0, DG_ERR_ARG,
             "%s '%s' is a C/C++ keyword", what, name);
  return DG_OK;
}

/* A cursor over the declaration text, for messages with positions. */
typedef struct {
  const char *text;
  const char *p;
} cursor;

static void skip_space(cursor *c) {
  while (isspace((unsigned char)*c->p))
    c->p++;
}

/* Reads an identifier-like word into buf; returns its length (0 if none). */
static size_t read_word(cursor *c, char *buf, size_t size) {
  skip_space(c);
  size_t n = 0;
  while (isalnum((unsigned char)c->p[n]) || c->p[n] == '_')
    n++;
  size_t keep = n < size - 1 ? n : size - 1;
  memcpy(buf, c->p, keep);
  buf[keep] = '\0';
  c->p += n;
  return n;
}

static int parse_type(const char *word, dg_ctype *type) {
  static const struct {
    const char *name;
    dg_ctype type;
  } types[] = {{"float", DG_CTYPE_FLOAT},
               {"double", DG_CTYPE_DOUBLE},
               {"int", DG_CTYPE_INT},
               {"int64_t", DG_CTYPE_INT64}};
  for (size_t k = 0; k < sizeof types / sizeof *types; k++)
    if (strcmp(word, types[k].name) == 0) {
      *type = types[k].type;
      return 1;
    }
  return 0;
}

static dg_error parse_param(cursor *c, int index, dg_elementwise_param *p) {
  char word[DG_ELEMENTWISE_MAX_NAME + 1];
  size_t at = (size_t)(c->p - c->text);
  size_t n = read_word(c, word, sizeof word);
  *p = (dg_elementwise_param){0};
  if (n > 0 && strcmp(word, "const") == 0) {
    p->is_const = 1;
    n = read_word(c, word, sizeof word);
  }
  DG_CHECK(n > 0 && parse_type(word, &p->type), DG_ERR_ARG,
           "argument %d of \"%s\" (column %zu): expected float, double, int "
           "or int64_t, found '%.20s'",
           index + 1, c->text, at + 1, n > 0 ? word : c->p);
  skip_space(c);
  if (*c->p == '*') {
    p->is_pointer = 1;
    c->p++;
  }
  at = (size_t)(c->p - c->text);
  n = read_word(c, word, sizeof word);
  DG_CHECK(n > 0, DG_ERR_ARG,
           "argument %d of \"%s\" (column %zu): expected a name, found "
           "'%.20s'",
           index + 1, c->text, at + 1, c->p);
  DG_CHECK(n < DG_ELEMENTWISE_MAX_NAME, DG_ERR_ARG,
           "argument %d of \"%s\": name longer than %d characters", index + 1,
           c->text, DG_ELEMENTWISE_MAX_NAME - 1);
  DG_CALL(dg_elementwise_check_name("argument name", word));
  DG_CHECK(strcmp(word, "i") != 0 && strcmp(word, "n") != 0, DG_ERR_ARG,
           "argument %d of \"%s\": 'i' and 'n' are the index and the count "
           "the generated loop provides",
           index + 1, c->text);
  strcpy(p->name, word);
  return DG_OK;
}

dg_error dg_elementwise_parse_signature(const char *text,
                                        dg_elementwise_signature *out) {
  DG_CHECK(text != NULL, DG_ERR_ARG, "argument list is NULL");
  *out = (dg_elementwise_signature){0};
  cursor c = {text, text};
  skip_space(&c);
  if (*c.p == '\0')
    return DG_OK;
  for (;;) {
    DG_CHECK(out->count < DG_ELEMENTWISE_MAX_PARAMS, DG_ERR_ARG,
             "\"%s\": more than %d arguments", text,
             DG_ELEMENTWISE_MAX_PARAMS);
    dg_elementwise_param *p = &out->params[out->count];
    DG_CALL(parse_param(&c, out->count, p));
    for (int k = 0; k < out->count; k++)
      DG_CHECK(strcmp(out->params[k].name, p->name) != 0, DG_ERR_ARG,
               "\"%s\": argument name '%s' is declared twice", text, p->name);
    out->count++;
    skip_space(&c);
    if (*c.p == '\0')
      return DG_OK;
    DG_CHECK(*c.p == ',', DG_ERR_ARG,
             "\"%s\" (column %zu): expected ',' or the end after argument "
             "'%s', found '%.20s'",
             text, (size_t)(c.p - text) + 1, p->name, c.p);
    c.p++;
  }
}

/* ---- emitters ------------------------------------------------------------ */

static const char *cuda_type(dg_ctype t) {
  switch (t) {
  case DG_CTYPE_FLOAT: return "float";
  case DG_CTYPE_DOUBLE: return "double";
  case DG_CTYPE_INT: return "int";
  case DG_CTYPE_INT64: return "long long"; /* NVRTC has no <stdint.h> */
  }
  return "?";
}

static const char *c_type(dg_ctype t) {
  return t == DG_CTYPE_INT64 ? "int64_t" : cuda_type(t);
}

void dg_elementwise_emit_cuda_params(dg_strbuf *t,
                                     const dg_elementwise_signature *sig) {
  for (int k = 0; k < sig->count; k++) {
    const dg_elementwise_param *p = &sig->params[k];
    /* Read-only arrays are __restrict__ so loads of several items may be
     * issued before the stores (the ILP the loop is unrolled for). */
    if (p->is_pointer)
      dg_strbuf_appendf(t, "    %s%s *%s%s,\n",
                                 p->is_const ? "const " : "",
                                 cuda_type(p->type),
                                 p->is_const ? "__restrict__ " : "", p->name);
    else
      dg_strbuf_appendf(t, "    const %s %s,\n", cuda_type(p->type),
                                 p->name);
  }
}

void dg_elementwise_emit_cpu_unpack(dg_strbuf *t,
                                    const dg_elementwise_signature *sig) {
  for (int k = 0; k < sig->count; k++) {
    const dg_elementwise_param *p = &sig->params[k];
    const char *ty = c_type(p->type);
    if (p->is_pointer)
      dg_strbuf_appendf(
          t, "  %s%s *%sconst %s = *(%s%s *const *)dg_args[%d];\n",
          p->is_const ? "const " : "", ty, p->is_const ? "restrict " : "",
          p->name, p->is_const ? "const " : "", ty, k);
    else
      dg_strbuf_appendf(t, "  const %s %s = *(const %s *)dg_args[%d];\n",
                                 ty, p->name, ty, k);
  }
  dg_strbuf_appendf(
      t, "  const int64_t n = *(const int64_t *)dg_args[%d];\n  (void)n;\n",
      sig->count);
}

void dg_elementwise_emit_header(dg_strbuf *t, const char *kind,
                                const char *name, const char *backend,
                                const char *arguments, const char *what) {
  dg_strbuf_appendf(t,
                             "/* dgrun %s kernel \"%s\" (generated for the %s "
                             "backend by core/%s.c)\n"
                             " *   arguments: %s\n"
                             " *   for every i in [0, n):  %s\n",
                             kind, name, backend, kind, arguments, what);
}

/* ---- argument packing ---------------------------------------------------- */

static dg_dtype dtype_of(dg_ctype t) {
  return t == DG_CTYPE_FLOAT ? DG_FLOAT : DG_DOUBLE;
}

static dg_error pack_one(const char *kernel, const dg_elementwise_param *p,
                         int64_t n, const dg_arg *a, dg_elementwise_value *v) {
  if (p->is_pointer) {
    if (a->kind == DG_ARG_KIND_POINTER) {
      v->pointer = a->pointer;
      return DG_OK;
    }
    DG_CHECK(a->kind == DG_ARG_KIND_ARRAY && a->array != NULL, DG_ERR_ARG,
             "kernel %s: argument '%s' is a pointer; pass DG_ARG_ARRAY or "
             "DG_ARG_POINTER", kernel, p->name);
    DG_CHECK(p->type == DG_CTYPE_FLOAT || p->type == DG_CTYPE_DOUBLE,
             DG_ERR_ARG,
             "kernel %s: argument '%s' is an integer pointer; dg_arrays are "
             "float or double, pass DG_ARG_POINTER", kernel, p->name);
    dg_dtype have = dg_array_dtype(a->array);
    DG_CHECK(have == dtype_of(p->type), DG_ERR_ARG,
             "kernel %s: argument '%s' is declared %s but the array holds %s",
             kernel, p->name, cuda_type(p->type), dg_dtype_name(have));
    DG_CHECK(dg_array_length(a->array) >= n, DG_ERR_ARG,
             "kernel %s: array '%s' has %lld elements, the call needs n = %lld",
             kernel, p->name, (long long)dg_array_length(a->array),
             (long long)n);
    v->pointer = dg_array_data(a->array);
    return DG_OK;
  }
  switch (p->type) {
  case DG_CTYPE_FLOAT:
  case DG_CTYPE_DOUBLE: {
    DG_CHECK(a->kind == DG_ARG_KIND_REAL || a->kind == DG_ARG_KIND_INT,
             DG_ERR_ARG, "kernel %s: argument '%s' is a %s scalar; pass "
             "DG_ARG_REAL", kernel, p->name, cuda_type(p->type));
    double x = a->kind == DG_ARG_KIND_REAL ? a->real : (double)a->integer;
    if (p->type == DG_CTYPE_FLOAT)
      v->f = (float)x;
    else
      v->d = x;
    return DG_OK;
  }
  case DG_CTYPE_INT:
  case DG_CTYPE_INT64:
    DG_CHECK(a->kind == DG_ARG_KIND_INT, DG_ERR_ARG,
             "kernel %s: argument '%s' is an integer scalar; pass DG_ARG_INT",
             kernel, p->name);
    if (p->type == DG_CTYPE_INT) {
      DG_CHECK(a->integer >= INT_MIN && a->integer <= INT_MAX, DG_ERR_ARG,
               "kernel %s: argument '%s' = %lld does not fit an int", kernel,
               p->name, (long long)a->integer);
      v->i = (int)a->integer;
    } else {
      v->l = a->integer;
    }
    return DG_OK;
  }
  DG_RAISE(DG_ERR_INTERNAL, "kernel %s: unknown type of '%s'", kernel, p->name);
}

dg_error dg_elementwise_pack(const char *kernel,
                             const dg_elementwise_signature *sig, int64_t n,
                             const dg_arg *args, dg_elementwise_packed *out) {
  DG_CHECK(n >= 0, DG_ERR_ARG, "kernel %s: n = %lld must be >= 0", kernel,
           (long long)n);
  DG_CHECK(sig->count == 0 || args != NULL, DG_ERR_ARG,
           "kernel %s: args is NULL, %d arguments expected", kernel, sig->count);
  out->count = 0;
  for (int k = 0; k < sig->count; k++) {
    DG_CALL(pack_one(kernel, &sig->params[k], n, &args[k], &out->values[k]));
    out->args[k] = &out->values[k];
  }
  out->count = sig->count;
  dg_elementwise_pack_extra(out, (dg_elementwise_value){.l = n});
  return DG_OK;
}

void dg_elementwise_pack_extra(dg_elementwise_packed *p,
                               dg_elementwise_value v) {
  p->values[p->count] = v;
  p->args[p->count] = &p->values[p->count];
  p->count++;
}

unsigned dg_elementwise_grid(const dg_device_info *info, int64_t n,
                             unsigned block, unsigned ilp, int waves) {
  int64_t per_block = (int64_t)block * ilp;
  int64_t needed = (n + per_block - 1) / per_block;
  int sms = info->multiprocessors > 0 ? info->multiprocessors : 1;
  int64_t full = (int64_t)sms * (2048 / block) * waves;
  int64_t grid = needed < full ? needed : full;
  return (unsigned)(grid > 0 ? grid : 1);
}

int64_t dg_elementwise_cpu_chunk(const dg_device_info *info, int64_t n) {
  /* Below ~16k items a chunk costs more to schedule than to compute. */
  int threads = info->multiprocessors > 0 ? info->multiprocessors : 1;
  int64_t chunk = (n + 4 * threads - 1) / (4 * threads);
  return chunk > 16384 ? chunk : 16384;
}

/* ---- generation ---------------------------------------------------------- */

/* Tiles of DG_BLOCK * DG_ILP consecutive items, grid-stride over the tiles
 * (64-bit index); a thread takes items dg_u * DG_BLOCK + threadIdx.x of
 * its tile, so every load of a warp is coalesced and the constant offsets
 * let the compiler issue all DG_ILP loads before the first store; then the
 * last, partial tile (core/jit/elementwise_tiles.cuh, _tail.cuh). */
void dg_elementwise_emit_cuda_loop(dg_strbuf *t, const char *body) {
  dg_core_jit(t, "core/jit/elementwise_tiles.cuh");
  dg_strbuf_appendf(t, "      %s;\n", body);
  dg_core_jit(t, "core/jit/elementwise_tail.cuh");
  dg_strbuf_appendf(t, "      %s;\n    }\n  }\n", body);
}

static void generate_cuda(const char *name, const char *arguments,
                          const dg_elementwise_signature *sig,
                          const char *operation, dg_strbuf *t) {
  dg_elementwise_emit_header(t, "elementwise", name, "cuda", arguments,
                             operation);
  dg_strbuf_appendf(
      t,
      " * Grid: enough blocks to fill every SM, fewer for small n. */\n"
      "#define DG_BLOCK %d\n"
      "#define DG_ILP %d\n\n"
      "extern \"C\" __global__ void __launch_bounds__(DG_BLOCK)\n%s(\n",
      BLOCK, ILP, name);
  dg_elementwise_emit_cuda_params(t, sig);
  dg_strbuf_appendf(t, "    const long long n)\n{\n");
  dg_elementwise_emit_cuda_loop(t, operation);
  dg_strbuf_appendf(t, "}\n");
}

static void generate_cpu(const char *name, const char *arguments,
                         const dg_elementwise_signature *sig,
                         const char *operation, dg_strbuf *t) {
  dg_elementwise_emit_header(t, "elementwise", name, "cpu", arguments,
                             operation);
  dg_strbuf_appendf(
      t,
      " * One call handles the chunk [dg_first, dg_first + dg_count); the\n"
      " * backend runs the chunks on OpenMP threads. */\n"
      "#include <math.h>\n"
      "#include <stdint.h>\n\n"
      "void %s(void **dg_args, int64_t dg_first, int64_t dg_count)\n"
      "{\n",
      name);
  dg_elementwise_emit_cpu_unpack(t, sig);
  dg_strbuf_appendf(
      t,
      "  const int64_t dg_end = dg_first + dg_count;\n"
      "#pragma omp simd\n"
      "  for (int64_t i = dg_first; i < dg_end; ++i) {\n"
      "    %s;\n"
      "  }\n"
      "}\n",
      operation);
}

dg_error dg_elementwise_emit_source(const char *name, const char *arguments,
                                    const char *operation, int cuda,
                                    dg_strbuf *out) {
  DG_CHECK(name && arguments && operation && out, DG_ERR_ARG,
           "dg_elementwise_emit_source: NULL argument");
  DG_CALL(dg_elementwise_check_name("kernel name", name));
  dg_elementwise_signature sig;
  DG_CALL(dg_elementwise_parse_signature(arguments, &sig));
  if (cuda)
    generate_cuda(name, arguments, &sig, operation, out);
  else
    generate_cpu(name, arguments, &sig, operation, out);
  return DG_OK;
}

dg_error dg_elementwise_create(dg_device *dev, const char *name,
                               const char *arguments, const char *operation,
                               dg_elementwise **out) {
  DG_CHECK(dev && name && arguments && operation && out, DG_ERR_ARG,
           "dg_elementwise_create: NULL argument");
  *out = NULL;
  DG_CALL(dg_elementwise_check_name("kernel name", name));
  dg_elementwise *k = calloc(1, sizeof *k);
  DG_CHECK(k != NULL, DG_ERR_MEMORY, "out of host memory");
  dg_error err;
  k->dev = dev;
  strcpy(k->name, name);
  dg_strbuf text;
  dg_strbuf_init(&text);
  DG_CALL_GOTO(err, fail, dg_elementwise_parse_signature(arguments, &k->sig));
  DG_CALL_GOTO(err, fail, dg_elementwise_emit_source(
                              name, arguments, operation,
                              dg_device_get_info(dev)->backend == DG_BACKEND_CUDA,
                              &text));
  DG_CALL_GOTO(err, fail, dg_strbuf_finish(&text, &k->source));
  DG_CALL_GOTO(err, fail,
               dg_device_compile(dev, name, k->source, NULL, 0, &k->module));
  DG_CALL_GOTO(err, fail, dg_module_get_kernel(k->module, name, &k->kernel));
  *out = k;
  return DG_OK;
fail:
  dg_elementwise_destroy(&k);
  return err;
}

void dg_elementwise_destroy(dg_elementwise **k) {
  if (!k || !*k)
    return;
  dg_module_destroy(&(*k)->module);
  free((*k)->source);
  free(*k);
  *k = NULL;
}

const char *dg_elementwise_source(const dg_elementwise *k) { return k->source; }

dg_error dg_elementwise_call_stream(dg_elementwise *k, dg_stream *stream,
                                    int64_t n, const dg_arg *args) {
  DG_CHECK(k != NULL, DG_ERR_ARG, "dg_elementwise_call: kernel is NULL");
  dg_elementwise_packed packed;
  DG_CALL(dg_elementwise_pack(k->name, &k->sig, n, args, &packed));
  if (n == 0)
    return DG_OK; /* a CUDA grid of 0 blocks is an error, and nothing to do */
  const dg_device_info *info = dg_device_get_info(k->dev);
  dg_launch launch = {.grid = {1, 1, 1}, .block = {1, 1, 1}, .items = n};
  if (info->backend == DG_BACKEND_CUDA) {
    launch.grid[0] = dg_elementwise_grid(info, n, BLOCK, ILP, WAVES);
    launch.block[0] = BLOCK;
  } else {
    launch.chunk = dg_elementwise_cpu_chunk(info, n);
  }
  DG_CALL(dg_kernel_launch(k->kernel, &launch, packed.args, stream));
  return DG_OK;
}

dg_error dg_elementwise_call(dg_elementwise *k, int64_t n, const dg_arg *args) {
  DG_CALL(dg_elementwise_call_stream(k, NULL, n, args));
  return DG_OK;
}
