/* Checkpoints: the exact solution state of a run, for --restart.
 *
 * One HDF5 file holding every field bit for bit (as the solver stores it,
 * float or double) plus what a restart needs and must agree on:
 *   /fields/<name>   K*Np values, all elements in global order (attribute
 *                    elem_fnv1a_sum: the sum modulo 2^64 over the elements k of
 *                    the FNV-1a hash of k (8 bytes, little-endian) followed by
 *                    element k's raw bytes; format version 1 had fnv1a64, the
 *                    FNV-1a hash of the whole array, and is still read)
 *   root attributes  format ("dgrun-checkpoint"), format_version, dgrun_version,
 *                    time, step, dt, dt_max (the computed wave speed's last
 *                    update, 0 otherwise; read as 0 where absent), rk_dt_next,
 *                    rk_err_prev, rk_rejected (the adaptive step's controller;
 *                    0, 1, 0 where absent), scheme, order,
 *                    dim, num_elements,
 *                    nodes_per_element, precision ("float"|"double"), problem_id,
 *                    num_fields, mesh_hash and mesh (format version 3: a restart
 *                    on another mesh with as many elements is refused)
 *   /coefficients/<name>  (when the run has coefficients, issue 38) the flux file's
 *                    coefficients, K*Np doubles each in global order, with
 *                    elem_fnv1a_sum as a field; a restart compares them with the
 *                    values its cfg gives and refuses a difference (a restart
 *                    must not change the material).  Older readers have no
 *                    coefficients and cannot parse a flux file that declares
 *                    them, so the format version stays 4; a file without the
 *                    group reads as a run without coefficients
 *   /inputs/config   (format version 4, when the writer gives them) the resolved
 *   /inputs/flux     configuration of the run as canonical cfg text, and the text
 *                    of its flux file, as bytes (UTF-8): what `dgrun --restart
 *                    ckpt.h5` continues from without the cfg
 * Sealed (core/seal.h, magic DG_CHECKPOINT_SEAL, format version 3): the
 * first 512 bytes (an HDF5 user block) hold the file's size and SHA-256,
 * verified before libhdf5 parses a byte; a file without a valid seal
 * (damaged, or from a dgrun before version 3) is refused.
 * The explicit schemes of dgrun (LSERK4, SSP-RK3) carry no state between
 * steps besides the solution, so (fields, time, step, dt) is the whole state
 * and a restarted run repeats the uninterrupted one exactly.
 * Written atomically (see h5io.h): an interrupted write leaves the previous
 * checkpoint untouched and no half file under the final name.
 *
 * Under mpirun with parallel HDF5 the ranks write one checkpoint together
 * (dg_checkpoint_write_part): the same file as the one written from the
 * gathered state, the checksum summed over the ranks' shares (which is why
 * version 2 sums per-element hashes: FNV-1a of a whole array cannot be
 * split).  Any number of ranks reads it back: one rank all of it
 * (dg_checkpoint_read), each of several ranks only its own elements
 * (dg_checkpoint_read_part). */
#ifndef DG_PROBLEMS_CHECKPOINT_H
#define DG_PROBLEMS_CHECKPOINT_H

#include <stdint.h>

#include "core/error.h"

#include "core/comm.h"
#include "problems/io/h5part.h"

enum { DG_CHECKPOINT_FORMAT_VERSION = 4 };
/* The magic of a checkpoint's seal (core/seal.h), checked before libhdf5
 * reads a byte of it. */
#define DG_CHECKPOINT_SEAL "dgrun-checkpoint sealed"
/* The most state components (fields) one checkpoint holds: callers keep
 * their field tables on the stack at this size. */
enum { DG_CHECKPOINT_MAX_FIELDS = 64 };

