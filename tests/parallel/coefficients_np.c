/* problems.mpi_coefficients_np2: coefficient values and regions in a
 * partitioned run (each rank builds its own elements') give the same files
 * as the serial run: VTKHDF CellData/region and PointData/coef_eps, XDMF
 * /fields/coef_eps, checkpoint /coefficients/eps equal bit for bit, written
 * gathered and collectively; a 2-rank restart from the serial checkpoint
 * (each rank compares its own elements' values) runs.
 * usage: mpiexec -n 2 test_parallel_coefficients maxwell2d_tm.cfg workdir
 * (tests/output/coef_tm: the cavity with `coefficients eps > 0`). */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/comm_h5.h"
#include "operators/flux.h"
#include "problems/driver/run.h"
#include "tests/parallel/mpi_main.h"

static dg_error run(dg_comm *comm, const char *cfg, const char *dir, const char *io,
                    const char *restart) {
  char od[4200], pio[64];
  snprintf(od, sizeof od, "output.directory=%s", dir);
  snprintf(pio, sizeof pio, "output.parallel_io=%s", io);
  const char *ov[] = {od, "backend.device=cpu", "time.final=0.01", "time.dt=0.005",
                      "output.interval=0.01", "output.checkpoint_interval=0.005",
                      "output.format=both", "discretization.order=2", "mesh.cells=3 3",
                      "regions.right=x[0] > 0.5", "regions.top=x[0] < 0.5 && x[1] > 0.6",
                      "coefficients.eps=1 + x[0]*x[1]", "coefficients.eps.right=5",
                      "coefficients.eps.top=7", pio};
  dg_run_options opt = {.cfg_path = cfg, .overrides = ov, .noverrides = 15, .quiet = 1,
                        .restart = restart, .comm = comm};
  DG_CALL(dg_run(&opt, NULL));
  return DG_OK;
}

/* 1 if dataset set of files a and b has the same bytes. */
static int same(const char *a, const char *b, const char *set) {
  void *buf[2] = {NULL, NULL};
  hssize_t n[2] = {-1, -2};
  const char *path[2] = {a, b};
  for (int i = 0; i < 2; i++) {
    hid_t f = H5Fopen(path[i], H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t d = f >= 0 ? H5Dopen2(f, set, H5P_DEFAULT) : -1;
    if (d >= 0) {
      hid_t s = H5Dget_space(d);
      n[i] = H5Sget_simple_extent_npoints(s);
      H5Sclose(s);
      buf[i] = malloc(8 * (size_t)n[i] + 1);
      if (H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf[i]) < 0)
        n[i] = -3 - i;
      H5Dclose(d);
    }
    if (f >= 0)
      H5Fclose(f);
  }
  int ok = n[0] > 0 && n[0] == n[1] && !memcmp(buf[0], buf[1], 8 * (size_t)n[0]);
  if (!ok)
    fprintf(stderr, "%s differs between %s and %s\n", set, a, b);
  free(buf[0]);
  free(buf[1]);
  return ok;
}

static dg_error check(dg_comm *comm, char **args, int nargs) {
  (void)nargs;
  const char *cfg = args[0], *work = args[1];
  int rank = dg_comm_rank(comm);
  char ref[2000], dir[2][2000];
  snprintf(ref, sizeof ref, "%s/serial", work);
  dg_error err = rank == 0 ? run(NULL, cfg, ref, "gather", NULL) : DG_OK;
  DG_CALL(dg_comm_agree(comm, err));
  const char *modes[2] = {"gather", "collective"};
  int nmodes = dg_comm_h5_parallel() ? 2 : 1;
  for (int m = 0; m < nmodes; m++) {
    snprintf(dir[m], sizeof dir[m], "%s/%s", work, modes[m]);
    DG_CALL(run(comm, cfg, dir[m], modes[m], NULL));
    if (rank != 0)
      continue;
    static const char *const files[][2] = {
        {"maxwell2d_tm_mesh.hdf", "/VTKHDF/CellData/region"},
        {"maxwell2d_tm_000002.hdf", "/VTKHDF/PointData/coef_eps"},
        {"maxwell2d_tm_000002.h5", "/fields/coef_eps"},
        {"maxwell2d_tm_000002.h5", "/mesh/region"},
        {"maxwell2d_tm_checkpoint_000002.h5", "/coefficients/eps"}};
    for (int f = 0; f < 5; f++) {
      char a[4200], b[4200];
      snprintf(a, sizeof a, "%s/%s", ref, files[f][0]);
      snprintf(b, sizeof b, "%s/%s", dir[m], files[f][0]);
      EXPECT(same(a, b, files[f][1]), "%s: %s", modes[m], files[f][1]);
    }
  }
  char ck[4400], rdir[4200];
  snprintf(ck, sizeof ck, "%s/maxwell2d_tm_checkpoint_000001.h5", ref);
  snprintf(rdir, sizeof rdir, "%s/restart", work);
  /* (restart from the serial run's t = 0.005 checkpoint: step 1) */
  DG_CALL(run(comm, cfg, rdir, "gather", ck));
  return DG_OK;
}

int main(int argc, char **argv) {
  return mpi_test_main(argc, argv, 2, "problem.cfg workdir", check);
}
