/* operators.jit_sources: the embedded device-code files.
 *
 * core/jit_source.h pastes a table's files by name and expands their
 * #include lines of other files of the table, as a preprocessor would;
 * checked on a small table against the text written out by hand.  Then
 * the generator's own table (operators/jit/, embedded at build time) and
 * core's (core/jit/): each file the layer names is there, byte for byte
 * the file in the tree (read from the source folder, so a stale embed
 * fails). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/jit_source.h"
#include "operators/gen_jit.h"
#include "tests/expect.h"

static const dg_jit_source table[] = {
    {"a.h", "#define A 1\n#include \"b.h\"\nint a;\n", 0},
    {"b.h", "#include <math.h>\n#define B 2\n", 0},
    {"loop.h", "#include \"loop.h\"\n", 0},
    {0, 0, 0}};

static char *read_file(const char *path);

static char *text_of(void (*emit)(dg_strbuf *, const void *), const void *arg) {
  dg_strbuf b;
  dg_strbuf_init(&b);
  emit(&b, arg);
  char *s = NULL;
  MUST(dg_strbuf_finish(&b, &s));
  return s;
}

static void emit_table(dg_strbuf *b, const void *name) { dg_jit_source_append(b, table, name); }
static void emit_gen(dg_strbuf *b, const void *name) { dg_gen_jit(b, name); }
static void emit_core(dg_strbuf *b, const void *name) { dg_core_jit(b, name); }

/* Each embedded file of a table, through its layer's insert, equals the
 * file in the tree. */
static void check_files(const char *root, void (*emit)(dg_strbuf *, const void *),
                        const char *const *names, size_t n) {
  for (size_t i = 0; i < n; i++) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", root, names[i]);
    char *want = read_file(path);
    char *s = text_of(emit, names[i]);
    EXPECT(strcmp(s, want) == 0, "%s: the embedded text differs from the file", names[i]);
    free(s);
    free(want);
  }
}

static char *read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  CHECK(f != NULL, "cannot read %s", path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  CHECK(s != NULL && fread(s, 1, (size_t)n, f) == (size_t)n, "cannot read %s", path);
  s[n] = '\0';
  fclose(f);
  return s;
}

int main(int argc, char **argv) {
  CHECK(argc == 2, "usage: test_jit_sources SOURCE_ROOT");
  char *s = text_of(emit_table, "a.h");
  EXPECT(strcmp(s, "#define A 1\n#include <math.h>\n#define B 2\nint a;\n") == 0, "got [%s]", s);
  free(s);
  s = text_of(emit_table, "nowhere.h");
  EXPECT(strstr(s, "#error") == s && strstr(s, "nowhere.h is missing"), "got [%s]", s);
  free(s);
  s = text_of(emit_table, "loop.h");
  EXPECT(strstr(s, "#error") && strstr(s, "includes itself"), "got [%s]", s);
  free(s);
  /* the files the generator inserts (gen_*.c) */
  static const char *names[] = {"operators/jit/update.cuh",       "operators/jit/update.h",
                                "operators/jit/halo.cuh",         "operators/jit/halo.h",
                                "operators/jit/mma_fp64.cuh",     "operators/jit/mma_tf32.cuh",
                                "operators/jit/l2_prefetch.cuh",  "operators/jit/stream_access.cuh"};
  check_files(argv[1], emit_gen, names, sizeof names / sizeof *names);
  /* the files core/ inserts (sparse.c, elementwise.c, reduction.c) */
  static const char *core[] = {
      "core/jit/spmv_params.cuh",
      "core/jit/spmv_csr_scalar.cuh",
      "core/jit/spmv_csr_vector.cuh",
      "core/jit/spmv_ell.cuh",
      "core/jit/spmv_bsr.cuh",
      "core/jit/spmv_unpack.h",
      "core/jit/spmv_ell.h",
      "core/jit/spmv_bsr.h",
      "core/jit/elementwise_tiles.cuh",
      "core/jit/elementwise_tail.cuh",
      "core/jit/reduce_sum.cuh",
      "core/jit/reduce_max.cuh",
      "core/jit/block_reduce.cuh",
      "core/jit/reduction_stage1.cuh",
      "core/jit/reduction_stage1_end.cuh",
      "core/jit/reduction_stage2.cuh",
  };
  check_files(argv[1], emit_core, core, sizeof core / sizeof *core);
  return expect_finish();
}
