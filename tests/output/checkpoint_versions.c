/* problems.checkpoint_versions: the checksum of a format-2 checkpoint is
 * what checkpoint.h documents (the sum modulo 2^64 over the elements k of
 * FNV-1a(k as 8 little-endian bytes, then element k's bytes), recomputed
 * here from the FNV-1a reference constants); a format-1 file (fnv1a64, the
 * FNV-1a of the whole field) still reads back bit for bit, and a changed
 * value in either is reported as a checksum mismatch. */
#include <stdlib.h>
#include <string.h>

#include "core/seal.h"
#include "problems/io/checkpoint.h"
#include "testutil.h"

#if !defined(DGRUN_HAVE_HDF5)
int main(void) { return 77; }
#else
#include <hdf5.h>

static uint64_t fnv(uint64_t h, const unsigned char *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    h = (h ^ p[i]) * 1099511628211ull;
  return h;
}
static const uint64_t basis = 14695981039346656037ull;

enum { K = 9, NP = 10, NF = 2 };

static uint64_t get_u64(hid_t d, const char *name) {
  uint64_t v = 0;
  hid_t a = H5Aopen(d, name, H5P_DEFAULT);
  EXPECT(a >= 0 && H5Aread(a, H5T_NATIVE_UINT64, &v) >= 0, "attribute %s", name);
  H5Aclose(a);
  return v;
}

static void put_u64(hid_t d, const char *name, uint64_t v) {
  hid_t s = H5Screate(H5S_SCALAR);
  hid_t a = H5Acreate2(d, name, H5T_NATIVE_UINT64, s, H5P_DEFAULT, H5P_DEFAULT);
  EXPECT(a >= 0 && H5Awrite(a, H5T_NATIVE_UINT64, &v) >= 0, "write attribute %s", name);
  H5Aclose(a);
  H5Sclose(s);
}

/* Files edited with the HDF5 API are sealed again (core/seal.h), so that the
 * checks behind the seal are reached. */
static void reseal(const char *path) {
  EXPECT(dg_seal_file(path, DG_CHECKPOINT_SEAL) == DG_OK, "reseal: %s", dg_error_message());
}

/* Change value 17 of field 0 in the file. */
static void damage(const char *path) {
  hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
  hid_t d = H5Dopen2(f, "fields/u", H5P_DEFAULT);
  double v[K * NP];
  H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
  v[17] += 1.0;
  H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
  H5Dclose(d);
  H5Fclose(f);
  reseal(path);
}

int main(void) {
  char dir[4096], path[4200];
  tu_mkdtemp(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/ck.h5", dir);
  const char *names[NF] = {"u", "v"};
  double in[NF][K * NP], out[NF][K * NP];
  for (int i = 0; i < NF; i++)
    for (int n = 0; n < K * NP; n++)
      in[i][n] = (double)(tu_rand() >> 11) / 9007199254740992.0 - 0.5;
  dg_checkpoint_info info = {3, 2, NP, K, 8, NF, names, "lserk4", "p", "input", 0.5, 0.01, 50, 7, "m", NULL, NULL, 0, NULL, NULL, 0 /* dt_max */, 0, 1, 0};
  const void *fin[NF] = {in[0], in[1]};
  void *fout[NF] = {out[0], out[1]};
  EXPECT(dg_checkpoint_write(path, &info, fin) == DG_OK, "write: %s", dg_error_message());

  /* format 2: the documented checksum, then rewrite the file as format 1 */
  hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
  EXPECT(f >= 0, "open %s", path);
  hid_t root = H5Oopen(f, "/", H5P_DEFAULT);
  EXPECT(get_u64(root, "format_version") == DG_CHECKPOINT_FORMAT_VERSION, "format_version is not %d", DG_CHECKPOINT_FORMAT_VERSION);
  for (int i = 0; i < NF; i++) {
    uint64_t sum = 0;
    for (uint64_t k = 0; k < K; k++) {
      unsigned char le[8];
      for (int b = 0; b < 8; b++)
        le[b] = (unsigned char)(k >> (8 * b));
      sum += fnv(fnv(basis, le, 8), (const unsigned char *)&in[i][k * NP], NP * 8);
    }
    char ds[32];
    snprintf(ds, sizeof ds, "fields/%s", names[i]);
    hid_t d = H5Dopen2(f, ds, H5P_DEFAULT);
    EXPECT(get_u64(d, "elem_fnv1a_sum") == sum, "field %s: checksum is not the documented one",
           names[i]);
    H5Adelete(d, "elem_fnv1a_sum");
    put_u64(d, "fnv1a64", fnv(basis, (const unsigned char *)in[i], sizeof in[i]));
    H5Dclose(d);
  }
  int64_t one = 1;
  hid_t a = H5Aopen(root, "format_version", H5P_DEFAULT);
  H5Awrite(a, H5T_NATIVE_INT64, &one);
  H5Aclose(a);
  H5Oclose(root);
  H5Fclose(f);
  reseal(path);

  /* format 1 reads back */
  memset(out, 0xA5, sizeof out);
  dg_checkpoint_info rd = info;
  EXPECT(dg_checkpoint_read(path, &rd, fout) == DG_OK, "read format 1: %s", dg_error_message());
  EXPECT(!memcmp(in, out, sizeof in) && rd.step == 50, "format 1: data differ");
  damage(path);
  EXPECT(dg_checkpoint_read(path, &rd, fout) == DG_ERR_INPUT &&
             strstr(dg_error_message(), "checksum mismatch"),
         "damaged format 1 file: %s", dg_error_message());
  dg_error_clear();

  /* a damaged format-2 file */
  EXPECT(dg_checkpoint_write(path, &info, fin) == DG_OK, "write: %s", dg_error_message());
  damage(path);
  EXPECT(dg_checkpoint_read(path, &rd, fout) == DG_ERR_INPUT &&
             strstr(dg_error_message(), "checksum mismatch"),
         "damaged format 2 file: %s", dg_error_message());
  dg_error_clear();
  return tu_finish(dir, failures);
}
#endif
