/* Everything one run of dg_run holds (run.c sets it up and frees it), as
 * the time loop (run_loop.c), the restart (run_restart.c) and the
 * observers (observe_*.c) see it.  Internal to problems/driver. */
#ifndef DG_PROBLEMS_RUN_STATE_H
#define DG_PROBLEMS_RUN_STATE_H

#include <stdint.h>

#include "core/device.h"
#include "dg/discretization.h"
#include "operators/physics.h"
#include "problems/driver/problem.h"
#include "problems/driver/run.h"
#include "problems/io/checkpoint.h"
#include "problems/io/h5part.h"
#include "problems/io/snapshot.h"
#include "problems/solver/coefficients.h"
#include "problems/solver/embedded.h"
#include "problems/solver/filter.h"
#include "problems/solver/parallel.h"
#include "problems/solver/quantities.h"
#include "problems/solver/solver.h"
#include "problems/solver/wave_speed.h"

typedef struct dg_run_plan dg_run_plan;

struct dg_run_state {
  dg_problem *prob;
  dg_device *dev;
  dg_discretization *disc;
  dg_physics phys;
  dg_physics_tables *tables;
  unsigned char *bc_used; /* phys.bc_used */
  dg_solver *solver;
  dg_quantities *quantities; /* errors and integrals on the device (after the solver) */
  dg_state_filter *filter;   /* [discretization] filter, or NULL */
  double *quantity_values;   /* their values at the last dg_observe_error_norms */
  dg_wave_speed *speed;      /* the step rate from the flux file's wave_speed (with
                                prob->speed_computed; after the solver) */
  double speed_dt_max;       /* its last update's dt_max (0: none yet), the reference
                                of the growth limit; in checkpoints */
  dg_embedded *embedded;      /* the adaptive step's registers (prob->adaptive) */
  dg_rk_pi_state rk_ctrl;     /* its controller's state (step sizes, counts); in checkpoints */
  dg_snapshot_writer *writer;
  dg_parallel *par;
  double *u;        /* host state, logical order (this rank's elements) */
  double *u_global; /* rank 0 of a gathering partitioned run: all elements, for output */
  /* The flux file's coefficients at this rank's nodes (NULL before set-up);
   * coef_global: rank 0 of a gathering partitioned run, all elements'
   * (ncoef*K_global*Np, the same layout), and region_global their regions */
  dg_coefficients *coef;
  double *coef_global;
  int *region_global;
  /* for checkpoints: the coefficients' names, and their values here (this
   * rank's) and, on rank 0 of a gathering run, in coef_global */
  const char *coef_names[DG_CHECKPOINT_MAX_FIELDS];
  const double *coef_local[DG_CHECKPOINT_MAX_FIELDS], *coef_gathered[DG_CHECKPOINT_MAX_FIELDS];
  int collective;   /* a partitioned run writing with parallel HDF5 */
  dg_h5part *part;  /* with collective: this rank's elements in the files */
  uint64_t mesh_hash;  /* problems/solver/mesh_identity.h, for checkpoints */
  char mesh_name[512];
  char **comp_names;
  int ncomp;
  double t_entry; /* dg_run entry, for the time-to-first-step line */
  char *created_dir; /* topmost output directory this run created, or NULL */
  dg_run_plan *plan; /* the steps and observers (run_loop.c), planned in set-up */
};
typedef struct dg_run_state dg_run_state;

/* Wall clock (monotonic seconds). */
double dg_run_now_seconds(void);

/* Plan the run in set-up, before any kernel is generated, so that bad
 * input (a damaged or foreign --restart checkpoint, more steps than
 * [time] max_steps, a step too small to advance t) is refused with no
 * kernel-cache entry written: the largest stable step, the observers, the
 * checkpoint read into r->u and placed in the step sequence, the step
 * count.  Needs r->u and the snapshot writer; owned by r (r->plan). */
dg_error dg_run_plan_create(const dg_run_options *opt, dg_run_state *r);
void dg_run_plan_destroy(dg_run_plan **plan);

/* The time loop of the plan, from t = 0 or from the checkpoint to the
 * final time. */
dg_error dg_run_loop(const dg_run_options *opt, dg_run_state *r, dg_run_result *res);

/* Where a restarted run continues: the time, step and, when the step
 * sequence of the uninterrupted run is known, the segment of equal steps
 * the checkpoint lies in (see run_restart.c). */
typedef struct dg_run_resume {
  double t, dt;
  double dt_max; /* the checkpoint's dt_max (the computed wave speed's, or 0) */
  dg_rk_pi_state rk_ctrl; /* the checkpoint's controller state (adaptive steps) */
  int64_t step;
  int in_segment;     /* 1: continue the segment [t0, stop] of n steps of dt at step s */
  double seg_t0, seg_stop;
  int64_t seg_n, seg_s;
} dg_run_resume;

/* Read the checkpoint opt->restart into r->u (every rank its elements),
 * resume the snapshot writer, and place the run in the step sequence of
 * the uninterrupted run (landing: the landing time after a time t). */
dg_error dg_run_restart_read(const dg_run_options *opt, dg_run_state *r, dg_run_resume *at);
dg_error dg_run_restart_place(double (*landing)(void *ctx, double t), void *ctx,
                              double t_final, double dt_max, dg_run_resume *at);

/* The checkpoint identity of this run (time, dt and step left 0). */
void dg_run_checkpoint_info(const dg_run_state *r, dg_checkpoint_info *info);

#endif
