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
  dg_device *dev;
  TRY(dg_device_create("cpu", 0, &dev));
  dg_module *mod;
  TRY(dg_device_compile(dev, "race", dt_kernel_source, NULL, 0, &mod));
  dg_device_stats s = dg_device_get_stats(dev);
  CHECK(s.compilations + s.cache_hits == 1 && s.cache_rebuilds == 0,
        "child: %lld compilations, %lld hits, %lld rebuilds",
        (long long)s.compilations, (long long)s.cache_hits,
        (long long)s.cache_rebuilds);
  dt_check_axpby(dev, mod, 2000, 1999, 64, &seed);
  dg_module_destroy(&mod);
  dg_device_destroy(&dev);
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

  dg_device *dev;
  TRY(dg_device_create("cpu", 0, &dev));
  dg_module *mod;
  TRY(dg_device_compile(dev, "race", dt_kernel_source, NULL, 0, &mod));
  dg_device_stats s = dg_device_get_stats(dev);
  CHECK(s.compilations == 0 && s.cache_hits == 1 && s.cache_rebuilds == 0,
        "after the race: %lld compilations, %lld hits, %lld rebuilds",
        (long long)s.compilations, (long long)s.cache_hits,
        (long long)s.cache_rebuilds);
  dt_check_axpby(dev, mod, 100, 100, 9, &seed);
  dg_module_destroy(&mod);
  dg_device_destroy(&dev);
  dt_remove_dir(cache);
  return 0;
}
