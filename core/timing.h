/* Wall time of the named phases of a run (PETSc's -log_view in small):
 * dgrun --timings prints them after the run, so that the time to the
 * first step can be taken apart.  Like the log level, one process-wide
 * table: the phases sit in layers that share no object to hang it on
 * (problem loading, the discretization, the solver), and set-up is
 * sequential.  Recording is a clock read; printing is asked for. */
#ifndef DG_CORE_TIMING_H
#define DG_CORE_TIMING_H

/* Monotonic wall clock in seconds. */
double dg_timing_now(void);

/* Forget every phase (start of a run). */
void dg_timing_reset(void);

/* Open a phase, nested in the phase open now; returns its handle for
 * dg_timing_end.  A phase opened again at the same place adds up. */
int dg_timing_begin(const char *name);
void dg_timing_end(int handle);

/* Print the phases (inclusive wall seconds, children indented, and the CPU
 * seconds of all threads: cpu / wall is how many cores the phase used) at
 * info level, under a title line. */
void dg_timing_report(const char *title);

/* Seconds recorded for the phase `name` (first match at any depth); -1 if
 * none was recorded (tests). */
double dg_timing_seconds(const char *name);

#endif
