#include "problems/run.h"
#include "problems/autotune.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/comm_h5.h"
#include "core/device.h"
#include "core/fsutil.h"
#include "core/log.h"
#include "core/timing.h"
#include "dg/discretization.h"
#include "dg/timestep.h"
#include "operators/flux_affine.h"
#include "operators/flux_eval.h"
#include "operators/physics.h"
#include "problems/checkpoint.h"
#include "problems/memory_estimate.h"
#include "problems/parallel.h"
#include "problems/problem.h"
#include "problems/signals.h"
#include "problems/snapshot.h"
#include "problems/solver.h"
#include "problems/validate_early.h"

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Everything one run holds; freed in one place. */
typedef struct run_state {
  dg_problem *prob;
  dg_device *dev;
  dg_discretization *disc;
  dg_physics phys;
  dg_physics_tables *tables;
  unsigned char *bc_used; /* phys.bc_used */
  dg_solver *solver;
  dg_snapshot_writer *writer;
  dg_parallel *par;
  double *u;        /* host state, logical order (this rank's elements) */
  double *u_global; /* rank 0 of a gathering partitioned run: all elements, for output */
  int collective;   /* a partitioned run writing with parallel HDF5 */
  dg_h5part *part;  /* with collective: this rank's elements in the files */
  char **comp_names;
  int ncomp;
  double t_entry; /* dg_run entry, for the time-to-first-step line */
  char *created_dir; /* topmost output directory this run created, or NULL */
  /* Found in set-up, before any kernel is generated (bad input must leave
   * no kernel-cache entry): the largest stable step, the start (0, or the
   * checkpoint's time and step, its state already in u) and the step count. */
  double dt_max, t0;
  int64_t step0, total_steps;
} run_state;

static void run_state_free(run_state *r) {
  if (r->comp_names)
    for (int c = 0; c < r->ncomp; c++)
      free(r->comp_names[c]);
  free(r->comp_names);
  free(r->created_dir);
  free(r->u);
  free(r->u_global);
  dg_snapshot_writer_destroy(&r->writer);
  dg_h5part_destroy(&r->part);
  dg_solver_destroy(&r->solver);
  dg_physics_tables_destroy(&r->tables);
  free(r->bc_used);
  dg_discretization_destroy(&r->disc);
  dg_parallel_destroy(&r->par);
  dg_device_destroy(&r->dev);
  dg_problem_destroy(&r->prob);
}

/* Node coordinates of (k, i) as a dim-vector. */
static void node_x(const dg_discretization *d, int64_t k, int i, double *x) {
  for (int a = 0; a < d->dim; a++)
    x[a] = d->X[a][k * d->Np + i];
}

/* Error norms per field against the exact solution at time t:
 * L2 = sqrt(sum_k J_k e_k^T M e_k) (the mass matrix of the reference
 * element, exact for the nodal interpolant of the error), max over nodes. */
static dg_error error_norms(run_state *r, double t, dg_run_result *res) {
  const dg_discretization *d = r->disc;
  const dg_flux_program *prog = r->prob->program;
  int nf = dg_flux_field_count(prog);
  res->have_norms = 1;
  for (int f = 0; f < nf; f++)
    if (!dg_flux_field(prog, f)->exact)
      res->have_norms = 0;
  if (!res->have_norms)
    return DG_OK;
  int Np = d->Np;
  double sums[DG_RUN_MAX_FIELDS] = {0};
  for (int f = 0; f < nf && f < DG_RUN_MAX_FIELDS; f++) {
    const dg_flux_field_info *fi = dg_flux_field(prog, f);
    int nc = fi->ncomp;
    double sum = 0, mx = 0;
    int nan_seen = 0, no_memory = 0;
    int64_t bad_k = -1;
    /* over the elements in parallel (a serial loop took 25 s after a 3-step
     * run on 257k N=3 tets); the exact solution once per node for all its
     * components */
#pragma omp parallel reduction(+ : sum) reduction(max : mx) reduction(| : nan_seen, no_memory)
    {
      double *e = malloc(sizeof(double) * (size_t)Np * (size_t)nc);
      no_memory |= e == NULL;
#pragma omp for schedule(static)
      for (int64_t k = 0; k < d->K; k++) {
        if (!e)
          continue;
        int failed = 0;
        for (int i = 0; i < Np && !failed; i++) {
          double x[3], ex[64];
          node_x(d, k, i, x);
          if (dg_flux_eval_exact(prog, f, x, t, ex) != DG_OK) {
            failed = 1;
            break;
          }
          for (int c = 0; c < nc; c++) {
            double v = r->u[((int64_t)(fi->offset + c) * d->K + k) * Np + i] - ex[c];
            e[c * Np + i] = v;
            nan_seen |= isnan(v);
            if (fabs(v) > mx)
              mx = fabs(v);
          }
        }
        if (failed) {
#pragma omp atomic write
          bad_k = k;
          continue;
        }
        for (int c = 0; c < nc; c++) {
          const double *ec = e + c * Np;
          double s = 0;
          for (int i = 0; i < Np; i++) {
            double mi = 0;
            for (int j = 0; j < Np; j++)
              mi += d->re->M[i * Np + j] * ec[j];
            s += ec[i] * mi;
          }
          sum += d->J[k * Np] * s;
        }
      }
      free(e);
    }
    DG_CHECK(!no_memory, DG_ERR_MEMORY, "out of memory");
    if (bad_k >= 0) { /* again on this thread, whose error stack is reported */
      for (int i = 0; i < Np; i++) {
        double x[3], ex[64];
        node_x(d, bad_k, i, x);
        DG_CALL(dg_flux_eval_exact(prog, f, x, t, ex));
      }
      DG_RAISE(DG_ERR_INTERNAL, "exact solution of '%s' failed on another thread only",
               fi->name);
    }
    sums[f] = sum;
    res->maxerr[f] = nan_seen ? NAN : mx;
  }
  /* Over all ranks (NaN kept: fmax would drop it, so it is flagged apart). */
  int nn = nf < DG_RUN_MAX_FIELDS ? nf : DG_RUN_MAX_FIELDS;
  double nan_flag = 0;
  for (int f = 0; f < nn; f++)
    if (isnan(res->maxerr[f]))
      nan_flag = 1;
  DG_CALL(dg_parallel_sum(r->par, sums, nn));
  DG_CALL(dg_parallel_max(r->par, res->maxerr, nn));
  DG_CALL(dg_parallel_max(r->par, &nan_flag, 1));
  for (int f = 0; f < nn; f++) {
    res->l2[f] = sqrt(sums[f]);
    if (nan_flag)
      res->maxerr[f] = NAN;
  }
  return DG_OK;
}

