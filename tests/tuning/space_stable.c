/* tuning.space_stable: the tuner's candidate lists, every candidate's
 * description in order, hashed and compared with tests/tuning/space_digests.txt.
 *
 * Why: the search order decides ties, and the shipped tuning database
 * (tuning/defaults) was chosen over exactly these lists; a refactoring of
 * how the space is built (the knob table) must leave them identical,
 * order included.  When the space is meant to change, regenerate the file
 * (`write`) in the same commit and say why in its message.
 *
 * usage: test_space_stable check|write DIGESTS                            */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/hash.h"
#include "operators/kernel_knobs.h"
#include "tests/expect.h"
#include "tuning/tuner.h"

enum { MAX_LINES = 64, LINE = 160 };

static void hash_config(dg_hash *h, const dg_kernel_config *c) {
  char text[DG_KERNEL_CONFIG_TEXT];
  dg_kernel_config_describe(c, text, sizeof text);
  dg_hash_update_field(h, text);
}

/* One line: backend, mode, Np, the list lengths and the hash of all three
 * lists (layouts, volume candidates, surface block sizes) in order. */
static void space_line(int cuda, dg_tune_mode mode, int Np, int nfnfp, char *line) {
  dg_tune_space sp;
  MUST(dg_tune_space_create(cuda, mode, Np, nfnfp, &sp));
  dg_hash h;
  dg_hash_init(&h);
  for (int i = 0; i < sp.nlayouts; i++)
    hash_config(&h, &sp.layouts[i]);
  dg_hash_update_field(&h, "volume");
  for (int i = 0; i < sp.nvolume; i++)
    hash_config(&h, &sp.volume[i]);
  dg_hash_update_field(&h, "face");
  for (int i = 0; i < sp.nface; i++) {
    char v[16];
    snprintf(v, sizeof v, "%d", sp.face_threads[i]);
    dg_hash_update_field(&h, v);
  }
  unsigned char d[DG_HASH_SIZE];
  char hex[2 * DG_HASH_SIZE + 1];
  dg_hash_final(&h, d);
  dg_hash_hex(d, DG_HASH_SIZE, hex);
  snprintf(line, LINE, "%s_%s_Np%d %d/%d/%d %s", cuda ? "cuda" : "cpu",
           mode == DG_TUNE_FULL ? "full" : "auto", Np, sp.nlayouts, sp.nvolume, sp.nface, hex);
  dg_tune_space_free(&sp);
}

int main(int argc, char **argv) {
  CHECK(argc == 3 && (!strcmp(argv[1], "check") || !strcmp(argv[1], "write")),
        "usage: %s check|write DIGESTS", argv[0]);
  /* Np of tetrahedra N = 1..9 and of triangles N = 1, 2, 3, 8; nfnfp the
   * matching face nodes of all faces (the tetrahedron's 4 x Nfp) */
  static const int np[] = {3, 4, 6, 10, 20, 35, 56, 84, 120, 165};
  static const int nfnfp[] = {6, 12, 9, 24, 40, 60, 84, 112, 144, 180};
  static char lines[MAX_LINES][LINE];
  int n = 0;
  for (int cuda = 1; cuda >= 0; cuda--)
    for (int mode = DG_TUNE_AUTO; mode <= DG_TUNE_FULL; mode++)
      for (int i = 0; i < 10; i++)
        space_line(cuda, (dg_tune_mode)mode, np[i], nfnfp[i], lines[n++]);
  if (!strcmp(argv[1], "write")) {
    FILE *f = fopen(argv[2], "w");
    CHECK(f != NULL, "cannot write %s: %s", argv[2], strerror(errno));
    fprintf(f, "# tuning.space_stable: <backend>_<mode>_Np<Np> <layouts>/<volume>/<surface> "
               "<sha256 over the described candidates in order>\n"
               "# regenerate: test_space_stable write <this file>\n");
    for (int i = 0; i < n; i++)
      fprintf(f, "%s\n", lines[i]);
    CHECK(fclose(f) == 0, "cannot write %s", argv[2]);
    return 0;
  }
  FILE *f = fopen(argv[2], "r");
  CHECK(f != NULL, "cannot read %s: %s", argv[2], strerror(errno));
  char line[LINE];
  int i = 0;
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = 0;
    if (line[0] == '#' || !line[0])
      continue;
    EXPECT(i < n && strcmp(line, lines[i]) == 0, "space differs:\n  expected %s\n  got      %s",
           line, i < n ? lines[i] : "(nothing)");
    i++;
  }
  fclose(f);
  EXPECT(i == n, "%d spaces expected, %d computed", i, n);
  return expect_finish();
}
