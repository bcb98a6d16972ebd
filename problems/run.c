#include "problems/run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/device.h"
#include "core/fsutil.h"
#include "core/log.h"
#include "dg/discretization.h"
#include "dg/timestep.h"
#include "operators/flux_eval.h"
#include "operators/physics.h"
#include "problems/checkpoint.h"
#include "problems/problem.h"
#include "problems/signals.h"
#include "problems/snapshot.h"
#include "problems/solver.h"

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
  dg_solver *solver;
  dg_snapshot_writer *writer;
  double *u; /* host state, logical order */
  char **comp_names;
  int ncomp;
  char *created_dir; /* topmost output directory this run created, or NULL */
} run_state;

static void run_state_free(run_state *r) {
  if (r->comp_names)
    for (int c = 0; c < r->ncomp; c++)
      free(r->comp_names[c]);
  free(r->comp_names);
  free(r->created_dir);
  free(r->u);
  dg_snapshot_writer_destroy(&r->writer);
  dg_solver_destroy(&r->solver);
  dg_physics_tables_destroy(&r->tables);
  dg_discretization_destroy(&r->disc);
  dg_device_destroy(&r->dev);
  dg_problem_destroy(&r->prob);
}

/* Node coordinates of (k, i) as a dim-vector. */
static void node_x(const dg_discretization *d, int64_t k, int i, double *x) {
  for (int a = 0; a < d->dim; a++)
    x[a] = d->X[a][k * d->Np + i];
}

static dg_error initial_state(run_state *r) {
  const dg_discretization *d = r->disc;
  int nc = r->ncomp;
  double ux[64];
  DG_CHECK(nc <= 64, DG_ERR_UNSUPPORTED, "more than 64 state components");
  for (int64_t k = 0; k < d->K; k++)
    for (int i = 0; i < d->Np; i++) {
      double x[3];
      node_x(d, k, i, x);
      DG_CALL(dg_flux_eval_initial_state(r->prob->program, x, 0.0, ux));
      for (int c = 0; c < nc; c++)
        r->u[((int64_t)c * d->K + k) * d->Np + i] = ux[c];
    }
  return DG_OK;
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
  double *e = malloc(sizeof(double) * (size_t)Np);
  DG_CHECK(e, DG_ERR_MEMORY, "out of memory");
  for (int f = 0; f < nf && f < 16; f++) {
    const dg_flux_field_info *fi = dg_flux_field(prog, f);
    double sum = 0, mx = 0;
    for (int64_t k = 0; k < d->K; k++) {
      for (int c = 0; c < fi->ncomp; c++) {
        for (int i = 0; i < Np; i++) {
          double x[3], ex[64];
          node_x(d, k, i, x);
          dg_error err = dg_flux_eval_exact(prog, f, x, t, ex);
          if (err != DG_OK) {
            free(e);
            DG_CALL(err);
          }
          e[i] = r->u[((int64_t)(fi->offset + c) * d->K + k) * Np + i] - ex[c];
          if (fabs(e[i]) > mx || isnan(e[i]))
            mx = fabs(e[i]);
        }
        double s = 0;
        for (int i = 0; i < Np; i++) {
          double mi = 0;
          for (int j = 0; j < Np; j++)
            mi += d->re->M[i * Np + j] * e[j];
          s += e[i] * mi;
        }
        sum += d->J[k * Np] * s;
      }
    }
    res->l2[f] = sqrt(sum);
    res->maxerr[f] = mx;
  }
  free(e);
  return DG_OK;
}

/* NaN/Inf anywhere in the state: name field, element and time. */
static dg_error check_finite(run_state *r, double t, int64_t step) {
  const dg_discretization *d = r->disc;
  int64_t n = (int64_t)r->ncomp * d->K * d->Np;
  for (int64_t z = 0; z < n; z++)
    if (!isfinite(r->u[z])) {
      int c = (int)(z / (d->K * d->Np));
      int64_t k = (z / d->Np) % d->K;
      DG_RAISE(DG_ERR_NUMERIC,
               "the solution is not finite (%g) in %s at element %lld (node %lld) at "
               "t = %.9g (step %lld): the run is unstable (reduce [time] cfl or dt, or "
               "check the fluxes); the last good snapshot is kept",
               r->u[z], r->comp_names[c], (long long)k, (long long)(z % d->Np), t,
               (long long)step);
    }
  return DG_OK;
}

