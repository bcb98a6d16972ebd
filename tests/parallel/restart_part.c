/* problems.mpi_restart_corrupt_np3: each rank reads only its own elements
 * of a checkpoint and checks its share of the checksum; the shares are
 * summed, so one changed value in an element that one rank owns (not rank
 * 0) fails every rank, with one report (rank 0: the field and "checksum";
 * the others: DG_ERR_PEER, agreed).
 *
 * Rank 0 writes the checkpoint with a serial run (comm NULL).  Every rank
 * first restarts from it intact (must work: the control), then rank 0
 * changes one value of one field with the HDF5 API, leaving the stored
 * checksum as it was, and every rank restarts again (must fail).  The
 * partition of the run (METIS on the built-in mesh) is computed here the
 * same way the run does it, to pick the element and to check that the
 * parts are not runs of consecutive global ids (the read is a hyperslab
 * union of several runs on some rank).
 * usage: mpiexec -n P test_parallel_restart_part problem.cfg workdir [overrides...] */
#include <glob.h>
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/seal.h"
#include "problems/driver/problem.h"
#include "problems/driver/run.h"
#include "problems/io/checkpoint.h"
#include "problems/io/h5part.h"
#include "problems/solver/parallel.h"
#include "tests/parallel/mpi_main.h"
#include "problems/driver/parallel_options.h"

static dg_error run(dg_comm *comm, const char *cfg, const char *dir, const char *restart,
                    char **ov, int nov, const char *final) {
  const char *o[64];
  int n = 0;
  char od[4200], tf[64];
  snprintf(od, sizeof od, "output.directory=%s", dir);
  snprintf(tf, sizeof tf, "time.final=%s", final);
  o[n++] = od;
  o[n++] = "backend.device=cpu";
  o[n++] = tf;
  o[n++] = "output.checkpoint_interval=0.05";
  o[n++] = "output.enabled=false";
  for (int i = 0; i < nov && n < 64; i++)
    o[n++] = ov[i];
  dg_run_options opt = {.cfg_path = cfg, .overrides = o, .noverrides = n, .quiet = 1,
                        .restart = restart, .comm = comm};
  DG_CALL(dg_run(&opt, NULL));
  return DG_OK;
}

/* The most runs of consecutive global ids of any rank's part, and one
 * element owned by the last rank (global id). */
static dg_error partition_facts(dg_comm *comm, const char *cfg, char **ov, int nov,
                                double *max_runs, double *victim) {
  dg_problem *p = NULL;
  dg_parallel *par = NULL;
  dg_h5part *part = NULL;
  dg_error err = DG_OK;
  int rank = dg_comm_rank(comm), size = dg_comm_size(comm);
  DG_CALL_GOTO(err, done, dg_problem_load_rank(cfg, (const char *const *)ov, nov, rank, size, &p));
  DG_CALL_GOTO(err, done, dg_parallel_create_for_problem(comm, p, &par));
  DG_CALL_GOTO(err, done, dg_h5part_create(par->gk, par->K, par->K_global, &part));
  *max_runs = (double)part->nruns;
  *victim = rank == size - 1 ? (double)par->gk[par->K / 2] : -1;
  DG_CALL_GOTO(err, done, dg_comm_allreduce_max(comm, max_runs, 1));
  DG_CALL_GOTO(err, done, dg_comm_allreduce_max(comm, victim, 1));
done:
  dg_h5part_destroy(&part);
  dg_parallel_destroy(&par);
  dg_problem_destroy(&p);
  return err;
}

/* Add 1 to value `node` of element g of the second field (in name order)
 * of the checkpoint; its name into field. */
static int corrupt(const char *path, int64_t g, int node, char *field, size_t len) {
  hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
  hid_t grp = f >= 0 ? H5Gopen2(f, "fields", H5P_DEFAULT) : -1;
  ssize_t nl = grp >= 0 ? H5Lget_name_by_idx(grp, ".", H5_INDEX_NAME, H5_ITER_INC, 1, field,
                                              len, H5P_DEFAULT)
                        : -1;
  hid_t d = nl > 0 ? H5Dopen2(grp, field, H5P_DEFAULT) : -1;
  hid_t s = d >= 0 ? H5Dget_space(d) : -1;
  hsize_t dims[1] = {0};
  if (s >= 0)
    H5Sget_simple_extent_dims(s, dims, NULL);
  /* nodes per element from the attribute the file carries */
  int64_t Np = 0;
  hid_t a = f >= 0 ? H5Aopen(f, "nodes_per_element", H5P_DEFAULT) : -1;
  if (a >= 0) {
    H5Aread(a, H5T_NATIVE_INT64, &Np);
    H5Aclose(a);
  }
  hsize_t at[1] = {(hsize_t)(g * Np + node)}, one[1] = {1};
  hid_t m = H5Screate_simple(1, one, NULL);
  double v = 0;
  int ok = s >= 0 && Np > node && at[0] < dims[0] &&
           H5Sselect_hyperslab(s, H5S_SELECT_SET, at, NULL, one, NULL) >= 0 &&
           H5Dread(d, H5T_NATIVE_DOUBLE, m, s, H5P_DEFAULT, &v) >= 0;
  v += 1.0;
  ok = ok && H5Dwrite(d, H5T_NATIVE_DOUBLE, m, s, H5P_DEFAULT, &v) >= 0;
  H5Sclose(m);
  if (s >= 0)
    H5Sclose(s);
  if (d >= 0)
    H5Dclose(d);
  if (grp >= 0)
    H5Gclose(grp);
  if (f >= 0)
    H5Fclose(f);
  /* sealed again (core/seal.h): the per-rank checksum shares are under test */
  return ok && dg_seal_file(path, DG_CHECKPOINT_SEAL) == DG_OK;
}