/* NaN/Inf anywhere in the state: name field, element and time.  The
 * element is the mesh's (a partitioned run's local numbers mean nothing to
 * the user): of the first component that is not finite, its first element
 * in mesh order, as a serial run names it. */
static dg_error check_finite_local(run_state *r, double t, int64_t step) {
  const dg_discretization *d = r->disc;
  const int64_t *gk = r->par->gk; /* NULL: local numbers are the mesh's */
  int64_t KN = d->K * d->Np, n = (int64_t)r->ncomp * KN, bad = -1;
  for (int64_t z = 0; z < n; z++) {
    if (isfinite(r->u[z]))
      continue;
    if (bad < 0) {
      bad = z;
      if (!gk)
        break;
    } else if (z / KN > bad / KN) {
      break;
    } else if (gk[(z / d->Np) % d->K] < gk[(bad / d->Np) % d->K]) {
      bad = z; /* (the first node of that element: nodes are scanned in order) */
    }
  }
  if (bad < 0)
    return DG_OK;
  int c = (int)(bad / KN);
  int64_t k = (bad / d->Np) % d->K;
  DG_RAISE(DG_ERR_NUMERIC,
           "the solution is not finite (%g) in %s at element %lld (node %lld) at "
           "t = %.9g (step %lld): the run is unstable (reduce [time] cfl or dt, or "
           "check the fluxes); the last good snapshot is kept",
           r->u[bad], r->comp_names[c], (long long)(gk ? gk[k] : k), (long long)(bad % d->Np),
           t, (long long)step);
}

static dg_error write_snapshot_file(run_state *r, double t, int64_t step, dg_run_result *res);

/* A snapshot, collectively or by rank 0; every rank learns of a failure
 * (all stop with one report instead of an abort). */
static dg_error write_snapshot(run_state *r, double t, int64_t step, dg_run_result *res) {
  dg_error err = write_snapshot_file(r, t, step, res);
  if (r->par->size > 1)
    err = dg_parallel_agree(r->par->comm, err);
  DG_CALL(err);
  return DG_OK;
}

static dg_error write_snapshot_file(run_state *r, double t, int64_t step, dg_run_result *res) {
  const dg_discretization *d = r->disc;
  const double *u = r->u;
  int64_t K = d->K;
  if (r->par->size > 1 && !r->collective) {
    /* Serial HDF5: rank 0 gathers the fields and writes the file. */
    DG_CALL(dg_parallel_gather(r->par, r->ncomp, d->Np, r->u, r->u_global));
    if (r->par->rank != 0)
      return DG_OK;
    u = r->u_global;
    K = r->par->K_global;
  }
  const dg_flux_program *prog = r->prob->program;
  int nf = dg_flux_field_count(prog);
  /* (at most DG_RUN_MAX_FIELDS fields, refused at set-up past it) */
  dg_snapshot_norm norms[DG_RUN_MAX_FIELDS];
  DG_CHECK(nf <= DG_RUN_MAX_FIELDS, DG_ERR_INTERNAL, "more than %d fields", DG_RUN_MAX_FIELDS);
  for (int f = 0; f < nf; f++) {
    norms[f].name = dg_flux_field(prog, f)->name;
    norms[f].l2 = res->l2[f];
    norms[f].max = res->maxerr[f];
  }
  /* A field of more than 3 components (an XDMF vector holds 3) is written
   * as scalars <name>_<c>, the names of its checkpoint components. */
  dg_snapshot_field *fields = calloc((size_t)r->ncomp + 1, sizeof *fields);
  DG_CHECK(fields, DG_ERR_MEMORY, "out of memory");
  int nout = 0;
  for (int f = 0; f < nf; f++) {
    const dg_flux_field_info *fi = dg_flux_field(prog, f);
    if (!r->prob->output_field[f])
      continue;
    int split = fi->ncomp > 3;
    for (int s = 0; s < (split ? fi->ncomp : 1); s++) {
      dg_snapshot_field *o = &fields[nout++];
      o->name = split ? r->comp_names[fi->offset + s] : fi->name;
      o->ncomp = split ? 1 : fi->ncomp;
      o->real_size = 8;
      for (int c = 0; c < o->ncomp; c++)
        o->comp[c] = u + (int64_t)(fi->offset + s + c) * K * d->Np;
    }
  }
  dg_error err = dg_snapshot_writer_write(r->writer, t, step, fields, nout, norms,
                                          res->have_norms ? nf : 0);
  free(fields);
  DG_CALL(err);
  return DG_OK;
}

