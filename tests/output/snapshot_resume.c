/* problems.snapshot_resume: after a restart from step S, the collection
 * keeps the earlier snapshots of steps <= S whose .h5 files still exist,
 * drops the later ones, and grows with the new writes. */
#include <stdio.h>
#include <unistd.h>

#include "problems/io/snapshot.h"
#include "testutil.h"

#if !defined(DGRUN_HAVE_HDF5)
int main(void) { return 77; }
#else

enum { K = 2, N = 1, NP = 2 };
static double x[K * NP] = {0, 1, 1, 2}, u[K * NP] = {1, 2, 3, 4};

static void write_steps(dg_snapshot_writer *w, const long long *steps, int n) {
  EXPECT(tu_snapshot_steps(w, u, steps, n) == DG_OK, "write: %s", dg_error_message());
}

static void expect_times(const char *coll, const long long *steps, int n) {
  tu_xdmf xd = tu_xdmf_check(coll);
  EXPECT(xd.grids == n, "%d grids, want %d", xd.grids, n);
  for (int i = 0; i < n && i < xd.grids; ++i)
    EXPECT(xd.times[i] == 0.1 * (double)steps[i], "grid %d time %g, want %g", i, xd.times[i],
           0.1 * (double)steps[i]);
}

int main(void) {
  char dir[4096], coll[4200], h5[4200];
  tu_mkdtemp(dir, sizeof dir);
  snprintf(coll, sizeof coll, "%s/run.xdmf", dir);
  dg_snapshot_mesh mesh = {1, N, NP, K, x, NULL, NULL};
  dg_snapshot_writer *w = NULL;

  /* nothing to resume from: fine */
  EXPECT(dg_snapshot_writer_create(dir, "run", &mesh, &w) == DG_OK, "create");
  EXPECT(dg_snapshot_writer_resume(w, 5) == DG_OK, "resume without a collection: %s",
         dg_error_message());
  EXPECT(!tu_exists(coll), "resume made a collection out of nothing");
  const long long first[] = {0, 10, 20, 30};
  write_steps(w, first, 4);
  dg_snapshot_writer_destroy(&w);

  /* restart from step 20 */
  EXPECT(dg_snapshot_writer_create(dir, "run", &mesh, &w) == DG_OK, "create 2");
  EXPECT(dg_snapshot_writer_resume(w, 20) == DG_OK, "resume 20: %s", dg_error_message());
  const long long kept[] = {0, 10, 20};
  expect_times(coll, kept, 3);
  const long long more[] = {25};
  write_steps(w, more, 1);
  const long long now[] = {0, 10, 20, 25};
  expect_times(coll, now, 4);
  dg_snapshot_writer_destroy(&w);

  /* a snapshot whose .h5 was deleted is dropped */
  snprintf(h5, sizeof h5, "%s/run_000010.h5", dir);
  unlink(h5);
  EXPECT(dg_snapshot_writer_create(dir, "run", &mesh, &w) == DG_OK, "create 3");
  EXPECT(dg_snapshot_writer_resume(w, 100) == DG_OK, "resume 100");
  const long long left[] = {0, 20, 25};
  expect_times(coll, left, 3);
  dg_snapshot_writer_destroy(&w);
  return tu_finish(dir, failures);
}
#endif