typedef struct dg_checkpoint_info {
  /* identity: written, and on read compared with the stored values */
  int dim, N, Np;
  int64_t K;
  int real_size;                  /* 4: float, 8: double */
  int nfields;
  const char *const *field_names; /* nfields names, [A-Za-z0-9_.-]+ */
  const char *scheme;             /* time scheme, e.g. "lserk4" */
  const char *problem_id;         /* the caller's hash/identity of the problem */
  const char *element_order;      /* the mesh's element numbering, [mesh] order: "hilbert"
                                     or "input" (NULL: "input"); files written before it
                                     was recorded read as "input" */
  /* progress: written, and filled in on read */
  double time, dt;
  int64_t step;
  /* identity, continued: written, and on read compared (format version 3) */
  uint64_t mesh_hash;             /* the mesh's geometry and connectivity, independent of
                                     the partition (problems/mesh_identity.h) */
  const char *mesh_name;          /* how the run made its mesh, for messages (NULL: "") */
  /* written when not NULL (both or neither; format version 4), not read:
   * see dg_checkpoint_read_inputs */
  const char *config_text;        /* the run's resolved cfg (dg_problem_resolved_text) */
  const char *flux_text;          /* the text of its flux file */
  /* identity, continued: written, and on read compared value by value
   * (DG_ERR_INPUT naming the coefficient, the element and both values) */
  int ncoef;                      /* 0..DG_CHECKPOINT_MAX_FIELDS */
  const char *const *coef_names;  /* ncoef names, [A-Za-z0-9_.-]+ */
  const double *const *coef_values; /* ncoef arrays of K*Np values (with a part: its
                                       part->K*Np, in its local order, as fields) */
  /* progress, continued: with dt from the computed wave speed the dt_max of
   * the last update (the reference of its growth limit); written always,
   * read as 0 from files without it */
  double dt_max;
  /* progress, continued: the adaptive step's PI controller ([time] scheme =
   * rk34 | rk45, dg/timestep_embedded.h): its next step, the error of the
   * last accepted step and the rejected steps so far; written always, read
   * as 0 from files without them (rk_err_prev: 1, the controller's start) */
  double rk_dt_next, rk_err_prev;
  int64_t rk_rejected;
} dg_checkpoint_info;

/* What a checkpoint stores of the run's inputs (malloc'd; NULL when the
 * file holds none: written before format version 4, or without them). */
typedef struct dg_checkpoint_inputs {
  int64_t version; /* the file's format version */
  char *config_text, *flux_text;
} dg_checkpoint_inputs;

/* Read the stored inputs of the checkpoint at path, after verifying its
 * seal (over comm, when not NULL: rank 0 hashes the file, every rank then
 * reads the texts; errors on every rank alike).  Errors: DG_ERR_INPUT for
 * a missing, damaged or foreign file, DG_ERR_UNSUPPORTED without HDF5. */
dg_error dg_checkpoint_read_inputs(const char *path, dg_comm *comm, dg_checkpoint_inputs *out);
void dg_checkpoint_inputs_free(dg_checkpoint_inputs *in);

/* Write the state fields[0..nfields) (each K*Np values of real_size bytes)
 * to path atomically.  Errors: DG_ERR_ARG (bad info), DG_ERR_IO (naming the
 * file), DG_ERR_UNSUPPORTED (built without HDF5). */
dg_error dg_checkpoint_write(const char *path, const dg_checkpoint_info *info,
                             const void *const *fields);

/* Collective over comm (parallel HDF5 builds): every rank writes its part
 * (elements part->gid, this rank's K = part->K of them, in its own local
 * order part->order) of the state, fields[i] holding part->K*Np values;
 * info->K is the global element count.  The file equals the one
 * dg_checkpoint_write makes of the gathered state.  Errors as there, on
 * every rank alike (the failing rank's own, DG_ERR_MPI on the others);
 * DG_ERR_UNSUPPORTED in a build without parallel HDF5. */
dg_error dg_checkpoint_write_part(const char *path, const dg_checkpoint_info *info,
                                  const void *const *fields, dg_comm *comm,
                                  const dg_h5part *part);

/* Read path into fields[0..nfields) after checking that every identity
 * member of *info matches the file (e.g. "checkpoint 'c.h5' was written with
 * order 3, this run uses order 4"), then set info->time, dt and step.
 * Errors: DG_ERR_INPUT naming the file for a missing, truncated, corrupt or
 * mismatching checkpoint (fields are then unspecified), DG_ERR_UNSUPPORTED
 * without HDF5. */
dg_error dg_checkpoint_read(const char *path, dg_checkpoint_info *info, void *const *fields);

/* Collective over comm (any HDF5 build): the same checks, then this rank's
 * part into fields[i] (part->K*Np values each, local order part->order;
 * info->K is the global element count; the ranks' parts are disjoint and
 * together hold every element, DG_ERR_ARG when their sizes do not add up).  Memory O(part->K) for a version 2
 * file: each rank reads the hyperslab union of its runs and hashes its own
 * elements, and the shares summed over the ranks are compared with the
 * stored sum on every rank, so one changed value anywhere fails all ranks
 * with the same error.  A version 1 file (one FNV-1a hash of each whole
 * field, which cannot be split) is read whole, one field of K*Np values at
 * a time, on every rank.  Errors as dg_checkpoint_read, on every rank alike
 * (DG_ERR_PEER on the ranks that only learnt of another's failure). */
dg_error dg_checkpoint_read_part(const char *path, dg_checkpoint_info *info,
                                 void *const *fields, dg_comm *comm, const dg_h5part *part);

#endif
