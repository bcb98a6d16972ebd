/* Checkpoints: the exact solution state of a run, for --restart.
 *
 * One HDF5 file holding every field bit for bit (as the solver stores it,
 * float or double) plus what a restart needs and must agree on:
 *   /fields/<name>   K*Np values (attribute fnv1a64: FNV-1a hash of the raw bytes)
 *   root attributes  format ("dgrun-checkpoint"), format_version, dgrun_version,
 *                    time, step, dt, scheme, order, dim, num_elements,
 *                    nodes_per_element, precision ("float"|"double"), problem_id,
 *                    num_fields
 * The explicit schemes of dgrun (LSERK4, SSP-RK3) carry no state between
 * steps besides the solution, so (fields, time, step, dt) is the whole state
 * and a restarted run repeats the uninterrupted one exactly.
 * Written atomically (see h5io.h): an interrupted write leaves the previous
 * checkpoint untouched and no half file under the final name. */
#ifndef DG_PROBLEMS_CHECKPOINT_H
#define DG_PROBLEMS_CHECKPOINT_H

#include <stdint.h>

#include "core/error.h"

enum { DG_CHECKPOINT_FORMAT_VERSION = 1 };

typedef struct dg_checkpoint_info {
  /* identity: written, and on read compared with the stored values */
  int dim, N, Np;
  int64_t K;
  int real_size;                  /* 4: float, 8: double */
  int nfields;
  const char *const *field_names; /* nfields names, [A-Za-z0-9_.-]+ */
  const char *scheme;             /* time scheme, e.g. "lserk4" */
  const char *problem_id;         /* the caller's hash/identity of the problem */
  /* progress: written, and filled in on read */
  double time, dt;
  int64_t step;
} dg_checkpoint_info;

/* Write the state fields[0..nfields) (each K*Np values of real_size bytes)
 * to path atomically.  Errors: DG_ERR_ARG (bad info), DG_ERR_IO (naming the
 * file), DG_ERR_UNSUPPORTED (built without HDF5). */
dg_error dg_checkpoint_write(const char *path, const dg_checkpoint_info *info,
                             const void *const *fields);

/* Read path into fields[0..nfields) after checking that every identity
 * member of *info matches the file (e.g. "checkpoint 'c.h5' was written with
 * order 3, this run uses order 4"), then set info->time, dt and step.
 * Errors: DG_ERR_INPUT naming the file for a missing, truncated, corrupt or
 * mismatching checkpoint (fields are then unspecified), DG_ERR_UNSUPPORTED
 * without HDF5. */
dg_error dg_checkpoint_read(const char *path, dg_checkpoint_info *info, void *const *fields);

#endif
