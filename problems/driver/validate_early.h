/* Checks of a loaded problem that its outputs (snapshots, checkpoints, the
 * closing report) would otherwise make only when they are first written,
 * possibly at the end of the run: made at set-up, before any kernel is
 * generated, so bad input loses no run and leaves no kernel-cache entry. */
#ifndef DG_PROBLEMS_VALIDATE_EARLY_H
#define DG_PROBLEMS_VALIDATE_EARLY_H

#include "core/error.h"
#include "problems/driver/problem.h"

/* The longest [problem] name: the files are named <name>_checkpoint_<step>.h5
 * and written through <file>.tmp.<pid>, which must fit a file name
 * (NAME_MAX, 255 bytes, with room for a 19-digit step and the pid). */
enum { DG_PROBLEM_NAME_MAX = 200 };

/* DG_ERR_INPUT naming what is wrong and what to do, for: more fields than
 * a run reports (DG_RUN_MAX_FIELDS), a [problem] name longer than
 * DG_PROBLEM_NAME_MAX, an output path past PATH_MAX, two snapshot datasets
 * of one name (a field 'u_0' beside the components of a vector field 'u' of
 * more than 3 components, which snapshots write as scalars u_0, u_1, ...). */
dg_error dg_validate_outputs(const dg_problem *p);

#endif
