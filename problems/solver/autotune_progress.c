#include "problems/solver/autotune_progress.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/log.h"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void show(dg_autotune_progress *p, const char *line, int force) {
  double t = now_s();
  if (!p->on || (!force && t - p->last < (p->tty ? 0.2 : 10.0)))
    return;
  p->last = t;
  if (p->tty) {
    fprintf(stderr, "\rdgrun: tuning: %s, %.0f s\033[K", line, t - p->t0);
    p->drawn = 1;
  } else {
    fprintf(stderr, "dgrun: tuning: %s, %.0f s\n", line, t - p->t0);
  }
  fflush(stderr);
}

void dg_autotune_progress_begin(dg_autotune_progress *p, int planned) {
  memset(p, 0, sizeof *p);
  p->on = dg_log_get_level() >= DG_LOG_INFO;
  p->tty = isatty(STDERR_FILENO);
  p->t0 = p->last = now_s();
  p->planned = planned;
}

void dg_autotune_progress_compiling(dg_autotune_progress *p, int n) {
  char line[96];
  snprintf(line, sizeof line, "compiling %d candidates side by side", n);
  /* on a terminal at once (it is the long wait); in a log the 10 s rule */
  show(p, line, p->tty);
}

void dg_autotune_progress_timed(dg_autotune_progress *p) {
  p->timed++;
  char line[96];
  if (p->timed <= p->planned)
    snprintf(line, sizeof line, "%d of %d candidates timed", p->timed, p->planned);
  else
    snprintf(line, sizeof line, "%d timings (the %d candidates, then twins and the leaders' "
             "re-timings)", p->timed, p->planned);
  show(p, line, 0);
}

void dg_autotune_progress_end(dg_autotune_progress *p) {
  if (p->drawn) {
    fputs("\r\033[K", stderr);
    fflush(stderr);
  }
  p->drawn = 0;
}

double dg_autotune_progress_elapsed(const dg_autotune_progress *p) { return now_s() - p->t0; }
