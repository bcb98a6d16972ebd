/* problems.restart_equality: a run restarted from a mid-run checkpoint ends
 * with bitwise the same state as the uninterrupted run (cpu backend).
 * usage: test_restart problem.cfg workdir */
#include <glob.h>
#include <hdf5.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/log.h"
#include "problems/io/checkpoint.h"
#include "problems/driver/run.h"

static int run(const char *cfg, const char *dir, const char *restart) {
  char od[600];
  snprintf(od, sizeof od, "output.directory=%s", dir);
  const char *ov[] = {od, "backend.device=cpu", "time.final=0.3",
                      "output.checkpoint_interval=0.1", "output.interval=0.1"};
  dg_run_options opt = {.cfg_path = cfg, .overrides = ov, .noverrides = 5, .quiet = 1,
                        .restart = restart};
  dg_run_result res;
  if (dg_run(&opt, &res) != DG_OK) {
    dg_error_print(stderr);
    return 1;
  }
  return 0;
}

/* The checkpoints of a directory, sorted by name (= by step). */
static int list(const char *dir, glob_t *g) {
  char pat[700];
  snprintf(pat, sizeof pat, "%s/*_checkpoint_*.h5", dir);
  return glob(pat, 0, NULL, g);
}

/* The mesh hash the file holds (the run's mesh is the file's own). */
static uint64_t stored_mesh_hash(const char *path) {
  uint64_t v = 0;
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  hid_t a = f >= 0 ? H5Aopen(f, "mesh_hash", H5P_DEFAULT) : -1;
  if (a >= 0)
    H5Aread(a, H5T_NATIVE_UINT64, &v);
  if (a >= 0)
    H5Aclose(a);
  if (f >= 0)
    H5Fclose(f);
  return v;
}

static double *load(const char *path, int64_t *n) {
  /* Read with the identity of the file itself: advection2d, 1 field. */
  const char *names[] = {"u"};
  dg_checkpoint_info info = {0};
  info.dim = 2;
  info.N = 3;
  info.Np = 10;
  info.K = 128;
  info.real_size = 8;
  info.nfields = 1;
  info.field_names = names;
  info.scheme = "lserk4";
  info.problem_id = "advection2d";
  info.element_order = "hilbert"; /* [mesh] order's default */
  info.mesh_hash = stored_mesh_hash(path);
  *n = info.K * info.Np;
  double *u = malloc(sizeof(double) * (size_t)*n);
  void *f[1] = {u};
  if (!u || dg_checkpoint_read(path, &info, f) != DG_OK) {
    dg_error_print(stderr);
    free(u);
    return NULL;
  }
  return u;
}

int main(int argc, char **argv) {
  if (argc < 3)
    return 2;
  dg_log_set_level(DG_LOG_WARN);
  char a[600], b[600];
  snprintf(a, sizeof a, "%s/full", argv[2]);
  snprintf(b, sizeof b, "%s/restarted", argv[2]);
  if (run(argv[1], a, NULL))
    return 1;
  glob_t ga, gb;
  if (list(a, &ga) != 0 || ga.gl_pathc < 3) {
    printf("expected 3 checkpoints in %s\n", a);
    return 1;
  }
  /* restart from the first checkpoint (t = 0.1) */
  if (run(argv[1], b, ga.gl_pathv[0]))
    return 1;
  if (list(b, &gb) != 0 || gb.gl_pathc < 1) {
    printf("no checkpoint after the restart\n");
    return 1;
  }
  int64_t na, nb;
  double *ua = load(ga.gl_pathv[ga.gl_pathc - 1], &na);
  double *ub = load(gb.gl_pathv[gb.gl_pathc - 1], &nb);
  int ok = ua && ub && na == nb && memcmp(ua, ub, sizeof(double) * (size_t)na) == 0;
  printf("final states %s (%s vs %s)\n", ok ? "bitwise equal" : "DIFFER",
         ga.gl_pathv[ga.gl_pathc - 1], gb.gl_pathv[gb.gl_pathc - 1]);
  free(ua);
  free(ub);
  globfree(&ga);
  globfree(&gb);
  return ok ? 0 : 1;
}
