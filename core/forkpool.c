/* MAP_ANONYMOUS is not POSIX 2008 (the build's _POSIX_C_SOURCE) */
#define _DEFAULT_SOURCE
#include "core/forkpool.h"

#include "core/timing.h"

#include <errno.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The counters the workers share with the parent. */
typedef struct shared_counts {
  int next; /* the next item to take */
  int done; /* items whose work returned 1 */
  int finished; /* items whose work returned */
} shared_counts;

static void take_items(shared_counts *sc, int n, dg_forkpool_work_fn work, void *arg) {
  for (;;) {
    int i = __atomic_fetch_add(&sc->next, 1, __ATOMIC_RELAXED);
    if (i >= n)
      return;
    if (work(i, arg))
      __atomic_fetch_add(&sc->done, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&sc->finished, 1, __ATOMIC_RELAXED);
  }
}

/* Wait for the workers pids[0..np); where no item finishes for stall_s
 * seconds (a worker hung: a compiler that never returns, a lock fork
 * copied held), kill those left.  Polls every 5 ms: an item takes
 * seconds, a wave tens of them. */
static void reap(pid_t *pids, int np, shared_counts *sc, double stall_s) {
  int left = np, seen = __atomic_load_n(&sc->finished, __ATOMIC_RELAXED);
  double since = dg_timing_now();
  while (left > 0) {
    for (int w = 0; w < np; w++) {
      if (!pids[w])
        continue;
      int status;
      pid_t r = waitpid(pids[w], &status, WNOHANG);
      if (r == pids[w] || (r < 0 && errno != EINTR)) {
        pids[w] = 0;
        left--;
      }
    }
    int f = __atomic_load_n(&sc->finished, __ATOMIC_RELAXED);
    if (f != seen) {
      seen = f;
      since = dg_timing_now();
    } else if (left > 0 && dg_timing_now() - since > stall_s) {
      for (int w = 0; w < np; w++)
        if (pids[w]) {
          kill(pids[w], SIGKILL);
          int status;
          while (waitpid(pids[w], &status, 0) < 0 && errno == EINTR) {
          }
          pids[w] = 0;
        }
      return;
    }
    if (left > 0)
      nanosleep(&(struct timespec){0, 5000000}, NULL);
  }
}

int dg_forkpool_run(int n, int workers, double stall_s, dg_forkpool_work_fn work, void *arg,
                    int *forked) {
  if (forked)
    *forked = 0;
  if (n <= 0)
    return 0;
  if (workers <= 0) {
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    workers = cpus > 0 ? (int)cpus : 1;
  }
  if (workers > n)
    workers = n;
  shared_counts local = {0, 0, 0}, *sc = &local;
  void *map = workers > 1 ? mmap(NULL, sizeof *sc, PROT_READ | PROT_WRITE,
                                 MAP_SHARED | MAP_ANONYMOUS, -1, 0)
                          : MAP_FAILED;
  if (map != MAP_FAILED)
    sc = map;
  pid_t pids[256];
  int np = 0;
  if (workers > (int)(sizeof pids / sizeof pids[0]))
    workers = (int)(sizeof pids / sizeof pids[0]);
  /* One worker alone gains nothing over this process: it runs here. */
  for (int w = 0; sc != &local && w < workers; w++) {
    pid_t pid = fork();
    if (pid == 0) {
      take_items(sc, n, work, arg);
      _exit(0); /* no atexit handlers or stdio flushes of the parent's */
    }
    if (pid < 0)
      break; /* out of processes: those forked (or this one) take the rest */
    pids[np++] = pid;
  }
  int nforked = np;
  reap(pids, np, sc, stall_s);
  /* No worker, or workers that died (a signal, a crash inside the
   * compiler) or hung before taking every item: the rest run here.  The
   * item a worker died on stays undone; its caller finds it missing. */
  take_items(sc, n, work, arg);
  int done = __atomic_load_n(&sc->done, __ATOMIC_RELAXED);
  if (map != MAP_FAILED)
    munmap(map, sizeof *sc);
  if (forked)
    *forked = nforked;
  return done;
}
