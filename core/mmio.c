#include "core/mmio.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/fsutil.h"
#include "core/strbuf.h"

/* A cursor over the file text that knows its line and column. */
typedef struct {
  const char *path;
  const char *p;
  int line;
  const char *line_start;
} cursor;

static int column(const cursor *c) { return (int)(c->p - c->line_start) + 1; }

/* How much of the text at p to quote in a message: the rest of the line,
 * at most 20 characters. */
static int quote_len(const char *p) {
  size_t n = strcspn(p, "\r\n");
  return (int)(n < 20 ? n : 20);
}

static void skip_blanks(cursor *c) {
  while (*c->p == ' ' || *c->p == '\t' || *c->p == '\r')
    c->p++;
}

static void next_line(cursor *c) {
  while (*c->p && *c->p != '\n')
    c->p++;
  if (*c->p == '\n') {
    c->p++;
    c->line++;
    c->line_start = c->p;
  }
}

/* Read one whitespace-separated word (at most size - 1 characters). */
static size_t read_word(cursor *c, char *buf, size_t size) {
  skip_blanks(c);
  size_t n = 0;
  while (c->p[n] && !isspace((unsigned char)c->p[n]))
    n++;
  size_t keep = n < size - 1 ? n : size - 1;
  memcpy(buf, c->p, keep);
  buf[keep] = '\0';
  c->p += n;
  return n;
}

#define INPUT_ERROR(c, col, ...)                                              \
  return input_error((c), (col), __LINE__, __VA_ARGS__)

