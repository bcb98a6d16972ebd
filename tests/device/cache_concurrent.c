/* core.cache_concurrent: four processes compile the same source into an
 * empty cache at once (released together through a pipe).  All succeed
 * with correct kernels, exactly one valid entry remains (a fresh device
 * hits it), and no temporary file is left behind. */
#include <sys/wait.h>
#include <unistd.h>

#include "devtest.h"

enum { NPROC = 4 };

static int child(int gate, uint64_t seed) {
  char c;
  /* Wait until the parent closes the pipe: all children start together. */
  while (read(gate, &c, 1) > 0) {
  }
  close(gate);
  dg_device_stats s = dt_compile_and_check(&seed);
  /* Each child either compiled or found another's finished entry. */
  CHECK(s.compilations + s.cache_hits == 1 && s.cache_rebuilds == 0,
        "child: %lld compilations, %lld hits, %lld rebuilds",
        (long long)s.compilations, (long long)s.cache_hits,
        (long long)s.cache_rebuilds);
  return 0;
}

int main(void) {
  const char *cache = dt_fresh_cache_dir();
  uint64_t seed = dt_seed();
  int gate[2];
  CHECK(pipe(gate) == 0, "pipe");
  pid_t pids[NPROC];
  for (int i = 0; i < NPROC; i++) {
    pids[i] = fork();
    CHECK(pids[i] >= 0, "fork");
    if (pids[i] == 0) {
      close(gate[1]);
      exit(child(gate[0], seed + (uint64_t)i));
    }
  }
  close(gate[0]);
  close(gate[1]); /* go */
  for (int i = 0; i < NPROC; i++) {
    int ws;
    CHECK(waitpid(pids[i], &ws, 0) == pids[i], "waitpid");
    CHECK(WIFEXITED(ws) && WEXITSTATUS(ws) == 0, "child %d failed (status %d)",
          i, ws);
  }
  (void)dt_single_entry(cache); /* exactly one entry, no temp files */

  dt_expect_stats(dt_compile_and_check(&seed), 0, 1, 0, "after the race");
  dt_remove_dir(cache);
  return 0;
}