static dg_error checkpoint_info(run_state *r, dg_checkpoint_info *info) {
  const dg_discretization *d = r->disc;
  memset(info, 0, sizeof *info);
  info->dim = d->dim;
  info->N = d->N;
  info->Np = d->Np;
  info->K = r->par->K_global; /* checkpoints hold all elements in global order */
  info->real_size = 8;
  info->nfields = r->ncomp;
  info->field_names = (const char *const *)r->comp_names;
  info->scheme = r->prob->scheme.name;
  info->problem_id = r->prob->name;
  info->element_order = r->prob->element_order;
  return DG_OK;
}

static dg_error write_checkpoint_file(run_state *r, dg_checkpoint_info *info, const double *u);

static char *checkpoint_path(const run_state *r, int64_t step) {
  char name[512];
  snprintf(name, sizeof name, "%s_checkpoint_%06lld.h5", r->prob->name, (long long)step);
  return dg_fsutil_join(r->prob->output_dir, name);
}

/* A checkpoint holds at most DG_CHECKPOINT_MAX_FIELDS state components
 * (the field tables below have room for as many). */
static dg_error check_checkpoint_fields(const run_state *r) {
  DG_CHECK(r->ncomp <= DG_CHECKPOINT_MAX_FIELDS, DG_ERR_INPUT,
           "%s has %d state components, but a checkpoint holds at most %d: run it without "
           "checkpoints ([output] checkpoint_interval = 0, no --restart)",
           r->prob->name, r->ncomp, DG_CHECKPOINT_MAX_FIELDS);
  return DG_OK;
}

static dg_error write_checkpoint(run_state *r, double t, double dt, int64_t step) {
  /* (also reached by a signal in a run without checkpoint_interval) */
  DG_CALL(dg_parallel_agree(r->par->comm, check_checkpoint_fields(r)));
  dg_checkpoint_info info;
  DG_CALL(checkpoint_info(r, &info));
  info.time = t;
  info.dt = dt;
  info.step = step;
  const dg_discretization *d = r->disc;
  const double *u = r->u;
  if (r->collective) {
    /* every rank writes its elements into the one file */
    const void *fields[DG_CHECKPOINT_MAX_FIELDS];
    for (int c = 0; c < r->ncomp; c++)
      fields[c] = r->u + (int64_t)c * d->K * d->Np;
    char *path = checkpoint_path(r, step);
    DG_CHECK(path, DG_ERR_MEMORY, "out of memory");
    dg_error err = dg_checkpoint_write_part(path, &info, fields, r->par->comm, r->part);
    if (err == DG_OK && r->par->rank == 0)
      dg_info("checkpoint %s (t = %.6g)", path, t);
    free(path);
    DG_CALL(dg_parallel_agree(r->par->comm, err));
    return DG_OK;
  }
  if (r->par->size > 1) {
    DG_CALL(dg_parallel_gather(r->par, r->ncomp, d->Np, r->u, r->u_global));
    u = r->u_global;
  }
  dg_error err = DG_OK;
  if (r->par->rank == 0)
    err = write_checkpoint_file(r, &info, u);
  if (r->par->size > 1)
    err = dg_parallel_agree(r->par->comm, err);
  DG_CALL(err);
  return DG_OK;
}

static dg_error write_checkpoint_file(run_state *r, dg_checkpoint_info *info, const double *u) {
  const dg_discretization *d = r->disc;
  int64_t step = info->step;
  double t = info->time;
  const void *fields[DG_CHECKPOINT_MAX_FIELDS];
  for (int c = 0; c < r->ncomp; c++)
    fields[c] = u + (int64_t)c * r->par->K_global * d->Np;
  char *path = checkpoint_path(r, step);
  DG_CHECK(path, DG_ERR_MEMORY, "out of memory");
  dg_error err = dg_checkpoint_write(path, info, fields);
  if (err == DG_OK)
    dg_info("checkpoint %s (t = %.6g)", path, t);
  free(path);
  DG_CALL(err);
  return DG_OK;
}

/* Every rank learns when one rank's state is not finite. */
static dg_error check_finite(run_state *r, double t, int64_t step) {
  dg_error err = check_finite_local(r, t, step);
  if (r->par->size > 1)
    err = dg_parallel_agree(r->par->comm, err);
  DG_CALL(err);
  return DG_OK;
}

/* SIGINT/SIGTERM arrived (problems/signals.h): checkpoint the state at the
 * end of the step just taken and stop with DG_ERR_INTERRUPTED. */
static dg_error stop_on_signal(const dg_run_options *opt, run_state *r, int sig, double t,
                               double dt, int64_t step, dg_run_result *res) {
  res->interrupted_by = sig;
  DG_CALL(dg_solver_get_state(r->solver, r->u));
  DG_CALL(check_finite(r, t, step));
  /* (a run without output or checkpoints has not created the directory;
   * every rank tries, and all stop together when it cannot be made) */
  DG_CALL(dg_parallel_agree(r->par->comm, dg_fsutil_mkdir_p(r->prob->output_dir, 0755)));
  DG_CALL(write_checkpoint(r, t, dt, step));
  char *path = checkpoint_path(r, step);
  DG_CHECK(path, DG_ERR_MEMORY, "out of memory");
  dg_error e = dg_error_raise(DG_ERR_INTERRUPTED, __FILE__, __LINE__, __func__,
                              "%s: stopped at t = %.9g (step %lld) after writing checkpoint %s; "
                              "continue with: dgrun %s [the same overrides] --restart %s",
                              dg_signals_name(res->interrupted_by), t, (long long)step, path,
                              opt->cfg_path, path);
  free(path);
  return e;
}

