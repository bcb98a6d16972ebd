#include "problems/driver/signals.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile sig_atomic_t pending;
static struct sigaction old_int, old_term;
static int installed;

/* Only async-signal-safe work here: record the signal, or on a second one
 * fall back to the default action and deliver it again. */
static void on_signal(int sig) {
  if (pending) {
    signal(sig, SIG_DFL);
    raise(sig);
    return;
  }
  pending = sig;
}

void dg_signals_install(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART; /* a write in progress completes; the loop polls */
  pending = 0;
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);
  installed = 1;
}

void dg_signals_restore(void) {
  if (!installed)
    return;
  sigaction(SIGINT, &old_int, NULL);
  sigaction(SIGTERM, &old_term, NULL);
  installed = 0;
  pending = 0;
}

int dg_signals_pending(void) { return (int)pending; }

const char *dg_signals_name(int sig) {
  static char buf[32];
  if (sig == SIGINT)
    return "SIGINT";
  if (sig == SIGTERM)
    return "SIGTERM";
  snprintf(buf, sizeof buf, "signal %d", sig);
  return buf;
}

/* The test hook of signals.h: $DGRUN_TEST_SIGNAL_STEP unset, nothing. */
void dg_signals_test_raise(int rank, int64_t step) {
  const char *s = getenv("DGRUN_TEST_SIGNAL_STEP"), *r = getenv("DGRUN_TEST_SIGNAL_RANK");
  if (!s || atoll(s) != step || (r && atoi(r) != rank))
    return;
  /* the values of $DGRUN_TEST_SIGNAL: signals.h */
  const char *which = getenv("DGRUN_TEST_SIGNAL");
  raise(!which ? SIGTERM : !strcmp(which, "INT") ? SIGINT : !strcmp(which, "STOP") ? SIGSTOP : SIGTERM);
}
