/* dg_run: set-up (problem, partition, device, discretization, output
 * files, tuning, solver), then the time loop of run_loop.c. */
#include "problems/driver/run.h"

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
#include "dg/opdata.h"
#include "dg/timestep.h"
#include "operators/flux_affine.h"
#include "operators/flux_eval.h"
#include "operators/physics.h"
#include "problems/driver/observer.h"
#include "problems/driver/parallel_options.h"
#include "problems/driver/problem.h"
#include "problems/driver/restart_inputs.h"
#include "problems/driver/run_state.h"
#include "problems/driver/signals.h"
#include "problems/driver/validate_early.h"
#include "problems/io/checkpoint.h"
#include "problems/io/snapshot.h"
#include "problems/solver/autotune.h"
#include "problems/solver/memory_estimate.h"
#include "problems/solver/mesh_identity.h"
#include "problems/solver/parallel.h"
#include "problems/solver/solver.h"

double dg_run_now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void run_state_free(dg_run_state *r) {
  if (r->comp_names)
    for (int c = 0; c < r->ncomp; c++)
      free(r->comp_names[c]);
  free(r->comp_names);
  dg_run_plan_destroy(&r->plan);
  free(r->created_dir);
  free(r->u);
  free(r->u_global);
  free(r->coef_global);
  free(r->region_global);
  dg_coefficients_destroy(&r->coef);
  dg_snapshot_writer_destroy(&r->writer);
  dg_h5part_destroy(&r->part);
  dg_quantities_destroy(&r->quantities);
  dg_state_filter_destroy(&r->filter);
  free(r->quantity_values);
  dg_wave_speed_destroy(&r->speed);
  dg_embedded_destroy(&r->embedded);
  dg_solver_destroy(&r->solver);
  dg_physics_tables_destroy(&r->tables);
  free(r->bc_used);
  dg_discretization_destroy(&r->disc);
  dg_parallel_destroy(&r->par);
  dg_device_destroy(&r->dev);
  dg_problem_destroy(&r->prob);
}

/* Fail before the time loop, not after hours of it, when the output
 * directory cannot be written or its file system cannot hold what the run
 * will write: every snapshot (output fields, coefficients + node
 * coordinates) and every checkpoint (the whole state and the coefficients)
 * counted from t = 0, plus 64 KiB of metadata
 * each.  The directories it creates are noted so that a run failing before
 * it wrote anything removes them again (dg_run). */
static dg_error probe_output_dir(dg_run_state *r) {
  const dg_problem *p = r->prob;
  const char *dir = p->output_dir;
  r->created_dir = dg_fsutil_missing_top(dir);
  DG_CALL(dg_fsutil_mkdir_p(dir, 0755));
  DG_CALL(dg_fsutil_check_outputs(dir, p->name, ".h5"));
  DG_CALL(dg_fsutil_check_outputs(dir, p->name, ".xdmf"));
  DG_CALL(dg_fsutil_check_outputs(dir, p->name, ".hdf"));
  DG_CALL(dg_fsutil_check_outputs(dir, p->name, ".hdf.series"));
  char *probe = dg_fsutil_join(dir, ".dgrun_write_probe");
  DG_CHECK(probe, DG_ERR_MEMORY, "out of memory");
  dg_error err = dg_fsutil_write_atomic(probe, "ok\n", 3, 0644);
  unlink(probe);
  free(probe);
  DG_CALL(err);
  double values = (double)r->disc->K * r->disc->Np, ncoef = r->coef ? r->coef->ncoef : 0,
         nout = r->disc->dim + ncoef;
  for (int f = 0; f < dg_flux_field_count(p->program); f++)
    if (p->output_field[f])
      nout += dg_flux_field(p->program, f)->ncomp;
  double nsnap = !p->output_enabled ? 0
                 : p->output_interval > 0 ? floor(p->t_final / p->output_interval) + 2 : 1;
  double nckpt = p->checkpoint_interval > 0 ? floor(p->t_final / p->checkpoint_interval) + 1 : 0;
  /* (both formats: the fields twice; VTKHDF adds the error fields and the mesh
   * once instead of coordinates per snapshot, about the same) */
  double nfmt = p->output_formats == 3 ? 2 : 1;
  double need =
      nsnap * (nfmt * nout * values * 8 + 65536) + nckpt * ((r->ncomp + ncoef) * values * 8 + 65536);
  unsigned long long avail;
  DG_CALL(dg_fsutil_free_space(dir, &avail));
  DG_CHECK(need <= (double)avail, DG_ERR_IO,
           "output directory '%s' has %.3g MB free, but this run writes about %.3g MB "
           "(%.0f snapshots, %.0f checkpoints): free space, or raise [output] interval / "
           "checkpoint_interval",
           dir, (double)avail / 1e6, need / 1e6, nsnap, nckpt);
  return DG_OK;
}