/* Fail before the time loop, not after hours of it, when the output
 * directory cannot be written or its file system cannot hold what the run
 * will write: every snapshot (output fields + node coordinates) and every
 * checkpoint (the whole state) counted from t = 0, plus 64 KiB of metadata
 * each.  The directories it creates are noted so that a run failing before
 * it wrote anything removes them again (dg_run). */
static dg_error probe_output_dir(run_state *r) {
  const dg_problem *p = r->prob;
  const char *dir = p->output_dir;
  r->created_dir = dg_fsutil_missing_top(dir);
  DG_CALL(dg_fsutil_mkdir_p(dir, 0755));
  char *probe = dg_fsutil_join(dir, ".dgrun_write_probe");
  DG_CHECK(probe, DG_ERR_MEMORY, "out of memory");
  dg_error err = dg_fsutil_write_atomic(probe, "ok\n", 3, 0644);
  unlink(probe);
  free(probe);
  DG_CALL(err);
  double values = (double)r->disc->K * r->disc->Np, nout = r->disc->dim;
  for (int f = 0; f < dg_flux_field_count(p->program); f++)
    if (p->output_field[f])
      nout += dg_flux_field(p->program, f)->ncomp;
  double nsnap = !p->output_enabled ? 0
                 : p->output_interval > 0 ? floor(p->t_final / p->output_interval) + 2 : 1;
  double nckpt = p->checkpoint_interval > 0 ? floor(p->t_final / p->checkpoint_interval) + 1 : 0;
  double need = nsnap * (nout * values * 8 + 65536) + nckpt * (r->ncomp * values * 8 + 65536);
  unsigned long long avail;
  DG_CALL(dg_fsutil_free_space(dir, &avail));
  DG_CHECK(need <= (double)avail, DG_ERR_IO,
           "output directory '%s' has %.3g MB free, but this run writes about %.3g MB "
           "(%.0f snapshots, %.0f checkpoints): free space, or raise [output] interval / "
           "checkpoint_interval",
           dir, (double)avail / 1e6, need / 1e6, nsnap, nckpt);
  return DG_OK;
}

static void progress(const dg_run_options *opt, int tty, int64_t step, int64_t nsteps,
                     double t, double dt, double elapsed, double dofs_per_s, int final) {
  if (opt->quiet)
    return;
  double eta = step > 0 ? elapsed / (double)step * (double)(nsteps - step) : 0;
  char line[256];
  snprintf(line, sizeof line,
           "step %lld/%lld  t = %.6g  dt = %.3g  wall %.1f s  ETA %.1f s  %.3g DOF-updates/s",
           (long long)step, (long long)nsteps, t, dt, elapsed, eta, dofs_per_s);
  if (tty) {
    fprintf(stderr, "\r%-110s", line);
    if (final)
      fputc('\n', stderr);
  } else {
    fprintf(stderr, "dgrun: %s\n", line);
  }
  fflush(stderr);
}

/* The next time the loop must land on exactly: the next output or
 * checkpoint time, or the final time. */
static double next_stop(double t, double t_final, double out_iv, double ck_iv) {
  double stop = t_final;
  const double ivs[2] = {out_iv, ck_iv};
  for (int j = 0; j < 2; j++) {
    if (ivs[j] <= 0)
      continue;
    double m = floor(t / ivs[j] * (1 + 1e-12)) + 1;
    double cand = m * ivs[j];
    if (cand < stop && cand > t * (1 + 1e-12))
      stop = cand;
  }
  return stop;
}

static int is_multiple(double t, double iv) {
  if (iv <= 0)
    return 0;
  double m = t / iv;
  return fabs(m - round(m)) < 1e-9 && round(m) >= 1;
}

/* The final state of all elements for the caller (rank 0). */
static dg_error final_state(run_state *r, dg_run_result *res) {
  int64_t n = (int64_t)r->ncomp * r->par->K_global * r->disc->Np;
  double *u = NULL;
  if (r->par->rank == 0) {
    u = malloc(sizeof(double) * (size_t)(n + 1));
    DG_CHECK(u, DG_ERR_MEMORY, "out of memory");
  }
  dg_error err = dg_parallel_gather(r->par, r->ncomp, r->disc->Np, r->u, u);
  if (err != DG_OK) {
    free(u);
    DG_CALL(err);
  }
  res->state = u;
  res->state_length = u ? n : 0;
  return DG_OK;
}

/* The total number of steps from (t, step) to the end, for the progress
 * line; more than [time] max_steps is an error. */
static dg_error count_steps(const dg_problem *p, double t, int64_t step, double dt_max,
                            int64_t *total) {
  *total = step;
  while (t < p->t_final * (1 - 1e-14)) {
    double stop = next_stop(t, p->t_final, p->output_interval, p->checkpoint_interval);
    int64_t n;
    double dt;
    DG_CALL(dg_rk_plan_steps(t, stop, dt_max, p->max_steps, &n, &dt));
    *total += n;
    t = stop;
    DG_CHECK(p->max_steps <= 0 || *total <= p->max_steps, DG_ERR_INPUT,
             "reaching t = %g needs more than [time] max_steps = %lld steps", p->t_final,
             (long long)p->max_steps);
  }
  return DG_OK;
}

