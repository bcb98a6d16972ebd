/* SIGINT and SIGTERM during a run (Ctrl-C, a batch system's time limit):
 * the handler only records the signal; the time loop polls it after every
 * step, writes a checkpoint of the state at the end of that step and stops
 * with DG_ERR_INTERRUPTED, and the driver exits 128 + the signal number
 * (130 for SIGINT, 143 for SIGTERM) naming the checkpoint to --restart from.
 * A second signal while the first is being handled kills the process the
 * default way (a user who presses Ctrl-C twice means it).
 *
 * Under MPI every rank must stop at the same step: the caller combines the
 * flag over ranks before acting on it. */
#ifndef DG_PROBLEMS_SIGNALS_H
#define DG_PROBLEMS_SIGNALS_H

#include <stdint.h>

/* Install the handlers (the previous ones are kept for restore). */
void dg_signals_install(void);

/* Put the previous handlers back; pending signals are forgotten. */
void dg_signals_restore(void);

/* The signal number received since install (SIGINT or SIGTERM), or 0. */
int dg_signals_pending(void);

/* "SIGINT", "SIGTERM" or "signal N". */
const char *dg_signals_name(int sig);

/* Test hook (the one place it is documented; not a user option, and not in
 * the README's environment list).  Nothing happens unless
 * $DGRUN_TEST_SIGNAL_STEP is set; then after step s = $DGRUN_TEST_SIGNAL_STEP
 * the process sends itself a signal, on every rank or only on rank
 * $DGRUN_TEST_SIGNAL_RANK, chosen by $DGRUN_TEST_SIGNAL:
 *   unset or TERM  SIGTERM, and INT  SIGINT: the run stops through the real
 *                  handler at a chosen step (tests/driver/interrupt_bitwise.c);
 *   STOP           SIGSTOP: the process halts there until SIGCONT, so that a
 *                  test changes the file system under a running job at a
 *                  known step (tests/parallel/collective_atomic.sh);
 *   anything else  SIGTERM.
 * Called by the signal observer (observe_signal.c) after every step. */
void dg_signals_test_raise(int rank, int64_t step);

#endif
