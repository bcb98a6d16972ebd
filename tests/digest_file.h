/* The digest files of the kernel-digest tests (operators.kernel_digests,
 * core.kernel_source_digests): one line per case, compared in order with a
 * committed file ('#' lines are comments), or written to it. */
#ifndef DG_TESTS_DIGEST_FILE_H
#define DG_TESTS_DIGEST_FILE_H

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "tests/expect.h"

enum { DIGEST_MAX_LINES = 512, DIGEST_LINE = 400 };

typedef struct digest_run {
  const char *mode; /* check, write or dump */
  const char *dir;  /* dump: output folder */
  char lines[DIGEST_MAX_LINES][DIGEST_LINE];
  int nlines;
} digest_run;

/* The mode (check, write or dump) and its argument; dump makes the folder. */
static inline void digest_start(digest_run *r, const char *mode, const char *arg) {
  r->mode = mode;
  CHECK(!strcmp(r->mode, "check") || !strcmp(r->mode, "write") || !strcmp(r->mode, "dump"),
        "unknown mode '%s'", r->mode);
  if (!strcmp(r->mode, "dump")) {
    r->dir = arg;
    CHECK(mkdir(r->dir, 0777) == 0 || errno == EEXIST, "cannot make %s", r->dir);
  }
}

/* dump: one module's source into its file. */
static inline void digest_dump(const char *path, const char *src) {
  FILE *f = fopen(path, "w");
  CHECK(f != NULL, "cannot write %s: %s", path, strerror(errno));
  CHECK(fputs(src, f) != EOF && fclose(f) == 0, "cannot write %s", path);
}

/* Non-zero (and each difference on stderr) if the file differs. */
static inline int digest_compare(const digest_run *r, const char *path) {
  FILE *f = fopen(path, "r");
  CHECK(f != NULL, "cannot read %s: %s (run with 'write' to create it)", path, strerror(errno));
  char line[DIGEST_LINE];
  int i = 0, bad = 0;
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = 0;
    if (line[0] == '#' || !line[0])
      continue;
    if (i >= r->nlines || strcmp(line, r->lines[i]) != 0) {
      fprintf(stderr, "kernel digest differs:\n  expected %s\n  got      %s\n", line,
              i < r->nlines ? r->lines[i] : "(nothing)");
      bad = 1;
    }
    i++;
  }
  fclose(f);
  if (i != r->nlines) {
    fprintf(stderr, "kernel digests: %d expected, %d computed\n", i, r->nlines);
    bad = 1;
  }
  return bad;
}

/* The file: header (its '#' lines), then the lines. */
static inline void digest_write(const digest_run *r, const char *path, const char *header) {
  FILE *f = fopen(path, "w");
  CHECK(f != NULL, "cannot write %s: %s", path, strerror(errno));
  fputs(header, f);
  for (int i = 0; i < r->nlines; i++)
    fprintf(f, "%s\n", r->lines[i]);
  CHECK(fclose(f) == 0, "cannot write %s", path);
}

/* The end of a run: write the file (write) or compare with it (check). */
static inline void digest_finish(const digest_run *r, const char *path, const char *header) {
  if (!strcmp(r->mode, "write"))
    digest_write(r, path, header);
  if (!strcmp(r->mode, "check"))
    EXPECT(digest_compare(r, path) == 0);
}

#endif