/* Rank 0 of a gathering run: the output formats and, for the VTKHDF
 * CellData "rank", the owner of every global element. */
static dg_error set_gathered_formats(dg_run_state *r) {
  const dg_parallel *par = r->par;
  int *owner = malloc(sizeof(int) * (size_t)(par->K_global + 1));
  DG_CHECK(owner, DG_ERR_MEMORY, "out of memory");
  int64_t n = 0;
  for (int q = 0; q < par->size; q++)
    for (int64_t j = 0; j < par->counts[q]; j++)
      owner[par->gk_all[n++]] = q;
  dg_error err = dg_snapshot_writer_set_formats(r->writer, r->prob->output_formats, owner);
  free(owner);
  DG_CALL(err);
  return DG_OK;
}

/* The snapshot writer: of all elements (one rank), of this rank's
 * elements (collective), or on rank 0 of all elements gathered there. */
static dg_error create_writer(dg_run_state *r) {
  const dg_discretization *d = r->disc;
  if (r->par->size == 1 || r->collective) {
    dg_snapshot_mesh sm = {d->dim, d->N, d->Np, d->K, d->x, d->y, d->z};
    if (r->collective)
      DG_CALL(dg_parallel_agree(
          r->par->comm, dg_snapshot_writer_create_part(r->prob->output_dir, r->prob->name, &sm,
                                                       r->par->comm, r->part, &r->writer)));
    else
      DG_CALL(dg_snapshot_writer_create(r->prob->output_dir, r->prob->name, &sm, &r->writer));
    DG_CALL(dg_snapshot_writer_set_formats(r->writer, r->prob->output_formats, NULL));
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
    if (err == DG_OK)
      err = set_gathered_formats(r);
  }
  err = dg_parallel_agree(r->par->comm, err);
done:
  free(xl);
  free(xg);
  DG_CALL(err);
  return DG_OK;
}

/* This rank's elements' mesh regions: the partitioned mesh's own, or
 * looked up in the whole mesh by global id (*tmp malloc'd then). */
static dg_error rank_regions(const dg_run_state *r, const int **reg, int **tmp) {
  const dg_mesh *whole = r->prob->mesh, *m = r->par->mesh;
  *reg = m->region;
  *tmp = NULL;
  if (m->region || !whole->region || !r->par->gk || r->prob->part) {
    /* (a region value must not silently turn into the default) */
    DG_CHECK(m->region || whole->nregions == 0, DG_ERR_UNSUPPORTED,
             "the mesh has %d regions, but this rank's part of it carries none: the "
             "partitioned mesh lost its regions (a bug; report it)",
             whole->nregions);
    return DG_OK;
  }
  *tmp = malloc(sizeof(int) * ((size_t)m->K + 1));
  DG_CHECK(*tmp, DG_ERR_MEMORY, "out of memory");
  for (int64_t k = 0; k < m->K; k++)
    (*tmp)[k] = r->par->gk[k] < whole->K ? whole->region[r->par->gk[k]] : -1;
  *reg = *tmp;
  return DG_OK;
}

/* The coefficient values at this rank's nodes ([regions], [coefficients];
 * problems/solver/coefficients.h), before any file or kernel is written;
 * rank 0 of a gathering run also gathers everyone's for output. */
