/* Error codes and the error trace.
 *
 * Every fallible function returns dg_error (0 = success).  DG_CHECK raises an
 * error with a formatted message and the file/line where it was raised;
 * DG_CALL propagates a callee's error and appends a frame to the trace, so
 * the driver can print the whole chain (PETSc style) before exiting non-zero.
 * The trace is thread-local: OpenMP workers never touch another's trace. */
#ifndef DG_CORE_ERROR_H
#define DG_CORE_ERROR_H

#include <stdio.h>

typedef enum dg_error {
  DG_OK = 0,
  DG_ERR_ARG,        /* a bad argument from the caller (framework bug) */
  DG_ERR_INPUT,      /* bad user input: cfg, flux file, mesh, command line */
  DG_ERR_IO,         /* file system: open, read, write, rename */
  DG_ERR_MEMORY,     /* host or device allocation failed */
  DG_ERR_DEVICE,     /* a CUDA driver call failed, or no device */
  DG_ERR_COMPILE,    /* generated code did not compile (a generator bug) */
  DG_ERR_UNSUPPORTED,/* a feature this build or machine lacks */
  DG_ERR_NUMERIC,    /* NaN/Inf, singular matrix, no convergence */
  DG_ERR_MPI,        /* an MPI call failed */
  DG_ERR_INTERNAL,   /* an invariant of dgrun itself is broken */
  DG_ERR_INTERRUPTED,/* stopped by SIGINT/SIGTERM (after writing a checkpoint) */
  DG_ERR_PEER        /* this rank is fine, another one failed (dg_comm_agree) */
} dg_error;

/* Name of an error code, e.g. "input error". */
const char *dg_error_name(dg_error code);

/* Record a new error (clears any earlier trace) and return code. */
dg_error dg_error_raise(dg_error code, const char *file, int line,
                        const char *func, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

/* Append a propagation frame "func (file:line)" to the trace; returns code. */
dg_error dg_error_push(dg_error code, const char *file, int line,
                       const char *func);

/* Print the recorded error for a user: "dgrun: <kind>: message" (or
 * "dgrun: message" when the message already says "file:line:col: error:"),
 * and the call trace ("  raised in func (file:line)", "  from ...") only
 * when traces are on or the error is DG_ERR_INTERNAL (a bug: the trace is
 * what its report needs). */
void dg_error_print(FILE *out);
/* Print the call trace with every error (dgrun --debug, DGRUN_DEBUG=1); off
 * by default.  A process-wide setting like the log level. */
void dg_error_set_traces(int on);

/* The message of the most recent raise ("" if none). */
const char *dg_error_message(void);

/* Forget the recorded error (after handling it). */
void dg_error_clear(void);

/* Raise when cond is false, naming the bad value in the message. */
#define DG_CHECK(cond, code, ...)                                             \
  do {                                                                        \
    if (!(cond))                                                              \
      return dg_error_raise((code), __FILE__, __LINE__, __func__,             \
                            __VA_ARGS__);                                     \
  } while (0)

/* Raise unconditionally. */
#define DG_RAISE(code, ...)                                                   \
  return dg_error_raise((code), __FILE__, __LINE__, __func__, __VA_ARGS__)

/* Propagate a callee's error, adding this frame to the trace. */
#define DG_CALL(expr)                                                         \
  do {                                                                        \
    dg_error dg_call_err_ = (expr);                                           \
    if (dg_call_err_ != DG_OK)                                                \
      return dg_error_push(dg_call_err_, __FILE__, __LINE__, __func__);       \
  } while (0)

/* Like DG_CALL, but jump to a cleanup label with `err` set. */
#define DG_CALL_GOTO(err, label, expr)                                        \
  do {                                                                        \
    (err) = (expr);                                                           \
    if ((err) != DG_OK) {                                                     \
      dg_error_push((err), __FILE__, __LINE__, __func__);                     \
      goto label;                                                             \
    }                                                                         \
  } while (0)

/* Like DG_CHECK, but jump to a cleanup label with `err` set. */
#define DG_CHECK_GOTO(err, label, cond, code, ...)                            \
  do {                                                                        \
    if (!(cond)) {                                                            \
      (err) = dg_error_raise((code), __FILE__, __LINE__, __func__,            \
                             __VA_ARGS__);                                    \
      goto label;                                                             \
    }                                                                         \
  } while (0)

#endif
