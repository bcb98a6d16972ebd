/* The tuner's progress line on stderr while the candidates compile and are
 * timed: rewritten in place on a terminal (at most every 0.2 s), one line
 * every 10 s otherwise, so that a log of a minute's tuning keeps a few
 * lines.  Silent below the info log level (--quiet, MPI ranks > 0). */
#ifndef DG_PROBLEMS_AUTOTUNE_PROGRESS_H
#define DG_PROBLEMS_AUTOTUNE_PROGRESS_H

typedef struct dg_autotune_progress {
  int on, tty, drawn; /* drawn: a rewritten line waits for its newline */
  double t0, last;
  int timed, planned;
} dg_autotune_progress;

/* planned: the candidates the search times at least (twins and re-timings
 * come on top: the count may pass it, and the line then says so). */
void dg_autotune_progress_begin(dg_autotune_progress *p, int planned);
/* "compiling n candidates side by side" (their compiles are one wave). */
void dg_autotune_progress_compiling(dg_autotune_progress *p, int n);
/* One more variant timed. */
void dg_autotune_progress_timed(dg_autotune_progress *p);
/* Ends a rewritten line (clears it). */
void dg_autotune_progress_end(dg_autotune_progress *p);
/* Seconds since begin. */
double dg_autotune_progress_elapsed(const dg_autotune_progress *p);

#endif