static dg_error build_coefficients(dg_run_state *r) {
  const dg_problem *p = r->prob;
  const int *reg;
  int *tmp;
  DG_CALL(rank_regions(r, &reg, &tmp));
  dg_coefficients_input in = {p->program, p->flux_name, p->cfg, r->par->mesh, reg,
                              p->mesh->nregions, p->mesh->region_names,
                              (const double *const *)r->disc->X, r->disc->Np, r->par->gk};
  dg_error err = dg_coefficients_build(&in, &r->coef);
  free(tmp);
  DG_CALL(dg_parallel_agree(r->par->comm, err));
  const dg_coefficients *c = r->coef;
  DG_CHECK(c->ncoef <= DG_CHECKPOINT_MAX_FIELDS, DG_ERR_INPUT,
           "%s declares %d coefficients, at most %d are supported", p->flux_name, c->ncoef,
           DG_CHECKPOINT_MAX_FIELDS);
  for (int i = 0; i < c->ncoef; i++) {
    r->coef_names[i] = dg_flux_coef(p->program, i)->name;
    r->coef_local[i] = c->values + (int64_t)i * c->K * c->Np;
  }
  if (r->par->size == 1 || r->collective)
    return DG_OK;
  int64_t Kg = r->par->K_global, K = c->K;
  double *rl = malloc(sizeof(double) * ((size_t)K + 1));
  double *rg = r->par->rank == 0 ? malloc(sizeof(double) * ((size_t)Kg + 1)) : NULL;
  if (r->par->rank == 0) {
    r->coef_global = malloc(sizeof(double) * ((size_t)(c->ncoef * Kg * c->Np) + 1));
    r->region_global = malloc(sizeof(int) * ((size_t)Kg + 1));
  }
  err = rl && (r->par->rank != 0 || (rg && r->coef_global && r->region_global))
            ? DG_OK
            : dg_error_raise(DG_ERR_MEMORY, __FILE__, __LINE__, __func__, "out of memory");
  err = dg_parallel_agree(r->par->comm, err);
  if (err == DG_OK && c->ncoef > 0)
    err = dg_parallel_gather(r->par, c->ncoef, c->Np, c->values, r->coef_global);
  for (int64_t k = 0; err == DG_OK && k < K; k++)
    rl[k] = c->region ? c->region[k] : -1;
  if (err == DG_OK && c->nregions > 0)
    err = dg_parallel_gather(r->par, 1, 1, rl, rg);
  for (int64_t k = 0; err == DG_OK && rg && c->nregions > 0 && k < Kg; k++)
    r->region_global[k] = (int)rg[k];
  for (int i = 0; r->coef_global && i < c->ncoef; i++)
    r->coef_gathered[i] = r->coef_global + (int64_t)i * Kg * c->Np;
  free(rl);
  free(rg);
  DG_CALL(err);
  return DG_OK;
}

/* [backend] basis = bernstein needs an affine physics: the error names the
 * flux file's line and column. */
