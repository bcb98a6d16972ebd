/* core.fsutil_special_files: what the readers and writers of core/fsutil.h
 * do with files that are not regular.  Inputs: a FIFO (no writer: a plain
 * open(2) would wait forever, so an alarm turns a hang into a failure),
 * /dev/zero and a directory are refused by kind.  Outputs: a FIFO, a
 * character device, a directory and links to them or to nothing are
 * refused and left as they were; a regular file, a link to one and a new
 * name are fine.  Write errors: writing to /dev/full (ENOSPC on every write)
 * through the write helper is DG_ERR_IO with the system's reason. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/fsutil.h"
#include "tests/expect.h"

static char dir[256];

static char *at(const char *name) {
  static char buf[4][512];
  static int i;
  i = (i + 1) % 4;
  snprintf(buf[i], sizeof buf[i], "%s/%s", dir, name);
  return buf[i];
}

/* call gives code and its message holds want */
static void refused(const char *what, dg_error got, dg_error code, const char *want) {
  EXPECT(got == code, "%s: got %d (%s), want %d", what, got, dg_error_message(), code);
  EXPECT(strstr(dg_error_message(), want) != NULL, "%s: message '%s' lacks '%s'", what,
         dg_error_message(), want);
  printf("%-22s -> %s\n", what, dg_error_message());
  dg_error_clear();
}

static void inputs(void) {
  int fd = -1;
  refused("input FIFO", dg_fsutil_open_input(at("fifo"), "flux file", &fd), DG_ERR_INPUT,
          "is a FIFO, not a regular file");
  EXPECT(fd == -1);
  void *data = NULL;
  size_t n = 0;
  refused("read FIFO", dg_fsutil_read_file(at("fifo"), &data, &n), DG_ERR_INPUT, "is a FIFO");
  refused("read /dev/zero", dg_fsutil_read_file("/dev/zero", &data, &n), DG_ERR_INPUT,
          "is a character device");
  refused("input directory", dg_fsutil_check_input(dir, "mesh file"), DG_ERR_INPUT,
          "is a directory");
  refused("input missing", dg_fsutil_check_input(at("none"), "mesh file"), DG_ERR_IO,
          strerror(ENOENT));
  EXPECT(data == NULL);
  FILE *f = NULL;
  MUST(dg_fsutil_fopen_input(at("regular"), "cfg file", &f));
  EXPECT(f != NULL && fgetc(f) == 'x', "regular file not readable");
  /* handed back blocking: a read of a regular file is as usual */
  EXPECT(f && !(fcntl(fileno(f), F_GETFL) & O_NONBLOCK), "descriptor left non-blocking");
  if (f)
    fclose(f);
}

static void outputs(void) {
  MUST(dg_fsutil_check_output(at("new"), "output"));
  MUST(dg_fsutil_check_output(at("regular"), "output"));
  MUST(dg_fsutil_check_output(at("link_regular"), "output"));
  refused("output FIFO", dg_fsutil_check_output(at("fifo"), "matrix_file"), DG_ERR_IO,
          "matrix_file '");
  refused("output chardev", dg_fsutil_check_output("/dev/null", "output"), DG_ERR_IO,
          "is a character device");
  refused("output directory", dg_fsutil_check_output(dir, "output"), DG_ERR_IO,
          "is a directory");
  refused("output link to dir", dg_fsutil_check_output(at("link_dir"), "output"), DG_ERR_IO,
          "symbolic link to a directory");
  refused("output dangling", dg_fsutil_check_output(at("link_none"), "output"), DG_ERR_IO,
          "symbolic link to nothing");
  /* the atomic writers refuse too, and leave the node as it was */
  refused("atomic over FIFO", dg_fsutil_write_atomic(at("fifo"), "x", 1, 0644), DG_ERR_IO,
          "is a FIFO");
  refused("replace over FIFO", dg_fsutil_write_replace(at("fifo"), "x", 1, 0644), DG_ERR_IO,
          "is a FIFO");
  struct stat st;
  EXPECT(lstat(at("fifo"), &st) == 0 && S_ISFIFO(st.st_mode), "the FIFO was replaced");
  refused("names in dir", dg_fsutil_check_outputs(dir, "fi", "fo"), DG_ERR_IO,
          "fifo' is a FIFO");
  MUST(dg_fsutil_check_outputs(dir, "fi", ".h5")); /* not a name the run writes */
  MUST(dg_fsutil_check_outputs(dir, "reg", ""));
  MUST(dg_fsutil_check_outputs(at("nodir"), "x", ".h5"));
  MUST(dg_fsutil_write_atomic(at("new"), "y", 1, 0644));
}

static void full_disk(void) {
  int fd = open("/dev/full", O_WRONLY);
  if (fd < 0) {
    printf("no /dev/full here: ENOSPC case skipped\n");
    return;
  }
  char buf[8192];
  memset(buf, 7, sizeof buf);
  refused("write /dev/full", dg_fsutil_write_fd(fd, buf, sizeof buf, "/dev/full"), DG_ERR_IO,
          strerror(ENOSPC));
  close(fd);
}

int main(void) {
  alarm(30); /* a reader that blocks on the FIFO fails the test instead of hanging it */
  snprintf(dir, sizeof dir, "%s/dgrun-fsutil-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  CHECK(mkdtemp(dir) != NULL, "mkdtemp");
  CHECK(mkfifo(at("fifo"), 0600) == 0, "mkfifo");
  MUST(dg_fsutil_write_file(at("regular"), "x", 1, 0644));
  CHECK(symlink(at("regular"), at("link_regular")) == 0 && symlink(dir, at("link_dir")) == 0 &&
            symlink(at("none"), at("link_none")) == 0,
        "symlink");
  inputs();
  outputs();
  full_disk();
  MUST(dg_fsutil_remove_tree(dir));
  return expect_finish();
}
