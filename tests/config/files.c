/* core.config_files_*: reading from disk (I/O errors name the path) and
 * path values resolved relative to the cfg's directory. */
#include <errno.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <unistd.h>

#include "expect.h"

static char dir[256];

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "wb");
  if (!f || fputs(text, f) == EOF) {
    printf("cannot write %s\n", path);
    failures++;
  }
  if (f)
    fclose(f);
}

static void test_io(void) {
  dg_config *cfg = (dg_config *)&failures;
  char path[512], want[1024];
  snprintf(path, sizeof path, "%s/missing.cfg", dir);
  snprintf(want, sizeof want, "cannot open config file '%s': %s", path, strerror(ENOENT));
  EXPECT_ERROR(dg_config_read_file(path, &cfg), DG_ERR_IO, want);
  EXPECT(cfg == NULL);
  /* Not regular files: refused before a read (a FIFO without a writer
   * would block open(2) forever, /dev/zero would never end). */
  snprintf(want, sizeof want, "config file '%s' is a directory, not a regular file: give the path of a file", dir);
  EXPECT_ERROR(dg_config_read_file(dir, &cfg), DG_ERR_INPUT, want);
  EXPECT_ERROR(dg_config_read_file("/dev/zero", &cfg), DG_ERR_INPUT,
               "config file '/dev/zero' is a character device, not a regular file: give the path of a file");
  snprintf(path, sizeof path, "%s/fifo.cfg", dir);
  EXPECT(mkfifo(path, 0600) == 0);
  snprintf(want, sizeof want, "config file '%s' is a FIFO, not a regular file: give the path of a file", path);
  EXPECT_ERROR(dg_config_read_file(path, &cfg), DG_ERR_INPUT, want);
  unlink(path);
  /* Syntax errors in a file name the path as given. */
  snprintf(path, sizeof path, "%s/bad.cfg", dir);
  write_file(path, "[a]\nx = 1\n\ny\n");
  snprintf(want, sizeof want, "%s:4:1: error: expected 'key = value' or '[section]', found 'y'",
           path);
  EXPECT_ERROR(dg_config_read_file(path, &cfg), DG_ERR_INPUT, want);
  /* A file larger than one read chunk, with the interesting line last. */
  snprintf(path, sizeof path, "%s/big.cfg", dir);
  FILE *f = fopen(path, "wb");
  fputs("[a]\n", f);
  for (int i = 0; i < 3000; i++)
    fprintf(f, "k%d = %d ; padding padding padding\n", i, 3 * i);
  fclose(f);
  EXPECT_OK(dg_config_read_file(path, &cfg));
  int64_t v = 0;
  EXPECT_OK(dg_config_get_int(cfg, "a", "k2999", &v));
  EXPECT(v == 8997);
  dg_config_destroy(&cfg);
}

static void test_paths(void) {
  char path[512], want[600];
  snprintf(path, sizeof path, "%s/problem.cfg", dir);
  write_file(path, "[mesh]\nfile = meshes/box.msh\nabs = /data/x.msh\nup = ../y.msh\n"
                   "[output]\ndir = out\n");
  dg_config *cfg = NULL;
  EXPECT_OK(dg_config_read_file(path, &cfg));
  if (!cfg)
    return;
  EXPECT_STR(dg_config_dir(cfg), dir);
  EXPECT_STR(dg_config_name(cfg), path);
  const char *p = NULL;
  EXPECT_OK(dg_config_get_path(cfg, "mesh", "file", &p));
  snprintf(want, sizeof want, "%s/meshes/box.msh", dir);
  EXPECT_STR(p, want);
  EXPECT_OK(dg_config_get_path(cfg, "mesh", "abs", &p));
  EXPECT_STR(p, "/data/x.msh");
  EXPECT_OK(dg_config_get_path(cfg, "mesh", "up", &p));
  snprintf(want, sizeof want, "%s/../y.msh", dir);
  EXPECT_STR(p, want);
  /* A schema default is relative to the cfg too; no default, no path. */
  static const dg_config_key schema[] = {
      {"mesh", NULL, DG_CONFIG_PATH, NULL, NULL, "open"},
      {"mesh", "absent", DG_CONFIG_PATH, NULL, "d.msh", "a default path"},
      {"output", NULL, DG_CONFIG_STRING, NULL, NULL, "open"},
  };
  EXPECT_OK(dg_config_validate(cfg, schema, sizeof schema / sizeof *schema));
  EXPECT_OK(dg_config_get_path(cfg, "mesh", "absent", &p));
  snprintf(want, sizeof want, "%s/d.msh", dir);
  EXPECT_STR(p, want);
  p = "poison";
  EXPECT_ERROR(dg_config_get_path(cfg, "mesh", "nodefault", &p), DG_ERR_INTERNAL,
               "[mesh] nodefault is read while absent, and no config schema gives its "
               "default");
  EXPECT_STR(p, "poison");
  /* A path typed on the command line is relative to the working directory. */
  EXPECT_OK(dg_config_apply_override(cfg, "mesh.file=other.msh"));
  EXPECT_OK(dg_config_get_path(cfg, "mesh", "file", &p));
  EXPECT_STR(p, "other.msh");
  dg_config_destroy(&cfg);

  /* The directory of a name without '/' is "." and paths stay as written;
   * a file in "/" resolves against "/". */
  static const struct {
    const char *name, *value, *dir, *resolved;
  } cases[] = {
      {"problem.cfg", "a/b.msh", ".", "a/b.msh"},
      {"/problem.cfg", "a/b.msh", "/", "/a/b.msh"},
      {"cases/2d/problem.cfg", "b.msh", "cases/2d", "cases/2d/b.msh"},
      {"cases/2d/problem.cfg", "/abs/b.msh", "cases/2d", "/abs/b.msh"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char text[128];
    snprintf(text, sizeof text, "[m]\nf = %s\n", cases[i].value);
    EXPECT_OK(dg_config_read_string(text, cases[i].name, &cfg));
    if (!cfg)
      continue;
    EXPECT_STR(dg_config_dir(cfg), cases[i].dir);
    p = NULL;
    EXPECT_OK(dg_config_get_path(cfg, "m", "f", &p));
    EXPECT_STR(p, cases[i].resolved);
    dg_config_destroy(&cfg);
  }
}

int main(int argc, char **argv) {
  const char *tmp = getenv("TMPDIR");
  snprintf(dir, sizeof dir, "%s/dgrun-config-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) {
    printf("mkdtemp failed\n");
    return 1;
  }
  const char *which = argc > 1 ? argv[1] : "";
  if (strcmp(which, "io") == 0)
    test_io();
  else if (strcmp(which, "paths") == 0)
    test_paths();
  else
    printf("unknown case '%s'\n", which), failures++;
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0)
    printf("could not remove %s\n", dir);
  return expect_finish();
}
