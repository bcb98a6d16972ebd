/* A run's history file (problems/driver/observe_history.c): CSV, a header
 * row "t,step,dt,wall,<quantities>", then one row per history time, each
 * value in %.17g (it reads back exactly).
 *
 * Safety.  During the run the rows go to <path>.partial, one write(2) per
 * row, so that a killed process leaves every complete row (the file is
 * fsync'ed at most once a second and at the end: a crash of the machine
 * loses at most the last second); at the end the file is synced and renamed
 * to <path>, so that a complete-looking history is a complete one.  A fresh
 * history removes the <path> of an earlier run when it starts; a continued
 * one (--restart) keeps the rows of <path>.partial (or <path>) up to the
 * checkpoint's step, drops the later ones and appends. */
#ifndef DG_PROBLEMS_HISTORY_H
#define DG_PROBLEMS_HISTORY_H

#include <stdint.h>

#include "core/error.h"

typedef struct dg_history dg_history;

/* Before anything runs: path and <path>.partial are regular files or new
 * names (a directory in the way is DG_ERR_IO), and their directory can be
 * written (a probe file is written there and removed). */
dg_error dg_history_check(const char *path);

/* Start the history of path with columns t, step, dt, wall, names[0..n).
 * continue_step < 0: a fresh one; else continue the history of the run a
 * restart at that step continues (a missing one is a warning and a fresh
 * start; one of other columns is DG_ERR_INPUT, and left as it is). */
dg_error dg_history_open(const char *path, const char *const *names, int n,
                         int64_t continue_step, dg_history **h);
/* One row: values[0..n) of the names given to open. */
dg_error dg_history_row(dg_history *h, double t, int64_t step, double dt, double wall,
                        const double *values);
/* The end: synced, renamed to path (h stays to be destroyed). */
dg_error dg_history_finish(dg_history *h);
/* Closes without renaming (a failed or stopped run keeps <path>.partial). */
void dg_history_destroy(dg_history **h);

#endif