static dg_error check_affine(const dg_problem *p, const dg_physics *ph) {
  const char *flux = p->flux_name;
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
static dg_error check_memory(const dg_run_state *r, const dg_device_info *info, int gather) {
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

/* How the problem makes its mesh, for the checkpoint's identity messages:
 * "mesh file 'm.h5'" or "[mesh] type = rectangle, cells = 3 3". */
static void mesh_description(const dg_config *cfg, char *buf, size_t cap) {
  const char *type = "", *file = "", *cells = "";
  if (dg_config_get_string(cfg, "mesh", "type", &type) != DG_OK ||
      dg_config_get_string(cfg, "mesh", "file", &file) != DG_OK ||
      dg_config_get_string(cfg, "mesh", "cells", &cells) != DG_OK)
    dg_error_clear();
  if (file[0] && (!type[0] || strcmp(type, "file") == 0))
    snprintf(buf, cap, "mesh file '%s'", file);
  else
    snprintf(buf, cap, "[mesh] type = %s, cells = %s", type[0] ? type : "(default)",
             cells[0] ? cells : "(default)");
}

/* The problem of the cfg, or of a restart (restart_inputs.h). */
static dg_error load_problem(const dg_run_options *opt, dg_problem **out) {
  int rank = opt->comm ? dg_comm_rank(opt->comm) : 0;
  int size = opt->comm ? dg_comm_size(opt->comm) : 1;
  if (opt->restart)
    DG_CALL(dg_restart_load_problem(opt, rank, size, out));
  else
    DG_CALL(dg_problem_load_rank(opt->cfg_path, opt->overrides, opt->noverrides, rank, size,
                                 out));
  return DG_OK;
}

/* The state components' names: a field's, or field_c for a component of
 * a vector or tensor field (snapshots, checkpoints, messages). */
static dg_error name_components(dg_run_state *r) {
  const dg_problem *p = r->prob;
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
  return DG_OK;
}

/* The kernels (tuned or looked up), the solver and the modules beside it:
 * shock capturing, the quantities, the filter, the wave speed. */
static dg_error kernels_and_solver(const dg_run_options *opt, dg_run_state *r) {
  dg_problem *p = r->prob;
  int ph;
  /* Under mpirun every rank tunes its own part (the parts are alike; the
   * database entry is shared by key). */
  dg_kernel_config kc = p->kernels;
  /* dgrun tune: a full search unless --tune=auto (then auto's, where no
   * entry exists); auto asked for by name searches on every backend */
  const int tuning = p->tuning != DG_TUNE_OFF || opt->tune_only;
  dg_tune_mode mode = opt->tune_only && (!p->tuning_given || p->tuning == DG_TUNE_OFF)
                          ? DG_TUNE_FULL
                          : (dg_tune_mode)p->tuning;
  dg_autotune_request tq = {r->dev, r->disc, &r->phys, r->par->tag_to_bc, NULL, mode,
                            p->kernels, opt->tune_only ? stdout : NULL, NULL, 0,
                            opt->tune_only || p->tuning_given ? DG_AUTOTUNE_SEARCH_MISSING
                                                              : DG_AUTOTUNE_BY_BACKEND,
                            r->coef->ncoef > 0 ? r->coef->values : NULL};
  if (tuning) {
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
  if (r->coef->ncoef > 0)
    DG_CALL(dg_parallel_agree(opt->comm, dg_solver_set_coefficients(r->solver, r->coef->values)));
  /* the curved kernels: an operator of their own (partitioned: on every
   * rank, the agreement is collective; a part without curved elements
   * tunes nothing) */
  if (tuning && (r->disc->ncurved > 0 || r->par->size > 1)) {
    dg_autotune_outcome tc;
    ph = dg_timing_begin("tuning (database lookup or search)");
    DG_CALL(dg_parallel_agree(opt->comm, dg_autotune_curved(&tq, r->solver, &tc)));
    dg_timing_end(ph);
  }
  if (dg_problem_shock_enabled(p)) { /* [shock]: problems/solver/shock.h */
    dg_shock *sh = NULL;
    DG_CALL(dg_parallel_agree(opt->comm,
                              dg_shock_create_for(r->solver, r->disc, p->program, &r->phys,
                                                  &p->shock, p->precision == DG_FLOAT, &sh)));
    dg_solver_set_shock(r->solver, sh);
    /* its first-order twin (smooth stages), an operator of its own; under
     * mpirun the twin runs the solver's knobs (dg_solver_smooth_config) */
    int coef = dg_shock_viscosity_coefficient(sh);
    if (tuning && coef >= 0 && r->phys.ngrad > 0 && r->par->size == 1) {
      dg_autotune_outcome ts;
      ph = dg_timing_begin("tuning (database lookup or search)");
      DG_CALL(dg_autotune_smooth(&tq, r->solver, coef, &ts));
      dg_timing_end(ph);
    }
  }
  /* the error norms' and integrals' module, compiled before the first step */
  if (!opt->tune_only)
    DG_CALL(dg_parallel_agree(opt->comm, dg_quantities_create(r->solver, r->disc, p->program,
                                                              r->par, &r->quantities)));
  if (p->filter && !opt->tune_only)
    DG_CALL(dg_parallel_agree(opt->comm, dg_state_filter_create(r->solver, r->disc,
                                                                &p->filter_params, &r->filter)));
  /* the wave speed's module, when dt comes from it */
  if (!opt->tune_only && p->speed_computed)
    DG_CALL(dg_parallel_agree(opt->comm, dg_wave_speed_create(r->solver, r->disc, p->program,
                                                              r->par, &r->speed)));
  /* the adaptive step's registers and kernels */
  if (!opt->tune_only && p->adaptive)
    DG_CALL(dg_parallel_agree(opt->comm, dg_embedded_create(r->solver, &r->embedded)));
  if (r->quantities) {
    r->quantity_values = calloc((size_t)dg_quantities_count(r->quantities) + 1, sizeof(double));
    DG_CHECK(r->quantity_values, DG_ERR_MEMORY, "out of memory");
  }
  dg_timing_end(ph);
  return DG_OK;
}

static dg_error setup(const dg_run_options *opt, dg_run_state *r) {
  /* Bad input fails on every rank alike: reported once, by rank 0. */
  int ph = dg_timing_begin("problem load (config, flux, mesh)");
  DG_CALL(dg_parallel_agree(opt->comm, load_problem(opt, &r->prob)));
  dg_timing_end(ph);
  dg_problem *p = r->prob;
  DG_CALL(dg_parallel_agree(opt->comm, dg_validate_outputs(p)));
  ph = dg_timing_begin("partition");
  DG_CALL(dg_parallel_agree(opt->comm, dg_parallel_create_for_problem(opt->comm, p, &r->par)));
  dg_timing_end(ph);
  ph = dg_timing_begin("device init");
  dg_comm *devcomm = r->par->size > 1 ? r->par->comm : NULL;
  DG_CALL(dg_parallel_agree(opt->comm, dg_parallel_device_for_problem(devcomm, p, &r->dev)));
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
  DG_CALL(dg_parallel_agree(opt->comm, dg_mesh_identity_hash(r->par, r->disc, &r->mesh_hash)));
  mesh_description(p->cfg, r->mesh_name, sizeof r->mesh_name);
  dg_timing_end(ph);
  DG_CALL(build_coefficients(r));
  DG_CALL(dg_physics_from_program(p->program, &r->phys, &r->tables));
  /* the affine check (basis bernstein) skips conditions no face uses */
  DG_CALL(dg_problem_boundaries_used(r->par->mesh, r->par->tag_to_bc, r->phys.nboundaries,
                                     opt->comm, &r->bc_used));
  r->phys.bc_used = r->bc_used;
  if (p->kernels.basis) /* say where in the flux file, before any kernel is generated */
    DG_CALL(check_affine(p, &r->phys));
  DG_CALL(name_components(r));
  /* before the time loop, not at its first checkpoint */
  if (p->checkpoint_interval > 0 || opt->restart)
    DG_CALL(dg_parallel_agree(opt->comm, dg_observe_checkpoint_fields_check(r)));
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
  if (p->output_enabled || p->checkpoint_interval > 0 || p->history[0])
    DG_CALL(dg_parallel_agree(opt->comm, r->par->rank == 0 ? probe_output_dir(r) : DG_OK));
  if (p->output_enabled)
    DG_CALL(create_writer(r));
  if (r->writer && r->coef->nregions > 0) /* (rank 0 alone holds a gathering run's) */
    DG_CALL(dg_snapshot_writer_set_regions(
        r->writer, r->par->size > 1 && !r->collective ? r->region_global : r->coef->region));
  /* A bad checkpoint or step count is refused before any kernel exists. */
  if (!opt->tune_only)
    DG_CALL(dg_run_plan_create(opt, r));
  DG_CALL(kernels_and_solver(opt, r));
  if (!opt->quiet)
    dg_info("%s: %dD, order %d, %lld elements, %lld DOFs, %s, %s", p->name, r->disc->dim,
            r->disc->N, (long long)r->par->K_global,
            (long long)(n / (r->disc->K ? r->disc->K : 1) * r->par->K_global),
            p->precision == DG_FLOAT ? "float" : "double",
            p->adaptive ? p->embedded.name : p->scheme.name);
  return DG_OK;
}

dg_error dg_run(const dg_run_options *opt, dg_run_result *result) {
  dg_run_state r;
  memset(&r, 0, sizeof r);
  r.t_entry = dg_run_now_seconds();
  dg_run_result res;
  memset(&res, 0, sizeof res);
  dg_timing_reset();
  int ph = dg_timing_begin("set-up");
  dg_error err = setup(opt, &r);
  dg_timing_end(ph);
  if (err == DG_OK && !opt->tune_only) {
    dg_signals_install();
    err = dg_run_loop(opt, &r, &res);
    dg_signals_restore();
  }
  if (err == DG_OK && res.halo_exchanges > 0 && !opt->quiet)
    dg_info("halo (rank 0): %lld exchanges, %.3f s blocked waiting for them (%.1f%% of the "
            "time loop)",
            (long long)res.halo_exchanges, res.halo_wait_seconds,
            res.wall_seconds > 0 ? 100.0 * res.halo_wait_seconds / res.wall_seconds : 0.0);
  if (err == DG_OK && !opt->quiet && !opt->tune_only)
    dg_observe_norms_print(&r, "final t", res.t_final, &res);
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
