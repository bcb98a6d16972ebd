/* tuning.shipped_defaults_current: every entry shipped in tuning/defaults
 * is keyed by an operator that the current generator still produces for
 * one of the shipped problems.  The key holds a digest of the generated
 * module without its initial condition (dg_autotune_op_digest), so a
 * generator change that alters it leaves the shipped variants
 * unreachable: every run would tune again (or, with tuning off, run
 * untuned, 1.6-2x slower on the H100), and nothing else would notice.
 * When this fails, tune again on the H100 (`SKIP_TESTS=1 bash
 * tuning/h100_tune.sh quick`) and ship the new entries.
 * usage: test_tuning_shipped_defaults DEFAULTS_DIR problem.cfg... */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "tests/expect.h"
#include "tests/tuning/shipped_ops.h"

/* Does one of the problems, at order N and this precision, give digest? */
static int produced_by(char **cfgs, int ncfg, const char *digest, int dim, int N, int nc,
                       const char *prec) {
  for (int i = 0; i < ncfg; i++) {
    char op[65], whole[65];
    if (shipped_op_digests(cfgs[i], dim, N, nc, prec, op, whole) &&
        strncmp(op, digest, strlen(digest)) == 0)
      return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  CHECK(argc >= 3, "usage: %s DEFAULTS_DIR problem.cfg...", argv[0]);
  dg_log_set_level(DG_LOG_WARN);
  DIR *dir = opendir(argv[1]);
  CHECK(dir != NULL, "cannot open %s", argv[1]);
  int entries = 0;
  for (struct dirent *e; (e = readdir(dir));) {
    size_t len = strlen(e->d_name);
    if (len < 5 || strcmp(e->d_name + len - 5, ".tune") != 0)
      continue;
    char path[4096], line[512];
    snprintf(path, sizeof path, "%s/%s", argv[1], e->d_name);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL, "cannot read %s", path);
    while (fgets(line, sizeof line, f)) {
      char digest[65], prec[16];
      int dim, N, nc, gen;
      if (sscanf(line, "op %64[0-9a-f]|dim%d|N%d|nc%d|%15[a-z]|gen%d", digest, &dim, &N, &nc,
                 prec, &gen) != 6)
        continue;
      entries++;
      EXPECT(produced_by(argv + 2, argc - 2, digest, dim, N, nc, prec),
             "%s (dim %d, N %d, %d components, %s): no shipped problem has this operator any "
             "more; the generator changed, so tune again on the H100 and ship the new entries",
             e->d_name, dim, N, nc, prec);
    }
    fclose(f);
  }
  closedir(dir);
  EXPECT(entries > 0, "no shipped entries found in %s", argv[1]);
  printf("%d shipped entries checked\n", entries);
  return expect_finish();
}
