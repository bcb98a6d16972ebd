/* problems.snapshot_errors: failures leave nothing that looks complete.
 * An output directory under a regular file (root ignores permissions, so
 * that is how "unwritable" is made) fails with DG_ERR_IO and creates
 * nothing; a failure while committing the .h5, the per-step .xdmf or the
 * collection removes every file of that snapshot and leaves the collection
 * as it was; no ".tmp." file remains; bad arguments are DG_ERR_ARG. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "problems/io/snapshot.h"
#include "testutil.h"

#if !defined(DGRUN_HAVE_HDF5)
int main(void) { return 77; }
#else

enum { K = 3, N = 2, NP = 6 };
static double x[K * NP], y[K * NP], u[K * NP];

static dg_error write_step(dg_snapshot_writer *w, long long step) {
  dg_snapshot_field f = {"u", 1, 8, {u, NULL, NULL}};
  return dg_snapshot_writer_write(w, 0.5 * (double)step, step, &f, 1, NULL, 0);
}

static int listed(const char *coll, long long step) {
  char *t = tu_slurp(coll, NULL), key[64];
  snprintf(key, sizeof key, "run_%06lld.h5:", step);
  int r = t && strstr(t, key) != NULL;
  free(t);
  return r;
}

int main(void) {
  for (int n = 0; n < K * NP; ++n) {
    x[n] = (double)(tu_rand() % 1000);
    y[n] = (double)(tu_rand() % 1000);
    u[n] = (double)(tu_rand() % 1000);
  }
  dg_snapshot_mesh mesh = {2, N, NP, K, x, y, NULL};
  char root[4096], p[4400], q[4400];
  tu_mkdtemp(root, sizeof root);

  /* 1. output directory below a regular file */
  snprintf(p, sizeof p, "%s/afile", root);
  tu_write(p, "x", 1);
  snprintf(q, sizeof q, "%s/afile/out", root);
  dg_snapshot_writer *w = NULL;
  dg_error err = dg_snapshot_writer_create(q, "run", &mesh, &w);
  EXPECT(err == DG_ERR_IO, "unwritable dir: got %d, want DG_ERR_IO", err);
  EXPECT(strstr(dg_error_message(), "afile") != NULL, "message lacks the path: %s",
         dg_error_message());
  printf("expected error: %s\n", dg_error_message());
  EXPECT(w == NULL && tu_count(root, "") == 1, "something was created");
  dg_error_clear();

  /* 2. the .h5 cannot take its final name */
  char out[4200], coll[4400];
  snprintf(out, sizeof out, "%s/out", root);
  snprintf(coll, sizeof coll, "%s/run.xdmf", out);
  err = dg_snapshot_writer_create(out, "run", &mesh, &w);
  EXPECT(err == DG_OK, "create: %s", dg_error_message());
  snprintf(p, sizeof p, "%s/run_000003.h5", out);
  mkdir(p, 0755);
  err = write_step(w, 3);
  EXPECT(err == DG_ERR_IO, "h5 commit failure: got %d", err);
  EXPECT(strstr(dg_error_message(), "run_000003.h5") != NULL, "message: %s",
         dg_error_message());
  printf("expected error: %s\n", dg_error_message());
  EXPECT(!tu_exists(coll) && tu_count(out, "run_000003.xdmf") == 0,
         "a failed first snapshot left XDMF files");
  EXPECT(write_step(w, 1) == DG_OK, "step 1: %s", dg_error_message());
  err = write_step(w, 3);
  EXPECT(err == DG_ERR_IO, "h5 commit failure again: got %d", err);
  EXPECT(listed(coll, 1) && !listed(coll, 3), "collection changed by a failed snapshot");
  rmdir(p);

  /* 3. the per-step .xdmf cannot take its final name: the .h5 goes too */
  snprintf(p, sizeof p, "%s/run_000004.xdmf", out);
  mkdir(p, 0755);
  err = write_step(w, 4);
  EXPECT(err == DG_ERR_IO, "xdmf commit failure: got %d", err);
  snprintf(q, sizeof q, "%s/run_000004.h5", out);
  EXPECT(!tu_exists(q), "the .h5 of a failed snapshot remains");
  EXPECT(listed(coll, 1) && !listed(coll, 4), "collection changed by a failed snapshot");
  rmdir(p);
  EXPECT(write_step(w, 4) == DG_OK, "step 4 after clearing: %s", dg_error_message());
  EXPECT(listed(coll, 1) && listed(coll, 4), "collection lacks steps 1 and 4");
  tu_xdmf xd = tu_xdmf_check(coll);
  EXPECT(xd.grids == 2, "collection has %d grids", xd.grids);

  /* 4. the collection cannot be written: the step's .h5 and .xdmf go */
  dg_snapshot_writer *w2 = NULL;
  EXPECT(dg_snapshot_writer_create(out, "other", &mesh, &w2) == DG_OK, "create other");
  snprintf(p, sizeof p, "%s/other.xdmf", out);
  mkdir(p, 0755);
  err = dg_snapshot_writer_write(w2, 0.0, 1, NULL, 0, NULL, 0);
  EXPECT(err == DG_ERR_IO, "collection failure: got %d", err);
  EXPECT(tu_count(out, "other_") == 0, "files of a failed snapshot remain");
  dg_snapshot_writer_destroy(&w2);
  rmdir(p);

  /* 5. bad arguments */
  dg_snapshot_field bad[] = {
      {"a/b", 1, 8, {u, NULL, NULL}}, {"", 1, 8, {u, NULL, NULL}},
      {"u", 4, 8, {u, u, u}},         {"u", 1, 2, {u, NULL, NULL}},
      {"u", 2, 8, {u, NULL, NULL}},   {"..", 1, 8, {u, NULL, NULL}},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i)
    EXPECT(dg_snapshot_writer_write(w, 1.0, 9, &bad[i], 1, NULL, 0) == DG_ERR_ARG,
           "bad field %zu accepted", i);
  dg_snapshot_field twice[2] = {{"u", 1, 8, {u, NULL, NULL}}, {"u", 1, 4, {u, NULL, NULL}}};
  EXPECT(dg_snapshot_writer_write(w, 1.0, 9, twice, 2, NULL, 0) == DG_ERR_ARG,
         "a repeated field name accepted");
  dg_snapshot_norm nm = {"a b", 0, 0};
  EXPECT(dg_snapshot_writer_write(w, 1.0, 9, NULL, 0, &nm, 1) == DG_ERR_ARG,
         "a bad norm name accepted");
  EXPECT(tu_count(out, "run_000009") == 0, "a rejected snapshot left files");
  dg_snapshot_writer *w3 = NULL;
  EXPECT(dg_snapshot_writer_create(out, "a/b", &mesh, &w3) == DG_ERR_ARG, "prefix a/b accepted");
  dg_snapshot_mesh badmesh = mesh;
  badmesh.Np = 7;
  EXPECT(dg_snapshot_writer_create(out, "run", &badmesh, &w3) == DG_ERR_ARG,
         "Np 7 for N 2 in 2D accepted");
  badmesh = mesh;
  badmesh.y = NULL;
  EXPECT(dg_snapshot_writer_create(out, "run", &badmesh, &w3) == DG_ERR_ARG,
         "2D mesh without y accepted");
  dg_error_clear();

  /* 6. the directory replaced by a file after the writer was made */
  tu_rmtree(out);
  tu_write(out, "x", 1);
  err = write_step(w, 5);
  EXPECT(err == DG_ERR_IO, "write into a vanished directory: got %d", err);
  dg_snapshot_writer_destroy(&w);
  return tu_finish(root, failures);
}
#endif
