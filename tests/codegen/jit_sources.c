/* operators.jit_sources: the embedded device-code files.
 *
 * core/jit_source.h pastes a table's files by name and expands their
 * #include lines of other files of the table, as a preprocessor would;
 * checked on a small table against the text written out by hand.  Then
 * the generator's own table (operators/jit/, embedded at build time): each
 * file the generator names is there, byte for byte the file in the tree
 * (read from the source folder, so a stale embed fails). */
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
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", argv[1], names[i]);
    char *want = read_file(path);
    s = text_of(emit_gen, names[i]);
    EXPECT(strcmp(s, want) == 0, "%s: the embedded text differs from the file", names[i]);
    free(s);
    free(want);
  }
  return expect_finish();
}
