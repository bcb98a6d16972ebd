/* dgbench rhs: the right-hand side of a problem, kernel by kernel.
 *
 *   dgbench rhs problem.cfg [section.key=value ...] [--repeats R]
 *               [--tune=off|auto|full] [--sweep out.csv [cfg2 ...]]
 *
 * Per kernel (dg_surface, dg_volume, dg_update_lserk) and for the whole RHS
 * (one LSERK stage): median time over R repeats (device events, after a
 * warm-up), the minimum bytes it must move, the achieved GB/s and that as a
 * fraction of the device-to-device copy bandwidth measured in the same run,
 * GFLOP/s and DOF-updates/s (DOFs = K * Np * components per RHS); then the
 * untuned default variant's RHS time and the tuned speed-up.
 *
 * Minimum bytes (r = bytes per real, F = NFACES * NFP, NC components, K
 * elements, reals unless said):
 *   surface  K*F*(NC [q traces, each face-node value read once]
 *                 + NC [fl written]) * r + K*NFACES*(DIM+1)*r [normal, Fscale
 *            per face]
 *            + K*F*8 [int32 vmapM, vmapP] + K*NFACES*4 [boundary flags]
 *   volume   K*(Np*NC [q] + F*NC [fl] + NGEO [geometric factors]) * r
 *            + K*Np*NC*r [rhs written]; fused with the update:
 *            + 2*K*Np*NC*r more (res read, res and q written, no rhs)
 *   update   5 * K*Np*NC * r (res, rhs, q read; res, q written); 0 fused
 *   fused surface (cuda): surface + volume less the fl round trip, 2*K*F*NC*r
 * Flops counted: the D_r/D_s/D_t products (2*Np*Np per matrix application
 * and element: one per contravariant source of a divergence on cuda, DIM
 * per other differentiated quantity; dg_generated.nproducts), the chain
 * rule (2*DIM per application and node), LIFT (2*Np*F*NC per element) and
 * the update (5 per value); the pointwise flux arithmetic is not counted.
 * On Bernstein-Bezier coefficients the gemm/mma kernels' derivatives are
 * sparse: their flops are dg_generated.sparse_flops instead of products.
 * (Until 2026-11-25 every differentiated quantity counted DIM applications,
 * which tripled the products of divergences: Euler's GFLOP/s of sessions
 * 2-5 read 2-2.5x too high.)
 *
 * The state is zero (the timing of these kernels does not depend on the
 * values on a GPU; NaNs from a zero density in Euler cost nothing), except
 * with [shock]: the problem's initial condition, so that the sensor and the
 * positivity limiter see the state they would (rhsbench_shock.c).
 *
 * With a [shock] section, its kernels (the sensor, the vertex maximum, the
 * viscosity's node values and face traces, the limiter) are timed as rows
 * of their own after the RHS table, then a whole stage with the module
 * attached, end to end (on a smooth flow: the sensor, the first-order twin
 * of the flux file, the limiter), over the RHS without it (issue 41).
 * --sweep runs N = 1..7 in double and float for every cfg given and writes
 * one CSV row per (cfg, N, precision). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/device.h"
#include "core/error.h"
#include "core/log.h"
#include "dg/opdata.h"
#include "operators/kernel_knobs.h"
#include "operators/physics.h"
#include "problems/bench/bench_case.h"
#include "problems/bench/rhsbench_shock.h"
#include "problems/solver/autotune.h"
#include "problems/solver/coefficients.h"
#include "problems/driver/problem.h"
#include "problems/solver/solver.h"

typedef struct bench_opts {
  int repeats;
  int tune; /* dg_tune_mode */
  const char *const *ov;
  int nov;
} bench_opts;

typedef struct bench_row {
  char cfg[256];
  int dim, N, is_float;
  long long K, dofs;
  double copy_gbs;
  double ms[3], bytes[3], flops[3];
  double rhs_ms, default_ms;
  double shock_ratio; /* stage with [shock], end to end / RHS; 0: no [shock] */
  char variant[DG_KERNEL_CONFIG_TEXT];
} bench_row;

