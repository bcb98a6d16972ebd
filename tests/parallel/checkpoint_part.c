/* problems.mpi_checkpoint_part: dg_checkpoint_read_part gives every rank
 * exactly its own elements, in its local order, from a checkpoint written
 * whole by rank 0: rank r owns the global ids g with g % P == r (one run of
 * one element each, the most scattered part there is), listed in
 * decreasing order (the unpack must undo the packing by increasing id).
 * Values are g * 16 + i + 0.25 * (field + 1), exact in double.  Format 2
 * and format 1 files read back; a changed value of the last element (not
 * rank 0's) fails every rank as a checksum mismatch naming the field; parts
 * that do not cover the file are DG_ERR_ARG on every rank.
 * usage: mpiexec -n P test_parallel_checkpoint_part workdir */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/seal.h"
#include "problems/io/checkpoint.h"
#include "problems/io/h5part.h"
#include "tests/parallel/mpi_main.h"

enum { K = 11, NP = 4, NF = 2 };
static const char *names[NF] = {"u", "v"};

static double value(int f, int64_t g, int i) { return (double)(g * 16 + i) + 0.25 * (f + 1); }

static uint64_t fnv(uint64_t h, const unsigned char *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

/* rank 0: the whole checkpoint, then optionally as format 1 (the FNV-1a
 * of each whole field, reference constants), optionally one value of the
 * last element of field v changed */
static int write_file(const char *path, int version, int damage) {
  static double in[NF][K * NP];
  for (int f = 0; f < NF; f++)
    for (int64_t g = 0; g < K; g++)
      for (int i = 0; i < NP; i++)
        in[f][g * NP + i] = value(f, g, i);
  dg_checkpoint_info info = {3, 2, NP, K, 8, NF, names, "lserk4", "p", "input", 0.5, 0.01, 50, 7, "m", NULL, NULL, 0, NULL, NULL, 0 /* dt_max */, 0, 1, 0};
  const void *fin[NF] = {in[0], in[1]};
  if (dg_checkpoint_write(path, &info, fin) != DG_OK)
    return 0;
  hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
  int ok = f >= 0;
  if (ok && version == 1) {
    for (int i = 0; i < NF; i++) {
      char ds[32];
      snprintf(ds, sizeof ds, "fields/%s", names[i]);
      hid_t d = H5Dopen2(f, ds, H5P_DEFAULT);
      uint64_t h = fnv(14695981039346656037ull, (const unsigned char *)in[i], sizeof in[i]);
      hid_t s = H5Screate(H5S_SCALAR);
      hid_t a = H5Acreate2(d, "fnv1a64", H5T_NATIVE_UINT64, s, H5P_DEFAULT, H5P_DEFAULT);
      ok = ok && d >= 0 && H5Adelete(d, "elem_fnv1a_sum") >= 0 &&
           H5Awrite(a, H5T_NATIVE_UINT64, &h) >= 0;
      H5Aclose(a);
      H5Sclose(s);
      H5Dclose(d);
    }
    int64_t one = 1;
    hid_t a = H5Aopen(f, "format_version", H5P_DEFAULT);
    ok = ok && H5Awrite(a, H5T_NATIVE_INT64, &one) >= 0;
    H5Aclose(a);
  }
  if (ok && damage) {
    hid_t d = H5Dopen2(f, "fields/v", H5P_DEFAULT);
    in[1][(K - 1) * NP + 2] += 1.0;
    ok = d >= 0 && H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, in[1]) >= 0;
    H5Dclose(d);
  }
  if (f >= 0)
    H5Fclose(f);
  /* sealed again after the edits, so that the reader's own checks are reached */
  return ok && dg_seal_file(path, DG_CHECKPOINT_SEAL) == DG_OK;
}

/* Rank 0 writes; every rank learns whether it worked. */
static dg_error prepare(dg_comm *comm, const char *path, int version, int damage) {
  double bad = dg_comm_rank(comm) == 0 ? !write_file(path, version, damage) : 0;
  DG_CALL(dg_comm_allreduce_max(comm, &bad, 1));
  CHECK(bad == 0, "rank 0 could not write %s", path);
  return DG_OK;
}

/* This rank's part (drop: leave out its last element) read from path. */
static dg_error read(dg_comm *comm, const char *path, int drop, double out[NF][K * NP],
                     int64_t *gk, int64_t *n, dg_checkpoint_info *info) {
  int rank = dg_comm_rank(comm), size = dg_comm_size(comm);
  *n = 0;
  for (int64_t g = K - 1; g >= 0; g--)
    if (g % size == rank)
      gk[(*n)++] = g;
  if (drop)
    (*n)--;
  dg_h5part *part = NULL;
  DG_CALL(dg_h5part_create(gk, *n, K, &part));
  dg_checkpoint_info in = {3, 2, NP, K, 8, NF, names, "lserk4", "p", "input", 0, 0, 0, 7, "m", NULL, NULL, 0, NULL, NULL, 0 /* dt_max */, 0, 1, 0};
  *info = in;
  void *fout[NF] = {out[0], out[1]};
  memset(out, 0, sizeof(double) * NF * K * NP);
  dg_error err = dg_checkpoint_read_part(path, info, fout, comm, part);
  dg_h5part_destroy(&part);
  return err;
}

static void expect_values(int rank, double out[NF][K * NP], const int64_t *gk, int64_t n,
                          const dg_checkpoint_info *info, int version) {
  int64_t wrong = 0;
  for (int f = 0; f < NF; f++)
    for (int64_t k = 0; k < n; k++)
      for (int i = 0; i < NP; i++)
        wrong += out[f][k * NP + i] != value(f, gk[k], i);
  EXPECT(wrong == 0, "rank %d, format %d: %lld values differ", rank, version, (long long)wrong);
  EXPECT(info->step == 50 && info->time == 0.5 && info->dt == 0.01);
}

static dg_error check(dg_comm *comm, char **args, int nargs) {
  (void)nargs;
  int rank = dg_comm_rank(comm);
  char path[4200];
  snprintf(path, sizeof path, "%s/ck.h5", args[0]);
  static double out[NF][K * NP];
  int64_t gk[K], n;
  dg_checkpoint_info info;
  for (int version = 2; version >= 1; version--) {
    DG_CALL(prepare(comm, path, version, 0));
    dg_error err = read(comm, path, 0, out, gk, &n, &info);
    EXPECT(err == DG_OK, "rank %d, format %d: %s", rank, version, dg_error_message());
    expect_values(rank, out, gk, n, &info, version);
    dg_error_clear();
    DG_CALL(prepare(comm, path, version, 1));
    err = read(comm, path, 0, out, gk, &n, &info);
    EXPECT(err == DG_ERR_INPUT && strstr(dg_error_message(), "field 'v'") &&
               strstr(dg_error_message(), "checksum mismatch"),
           "rank %d, damaged format %d: code %d, %s", rank, version, (int)err,
           dg_error_message());
    dg_error_clear();
  }
  /* the last rank leaves out an element: the parts do not cover the file */
  DG_CALL(prepare(comm, path, 2, 0));
  dg_error err = read(comm, path, rank == dg_comm_size(comm) - 1, out, gk, &n, &info);
  EXPECT(err == DG_ERR_ARG && strstr(dg_error_message(), "parts hold"), "rank %d: code %d, %s",
         rank, (int)err, dg_error_message());
  dg_error_clear();
  return DG_OK;
}

int main(int argc, char **argv) {
  return mpi_test_main(argc, argv, 1, "workdir", check);
}