static dg_error input_error(const cursor *c, int col, int src_line,
                            const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static dg_error input_error(const cursor *c, int col, int src_line,
                            const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return dg_error_raise(DG_ERR_INPUT, __FILE__, src_line, "dg_mmio_read",
                        "%s:%d:%d: %s", c->path, c->line, col, msg);
}

static dg_error read_int(cursor *c, const char *what, int64_t lo, int64_t hi,
                         int64_t *out) {
  skip_blanks(c);
  int col = column(c);
  char *end;
  errno = 0;
  long long v = strtoll(c->p, &end, 10);
  if (end == c->p || (*end && !isspace((unsigned char)*end)))
    INPUT_ERROR(c, col, "expected %s (an integer), found '%.*s'", what,
                quote_len(c->p), c->p);
  if (errno == ERANGE || v < lo || v > hi)
    INPUT_ERROR(c, col, "%s %.*s outside [%lld, %lld]", what,
                (int)(end - c->p), c->p, (long long)lo, (long long)hi);
  c->p = end;
  *out = v;
  return DG_OK;
}

static dg_error read_real(cursor *c, double *out) {
  skip_blanks(c);
  int col = column(c);
  char *end;
  double v = strtod(c->p, &end);
  if (end == c->p || (*end && !isspace((unsigned char)*end)))
    INPUT_ERROR(c, col, "expected a value (a real number), found '%.*s'",
                quote_len(c->p), c->p);
  if (!isfinite(v))
    INPUT_ERROR(c, col, "value %.*s is not finite", (int)(end - c->p), c->p);
  c->p = end;
  *out = v;
  return DG_OK;
}

static dg_error expect_line_end(cursor *c) {
  skip_blanks(c);
  if (*c->p && *c->p != '\n')
    INPUT_ERROR(c, column(c), "unexpected '%.*s' at the end of the line",
                quote_len(c->p), c->p);
  next_line(c);
  return DG_OK;
}

/* "%%MatrixMarket matrix coordinate real|integer general|symmetric". */
static dg_error read_banner(cursor *c, int *symmetric) {
  static const char *const expect[] = {"%%MatrixMarket", "matrix",
                                       "coordinate"};
  char word[64];
  for (int k = 0; k < 3; k++) {
    skip_blanks(c);
    int col = column(c);
    read_word(c, word, sizeof word);
    if (strcasecmp(word, expect[k]) != 0)
      INPUT_ERROR(c, col, "expected '%s' in the Matrix Market banner, found "
                  "'%s'%s", expect[k], word,
                  k == 2 ? " (only the sparse coordinate format is read)" : "");
  }
  skip_blanks(c);
  int col = column(c);
  read_word(c, word, sizeof word);
  if (strcasecmp(word, "real") != 0 && strcasecmp(word, "integer") != 0)
    INPUT_ERROR(c, col, "value type '%s' is not supported (real or integer)",
                word);
  skip_blanks(c);
  col = column(c);
  read_word(c, word, sizeof word);
  if (strcasecmp(word, "general") == 0)
    *symmetric = 0;
  else if (strcasecmp(word, "symmetric") == 0)
    *symmetric = 1;
  else
    INPUT_ERROR(c, col, "symmetry '%s' is not supported (general or "
                "symmetric)", word);
  DG_CALL(expect_line_end(c));
  return DG_OK;
}

static void skip_comments(cursor *c) {
  for (;;) {
    const char *q = c->p;
    while (*q == ' ' || *q == '\t' || *q == '\r')
      q++;
    if (*q == '%' || *q == '\n')
      next_line(c);
    else
      return;
  }
}

static dg_error parse(cursor *c, dg_csr **out) {
  int symmetric = 0;
  DG_CALL(read_banner(c, &symmetric));
  skip_comments(c);
  int64_t m, n, nnz;
  DG_CALL(read_int(c, "the row count", 0, INT64_MAX / 2, &m));
  DG_CALL(read_int(c, "the column count", 0, INT64_MAX / 2, &n));
  DG_CALL(read_int(c, "the entry count", 0, INT64_MAX / 64, &nnz));
  DG_CALL(expect_line_end(c));
  if (symmetric && m != n)
    INPUT_ERROR(c, 1, "a symmetric matrix must be square, the size line "
                "says %lld x %lld", (long long)m, (long long)n);
  int64_t cap = symmetric ? 2 * nnz : nnz;
  int64_t *rows = malloc((size_t)(cap > 0 ? cap : 1) * sizeof *rows);
  int64_t *cols = malloc((size_t)(cap > 0 ? cap : 1) * sizeof *cols);
  double *vals = malloc((size_t)(cap > 0 ? cap : 1) * sizeof *vals);
  dg_error err = DG_OK;
  DG_CHECK_GOTO(err, done, rows && cols && vals, DG_ERR_MEMORY,
                "out of host memory for %lld entries", (long long)nnz);
  int64_t at = 0;
  for (int64_t k = 0; k < nnz; k++) {
    skip_comments(c);
    if (!*c->p) {
      err = input_error(c, 1, __LINE__, "the file ends after %lld of %lld "
                        "entries", (long long)k, (long long)nnz);
      goto done;
    }
    int64_t i = 0, j = 0;
    double v = 0.0;
    DG_CALL_GOTO(err, done, read_int(c, "the row index", 1, m, &i));
    skip_blanks(c);
    int jcol = column(c);
    DG_CALL_GOTO(err, done, read_int(c, "the column index", 1, n, &j));
    DG_CALL_GOTO(err, done, read_real(c, &v));
    if (symmetric && j > i) {
      err = input_error(c, jcol, __LINE__, "entry (%lld, %lld) is above the "
                        "diagonal in a symmetric file (only i >= j is "
                        "stored)", (long long)i, (long long)j);
      goto done;
    }
    DG_CALL_GOTO(err, done, expect_line_end(c));
    rows[at] = i - 1;
    cols[at] = j - 1;
    vals[at++] = v;
    if (symmetric && i != j) {
      rows[at] = j - 1;
      cols[at] = i - 1;
      vals[at++] = v;
    }
  }
  skip_comments(c);
  skip_blanks(c);
  if (*c->p) {
    err = input_error(c, column(c), __LINE__, "text after the %lld entries "
                      "the size line announced: '%.*s'", (long long)nnz,
                      quote_len(c->p), c->p);
    goto done;
  }
  DG_CALL_GOTO(err, done,
               dg_sparse_csr_from_coo(m, n, at, rows, cols, vals, out));
done:
  free(rows);
  free(cols);
  free(vals);
  return err;
}

dg_error dg_mmio_read(const char *path, dg_csr **out) {
  DG_CHECK(path && out, DG_ERR_ARG, "dg_mmio_read: NULL argument");
  *out = NULL;
  void *data;
  size_t size;
  DG_CALL(dg_fsutil_read_file(path, &data, &size));
  cursor c = {.path = path, .p = data, .line = 1, .line_start = data};
  if (strlen(data) != size) {
    free(data);
    DG_RAISE(DG_ERR_INPUT, "%s: contains a NUL byte: not a Matrix Market "
             "text file", path);
  }
  dg_error err = parse(&c, out);
  free(data);
  DG_CALL(err);
  return DG_OK;
}

/* The value of A at (i, j) (0 if not stored). */
static double entry_at(const dg_csr *A, int64_t i, int64_t j) {
  int64_t lo = A->rowptr[i], hi = A->rowptr[i + 1] - 1;
  while (lo <= hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (A->colind[mid] == j)
      return A->values[mid];
    if (A->colind[mid] < j)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return 0.0;
}

dg_error dg_mmio_write(const char *path, const dg_csr *A, int symmetric) {
  DG_CHECK(path != NULL, DG_ERR_ARG, "dg_mmio_write: path is NULL");
  DG_CALL(dg_sparse_csr_check(A));
  int64_t count = 0;
  if (symmetric) {
    DG_CHECK(A->nrows == A->ncols, DG_ERR_ARG,
             "%s: a %lld x %lld matrix cannot be written as symmetric", path,
             (long long)A->nrows, (long long)A->ncols);
    for (int64_t i = 0; i < A->nrows; i++)
      for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
        int64_t j = A->colind[k];
        DG_CHECK(entry_at(A, j, i) == A->values[k], DG_ERR_ARG,
                 "%s: the matrix is not symmetric: A(%lld, %lld) = %.17g but "
                 "A(%lld, %lld) = %.17g", path, (long long)i, (long long)j,
                 A->values[k], (long long)j, (long long)i, entry_at(A, j, i));
        count += j <= i;
      }
  } else {
    count = A->nnz;
  }
  dg_strbuf s;
  dg_strbuf_init(&s);
  dg_strbuf_appendf(&s, "%%%%MatrixMarket matrix coordinate real %s\n",
                    symmetric ? "symmetric" : "general");
  dg_strbuf_appendf(&s, "%% written by dgrun (core/mmio.c)\n");
  dg_strbuf_appendf(&s, "%lld %lld %lld\n", (long long)A->nrows,
                    (long long)A->ncols, (long long)count);
  for (int64_t i = 0; i < A->nrows; i++)
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
      if (!symmetric || A->colind[k] <= i)
        dg_strbuf_appendf(&s, "%lld %lld %.17g\n", (long long)i + 1,
                          (long long)A->colind[k] + 1, A->values[k]);
  char *text;
  DG_CALL(dg_strbuf_finish(&s, &text));
  dg_error err = dg_fsutil_write_atomic(path, text, strlen(text), 0644);
  free(text);
  DG_CALL(err);
  return DG_OK;
}