static dg_error copy_bandwidth(dg_device *dev, size_t bytes, double *gbs) {
  void *a = NULL, *b = NULL;
  dg_event *e0 = NULL, *e1 = NULL;
  dg_error err = DG_OK;
  DG_CALL_GOTO(err, done, dg_device_malloc(dev, bytes, &a));
  DG_CALL_GOTO(err, done, dg_device_malloc(dev, bytes, &b));
  DG_CALL_GOTO(err, done, dg_event_create(dev, &e0));
  DG_CALL_GOTO(err, done, dg_event_create(dev, &e1));
  DG_CALL_GOTO(err, done, dg_device_copy(dev, b, a, bytes));
  float best = 1e30f;
  for (int r = 0; r < 10; r++) {
    DG_CALL_GOTO(err, done, dg_event_record(e0, NULL));
    DG_CALL_GOTO(err, done, dg_device_copy(dev, b, a, bytes));
    DG_CALL_GOTO(err, done, dg_event_record(e1, NULL));
    DG_CALL_GOTO(err, done, dg_event_synchronize(e1));
    float ms;
    DG_CALL_GOTO(err, done, dg_event_elapsed_ms(e0, e1, &ms));
    if (ms < best)
      best = ms;
  }
  *gbs = 2.0 * (double)bytes / (best * 1e-3) / 1e9; /* read + write */
done:
  dg_event_destroy(&e0);
  dg_event_destroy(&e1);
  if (a)
    dg_device_free(dev, a);
  if (b)
    dg_device_free(dev, b);
  return err;
}

static void counts(const dg_discretization *d, const dg_generated *g, int nc, int ncf,
                   int nq, int fused, int fused_surface, bench_row *row) {
  double r = d->precision == DG_FLOAT ? 4 : 8;
  double K = (double)d->K, F = (double)d->Nfaces * d->Nfp, Np = d->Np, dim = d->dim;
  double n = K * Np * nc;
  row->bytes[0] = K * F * 2.0 * nc * r + K * d->Nfaces * (dim + 1) * r + K * F * 8 +
                  K * d->Nfaces * 4;
  row->bytes[1] = K * (Np * nc + F * nc + g->ngeo) * r + n * r + (fused ? 2 * n * r : 0);
  row->bytes[2] = fused ? 0 : 5 * n * r;
  /* the derivative products (and the DIM-term chain rule of each product's
   * source or result), the lifting product, the update */
  double np = g->nproducts;
  row->flops[0] = 0;
  row->flops[1] = K * (2 * Np * Np * np + 2 * dim * np * Np + 2 * Np * F * nc + g->sparse_flops) +
                  (fused ? 5 * n : 0);
  row->flops[2] = fused ? 0 : 5 * n;
  /* coefficients: both face traces per face node, one value per volume node */
  row->bytes[0] += K * F * 2.0 * ncf * r;
  row->bytes[1] += K * Np * ncf * r;
  /* second-order terms (nq lifted gradient components): the gradient pass
   * (counted with the surface) reads the state and its traces and writes Q;
   * the second pass reads Q's traces and Q */
  if (nq > 0) {
    row->bytes[0] += K * Np * nc * r + K * F * 2.0 * nc * r + K * Np * nq * r +
                     K * d->Nfaces * (dim + 1) * r + K * g->ngeo * r + K * F * 8;
    row->bytes[0] += K * F * 2.0 * nq * r;
    row->bytes[1] += K * Np * nq * r;
    row->flops[0] += K * nq / dim * (2.0 * Np * Np * dim + 2.0 * Np * F + 2.0 * dim * dim * Np);
  }
  /* curved elements (issue 40): their metric terms per volume node and
   * their normals and Fscale per face node, not once per element and face */
  double Kc = (double)d->ncurved;
  row->bytes[0] += Kc * (F - d->Nfaces) * (dim + 1) * r;
  row->bytes[1] += Kc * (Np - 1) * g->ngeo * r;
  if (fused_surface) { /* one kernel: the fl round trip (write + read) is gone */
    row->bytes[1] += row->bytes[0] - 2 * K * F * nc * r;
    row->bytes[0] = 0;
  }
}