/* Read the --restart checkpoint into r->u (its identity checked against
 * this run) and resume the snapshot series; sets r->t0 and r->step0. */
static dg_error read_restart(const dg_run_options *opt, run_state *r) {
  const dg_discretization *d = r->disc;
  if (opt->restart) {
    dg_checkpoint_info info;
    DG_CALL(checkpoint_info(r, &info));
    /* Every rank reads its own elements of the global state, so a run may
     * continue on any number of ranks; no rank holds more than its part
     * (nothing of K_global size is allocated for a restart, except one
     * field at a time from a format 1 file; see checkpoint.h).  The host
     * state holds the owned elements only (the ghost slots live on the
     * device and are filled by the first halo exchange). */
    void *fields[DG_CHECKPOINT_MAX_FIELDS];
    DG_CHECK(r->ncomp <= DG_CHECKPOINT_MAX_FIELDS, DG_ERR_UNSUPPORTED,
             "more than %d state components", DG_CHECKPOINT_MAX_FIELDS);
    for (int c = 0; c < r->ncomp; c++)
      fields[c] = r->u + (int64_t)c * d->K * d->Np;
    dg_error err;
    if (!r->par->gk) {
      err = dg_checkpoint_read(opt->restart, &info, fields); /* one rank: all elements */
    } else {
      dg_h5part *part = r->part; /* collective output made it already */
      if (!part)
        err = dg_comm_agree(r->par->comm, dg_h5part_create(r->par->gk, r->par->K,
                                                           r->par->K_global, &part));
      else
        err = DG_OK;
      if (err == DG_OK)
        err = dg_checkpoint_read_part(opt->restart, &info, fields, r->par->comm, part);
      if (part != r->part)
        dg_h5part_destroy(&part);
      err = dg_parallel_agree(r->par->comm, err);
    }
    DG_CALL(err);
    r->t0 = info.time;
    r->step0 = info.step;
  }
  return DG_OK;
}

/* The largest stable step and the step count to the end, refused (more
 * than max_steps, a step too small to advance t) before any kernel. */
static dg_error plan_steps(run_state *r) {
  dg_problem *p = r->prob;
  if (p->dt_fixed > 0)
    r->dt_max = p->dt_fixed;
  else {
    double h_min = r->disc->h_min;
    DG_CALL(dg_parallel_min(r->par, &h_min, 1));
    DG_CALL(dg_parallel_agree(r->par->comm, dg_rk_cfl_dt(p->cfl, h_min, p->wave_speed,
                                                         r->disc->N, &r->dt_max)));
  }
  /* (the same on every rank: agreed, so that all stop with one report) */
  DG_CALL(dg_parallel_agree(r->par->comm,
                            count_steps(p, r->t0, r->step0, r->dt_max, &r->total_steps)));
  return DG_OK;
}

