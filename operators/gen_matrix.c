/* The operator matrices as constant tables of the module text
 * (dg_gen_emit_matrix, gen_context.h), with their formatted text memoised.
 *
 * Why the memo: every variant of a module prints the same D, LIFT and
 * interpolation tables, and %.17e is glibc's slow path (multi-precision
 * digit generation): measured, 55 % of the generation of the tuner's
 * variant space (operators.kernel_digests) was printf of table entries.
 * A table is looked up by its full contents and format, so the text is
 * exactly what printing it again would give. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "operators/gen_context.h"

enum { MEMO_SLOTS = 16 };

typedef struct memo_entry {
  int tg, place, is_float, rows, cols;
  char name[32];
  double *a;  /* a copy of the entries, rows * cols */
  char *text; /* the formatted table */
} memo_entry;

static memo_entry memo[MEMO_SLOTS];
static int memo_next;
static pthread_mutex_t memo_lock = PTHREAD_MUTEX_INITIALIZER;

static void format_matrix(dg_strbuf *b, dg_codegen_target tg, dg_matrix_place place,
                          int is_float, const char *name, const double *a, int rows, int cols) {
  const char *qual = tg == DG_CODEGEN_C ? "static const"
                     : place == DG_MATRIX_CONSTANT ? "__constant__ const"
                                                   : "__device__ const";
  int colmajor = tg == DG_CODEGEN_CUDA;
  dg_strbuf_appendf(b, "/* %s: %d x %d, %s */\n%s real %s[%d] = {", name, rows, cols,
                    colmajor ? "column-major" : "row-major", qual, name, rows * cols);
  for (int z = 0; z < rows * cols; z++) {
    if (z % 4 == 0)
      dg_strbuf_append(b, "\n  ");
    double v = colmajor ? a[(z % rows) * cols + z / rows] : a[z];
    dg_strbuf_appendf(b, is_float ? "%.9ef, " : "%.17e, ", v);
  }
  dg_strbuf_append(b, "\n};\n\n");
}

static int memo_matches(const memo_entry *m, dg_codegen_target tg, dg_matrix_place place,
                        int is_float, const char *name, const double *a, int rows, int cols) {
  return m->text && m->tg == (int)tg && m->place == (int)place && m->is_float == is_float &&
         m->rows == rows && m->cols == cols && strcmp(m->name, name) == 0 &&
         memcmp(m->a, a, sizeof(double) * (size_t)rows * (size_t)cols) == 0;
}

void dg_gen_emit_matrix(dg_strbuf *b, dg_codegen_target tg, dg_matrix_place place, int is_float,
                        const char *name, const double *a, int rows, int cols) {
  if (strlen(name) >= sizeof memo[0].name || rows <= 0 || cols <= 0) {
    format_matrix(b, tg, place, is_float, name, a, rows, cols);
    return;
  }
  pthread_mutex_lock(&memo_lock);
  for (int i = 0; i < MEMO_SLOTS; i++)
    if (memo_matches(&memo[i], tg, place, is_float, name, a, rows, cols)) {
      dg_strbuf_append(b, memo[i].text);
      pthread_mutex_unlock(&memo_lock);
      return;
    }
  pthread_mutex_unlock(&memo_lock);
  /* Not held: format it on its own, then keep a copy (a full memo or a
   * failed allocation only costs the next lookup). */
  dg_strbuf t;
  dg_strbuf_init(&t);
  format_matrix(&t, tg, place, is_float, name, a, rows, cols);
  char *text = NULL;
  if (dg_strbuf_finish(&t, &text) != DG_OK || !text) {
    format_matrix(b, tg, place, is_float, name, a, rows, cols);
    return;
  }
  dg_strbuf_append(b, text);
  size_t n = (size_t)rows * (size_t)cols;
  double *copy = malloc(sizeof(double) * n);
  if (!copy) {
    free(text);
    return;
  }
  memcpy(copy, a, sizeof(double) * n);
  pthread_mutex_lock(&memo_lock);
  memo_entry *m = &memo[memo_next];
  memo_next = (memo_next + 1) % MEMO_SLOTS;
  free(m->a);
  free(m->text);
  *m = (memo_entry){(int)tg, (int)place, is_float, rows, cols, {0}, copy, text};
  strcpy(m->name, name);
  pthread_mutex_unlock(&memo_lock);
}