static dg_error write_snapshot(run_state *r, double t, int64_t step, dg_run_result *res) {
  const dg_discretization *d = r->disc;
  const dg_flux_program *prog = r->prob->program;
  int nf = dg_flux_field_count(prog);
  dg_snapshot_field fields[16];
  dg_snapshot_norm norms[16];
  DG_CHECK(nf <= 16, DG_ERR_UNSUPPORTED, "more than 16 fields");
  int nout = 0;
  for (int f = 0; f < nf; f++) {
    norms[f].name = dg_flux_field(prog, f)->name;
    norms[f].l2 = res->l2[f];
    norms[f].max = res->maxerr[f];
  }
  for (int f = 0; f < nf; f++) {
    const dg_flux_field_info *fi = dg_flux_field(prog, f);
    if (!r->prob->output_field[f])
      continue;
    DG_CHECK(fi->ncomp <= 3, DG_ERR_UNSUPPORTED,
             "field %s has %d components; snapshots show at most 3", fi->name, fi->ncomp);
    fields[nout].name = fi->name;
    fields[nout].ncomp = fi->ncomp;
    fields[nout].real_size = 8;
    for (int c = 0; c < 3; c++)
      fields[nout].comp[c] =
          c < fi->ncomp ? r->u + (int64_t)(fi->offset + c) * d->K * d->Np : NULL;
    nout++;
  }
  DG_CALL(dg_snapshot_writer_write(r->writer, t, step, fields, nout, norms,
                                   res->have_norms ? nf : 0));
  return DG_OK;
}

static dg_error checkpoint_info(run_state *r, dg_checkpoint_info *info) {
  const dg_discretization *d = r->disc;
  memset(info, 0, sizeof *info);
  info->dim = d->dim;
  info->N = d->N;
  info->Np = d->Np;
  info->K = d->K;
  info->real_size = 8;
  info->nfields = r->ncomp;
  info->field_names = (const char *const *)r->comp_names;
  info->scheme = r->prob->scheme.name;
  info->problem_id = r->prob->name;
  return DG_OK;
}

static char *checkpoint_path(const run_state *r, int64_t step) {
  char name[512];
  snprintf(name, sizeof name, "%s_checkpoint_%06lld.h5", r->prob->name, (long long)step);
  return dg_fsutil_join(r->prob->output_dir, name);
}

static dg_error write_checkpoint(run_state *r, double t, double dt, int64_t step) {
  dg_checkpoint_info info;
  DG_CALL(checkpoint_info(r, &info));
  info.time = t;
  info.dt = dt;
  info.step = step;
  const dg_discretization *d = r->disc;
  const void *fields[64];
  for (int c = 0; c < r->ncomp; c++)
    fields[c] = r->u + (int64_t)c * d->K * d->Np;
  char *path = checkpoint_path(r, step);
  DG_CHECK(path, DG_ERR_MEMORY, "out of memory");
  dg_error err = dg_checkpoint_write(path, &info, fields);
  if (err == DG_OK)
    dg_info("checkpoint %s (t = %.6g)", path, t);
  free(path);
  DG_CALL(err);
  return DG_OK;
}

/* SIGINT/SIGTERM arrived (problems/signals.h): checkpoint the state at the
 * end of the step just taken and stop with DG_ERR_INTERRUPTED. */
