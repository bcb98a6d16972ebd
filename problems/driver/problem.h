/* A problem as described by problem.cfg: the configuration schema (every
 * key dgrun accepts, documented by `dgrun --help-config`), and the objects
 * it describes: the flux program with parameter overrides, the mesh with
 * its boundary-condition mapping, the discretization settings, the time
 * settings, output and backend choices.  Paths are relative to the cfg. */
#ifndef DG_PROBLEMS_PROBLEM_H
#define DG_PROBLEMS_PROBLEM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/comm.h"
#include "core/config.h"
#include "dg/discretization.h"
#include "dg/filter.h"
#include "dg/timestep.h"
#include "dg/timestep_embedded.h"
#include "meshes/mesh.h"
#include "meshes/partition.h"
#include "operators/codegen.h"
#include "operators/flux.h"
#include "problems/solver/shock.h"

/* The schema of problem.cfg (*n entries; the kernel knobs come from
 * operators/kernel_knobs.h).  Built on first call; safe from any thread. */
const dg_config_key *dg_problem_schema(size_t *n);

/* How a partitioned run writes snapshots and checkpoints: every rank its
 * part of one file (parallel HDF5), or rank 0 all of it after a gather. */
typedef enum { DG_IO_COLLECTIVE, DG_IO_GATHER } dg_parallel_io;

typedef struct dg_problem {
  dg_config *cfg;             /* owned */
  char *name;                 /* [problem] name, default the cfg's base name */
  int kind;                   /* [problem] kind: 0 transient, 1 poisson (problems/driver/poisson_run.h) */
  dg_flux_program *program;   /* owned */
  char *flux_text;            /* the text it was parsed from (flux_len bytes, NUL after) */
  size_t flux_len;
  char *flux_name;            /* its name in messages: the flux file's path, or a checkpoint's */
  char *resolved_cfg;         /* dg_problem_resolved_text, for checkpoints */
  dg_mesh *mesh;              /* owned (or part->mesh) */
  const char *element_order;  /* "hilbert" if the elements were renumbered along the
                                 Hilbert curve ([mesh] order), else "input" */
  /* Loaded for rank `rank` of `nranks` from a .h5 mesh stored with nranks
   * parts: only this rank's part was read, and mesh is its local mesh. */
  dg_partition_local *part;
  int rank, nranks;
  int dim;
  int *tag_to_bc;             /* per mesh tag: boundary-condition index */
  int order;
  dg_dtype precision;
  dg_rk_scheme scheme;        /* lserk4 | ssprk3 (lserk4 with an adaptive scheme: its cfl) */
  int adaptive;               /* [time] scheme = rk34 | rk45: embedded pair, PI controller */
  dg_rk_embedded embedded;    /* the pair (with adaptive) */
  dg_rk_pi pi;                /* its controller ([time] safety, max_fac, min_fac, pi_alpha,
                                 pi_beta) */
  double atol, rtol;          /* [time] atol, rtol: the scaled error norm's tolerances */
  double t_final, cfl, dt_fixed, wave_speed;
  double diffusivity;         /* [time] diffusivity (0: the advective CFL only) */
  int filter;                 /* [discretization] filter: 0 none, 1 exponential */
  dg_filter_params filter_params;
  int speed_computed;         /* dt from the flux file's wave_speed (no [time] dt or
                                 wave_speed): problems/driver/run_loop_speed.c */
  int64_t dt_interval;        /* [time] dt_interval: steps between updates of dt */
  double dt_growth;           /* [time] dt_growth: the most dt grows from one update on */
  int64_t max_steps;
  double divergence_factor;   /* [time] divergence_factor (0: off) */
  int64_t divergence_window;  /* [time] divergence_window in steps (0: off) */
  const char *output_dir;     /* resolved path */
  double output_interval;     /* 0: final time only */
  double checkpoint_interval; /* 0: none */
  int output_enabled;
  dg_parallel_io parallel_io; /* [output] parallel_io, auto resolved for this build */
  int output_formats;         /* [output] format: DG_SNAPSHOT_XDMF | DG_SNAPSHOT_VTKHDF */
  int *output_field;          /* per flux-file field: 1 if written to snapshots */
  const char *history;        /* [output] history: CSV path, relative to output_dir ("": none) */
  int64_t history_steps;      /* a history row every n steps (0: by time) */
  double history_interval;    /* a history row at every multiple (0: the output times) */
  const char *device;         /* auto | cuda | cpu */
  dg_kernel_config kernels;
  int tuning; /* [backend] tuning: 0 off, 1 auto, 2 full */
  int tuning_given; /* set in the cfg or on the command line (not the default) */
  int64_t nan_check_steps;
  dg_shock_settings shock;    /* [shock] (strings borrowed from cfg) */
} dg_problem;

