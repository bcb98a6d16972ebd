/* The autotuner wired to the solver: the measure callback of tuning/tuner.h
 * (build the variant as a dg_solver, prune on its kernel attributes, time
 * its kernels with device events on the problem's own mesh) and the
 * database lookups of `[backend] tuning = auto|full`. */
#ifndef DG_PROBLEMS_AUTOTUNE_H
#define DG_PROBLEMS_AUTOTUNE_H

#include <stdio.h>

#include "problems/solver/solver.h"
#include "tuning/tuner.h"

/* What tuning = auto does where neither the database nor the shipped
 * entries know the operator.  BY_BACKEND (the default): cuda searches
 * once and stores the choice; the cpu backend runs the base knobs with a
 * one-line notice.  Why not search there: its space is the OpenMP chunk
 * (a launch parameter) and the padded layout, whose candidates differ by
 * less than the run-to-run noise of one of them (Maxwell 3D N = 3 on 6,000
 * tets, 2 cores: 138-200 ms, the same variant 144-181 ms), while a search
 * costs 8-35 s a new operator, several times the run of a small problem.
 * SEARCH_MISSING: search there too (tuning = auto given explicitly, dgrun
 * tune, dgbench rhs). */
typedef enum {
  DG_AUTOTUNE_BY_BACKEND = 0,
  DG_AUTOTUNE_SEARCH_MISSING = 1
} dg_autotune_search;

typedef struct dg_autotune_request {
  dg_device *dev;
  const dg_discretization *disc;
  const dg_physics *physics;
  const int *tag_to_bc;
  const double *u; /* a state to time on (logical order), or NULL for zeros */
  dg_tune_mode mode;
  dg_kernel_config base; /* the [backend] knobs: the start of the search */
  FILE *table;           /* print the candidate table there (NULL: no) */
  const char *db_dir;    /* NULL: dg_tune_db_default_dir */
  int repeats;           /* timed repeats per candidate (<= 0: 7) */
  dg_autotune_search search; /* auto, no entry: search or not (above) */
  const double *coef; /* physics with coefficients: their values (dg_solver_set_coefficients) */
} dg_autotune_request;

typedef struct dg_autotune_outcome {
  dg_kernel_config cfg;
  int tuned;        /* 1: a search ran; 0: the database or shipped defaults answered */
  int from_defaults;
  double rhs_ms;    /* recorded RHS time of the choice */
} dg_autotune_outcome;

dg_error dg_autotune(const dg_autotune_request *req, dg_autotune_outcome *out);

/* The operator identity of the tuning database: a digest of the module
 * generated with the default knobs for the C target without the dg_initial
 * kernel, i.e. of the RHS kernels and all they use (physics, dim, N,
 * fields, precision and generator version in one); 64 hex digits, of
 * which the key keeps 32.  The initial condition is left out since it
 * does not change how fast the RHS runs: a problem whose initial state is
 * edited keeps its tuning.  (Until 2026-12-02 the digest covered the whole
 * module; the shipped entries were re-keyed by tests/tuning/rekey_defaults.c.)
 * A generator change that alters that source re-keys every operator, so
 * the shipped defaults (tuning/defaults) must be tuned again:
 * tuning.shipped_defaults_current says so. */
dg_error dg_autotune_op_digest(const dg_refelem *re, const dg_physics *physics,
                               int precision_float, char hex[65]);
/* The same digest over the module generated for physics as it is: with
 * dg_initial when physics->initial is set (the operator digest before
 * 2026-12-02, which the re-keying tool matches entries on). */
dg_error dg_autotune_module_digest(const dg_refelem *re, const dg_physics *physics,
                                   int precision_float, char hex[65]);

/* Median time of each kernel of one LSERK stage (surface, volume, update)
 * over repeats, after one warm-up (0 for one that launches nothing, fused
 * into the volume kernel); stops after the first repeat when the
 * sum of the kernels in score_mask (bit k: kernel k) exceeds cutoff_ms > 0
 * (*stopped = 1).  Used by the tuner and by dgbench rhs. */
dg_error dg_autotune_time_kernels(dg_solver *s, int repeats, double cutoff_ms, int score_mask,
                                  double ms[3], int *stopped);

/* The cpu backend's default (auto, by backend, not cuda): its own database
 * only, no search; and the database directory of q (malloc'd). */
int dg_autotune_cpu_default(const dg_autotune_request *q);
dg_error dg_autotune_db_dir(const dg_autotune_request *q, char **dir);

/* Compile ns candidate sources together ahead of their timing (a failure
 * only means each is compiled when timed), then free them and src. */
void dg_autotune_precompile_sources(dg_device *dev, char **src, int ns);

/* The curved elements' operator (dg_surface_curved + dg_volume_curved,
 * operators/codegen.h): the digest of the curved module of the default
 * knobs, a key of its own in the tuning database
 * (problems/solver/autotune_curved.c). */
dg_error dg_autotune_curved_digest(const dg_refelem *re, const dg_physics *physics,
                                   int precision_float, char hex[65]);
/* Tune the curved kernels of solver s (its affine knobs fixed) as an
 * operator of their own: q's mode, database and repeats as dg_autotune's
 * (q->base unused); the database's entry where it has one, else (cuda, or
 * a full search) every volume and surface variant of the tuning space the
 * curved kernels take, timed on s.  The choice is set on s and returned in
 * out; an affine mesh returns at once. */
dg_error dg_autotune_curved(const dg_autotune_request *q, dg_solver *s,
                            dg_autotune_outcome *out);

/* Shock capturing's first-order twin (problems/solver/solver_smooth.h) for
 * viscosity coefficient coef as an operator of its own: built on s, then
 * tuned as the curved kernels are (its key the digest of the twin's module,
 * its candidates the volume and surface variants as dg_solver_smooth_config
 * takes them, the solver's knobs fixed), the choice set on s.  A physics
 * without a twin returns at once (out->cfg the solver's knobs). */
dg_error dg_autotune_smooth(const dg_autotune_request *q, dg_solver *s, int coef,
                            dg_autotune_outcome *out);

#endif
