#include "core/timing.h"

#include <string.h>
#include <time.h>

#include "core/log.h"

enum { MAX_PHASES = 64, MAX_NAME = 48 };

typedef struct {
  char name[MAX_NAME];
  int depth, parent;
  double seconds, started;
  double cpu_seconds, cpu_started; /* all threads of the process */
} phase;

static phase phases[MAX_PHASES];
static int nphases, open_phase = -1;

double dg_timing_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void dg_timing_reset(void) {
  nphases = 0;
  open_phase = -1;
}

int dg_timing_begin(const char *name) {
  int h = -1;
  for (int i = 0; i < nphases && h < 0; i++)
    if (phases[i].parent == open_phase && strcmp(phases[i].name, name) == 0)
      h = i;
  if (h < 0) {
    if (nphases == MAX_PHASES)
      return -1; /* table full: the phase goes unrecorded */
    h = nphases++;
    phase *p = &phases[h];
    memset(p, 0, sizeof *p);
    strncpy(p->name, name, MAX_NAME - 1);
    p->parent = open_phase;
    p->depth = open_phase < 0 ? 0 : phases[open_phase].depth + 1;
  }
  phases[h].started = dg_timing_now();
  phases[h].cpu_started = cpu_now();
  open_phase = h;
  return h;
}

void dg_timing_end(int handle) {
  if (handle < 0 || handle >= nphases)
    return;
  phases[handle].seconds += dg_timing_now() - phases[handle].started;
  phases[handle].cpu_seconds += cpu_now() - phases[handle].cpu_started;
  /* a phase left open by an error return below it closes with its parent */
  open_phase = phases[handle].parent;
}

/* Depth-first: children follow their parent, in the order they first ran. */
static void report_children(int parent) {
  for (int i = 0; i < nphases; i++)
    if (phases[i].parent == parent) {
      dg_info("  %*s%-*s %8.3f %8.3f", 2 * phases[i].depth, "", 40 - 2 * phases[i].depth,
              phases[i].name, phases[i].seconds, phases[i].cpu_seconds);
      report_children(i);
    }
}

void dg_timing_report(const char *title) {
  dg_info("%s", title);
  dg_info("  %-40s %8s %8s", "phase", "wall s", "cpu s");
  report_children(-1);
}

double dg_timing_seconds(const char *name) {
  for (int i = 0; i < nphases; i++)
    if (strcmp(phases[i].name, name) == 0)
      return phases[i].seconds;
  return -1;
}