static dg_error run_loop(const dg_run_options *opt, run_state *r, dg_run_result *res) {
  dg_problem *p = r->prob;
  const dg_discretization *d = r->disc;
  double dt_max = r->dt_max;
  double t = r->t0;
  int64_t step = r->step0;
  if (opt->restart)
    dg_info("restarting from %s at t = %.9g (step %lld)", opt->restart, t, (long long)step);
  /* evaluated on the device by a generated kernel (time to first step);
   * the host copy serves the norms and snapshot at t = 0, and without them
   * comes down only when the device finds the state not finite */
  int host_state = opt->restart || (p->output_enabled && p->output_interval > 0);
  int ph = dg_timing_begin("initial condition");
  if (!opt->restart) {
    DG_CALL(dg_solver_set_initial(r->solver, t));
    int finite = 1;
    if (!host_state)
      DG_CALL(dg_solver_state_finite(r->solver, &finite));
    if (host_state || !finite)
      DG_CALL(dg_solver_get_state(r->solver, r->u));
    host_state |= !finite;
  }
  if (host_state || r->par->size > 1) /* (under MPI every rank takes part) */
    DG_CALL(check_finite(r, t, step));
  dg_timing_end(ph);
  if (opt->restart)
    DG_CALL(dg_solver_set_state(r->solver, r->u));
  if (!opt->restart && p->output_enabled && p->output_interval > 0) {
    DG_CALL(error_norms(r, t, res));
    DG_CALL(write_snapshot(r, t, step, res));
  }

  int64_t total = r->total_steps;
  int tty = isatty(STDERR_FILENO);
  double dofs = (double)r->ncomp * (double)r->par->K_global * d->Np;
  double t_start = now_seconds(), last_print = t_start;
  int64_t steps_at_start = step, rhs_at_start = dg_solver_get_timings(r->solver).rhs_evaluations;
  double dt = dt_max;
  int ph_first = dg_timing_begin("first step");
  while (t < p->t_final * (1 - 1e-14)) {
    double stop = next_stop(t, p->t_final, p->output_interval, p->checkpoint_interval);
    int64_t n;
    DG_CALL(dg_rk_plan_steps(t, stop, dt_max, 0, &n, &dt));
    double t0 = t;
    for (int64_t s = 0; s < n; s++) {
      DG_CALL(dg_parallel_test_fault(r->par, step));
      DG_CALL(dg_solver_step(r->solver, &p->scheme, t, dt));
      step++;
      if (step == steps_at_start + 1) { /* time to first step: set-up + one step */
        DG_CALL(dg_device_synchronize(r->dev));
        dg_timing_end(ph_first);
        if (!opt->quiet)
          dg_info("first step done %.2f s after start", now_seconds() - r->t_entry);
      }
      t = s + 1 == n ? stop : t0 + (double)(s + 1) * dt;
      /* every rank stops at the same step: the checkpoint is collective */
      int sig = dg_signals_pending();
      if (r->par->size > 1) {
        double v = sig;
        DG_CALL(dg_comm_allreduce_max(r->par->comm, &v, 1));
        sig = (int)v;
      }
      if (sig)
        DG_CALL(stop_on_signal(opt, r, sig, t, dt, step, res));
      if (step % p->nan_check_steps == 0) {
        /* decided on the device; the state comes down only to say where.
         * Every rank learns of a non-finite state on any rank: the rank that
         * found it would otherwise wait in check_finite's agreement while
         * the others wait for its halo faces in the next step. */
        int finite = 1;
        DG_CALL(dg_solver_state_finite(r->solver, &finite));
        double bad = !finite;
        DG_CALL(dg_parallel_max(r->par, &bad, 1));
        if (bad != 0) {
          DG_CALL(dg_solver_get_state(r->solver, r->u));
          DG_CALL(check_finite(r, t, step));
        }
      }
      double nowt = now_seconds();
      if (nowt - last_print > (tty ? 0.2 : 5.0)) {
        int64_t rhs = dg_solver_get_timings(r->solver).rhs_evaluations - rhs_at_start;
        progress(opt, tty, step, total, t, dt, nowt - t_start,
                 dofs * (double)rhs / (nowt - t_start), 0);
        last_print = nowt;
      }
    }
    DG_CALL(dg_solver_get_state(r->solver, r->u));
    DG_CALL(check_finite(r, t, step));
    int at_end = t >= p->t_final * (1 - 1e-14);
    if (p->output_enabled && (at_end || is_multiple(t, p->output_interval))) {
      DG_CALL(error_norms(r, t, res));
      DG_CALL(write_snapshot(r, t, step, res));
      if (res->have_norms && !opt->quiet) {
        for (int f = 0; f < dg_flux_field_count(p->program) && f < DG_RUN_MAX_FIELDS; f++)
          dg_info("t = %.6g  %s: L2 error %.6e  max error %.6e", t,
                  dg_flux_field(p->program, f)->name, res->l2[f], res->maxerr[f]);
      }
    }
    if (!at_end && is_multiple(t, p->checkpoint_interval))
      DG_CALL(write_checkpoint(r, t, dt, step));
  }
  double wall = now_seconds() - t_start;
  int64_t rhs = dg_solver_get_timings(r->solver).rhs_evaluations - rhs_at_start;
  res->steps = step;
  res->t_final = t;
  res->wall_seconds = wall;
  res->dof_updates_per_second = wall > 0 ? dofs * (double)rhs / wall : 0;
  res->halo_wait_seconds = dg_solver_get_timings(r->solver).halo.wait_seconds;
  res->halo_exchanges = dg_solver_get_timings(r->solver).halo.exchanges;
  progress(opt, tty, step, total, t, dt, wall, res->dof_updates_per_second, 1);
  DG_CALL(error_norms(r, t, res));
  if (p->checkpoint_interval > 0)
    DG_CALL(write_checkpoint(r, t, dt, step));
  if (opt->want_state)
    DG_CALL(final_state(r, res));
  return DG_OK;
}

/* The snapshot writer: of all elements (one rank), of this rank's
 * elements (collective), or on rank 0 of all elements gathered there. */
static dg_error create_writer(run_state *r) {
  const dg_discretization *d = r->disc;
  if (r->par->size == 1 || r->collective) {
    dg_snapshot_mesh sm = {d->dim, d->N, d->Np, d->K, d->x, d->y, d->z};
    if (r->collective)
      DG_CALL(dg_parallel_agree(
          r->par->comm, dg_snapshot_writer_create_part(r->prob->output_dir, r->prob->name, &sm,
                                                       r->par->comm, r->part, &r->writer)));
    else
      DG_CALL(dg_snapshot_writer_create(r->prob->output_dir, r->prob->name, &sm, &r->writer));
    return DG_OK;
  }
  double *xl = malloc(sizeof(double) * (size_t)(d->dim * d->K * d->Np + 1));
  double *xg = r->par->rank == 0
                   ? malloc(sizeof(double) * (size_t)(d->dim * r->par->K_global * d->Np + 1))
                   : NULL;
  dg_error err = DG_OK;
  DG_CHECK_GOTO(err, done, xl && (xg || r->par->rank != 0), DG_ERR_MEMORY, "out of memory");
  for (int a = 0; a < d->dim; a++)
    memcpy(xl + (size_t)a * d->K * d->Np, d->X[a], sizeof(double) * (size_t)(d->K * d->Np));
  DG_CALL_GOTO(err, done, dg_parallel_gather(r->par, d->dim, d->Np, xl, xg));
  if (r->par->rank == 0) {
    int64_t Kg = r->par->K_global;
    dg_snapshot_mesh sm = {d->dim, d->N, d->Np, Kg, xg, d->dim > 1 ? xg + Kg * d->Np : NULL,
                           d->dim > 2 ? xg + 2 * Kg * d->Np : NULL};
    err = dg_snapshot_writer_create(r->prob->output_dir, r->prob->name, &sm, &r->writer);
  }
  err = dg_parallel_agree(r->par->comm, err);
done:
  free(xl);
  free(xg);
  DG_CALL(err);
  return DG_OK;
}