static dg_error bench_one(const char *cfg, const bench_opts *o, bench_row *row, FILE *out) {
  memset(row, 0, sizeof *row);
  snprintf(row->cfg, sizeof row->cfg, "%s", cfg);
  dg_bench_case c;
  dg_solver *s = NULL;
  dg_error err = DG_OK;
  DG_CALL_GOTO(err, done, dg_bench_case_open(cfg, o->ov, o->nov, &c));
  dg_problem *p = c.p;
  dg_device *dev = c.dev;
  dg_discretization *disc = c.disc;
  dg_physics ph = c.ph;
  dg_coefficients *co = c.co;
  row->dim = disc->dim;
  row->N = disc->N;
  row->is_float = p->precision == DG_FLOAT;
  row->K = disc->K;
  row->dofs = (long long)disc->K * disc->Np * ph.ncomp;
  size_t state_bytes = (size_t)row->dofs * (row->is_float ? 4 : 8);
  DG_CALL_GOTO(err, done, copy_bandwidth(dev, state_bytes < (64u << 20) ? (64u << 20)
                                                                        : state_bytes,
                                         &row->copy_gbs));
  /* the untuned default variant: the [backend] knobs as given */
  DG_CALL_GOTO(err, done, dg_bench_case_solver(&c, &p->kernels, DG_TUNE_OFF, &s));
  int shock = dg_problem_shock_enabled(p);
  if (shock)
    DG_CALL_GOTO(err, done, dg_solver_set_initial(s, 0.0));
  double ms[3];
  int stopped;
  DG_CALL_GOTO(err, done, dg_autotune_time_kernels(s, o->repeats, 0, 7, ms, &stopped));
  row->default_ms = ms[0] + ms[1] + ms[2];
  dg_solver_destroy(&s);
  dg_kernel_config kc;
  DG_CALL_GOTO(err, done, dg_bench_case_tune(&c, o->tune, &kc));
  DG_CALL_GOTO(err, done, dg_bench_case_solver(&c, &kc, o->tune, &s));
  if (shock)
    DG_CALL_GOTO(err, done, dg_solver_set_initial(s, 0.0));
  DG_CALL_GOTO(err, done, dg_autotune_time_kernels(s, o->repeats, 0, 7, row->ms, &stopped));
  row->rhs_ms = row->ms[0] + row->ms[1] + row->ms[2];
  counts(disc, dg_solver_generated(s), ph.ncomp, ph.ncoef, ph.ngrad * disc->dim, kc.fuse_update,
         kc.fuse_surface && dg_device_get_info(dev)->backend == DG_BACKEND_CUDA, row);
  dg_kernel_config_describe(&kc, row->variant, sizeof row->variant);
  if (out) {
    const dg_device_info *info = dg_device_get_info(dev);
    fprintf(out, "%s: %s, %dD N=%d %s, K=%lld, %lld DOFs\n", cfg, info->name, row->dim,
            row->N, row->is_float ? "float" : "double", row->K, row->dofs);
    if (disc->ncurved > 0) /* surface and volume below: the curved kernels and the affine */
      fprintf(out, "curved elements: %lld of %lld (their own kernels: %s)\n",
              (long long)disc->ncurved, row->K, "dg_surface_curved, dg_volume_curved");
    fprintf(out, "copy bandwidth (device-to-device, same run): %.1f GB/s\n", row->copy_gbs);
    fprintf(out, "variant: %s\n", row->variant);
    fprintf(out, "%-10s %10s %12s %9s %7s %9s %14s\n", "kernel", "time ms", "min MB", "GB/s",
            "ofcopy", "GFLOP/s", "DOF-upd/s");
    static const char *names[3] = {"surface", "volume", "update"};
    double tb = 0, tf = 0;
    for (int k = 0; k <= 3; k++) {
      double t = k < 3 ? row->ms[k] : row->rhs_ms;
      double b = k < 3 ? row->bytes[k] : tb, f = k < 3 ? row->flops[k] : tf;
      if (k < 3) {
        tb += b;
        tf += f;
      }
      double gbs = t > 0 ? b / (t * 1e-3) / 1e9 : 0;
      fprintf(out, "%-10s %10.4f %12.2f %9.1f %7.2f %9.1f %14.3e\n",
              k < 3 ? names[k] : "RHS", t, b / 1e6, gbs, gbs / row->copy_gbs,
              t > 0 ? f / (t * 1e-3) / 1e9 : 0,
              k == 3 && t > 0 ? (double)row->dofs / (t * 1e-3) : 0.0);
    }
    fprintf(out, "untuned default RHS %.4f ms, tuned %.4f ms: speed-up %.2fx\n\n",
            row->default_ms, row->rhs_ms, row->default_ms / row->rhs_ms);
  }
  if (shock) { /* with the first-order twin tuned as the RHS was */
    dg_autotune_request tq = {dev, disc, &ph, p->tag_to_bc, NULL, (dg_tune_mode)o->tune,
                              kc, NULL, NULL, 0, DG_AUTOTUNE_SEARCH_MISSING,
                              co ? co->values : NULL};
    DG_CALL_GOTO(err, done, dg_rhsbench_shock(s, disc, p, &ph,
                                              o->tune != DG_TUNE_OFF ? &tq : NULL, o->repeats,
                                              row->rhs_ms, out, &row->shock_ratio));
  }
done:
  dg_solver_destroy(&s);
  dg_bench_case_close(&c);
  return err;
}

