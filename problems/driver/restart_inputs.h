/* The problem of `dgrun [problem.cfg] --restart ckpt.h5 [section.key=value ...]`.
 *
 * A checkpoint of format version 4 stores the run's resolved configuration
 * (dg_problem_resolved_text) and the text of its flux file.  Without a cfg
 * the restart continues from them, the overrides applied on top; with one,
 * the cfg (and its overrides) describe the run as before.  Either way the
 * result is compared with the stored configuration before anything runs:
 * only what leaves the state's meaning alone may differ,
 *   time.final, time.max_steps       (how far to run)
 *   time.dt, time.cfl, time.wave_speed, time.diffusivity,
 *   time.dt_interval, time.dt_growth
 *                                    (the step size: the explicit schemes
 *                                     carry nothing between steps but the
 *                                     solution, so any dt continues the run;
 *                                     it is then no longer bitwise the
 *                                     uninterrupted one)
 *   mesh.file                        (the same mesh under another path: the
 *                                     checkpoint's mesh hash is checked)
 *   problem.flux                     (another path to a flux file of the same text)
 *   [output], [backend], [parallel]  (where and how the run computes and writes)
 * and any other key that differs (order, precision, scheme, mesh, params,
 * boundaries, ...) is an error naming the key, the checkpoint's value and
 * this run's (where it was written); so is a flux file whose text differs
 * from the stored one.  [problem] name is checked by the checkpoint's
 * problem identity.  A checkpoint without stored inputs (from an older
 * dgrun) restarts only with the cfg. */
#ifndef DG_PROBLEMS_RESTART_INPUTS_H
#define DG_PROBLEMS_RESTART_INPUTS_H

#include "core/error.h"
#include "problems/driver/problem.h"
#include "problems/driver/run.h"

/* For rank `rank` of `nranks` (collective over opt->comm when not NULL). */
dg_error dg_restart_load_problem(const dg_run_options *opt, int rank, int nranks,
                                 dg_problem **out);

#endif