static dg_error stop_on_signal(const dg_run_options *opt, run_state *r, double t, double dt,
                               int64_t step, dg_run_result *res) {
  res->interrupted_by = dg_signals_pending();
  DG_CALL(dg_solver_get_state(r->solver, r->u));
  DG_CALL(check_finite(r, t, step));
  /* (a run without output or checkpoints has not created the directory) */
  DG_CALL(dg_fsutil_mkdir_p(r->prob->output_dir, 0755));
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

static dg_error run_loop(const dg_run_options *opt, run_state *r, dg_run_result *res) {
  dg_problem *p = r->prob;
  const dg_discretization *d = r->disc;
  double dt_max;
  if (p->dt_fixed > 0)
    dt_max = p->dt_fixed;
  else
    DG_CALL(dg_rk_cfl_dt(p->cfl, d->h_min, p->wave_speed, d->N, &dt_max));

  double t = 0;
  int64_t step = 0;
  if (opt->restart) {
    dg_checkpoint_info info;
    DG_CALL(checkpoint_info(r, &info));
    void *fields[64];
    for (int c = 0; c < r->ncomp; c++)
      fields[c] = r->u + (int64_t)c * d->K * d->Np;
    DG_CALL(dg_checkpoint_read(opt->restart, &info, fields));
    t = info.time;
    step = info.step;
    if (r->writer)
      DG_CALL(dg_snapshot_writer_resume(r->writer, step));
    dg_info("restarting from %s at t = %.9g (step %lld)", opt->restart, t, (long long)step);
  } else {
    DG_CALL(initial_state(r));
  }
  DG_CALL(check_finite(r, t, step));
  DG_CALL(dg_solver_set_state(r->solver, r->u));
  if (!opt->restart && r->writer && p->output_interval > 0) {
    DG_CALL(error_norms(r, t, res));
    DG_CALL(write_snapshot(r, t, step, res));
  }

  /* Estimate the total number of steps for the progress line. */
  int64_t total = step;
  {
    double tt = t;
    while (tt < p->t_final * (1 - 1e-14)) {
      double stop = next_stop(tt, p->t_final, p->output_interval, p->checkpoint_interval);
      int64_t n;
      double dt;
      DG_CALL(dg_rk_plan_steps(tt, stop, dt_max, p->max_steps, &n, &dt));
      total += n;
      tt = stop;
      DG_CHECK(p->max_steps <= 0 || total <= p->max_steps, DG_ERR_INPUT,
               "reaching t = %g needs more than [time] max_steps = %lld steps",
               p->t_final, (long long)p->max_steps);
    }
  }
  int tty = isatty(STDERR_FILENO);
  double dofs = (double)r->ncomp * (double)d->K * d->Np;
  double t_start = now_seconds(), last_print = t_start;
  int64_t steps_at_start = step, rhs_at_start = dg_solver_get_timings(r->solver).rhs_evaluations;
  double dt = dt_max;
  while (t < p->t_final * (1 - 1e-14)) {
    double stop = next_stop(t, p->t_final, p->output_interval, p->checkpoint_interval);
    int64_t n;
    DG_CALL(dg_rk_plan_steps(t, stop, dt_max, 0, &n, &dt));
    double t0 = t;
    for (int64_t s = 0; s < n; s++) {
      DG_CALL(dg_solver_step(r->solver, &p->scheme, t, dt));
      step++;
      t = s + 1 == n ? stop : t0 + (double)(s + 1) * dt;
      if (dg_signals_pending())
        DG_CALL(stop_on_signal(opt, r, t, dt, step, res));
      if (step % p->nan_check_steps == 0) {
        DG_CALL(dg_solver_get_state(r->solver, r->u));
        DG_CALL(check_finite(r, t, step));
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
    if (r->writer && (at_end || is_multiple(t, p->output_interval))) {
      DG_CALL(error_norms(r, t, res));
      DG_CALL(write_snapshot(r, t, step, res));
      if (res->have_norms && !opt->quiet) {
        for (int f = 0; f < dg_flux_field_count(p->program) && f < 16; f++)
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
  progress(opt, tty, step, total, t, dt, wall, res->dof_updates_per_second, 1);
  (void)steps_at_start;
  DG_CALL(error_norms(r, t, res));
  if (p->checkpoint_interval > 0)
    DG_CALL(write_checkpoint(r, t, dt, step));
  return DG_OK;
}

/* Refuse a run whose arrays cannot fit, before allocating them: per node
 * the coordinates and geometric factors (dim + dim^2 + 1 values) and per
 * state component four copies (host state, device state, RK register,
 * right-hand side), in double. */
static dg_error check_memory(const dg_problem *p, const dg_device_info *info) {
  int N = p->order, d = p->mesh->dim, ncomp = 0;
  double Np = d == 1 ? N + 1 : d == 2 ? (N + 1) * (N + 2) / 2.0 : (N + 1) * (N + 2) * (N + 3) / 6.0;
  for (int f = 0; f < dg_flux_field_count(p->program); f++)
    ncomp += dg_flux_field(p->program, f)->ncomp;
  double need = (double)p->mesh->K * Np * 8 * (d + d * d + 1 + 4.0 * ncomp);
  DG_CHECK(info->total_memory == 0 || need <= (double)info->total_memory, DG_ERR_MEMORY,
           "%lld elements of order %d need about %.3g GB of memory; %s has %.3g GB "
           "(use a coarser mesh, a lower order, or more MPI ranks)",
           (long long)p->mesh->K, N, need / 1e9, info->name, (double)info->total_memory / 1e9);
  return DG_OK;
}

static dg_error setup(const dg_run_options *opt, run_state *r) {
  DG_CALL(dg_problem_load(opt->cfg_path, opt->overrides, opt->noverrides, &r->prob));
  dg_problem *p = r->prob;
  DG_CALL(dg_device_create(p->device, -1, &r->dev));
  const dg_device_info *info = dg_device_get_info(r->dev);
  if (!opt->quiet)
    dg_info("backend %s: %s", info->backend_name, info->name);
  DG_CALL(check_memory(p, info));
  DG_CALL(dg_discretization_create(p->mesh, p->order, p->precision, &r->disc));
  DG_CALL(dg_physics_from_program(p->program, &r->phys, &r->tables));
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
  int64_t n = (int64_t)r->ncomp * r->disc->K * r->disc->Np;
  r->u = calloc((size_t)n + 1, sizeof(double));
  DG_CHECK(r->u, DG_ERR_MEMORY, "out of host memory for %lld values", (long long)n);
  if (p->output_enabled || p->checkpoint_interval > 0)
    DG_CALL(probe_output_dir(r));
  if (p->output_enabled) {
    dg_snapshot_mesh sm = {r->disc->dim, r->disc->N, r->disc->Np, r->disc->K,
                           r->disc->x,   r->disc->y, r->disc->z};
    DG_CALL(dg_snapshot_writer_create(p->output_dir, p->name, &sm, &r->writer));
  }
  dg_solver_options so = {p->kernels, opt->dump_kernels};
  DG_CALL(dg_solver_create(r->dev, r->disc, &r->phys, p->tag_to_bc, &so, &r->solver));
  if (!opt->quiet)
    dg_info("%s: %dD, order %d, %lld elements, %lld DOFs, %s, %s", p->name, r->disc->dim,
            r->disc->N, (long long)r->disc->K, (long long)n,
            p->precision == DG_PRECISION_FLOAT ? "float" : "double", p->scheme.name);
  return DG_OK;
}

dg_error dg_run(const dg_run_options *opt, dg_run_result *result) {
  run_state r;
  memset(&r, 0, sizeof r);
  dg_run_result res;
  memset(&res, 0, sizeof res);
  dg_error err = setup(opt, &r);
  if (err == DG_OK) {
    dg_signals_install();
    err = run_loop(opt, &r, &res);
    dg_signals_restore();
  }
  if (err == DG_OK && res.have_norms && !opt->quiet)
    for (int f = 0; f < dg_flux_field_count(r.prob->program) && f < 16; f++)
      dg_info("final t = %.6g  %s: L2 error %.6e  max error %.6e", res.t_final,
              dg_flux_field(r.prob->program, f)->name, res.l2[f], res.maxerr[f]);
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
