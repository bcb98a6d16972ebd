/* One run of `dgrun problem.cfg`: set-up, the time loop, output, error
 * norms, checkpoints, progress.  Returns DG_OK only when the run reached
 * its final time. */
#ifndef DG_PROBLEMS_RUN_H
#define DG_PROBLEMS_RUN_H

#include <stdint.h>

#include "core/comm.h"
#include "core/error.h"

typedef struct dg_run_options {
  const char *cfg_path;
  const char *const *overrides; /* "section.key=value" */
  int noverrides;
  int quiet;                    /* no progress, only errors */
  const char *restart;          /* checkpoint to continue from, or NULL */
  const char *dump_kernels;     /* directory for the generated source, or NULL */
  dg_comm *comm;                /* the ranks sharing the run (NULL: this process alone) */
  int want_state;               /* return the final state in the result (rank 0) */
  int tune_only;                /* `dgrun tune`: tune, print the table, do not run */
  int timings;                  /* print the wall time of each phase (--timings) */
} dg_run_options;

/* The most fields (of the flux file) a run handles: its norms below, the
 * snapshot tables (refused at set-up past it, problems/validate_early.h). */
enum { DG_RUN_MAX_FIELDS = 256 };

/* What a finished run measured (for tests and the closing summary). */
typedef struct dg_run_result {
  int64_t steps;
  double t_final;
  double wall_seconds;
  double dof_updates_per_second; /* DOFs x RHS evaluations / wall time of the loop */
  int nfields;
  double l2[DG_RUN_MAX_FIELDS], maxerr[DG_RUN_MAX_FIELDS]; /* per field, when the flux file gives exact solutions */
  int have_norms;                /* some field has an exact solution (its l2, maxerr are set) */
  unsigned char has_exact[DG_RUN_MAX_FIELDS]; /* per field: l2, maxerr hold its norms (else 0) */
  int quadrature_degree;         /* the L2 errors' rule is exact for this degree (2N + 2) */
  double halo_wait_seconds;      /* partitioned runs: time blocked on the halo exchange */
  int64_t halo_exchanges;
  /* With want_state, on rank 0: the final state of all elements in global
   * order, u[(c*K + k)*Np + i] (malloc'd: the caller frees it). */
  double *state;
  int64_t state_length;
  int64_t rejected_steps;        /* [time] scheme = rk34 | rk45: steps the controller rejected */
  double dt_last;                /* the last step's size */
  int interrupted_by;            /* SIGINT/SIGTERM that stopped the run (DG_ERR_INTERRUPTED) */
} dg_run_result;

dg_error dg_run(const dg_run_options *opt, dg_run_result *result);

#endif