/* [backend] basis = bernstein needs an affine physics: the error names the
 * flux file's line and column. */
static dg_error check_affine(const dg_problem *p, const dg_physics *ph) {
  const char *flux = NULL;
  DG_CALL(dg_config_get_path(p->cfg, "problem", "flux", NULL, &flux));
  int nf = dg_flux_field_count(p->program);
  const char **names = calloc((size_t)nf + 1, sizeof *names);
  DG_CHECK(names, DG_ERR_MEMORY, "out of memory");
  for (int f = 0; f < nf; f++)
    names[f] = dg_flux_field(p->program, f)->name;
  dg_error err = dg_flux_check_affine(ph, names, flux);
  free(names);
  DG_CALL(err);
  return DG_OK;
}

/* Refuse a run whose arrays cannot fit, before allocating them (see
 * memory_estimate.h): this rank's elements after partitioning, not the
 * problem's mesh, which a run reading its mesh part by part holds only in
 * part. */
static dg_error check_memory(const run_state *r, const dg_device_info *info, int gather) {
  const dg_problem *p = r->prob;
  const dg_parallel *par = r->par;
  dg_memory_estimate m = {par->mesh->dim, p->order, 0, par->K,
                          par->local ? par->local->nhalo : 0, 0, par->K_global};
  for (int f = 0; f < dg_flux_field_count(p->program); f++)
    m.ncomp += dg_flux_field(p->program, f)->ncomp;
  if (gather && par->rank == 0)
    m.K_gather = par->K_global;
  DG_CALL(dg_memory_estimate_check(&m, info->total_memory, info->name));
  return DG_OK;
}

static dg_error setup(const dg_run_options *opt, run_state *r) {
  /* Bad input fails on every rank alike: reported once, by rank 0. */
  int ph = dg_timing_begin("problem load (config, flux, mesh)");
  DG_CALL(dg_parallel_agree(opt->comm,
                            dg_problem_load_rank(opt->cfg_path, opt->overrides, opt->noverrides,
                                                 opt->comm ? dg_comm_rank(opt->comm) : 0,
                                                 opt->comm ? dg_comm_size(opt->comm) : 1,
                                                 &r->prob)));
  dg_timing_end(ph);
  dg_problem *p = r->prob;
  DG_CALL(dg_parallel_agree(opt->comm, dg_validate_outputs(p)));
  ph = dg_timing_begin("partition");
  DG_CALL(dg_parallel_agree(opt->comm, dg_parallel_create(opt->comm, p, &r->par)));
  dg_timing_end(ph);
  ph = dg_timing_begin("device init");
  DG_CALL(dg_parallel_agree(opt->comm, dg_parallel_device(r->par, p, &r->dev)));
  dg_timing_end(ph);
  const dg_device_info *info = dg_device_get_info(r->dev);
  if (!opt->quiet)
    dg_info("backend %s: %s%s", info->backend_name, info->name,
            r->par->size > 1 ? " (rank 0; one device per rank)" : "");
  /* Partitioned output: every rank writes its part of each file
   * (parallel HDF5), or rank 0 gathers and writes. */
  r->collective = r->par->size > 1 && p->parallel_io == DG_IO_COLLECTIVE;
  DG_CALL(dg_parallel_agree(opt->comm,
                            check_memory(r, info, r->par->size > 1 && !r->collective)));
  ph = dg_timing_begin("discretization");
  DG_CALL(dg_parallel_agree(opt->comm, dg_discretization_create(r->par->mesh, p->order,
                                                                 p->precision, &r->disc)));
  dg_timing_end(ph);
  DG_CALL(dg_physics_from_program(p->program, &r->phys, &r->tables));
  /* the affine check (basis bernstein) skips conditions no face uses */
  DG_CALL(dg_problem_boundaries_used(r->par->mesh, r->par->tag_to_bc, r->phys.nboundaries,
                                     opt->comm, &r->bc_used));
  r->phys.bc_used = r->bc_used;
  if (p->kernels.basis) /* say where in the flux file, before any kernel is generated */
    DG_CALL(check_affine(p, &r->phys));
  r->ncomp = r->phys.ncomp;
  r->comp_names = calloc((size_t)r->ncomp, sizeof(char *));
  DG_CHECK(r->comp_names, DG_ERR_MEMORY, "out of memory");
  for (int f = 0; f < dg_flux_field_count(p->program); f++) {
    const dg_flux_field_info *fi = dg_flux_field(p->program, f);
    for (int c = 0; c < fi->ncomp; c++) {
      char buf[300];
      if (fi->shape.rank == 0)
        snprintf(buf, sizeof buf, "%s", fi->name);
      else
        snprintf(buf, sizeof buf, "%s_%d", fi->name, c);
      r->comp_names[fi->offset + c] = strdup(buf);
      DG_CHECK(r->comp_names[fi->offset + c], DG_ERR_MEMORY, "out of memory");
    }
  }
  /* before the time loop, not at its first checkpoint */
  if (p->checkpoint_interval > 0 || opt->restart)
    DG_CALL(dg_parallel_agree(opt->comm, check_checkpoint_fields(r)));
  int64_t n = (int64_t)r->ncomp * r->disc->K * r->disc->Np;
  ph = dg_timing_begin("host state");
  r->u = calloc((size_t)n + 1, sizeof(double));
  DG_CHECK(r->u, DG_ERR_MEMORY, "out of host memory for %lld values", (long long)n);
  if (r->par->size > 1 && r->collective)
    dg_info("parallel HDF5: all %d ranks write each snapshot and checkpoint collectively",
            r->par->size);
  else if (r->par->size > 1)
    dg_info("rank 0 gathers every snapshot and checkpoint of the %d ranks and writes it (%s)",
            r->par->size,
            dg_comm_h5_parallel() ? "[output] parallel_io = gather" : "serial HDF5 build");
  if (r->collective)
    DG_CALL(dg_parallel_agree(opt->comm, dg_h5part_create(r->par->gk, r->par->K,
                                                          r->par->K_global, &r->part)));
  if (r->par->size > 1 && r->par->rank == 0 && !r->collective) {
    r->u_global = calloc((size_t)(r->ncomp * r->par->K_global * r->disc->Np) + 1, sizeof(double));
    DG_CHECK(r->u_global, DG_ERR_MEMORY, "out of host memory");
  }
  dg_timing_end(ph);
  /* rank 0 probes; every rank stops with it (the others would wait for it
   * in the next collective step) */
  if (p->output_enabled || p->checkpoint_interval > 0)
    DG_CALL(dg_parallel_agree(opt->comm, r->par->rank == 0 ? probe_output_dir(r) : DG_OK));
  /* A bad checkpoint or step count is refused before any kernel exists. */
  DG_CALL(read_restart(opt, r));
  if (!opt->tune_only)
    DG_CALL(plan_steps(r));
  if (p->output_enabled)
    DG_CALL(create_writer(r));
  /* rank 0 (gathering), or all collectively; every rank learns of a
   * failure (rank 0's own would leave the others waiting for it) */
  if (opt->restart)
    DG_CALL(dg_parallel_agree(opt->comm, r->writer ? dg_snapshot_writer_resume(r->writer,
                                                                               r->step0)
                                                   : DG_OK));
  /* Under mpirun every rank tunes its own part (the parts are alike; the
   * database entry is shared by key). */
  dg_kernel_config kc = p->kernels;
  if (p->tuning != DG_TUNE_OFF || opt->tune_only) {
    dg_autotune_request tq = {r->dev, r->disc, &r->phys, r->par->tag_to_bc, NULL,
                              opt->tune_only && p->tuning == DG_TUNE_OFF ? DG_TUNE_FULL
                                                                          : (dg_tune_mode)p->tuning,
                              p->kernels, opt->tune_only ? stdout : NULL, NULL, 0};
    dg_autotune_outcome to;
    ph = dg_timing_begin("tuning (database lookup or search)");
    DG_CALL(dg_parallel_agree(opt->comm, dg_autotune(&tq, &to)));
    dg_timing_end(ph);
    kc = to.cfg;
  }
  dg_solver_options so = {kc, opt->dump_kernels};
  ph = dg_timing_begin("solver");
  DG_CALL(dg_parallel_agree(
      opt->comm, dg_solver_create_partitioned(r->dev, r->disc, &r->phys, r->par->tag_to_bc, &so,
                                              r->par->size > 1 ? &r->par->halo : NULL,
                                              &r->solver)));
  dg_timing_end(ph);
  if (!opt->quiet)
    dg_info("%s: %dD, order %d, %lld elements, %lld DOFs, %s, %s", p->name, r->disc->dim,
            r->disc->N, (long long)r->par->K_global,
            (long long)(n / (r->disc->K ? r->disc->K : 1) * r->par->K_global),
            p->precision == DG_FLOAT ? "float" : "double", p->scheme.name);
  return DG_OK;
}