static void csv_row(FILE *f, const bench_row *r) {
  double tb = r->bytes[0] + r->bytes[1] + r->bytes[2];
  double tf = r->flops[0] + r->flops[1] + r->flops[2];
  double gbs = tb / (r->rhs_ms * 1e-3) / 1e9;
  fprintf(f, "%s,%d,%d,%s,%lld,%lld,%.5f,%.5f,%.5f,%.5f,%.1f,%.3f,%.1f,%.4e,%.5f,%.3f,\"%s\"\n",
          r->cfg, r->dim, r->N, r->is_float ? "float" : "double", r->K, r->dofs, r->ms[0],
          r->ms[1], r->ms[2], r->rhs_ms, gbs, gbs / r->copy_gbs,
          tf / (r->rhs_ms * 1e-3) / 1e9, (double)r->dofs / (r->rhs_ms * 1e-3), r->default_ms,
          r->default_ms / r->rhs_ms, r->variant);
  fflush(f);
}

int dg_rhsbench_main(int argc, char **argv) {
  bench_opts o = {7, DG_TUNE_AUTO, NULL, 0};
  const char **ov = calloc((size_t)argc + 4, sizeof *ov);
  const char *cfgs[16];
  int ncfg = 0;
  const char *sweep = NULL;
  if (!ov)
    return 1;
  int bad = 0;
  for (int i = 0; i < argc && !bad; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--repeats") == 0 && i + 1 < argc)
      o.repeats = atoi(argv[++i]);
    else if (strcmp(a, "--sweep") == 0 && i + 1 < argc)
      sweep = argv[++i];
    else if (strcmp(a, "--tune=off") == 0 || strcmp(a, "--tune=auto") == 0 ||
             strcmp(a, "--tune=full") == 0)
      o.tune = a[7] == 'o' ? 0 : a[7] == 'f' ? 2 : 1;
    else if (strncmp(a, "--", 2) == 0) {
      fprintf(stderr, "dgbench rhs: unknown option '%s'\n", a);
      bad = 1;
    } else if (strchr(a, '='))
      ov[o.nov++] = a;
    else if (ncfg < 16)
      cfgs[ncfg++] = a;
    else {
      fprintf(stderr, "dgbench rhs: at most 16 problem files ('%s' is one too many)\n", a);
      bad = 1;
    }
  }
  if (bad || ncfg == 0) {
    fprintf(stderr, "usage: dgbench rhs problem.cfg [section.key=value ...] [--repeats R]\n"
                    "                   [--tune=off|auto|full] [--sweep out.csv [cfg2 ...]]\n");
    free(ov);
    return 2;
  }
  dg_log_set_level(DG_LOG_WARN);
  if (!sweep) {
    o.ov = ov;
    bench_row row;
    int rc = 0;
    if (bench_one(cfgs[0], &o, &row, stdout) != DG_OK) {
      dg_error_print(stderr);
      rc = 1;
    }
    free(ov);
    return rc;
  }
  FILE *f = fopen(sweep, "w");
  if (!f) {
    fprintf(stderr, "dgbench rhs: cannot write %s\n", sweep);
    free(ov);
    return 1;
  }
  fprintf(f, "cfg,dim,N,precision,K,dofs,surface_ms,volume_ms,update_ms,rhs_ms,rhs_GBs,"
             "frac_copy,GFLOPs,dof_updates_per_s,default_ms,speedup,variant\n");
  static char order[32];
  int failed = 0; /* rows that could not run: said on stderr, and in the status */
  for (int c = 0; c < ncfg; c++)
    for (int N = 1; N <= 7; N++)
      for (int pr = 0; pr < 2; pr++) {
        int n = o.nov;
        snprintf(order, sizeof order, "discretization.order=%d", N);
        ov[n++] = order;
        ov[n++] = pr ? "discretization.precision=float" : "discretization.precision=double";
        bench_opts oo = o;
        oo.ov = ov;
        oo.nov = n;
        bench_row row;
        if (bench_one(cfgs[c], &oo, &row, stdout) != DG_OK) {
          dg_error_print(stderr);
          dg_error_clear();
          failed++;
          continue;
        }
        csv_row(f, &row);
        fflush(f); /* the rows done so far survive a sweep cut short */
      }
  fclose(f);
  free(ov);
  return failed ? 1 : 0;
}
