/* dgrun_rekey_defaults: re-key the shipped tuning entries from the
 * operator digest of the whole module (dg_initial included, before
 * 2026-12-02) to the digest without the initial condition
 * (dg_autotune_op_digest).  For each entry of DEFAULTS_DIR it finds the
 * problem that generates its old digest at the entry's dimension, order,
 * component count and precision, and rewrites the entry under the new key:
 * the op line's digest and the file name (tune_db.c: a hash of model and
 * op) change, every other line stays as tuned.  An entry already keyed by
 * the new digest is left alone; one that no problem produces is reported
 * and left alone (exit status 1).
 *
 *   build/tests/tuning/dgrun_rekey_defaults tuning/defaults \
 *     problems/cases/euler3d_vortex/euler3d_vortex.cfg ...
 *
 * (the problems of tuning.shipped_defaults_current, tests/tuning/CMakeLists.txt) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fsutil.h"
#include "core/log.h"
#include "tests/expect.h"
#include "tests/tuning/shipped_ops.h"
#include "tuning/tune_db.h"

enum { CURRENT, REKEYED, UNMATCHED, CLASH };

/* The value of the line "name ..." of an entry's text: its start, its
 * length in *len; NULL when absent. */
static const char *line_value(const char *text, const char *name, size_t *len) {
  size_t l = strlen(name);
  for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
    if (strncmp(p, name, l) == 0 && p[l] == ' ') {
      *len = strcspn(p + l + 1, "\n");
      return p + l + 1;
    }
  return NULL;
}

/* The new digest of the operator whose old digest is `digest` (32 hex
 * digits) into op; CURRENT when digest is already new, UNMATCHED when no
 * problem produces it. */
static int find_new_digest(char **cfgs, int ncfg, const char *digest, int dim, int N, int nc,
                           const char *prec, char op[65]) {
  for (int i = 0; i < ncfg; i++) {
    char whole[65];
    if (!shipped_op_digests(cfgs[i], dim, N, nc, prec, op, whole))
      continue;
    if (strncmp(op, digest, 32) == 0)
      return CURRENT;
    if (strncmp(whole, digest, 32) == 0)
      return REKEYED;
  }
  return UNMATCHED;
}

/* Re-key the entry dir/name; the outcome as above. */
static int rekey(const char *dir, const char *name, char **cfgs, int ncfg) {
  char *path = dg_fsutil_join(dir, name);
  void *data = NULL;
  size_t n = 0;
  CHECK(path != NULL, "out of memory");
  MUST(dg_fsutil_read_file(path, &data, &n));
  const char *text = data;
  size_t ml = 0, ol = 0;
  const char *model = line_value(text, "model", &ml), *opv = line_value(text, "op", &ol);
  char digest[65], prec[16];
  int dim, N, nc, gen;
  CHECK(model && opv && ml < 360 && ol < 128 &&
            sscanf(opv, "%32[0-9a-f]|dim%d|N%d|nc%d|%15[a-z]|gen%d", digest, &dim, &N, &nc,
                   prec, &gen) == 6 && strlen(digest) == 32,
        "%s: no model and op lines of a tuning entry", path);
  char op[65];
  int rc = find_new_digest(cfgs, ncfg, digest, dim, N, nc, prec, op);
  if (rc == REKEYED) {
    dg_tune_key k;
    memset(&k, 0, sizeof k);
    memcpy(k.device_model, model, ml);
    /* the new digest, then the entry's "|dim..|N..|nc..|prec|gen.." */
    snprintf(k.op, sizeof k.op, "%.32s%.*s", op, (int)(ol - 32), opv + 32);
    size_t head = (size_t)(opv - text), nl = strlen(k.op), rest = n - head - ol;
    char *out = malloc(head + nl + rest + 1);
    char *to = dg_tune_db_entry_path(dir, &k);
    CHECK(out && to, "out of memory");
    memcpy(out, text, head);
    memcpy(out + head, k.op, nl);
    memcpy(out + head + nl, opv + ol, rest);
    FILE *clash = fopen(to, "r");
    if (clash) {
      fclose(clash);
      rc = CLASH;
      printf("%s: its new key's file %s exists already: left as it is\n", name, to);
    } else {
      MUST(dg_fsutil_write_atomic(to, out, head + nl + rest, 0644));
      CHECK(remove(path) == 0, "cannot remove %s", path);
      printf("%s -> %s  %.32s -> %.32s  %.*s\n", name, strrchr(to, '/') + 1, digest, op,
             (int)(ol - 33), opv + 33);
    }
    free(out);
    free(to);
  } else if (rc == UNMATCHED) {
    printf("%s: no problem produces %.*s: left as it is\n", name, (int)ol, opv);
  }
  free(data);
  free(path);
  return rc;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s DEFAULTS_DIR problem.cfg...\n", argv[0]);
    return 2;
  }
  dg_log_set_level(DG_LOG_WARN);
  char **names = NULL;
  int n = 0;
  MUST(dg_fsutil_list(argv[1], ".tune", &names, &n));
  int count[4] = {0};
  for (int i = 0; i < n; i++)
    count[rekey(argv[1], names[i], argv + 2, argc - 2)]++;
  dg_fsutil_free_names(names, n);
  printf("%d entries: %d re-keyed, %d already current, %d unmatched, %d clashes\n", n,
         count[REKEYED], count[CURRENT], count[UNMATCHED], count[CLASH]);
  return count[UNMATCHED] || count[CLASH] ? 1 : 0;
}
