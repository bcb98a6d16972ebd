/* core.forkpool: dg_forkpool_run does every item exactly once across its
 * forked workers (each item creates its own file with O_EXCL: a second
 * take of an item would fail to), counts the items whose work returned 1,
 * forks no more workers than items, finishes the items of a worker that
 * died in the others, or in the parent where every worker died (the item a
 * worker died on stays undone), kills a worker that hangs once no item
 * finishes for the stall time, and
 * runs everything in the calling process with one worker. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/forkpool.h"
#include "devtest.h"

typedef struct {
  const char *dir;
  int die_on; /* the item whose worker kills itself (-1: none, -2: every item) */
  int hang_on; /* the item whose worker never returns (-1: none) */
  pid_t parent;
} ctx;

static void item_path(const ctx *c, int i, char *p, size_t n) {
  snprintf(p, n, "%s/item%03d", c->dir, i);
}

/* Item i: its file, holding the pid that did it; returns 1 for even i. */
static int work(int i, void *arg) {
  const ctx *c = arg;
  if ((i == c->die_on || c->die_on == -2) && getpid() != c->parent)
    raise(SIGKILL); /* a worker's crash, as inside a compiler */
  if (i == c->hang_on && getpid() != c->parent)
    for (;;)
      pause(); /* a hung worker, as on a lock fork copied held */
  char p[512];
  item_path(c, i, p, sizeof p);
  int fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (fd < 0)
    return 0; /* done twice: the count and the file check catch it */
  char pid[32];
  int len = snprintf(pid, sizeof pid, "%ld", (long)getpid());
  int ok = write(fd, pid, (size_t)len) == len;
  close(fd);
  return ok && i % 2 == 0;
}

/* How many items 0..n-1 have a file, and how many of those a process other
 * than this one did; removes them. */
static int count_done(const ctx *c, int n, int *by_others) {
  int done = 0;
  *by_others = 0;
  for (int i = 0; i < n; i++) {
    char p[512], buf[32] = "";
    item_path(c, i, p, sizeof p);
    FILE *f = fopen(p, "r");
    if (!f)
      continue;
    done++;
    if (fgets(buf, sizeof buf, f) && atol(buf) != (long)getpid())
      (*by_others)++;
    fclose(f);
    unlink(p);
  }
  return done;
}

int main(void) {
  const char *dir = dt_fresh_cache_dir(); /* a private directory */
  ctx c = {dir, -1, -1, getpid()};
  enum { N = 40 };
  int forked = -1, others = 0;
  int even = dg_forkpool_run(N, 4, 60.0, work, &c, &forked);
  EXPECT(even == N / 2, "%d items returned 1, expected %d", even, N / 2);
  EXPECT(forked >= 1 && forked <= 4, "%d workers forked, expected 1..4", forked);
  EXPECT(count_done(&c, N, &others) == N, "not every item was done once");
  EXPECT(others > 0, "no item was done in a worker");

  /* more workers than items: no more forks than items */
  even = dg_forkpool_run(3, 16, 60.0, work, &c, &forked);
  EXPECT(even == 2 && forked >= 1 && forked <= 3, "3 items: %d counted, %d forked", even,
         forked);
  EXPECT(count_done(&c, 3, &others) == 3, "3 items: not every item was done");

  /* one worker: everything here, nothing forked */
  even = dg_forkpool_run(5, 1, 60.0, work, &c, &forked);
  EXPECT(even == 3 && forked == 0, "one worker: %d counted, %d forked", even, forked);
  EXPECT(count_done(&c, 5, &others) == 5 && others == 0, "one worker: %d done elsewhere",
         others);

  /* a worker dies on item 7: every other item is still done */
  c.die_on = 7;
  even = dg_forkpool_run(N, 3, 60.0, work, &c, &forked);
  int done = count_done(&c, N, &others);
  EXPECT(done == N - 1, "with a dead worker %d of %d items done, expected %d", done, N, N - 1);
  EXPECT(even == N / 2, "with a dead worker %d counted, expected %d", even, N / 2);

  /* every worker dies on its first item: the parent does the rest */
  c.die_on = -2;
  even = dg_forkpool_run(N, 3, 60.0, work, &c, &forked);
  done = count_done(&c, N, &others);
  EXPECT(done == N - forked && others == 0,
         "with every worker dead: %d of %d done (%d elsewhere), expected %d here", done, N,
         others, N - forked);

  /* a worker hangs on item 5: killed once nothing finishes for 1 s */
  c.die_on = -1;
  c.hang_on = 5;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  even = dg_forkpool_run(N, 3, 1.0, work, &c, &forked);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double waited = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
  done = count_done(&c, N, &others);
  EXPECT(done == N - 1 && even == N / 2, /* item 5, undone, is odd */
         "with a hung worker %d of %d done, %d counted", done, N, even);
  EXPECT(waited >= 1.0 && waited < 30.0, "with a hung worker the pool returned after %.2f s",
         waited);
  c.hang_on = -1;

  /* nothing to do */
  EXPECT(dg_forkpool_run(0, 4, 60.0, work, &c, &forked) == 0 && forked == 0, "0 items");
  dt_remove_dir(dir);
  return expect_finish();
}