dg_error dg_run(const dg_run_options *opt, dg_run_result *result) {
  run_state r;
  memset(&r, 0, sizeof r);
  r.t_entry = now_seconds();
  dg_run_result res;
  memset(&res, 0, sizeof res);
  dg_timing_reset();
  int ph = dg_timing_begin("set-up");
  dg_error err = setup(opt, &r);
  dg_timing_end(ph);
  if (err == DG_OK && !opt->tune_only) {
    dg_signals_install();
    err = run_loop(opt, &r, &res);
    dg_signals_restore();
  }
  if (err == DG_OK && res.halo_exchanges > 0 && !opt->quiet)
    dg_info("halo (rank 0): %lld exchanges, %.3f s blocked waiting for them (%.1f%% of the "
            "time loop)",
            (long long)res.halo_exchanges, res.halo_wait_seconds,
            res.wall_seconds > 0 ? 100.0 * res.halo_wait_seconds / res.wall_seconds : 0.0);
  if (err == DG_OK && res.have_norms && !opt->quiet)
    for (int f = 0; f < dg_flux_field_count(r.prob->program) && f < DG_RUN_MAX_FIELDS;
         f++)
      dg_info("final t = %.6g  %s: L2 error %.6e  max error %.6e", res.t_final,
              dg_flux_field(r.prob->program, f)->name, res.l2[f], res.maxerr[f]);
  if (err == DG_OK && opt->timings && !opt->quiet)
    dg_timing_report("phases of the run (wall time, inclusive; --timings):");
  if (r.prob)
    res.nfields = dg_flux_field_count(r.prob->program);
  if (err != DG_OK && r.created_dir)
    dg_fsutil_remove_created(r.prob->output_dir, r.created_dir);
  run_state_free(&r);
  if (result)
    *result = res;
  if (err != DG_OK)
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  return DG_OK;
}