/* The configuration of a run: cfg_path read (or cfg_text parsed, cfg_path
 * naming it in messages), the command-line overrides ("section.key=value")
 * applied, validated against the schema. */
dg_error dg_problem_read_config(const char *cfg_path, const char *cfg_text,
                                const char *const *overrides, int noverrides,
                                dg_config **out);
/* The problem cfg describes (cfg is taken over, also on failure) for rank
 * `rank` of `nranks` (see dg_problem_load_rank): its flux program from
 * flux_text (flux_len bytes, named flux_name in messages; a checkpoint's),
 * or with flux_text NULL from the [problem] flux file. */
dg_error dg_problem_load_config(dg_config *cfg, const char *flux_text, size_t flux_len,
                                const char *flux_name, int rank, int nranks, dg_problem **out);
/* The resolved configuration of p as canonical cfg text (malloc'd): what
 * the file and the overrides set, with [problem] name, the flux file, the
 * mesh file and the output directory as absolute paths, so that it reads
 * back to the same problem from anywhere (stored in checkpoints). */
dg_error dg_problem_resolved_text(const dg_problem *p, char **out);

/* Read cfg_path, apply the command-line overrides ("section.key=value"),
 * validate against the schema, parse the flux file, build the mesh, map
 * boundary tags to the flux file's boundary conditions. */
dg_error dg_problem_load(const char *cfg_path, const char *const *overrides,
                         int noverrides, dg_problem **out);
/* The same for rank `rank` of a run on `nranks` ranks: a [mesh] file that
 * is a .h5 partitioned into nranks parts is read part by part (each rank
 * only its own); any other mesh is read whole (the run partitions it). */
dg_error dg_problem_load_rank(const char *cfg_path, const char *const *overrides,
                              int noverrides, int rank, int nranks, dg_problem **out);
void dg_problem_destroy(dg_problem **p);

/* [time] scheme = rk34 | rk45 and the keys of the adaptive step
 * (problems/driver/problem_adaptive.c): atol, rtol, the controller's; the
 * [time] keys one kind of scheme cannot use are refused at their
 * file:line:col.  scheme_index: the [time] scheme enum's value. */
dg_error dg_problem_adaptive_keys(dg_problem *p, int scheme_index);

/* [shock] into p->shock (problems/driver/shock_config.c), and whether it
 * asks for a sensor or a limiter. */
dg_error dg_problem_load_shock(dg_problem *p);
int dg_problem_shock_enabled(const dg_problem *p);

/* Which of nb boundary conditions some face of mesh uses through tag_to_bc
 * (over every rank of comm when comm is not NULL): *used (nb bytes, caller
 * frees) for dg_physics.bc_used, so that a periodic box qualifies for basis
 * bernstein whatever its flux file's unused conditions read. */
dg_error dg_problem_boundaries_used(const dg_mesh *mesh, const int *tag_to_bc, int nb,
                                    dg_comm *comm, unsigned char **used);

/* With dt from the computed wave speed (speed_computed), the flux file must
 * declare `wave_speed = ...`: DG_ERR_INPUT saying what to add otherwise.
 * The run's planning calls it (after the other set-up checks, before any
 * kernel is generated). */
dg_error dg_problem_check_wave_speed(const dg_problem *p);

#endif
