/* core.seal_check: a sealed file verifies; one changed byte anywhere after
 * the header, a truncated or extended file, an edited header size and a
 * file of another magic are refused with what is wrong, naming the file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/fsutil.h"
#include "core/seal.h"
#include "tests/expect.h"

enum { N = DG_SEAL_SIZE + 3000 };
static const char MAGIC[] = "dgrun-test sealed";

static void refused(const char *what, const char *path, const char *magic, int full,
                    const char *want) {
  dg_error e = dg_seal_check(path, magic, "test file", "a sealed test file", full);
  EXPECT(e == DG_ERR_INPUT, "%s: got %d (%s)", what, e, dg_error_message());
  EXPECT(strstr(dg_error_message(), want) && strstr(dg_error_message(), path),
         "%s: message '%s' lacks '%s' or the path", what, dg_error_message(), want);
  printf("%-16s -> %s\n", what, dg_error_message());
  dg_error_clear();
}

int main(void) {
  char *dir = NULL;
  MUST(dg_fsutil_make_temp_dir("dgrun-seal-", &dir));
  char a[512], b[512];
  snprintf(a, sizeof a, "%s/a", dir);
  snprintf(b, sizeof b, "%s/b", dir);
  static unsigned char img[N + 1];
  for (int i = 0; i < N + 1; i++)
    img[i] = (unsigned char)(i * 7 + 3);
  /* in memory and in place give the same seal */
  dg_seal_image(img, N, MAGIC);
  MUST(dg_fsutil_write_file(a, img, N, 0644));
  MUST(dg_seal_check(a, MAGIC, "test file", "x", 1));
  memset(img, 0, DG_SEAL_SIZE);
  MUST(dg_fsutil_write_file(b, img, N, 0644));
  MUST(dg_seal_file(b, MAGIC));
  void *da, *db;
  size_t na, nb;
  MUST(dg_fsutil_read_file(a, &da, &na));
  MUST(dg_fsutil_read_file(b, &db, &nb));
  EXPECT(na == nb && !memcmp(da, db, na), "dg_seal_file and dg_seal_image differ");
  free(db);
  unsigned char *d = da;
  EXPECT(!memcmp(d, MAGIC, strlen(MAGIC)), "the header does not start with the magic");
  /* damage after the header: every 97th byte in turn */
  for (size_t i = DG_SEAL_SIZE; i < na; i += 97) {
    d[i] ^= 0x01;
    MUST(dg_fsutil_write_file(b, d, na, 0644));
    d[i] ^= 0x01;
    dg_error e = dg_seal_check(b, MAGIC, "test file", "x", 1);
    EXPECT(e == DG_ERR_INPUT, "byte %zu changed: accepted", i);
    dg_error_clear();
    /* the header-only check (other ranks of a parallel read) cannot see it */
    MUST(dg_seal_check(b, MAGIC, "test file", "x", 0));
  }
  d[DG_SEAL_SIZE + 5] ^= 0x40;
  MUST(dg_fsutil_write_file(b, d, na, 0644));
  d[DG_SEAL_SIZE + 5] ^= 0x40;
  refused("changed byte", b, MAGIC, 1, "do not match the SHA-256");
  MUST(dg_fsutil_write_file(b, d, na - 1, 0644));
  refused("truncated", b, MAGIC, 1, "is truncated or corrupt");
  refused("truncated (head)", b, MAGIC, 0, "is truncated or corrupt");
  MUST(dg_fsutil_write_file(b, d, 100, 0644));
  refused("header cut", b, MAGIC, 1, "is not a sealed test file");
  MUST(dg_fsutil_write_file(b, "", 0, 0644));
  refused("empty", b, MAGIC, 1, "is not a sealed test file");
  refused("other magic", a, "dgrun-other sealed", 1, "is not a sealed test file");
  refused("magic prefix", a, "dgrun-test", 1, "is not a sealed test file");
  /* a header edited to the size of a shorter file: the hash still fails */
  char *size = strstr((char *)d, "size ");
  CHECK(size != NULL, "no size line");
  char line[64];
  int len = snprintf(line, sizeof line, "size %zu", na - 10);
  CHECK(strncmp(size, line, 5) == 0);
  memcpy(size, line, (size_t)len); /* same width: N and N - 10 have as many digits */
  MUST(dg_fsutil_write_file(b, d, na - 10, 0644));
  refused("edited size", b, MAGIC, 1, "do not match the SHA-256");
  EXPECT(dg_seal_check("/nonexistent/dgrun-seal", MAGIC, "test file", "x", 1) == DG_ERR_IO,
         "missing file: %s", dg_error_message());
  dg_error_clear();
  free(da);
  MUST(dg_fsutil_remove_tree(dir));
  free(dir);
  return expect_finish();
}