static dg_error check(dg_comm *comm, char **args, int nargs) {
  const char *cfg = args[0], *work = args[1];
  char **ov = args + 2;
  int nov = nargs - 2, rank = dg_comm_rank(comm), size = dg_comm_size(comm);
  double max_runs = 0, victim = -1;
  DG_CALL(partition_facts(comm, cfg, ov, nov, &max_runs, &victim));
  printf("rank %d of %d: the most runs in one part %.0f; element %.0f (last rank's) changed\n",
         rank, size, max_runs, victim);
  EXPECT(max_runs > 1, "the parts are consecutive runs: the test needs scattered parts");
  EXPECT(victim >= 0);
  /* rank 0 writes the checkpoint at t = 0.05 on its own */
  char first[4200], ck[4300];
  snprintf(first, sizeof first, "%s/first", work);
  snprintf(ck, sizeof ck, "%s/first/corrupt_checkpoint.h5", work);
  int ok = 1;
  if (rank == 0) {
    char pat[4300];
    snprintf(pat, sizeof pat, "%s/*.h5", first);
    glob_t gl;
    if (glob(pat, 0, NULL, &gl) == 0) {
      for (size_t i = 0; i < gl.gl_pathc; i++)
        remove(gl.gl_pathv[i]);
      globfree(&gl);
    }
    dg_error e = run(NULL, cfg, first, NULL, ov, nov, "0.05");
    if (e != DG_OK) {
      dg_error_print(stderr);
      ok = 0;
    }
    if (glob(pat, 0, NULL, &gl) == 0) {
      ok = ok && gl.gl_pathc == 1 && rename(gl.gl_pathv[0], ck) == 0;
      globfree(&gl);
    } else {
      ok = 0;
    }
  }
  double bad = !ok;
  DG_CALL(dg_comm_allreduce_max(comm, &bad, 1));
  CHECK(bad == 0, "rank 0 could not write the checkpoint");
  /* the control: the intact checkpoint restarts on every rank */
  char next[4200];
  snprintf(next, sizeof next, "%s/next", work);
  dg_error e = run(comm, cfg, next, ck, ov, nov, "0.1");
  if (e != DG_OK)
    dg_error_print(stderr);
  EXPECT(e == DG_OK, "rank %d: the intact checkpoint does not restart", rank);
  dg_error_clear();
  /* one value of one element of the last rank, checksum left as stored */
  char field[256] = "";
  if (rank == 0)
    ok = corrupt(ck, (int64_t)victim, 1, field, sizeof field);
  bad = !ok;
  DG_CALL(dg_comm_allreduce_max(comm, &bad, 1));
  CHECK(bad == 0, "rank 0 could not change the checkpoint");
  e = run(comm, cfg, next, ck, ov, nov, "0.1");
  EXPECT(e != DG_OK, "rank %d accepted a corrupt checkpoint", rank);
  EXPECT(dg_parallel_error_agreed(), "rank %d: the error was not agreed", rank);
  if (rank == 0) {
    const char *msg = dg_error_message();
    printf("rank 0 reports: %s\n", msg);
    char quoted[300];
    snprintf(quoted, sizeof quoted, "'%s'", field);
    EXPECT(e == DG_ERR_INPUT, "code %d", (int)e);
    EXPECT(strstr(msg, "checksum") != NULL && strstr(msg, quoted) != NULL,
           "the message does not name field %s and the checksum", quoted);
  } else {
    EXPECT(e == DG_ERR_PEER, "rank %d reports too (code %d)", rank, (int)e);
  }
  dg_error_clear();
  return DG_OK;
}

int main(int argc, char **argv) {
  return mpi_test_main(argc, argv, 2, "problem.cfg workdir [overrides...]", check);
}
