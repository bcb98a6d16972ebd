/* problems.convergence_*: run a shipped problem on the CPU backend (or the
 * GPU one: flag cuda) at two or three mesh sizes for several orders and
 * assert the observed L2 rate
 *     log(e_coarse / e_fine) / log(h_coarse / h_fine) >= N + margin
 * (the theoretical rate for smooth solutions is N + 1; Hesthaven &
 * Warburton 2008, Sec. 4.6).  The error is measured against the flux file's
 * exact solution by dg_run itself, summed over fields as sqrt(sum e_f^2).
 *
 * usage: test_convergence problem.cfg margin "N1 N2 ..." "c1 c2 [c3]" [flags] [k=v ...]
 *   flags, in any order: cellsfmt=FMT, inverse_size, cuda
 *   the cells list gives the cells per axis of each mesh (all axes alike);
 *   cuda runs on the GPU backend instead, and exits 77 (skipped) without a
 *   usable GPU. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/device.h"
#include "core/error.h"
#include "core/log.h"
#include "problems/driver/run.h"

static int parse_ints(const char *s, int *out, int max) {
  int n = 0;
  char *end;
  while (*s && n < max) {
    long v = strtol(s, &end, 10);
    if (end == s)
      break;
    out[n++] = (int)v;
    s = end;
  }
  return n;
}

static const char *cells_fmt = NULL; /* e.g. "%d %d 2": custom cells per axis */
static int inverse_size = 0; /* mesh files: the "cells" c mean mesh.size = 1/c */
static const char *device = "backend.device=cpu"; /* or =cuda (flag cuda) */

static int run_one(const char *cfg, int N, int cells, int dim, char **extra, int nextra,
                   double *err) {
  char order[64], mesh[128];
  snprintf(order, sizeof order, "discretization.order=%d", N);
  if (inverse_size) {
    snprintf(mesh, sizeof mesh, "mesh.size=%.17g", 1.0 / cells);
  } else if (cells_fmt) {
    char fmt[96];
    snprintf(fmt, sizeof fmt, "mesh.cells=%s", cells_fmt);
    /* the format holds at most three %d, all the same count */
    snprintf(mesh, sizeof mesh, fmt, cells, cells, cells);
  } else if (dim == 1)
    snprintf(mesh, sizeof mesh, "mesh.cells=%d", cells);
  else if (dim == 2)
    snprintf(mesh, sizeof mesh, "mesh.cells=%d %d", cells, cells);
  else
    snprintf(mesh, sizeof mesh, "mesh.cells=%d %d %d", cells, cells, cells);
  const char *ov[32] = {order, mesh, "output.enabled=false", device};
  int nov = 4;
  for (int i = 0; i < nextra && nov < 32; i++)
    ov[nov++] = extra[i];
  dg_run_options opt = {.cfg_path = cfg, .overrides = ov, .noverrides = nov, .quiet = 1};
  dg_run_result res;
  if (dg_run(&opt, &res) != DG_OK) {
    dg_error_print(stderr);
    return 1;
  }
  if (!res.have_norms) {
    fprintf(stderr, "%s has no exact solution\n", cfg);
    return 1;
  }
  double s = 0;
  for (int f = 0; f < res.nfields; f++)
    s += res.l2[f] * res.l2[f];
  *err = sqrt(s);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 6) {
    fprintf(stderr, "usage: %s problem.cfg dim margin \"N...\" \"cells...\" [k=v ...]\n",
            argv[0]);
    return 2;
  }
  dg_log_set_level(DG_LOG_WARN);
  const char *cfg = argv[1];
  int dim = atoi(argv[2]);
  double margin = atof(argv[3]);
  int orders[16], cells[8];
  int no = parse_ints(argv[4], orders, 16), nc = parse_ints(argv[5], cells, 8);
  if (no < 1 || nc < 2) {
    fprintf(stderr, "need at least one order and two meshes\n");
    return 2;
  }
  /* the flags, in any order, before the overrides */
  for (; argc > 6; argv++, argc--) {
    if (strncmp(argv[6], "cellsfmt=", 9) == 0)
      cells_fmt = argv[6] + 9;
    else if (strcmp(argv[6], "inverse_size") == 0)
      inverse_size = 1;
    else if (strcmp(argv[6], "cuda") == 0)
      device = "backend.device=cuda";
    else
      break;
  }
  if (strcmp(device, "backend.device=cuda") == 0 && !dg_device_cuda_available()) {
    printf("no usable GPU: skipped\n");
    return 77;
  }
  int failures = 0;
  for (int o = 0; o < no; o++) {
    int N = orders[o];
    double e[8];
    for (int c = 0; c < nc; c++) {
      if (run_one(cfg, N, cells[c], dim, argv + 6, argc - 6, &e[c]))
        return 1;
    }
    for (int c = 1; c < nc; c++) {
      double rate = log(e[c - 1] / e[c]) / log((double)cells[c] / cells[c - 1]);
      int ok = isfinite(rate) && rate >= N + margin;
      printf("N=%d cells %d -> %d: L2 %.4e -> %.4e rate %.2f (need >= %.2f) %s\n", N,
             cells[c - 1], cells[c], e[c - 1], e[c], rate, N + margin, ok ? "ok" : "FAIL");
      failures += !ok;
    }
  }
  return failures ? 1 : 0;
}
