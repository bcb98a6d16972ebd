/* problems.h5io_rename_fail: the commit of an atomic write (problems/io/h5io)
 * fails cleanly.  When the final rename(2) fails, the write is DG_ERR_IO
 * naming the temp and the final path, the temp is removed and nothing stands
 * under the final name (no file that looks complete); when a non-empty
 * directory is put at the final name while the file is being written, the
 * commit refuses it just before the rename, removes the temp and leaves the
 * directory as it was.
 *
 * A rename that fails after the last check (EXDEV, EIO, a directory that
 * appears in between) cannot be staged deterministically in CI, which runs
 * as root (no permission denies it): this test links with
 * -Wl,--wrap=rename, so that the calls of dgrun's own code reach
 * __wrap_rename below, which fails with EIO while fail_rename is set and
 * is rename(2) otherwise. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hdf5.h>

#include "problems/io/checkpoint.h"
#include "problems/io/h5io.h"
#include "testutil.h"

int __real_rename(const char *from, const char *to);

static int fail_rename, renames;

int __wrap_rename(const char *from, const char *to) {
  renames++;
  if (fail_rename) {
    errno = EIO;
    return -1;
  }
  return __real_rename(from, to);
}

/* A sealed HDF5 file of one small dataset through create / write / finish;
 * between the write and the finish, in_the_way (or NULL) is made a
 * non-empty directory. */
static dg_error write_h5(const char *path, const char *in_the_way) {
  dg_h5io_out out;
  DG_CALL(dg_h5io_create(path, DG_CHECKPOINT_SEAL, &out)); /* sealed, as a checkpoint */
  const double v[4] = {1, 2, 3, 4};
  const uint64_t dims[1] = {4};
  dg_error err = dg_h5io_write(out.file, "v", H5T_NATIVE_DOUBLE, 1, dims, v, path);
  if (err != DG_OK) {
    dg_h5io_abandon(&out);
    return err;
  }
  if (in_the_way) {
    char inner[4400];
    EXPECT(mkdir(in_the_way, 0755) == 0, "mkdir %s: %s", in_the_way, strerror(errno));
    snprintf(inner, sizeof inner, "%s/keep", in_the_way);
    tu_write(inner, "k", 1);
  }
  return dg_h5io_finish(&out);
}

/* err is DG_ERR_IO whose message holds n1 and n2; dir holds want entries,
 * no temp among them. */
static void expect_failed(dg_error err, const char *what, const char *n1, const char *n2,
                          const char *dir, int want) {
  const char *m = dg_error_message();
  EXPECT(err == DG_ERR_IO, "%s: got %d (%s), want DG_ERR_IO", what, err, m);
  EXPECT(strstr(m, n1) != NULL, "%s: message lacks '%s': %s", what, n1, m);
  EXPECT(strstr(m, n2) != NULL, "%s: message lacks '%s': %s", what, n2, m);
  EXPECT(tu_count(dir, ".tmp.") == 0, "%s: a temp file was left", what);
  EXPECT(tu_count(dir, "") == want, "%s: %d entries in %s, want %d", what, tu_count(dir, ""),
         dir, want);
  printf("%-18s -> %s\n", what, m);
  dg_error_clear();
}

int main(void) {
  dg_h5io_silence();
  char dir[4096], p[4200];
  tu_mkdtemp(dir, sizeof dir);

  /* the wrap is transparent while it is not told to fail (and is reached:
   * otherwise the failures below would prove nothing) */
  snprintf(p, sizeof p, "%s/good.h5", dir);
  EXPECT(write_h5(p, NULL) == DG_OK, "plain write: %s", dg_error_message());
  EXPECT(renames == 1 && tu_exists(p), "plain write: %d renames", renames);
  unlink(p);

  /* HDF5 file, rename fails: nothing under the final name */
  fail_rename = 1;
  snprintf(p, sizeof p, "%s/snap.h5", dir);
  expect_failed(write_h5(p, NULL), "h5 rename", "cannot rename", p, dir, 0);
  EXPECT(!tu_exists(p), "h5 rename: '%s' exists", p);

  /* an existing file under the final name is kept, not replaced by a
   * partial one */
  fail_rename = 0;
  EXPECT(write_h5(p, NULL) == DG_OK, "rewrite: %s", dg_error_message());
  struct stat before, after;
  EXPECT(stat(p, &before) == 0, "stat %s", p);
  fail_rename = 1;
  expect_failed(write_h5(p, NULL), "h5 rename over", "cannot rename", p, dir, 1);
  EXPECT(stat(p, &after) == 0 && after.st_ino == before.st_ino, "the old file was replaced");
  unlink(p);

  /* text file (XDMF, CSV), rename fails */
  snprintf(p, sizeof p, "%s/run.xdmf", dir);
  expect_failed(dg_h5io_write_text(p, "<Xdmf/>\n", 8), "text rename", "cannot rename", p, dir,
                0);
  fail_rename = 0;

  /* a non-empty directory put at the final name mid-write: refused before
   * the rename, the directory and its file untouched */
  snprintf(p, sizeof p, "%s/ckpt.h5", dir);
  int before_renames = renames;
  expect_failed(write_h5(p, p), "directory in way", "is a directory", "ckpt.h5", dir, 1);
  EXPECT(renames == before_renames, "a rename onto the directory was tried");
  char inner[4300];
  snprintf(inner, sizeof inner, "%s/keep", p);
  EXPECT(tu_exists(inner) && tu_count(p, "") == 1, "the directory in the way was changed");
  return tu_finish(dir, failures);
}
