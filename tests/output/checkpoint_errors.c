/* problems.checkpoint_errors: every way a restart can go wrong is
 * DG_ERR_INPUT with a message naming the file and the disagreement (order,
 * dimension, Np, K, precision, scheme, problem, field count, field names),
 * and a missing, garbage, truncated, foreign-HDF5, field-less, wrongly
 * sized or bit-flipped file is refused too; writes into an unwritable
 * directory or over a directory fail with DG_ERR_IO and leave nothing. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <hdf5.h>

#include "core/seal.h"
#include "problems/io/checkpoint.h"
#include "testutil.h"

#if !defined(DGRUN_HAVE_HDF5)
int main(void) { return 77; }
#else

enum { K = 4, NP = 10, NF = 2 };
static double a[K * NP], b[K * NP], ra[K * NP], rb[K * NP];
static const char *names[NF] = {"u", "v"};
static void *const out[NF] = {ra, rb};

static dg_checkpoint_info good(void) {
  dg_checkpoint_info in = {2, 3, NP, K, 8, NF, names, "ssprk3", "prob-1234", "hilbert", 0.5, 0.01, 50, 7, "m", NULL, NULL, 0, NULL, NULL, 0 /* dt_max */, 0, 1, 0};
  return in;
}

/* Read with info and expect DG_ERR_INPUT whose message holds every needle. */
static void expect_refused(const char *path, dg_checkpoint_info in, const char *what,
                           const char *n1, const char *n2) {
  dg_error err = dg_checkpoint_read(path, &in, out);
  const char *m = dg_error_message();
  EXPECT(err == DG_ERR_INPUT, "%s: got %d (%s), want DG_ERR_INPUT", what, err, m);
  EXPECT(strstr(m, path) != NULL, "%s: message does not name the file: %s", what, m);
  EXPECT(!n1 || strstr(m, n1), "%s: message lacks '%s': %s", what, n1, m);
  EXPECT(!n2 || strstr(m, n2), "%s: message lacks '%s': %s", what, n2, m);
  printf("%-14s -> %s\n", what, m);
  dg_error_clear();
}

/* A file edited with the HDF5 API gets a valid seal again, so that the
 * checks behind the seal are reached. */
static void reseal(const char *path) {
  EXPECT(dg_seal_file(path, DG_CHECKPOINT_SEAL) == DG_OK, "reseal %s: %s", path,
         dg_error_message());
}

static void copy_prefix(const char *from, const char *to, size_t n) {
  size_t len;
  char *d = tu_slurp(from, &len);
  tu_write(to, d, n < len ? n : len);
  free(d);
}

/* identity mismatches: one member of good() changed at a time */
static void identity_mismatches(const char *ck) {
  static const char *other[NF] = {"u", "w"};
  static const struct {
    const char *what, *n1, *n2;
  } cases[] = {
      {"order", "order 3", "order 4"},
      {"dimension", "dimension 2", "dimension 3"},
      {"Np", "10", "11"},
      {"K", "element count 4", "element count 5"},
      {"precision", "'double'", "'float'"},
      {"scheme", "ssprk3", "lserk4"},
      {"problem", "prob-1234", "prob-9999"},
      {"field count", "field count 2", "field count 1"},
      {"field name", "'w'", NULL},
      {"element order", "'hilbert'", "'input'"},
      {"mesh", "another mesh (m, mesh hash 0000000000000007)", "uses m2 (mesh hash 0000000000000008)"},
  };
  for (int c = 0; c < (int)(sizeof cases / sizeof cases[0]); ++c) {
    dg_checkpoint_info m = good();
    switch (c) {
    case 0: m.N = 4; break;
    case 1: m.dim = 3; break;
    case 2: m.Np = 11; break;
    case 3: m.K = 5; break;
    case 4: m.real_size = 4; break;
    case 5: m.scheme = "lserk4"; break;
    case 6: m.problem_id = "prob-9999"; break;
    case 7: m.nfields = 1; break;
    case 9: m.element_order = "input"; break;
    case 8: m.field_names = other; break;
    case 10: m.mesh_hash = 8, m.mesh_name = "m2"; break;
    }
    expect_refused(ck, m, cases[c].what, cases[c].n1, cases[c].n2);
  }
}

/* a file from before dgrun recorded the element numbering (attribute
 * deleted): it reads as input-numbered, so a Hilbert run refuses it and an
 * input-numbered run takes it */
static void old_numbering(const char *dir, const char *ck) {
  char p[4300];
  snprintf(p, sizeof p, "%s/noorder.h5", dir);
  {
    size_t n;
    char *d = tu_slurp(ck, &n);
    tu_write(p, d, n);
    free(d);
    hid_t fo = H5Fopen(p, H5F_ACC_RDWR, H5P_DEFAULT);
    EXPECT(fo >= 0 && H5Adelete(fo, "element_order") >= 0, "cannot delete the attribute");
    H5Fclose(fo);
    reseal(p);
  }
  expect_refused(p, good(), "old numbering", "mesh.order=input", "Hilbert");
  dg_checkpoint_info m = good();
  m.element_order = "input";
  EXPECT(dg_checkpoint_read(p, &m, out) == DG_OK, "an input-numbered run refused an old file: %s",
         dg_error_message());
  dg_error_clear();
}

/* damaged or foreign files */
static void damaged_files(const char *dir, const char *ck) {
  char p[4300];
  snprintf(p, sizeof p, "%s/missing.h5", dir);
  expect_refused(p, good(), "missing", NULL, NULL);
  snprintf(p, sizeof p, "%s/garbage.h5", dir);
  unsigned char junk[4096];
  for (size_t i = 0; i < sizeof junk; ++i)
    junk[i] = (unsigned char)tu_rand();
  tu_write(p, junk, sizeof junk);
  expect_refused(p, good(), "garbage", "not a sealed dgrun checkpoint", NULL);
  size_t len;
  free(tu_slurp(ck, &len));
  snprintf(p, sizeof p, "%s/half.h5", dir);
  copy_prefix(ck, p, len / 2);
  expect_refused(p, good(), "truncated", NULL, NULL);
  snprintf(p, sizeof p, "%s/short.h5", dir);
  copy_prefix(ck, p, len - 8);
  expect_refused(p, good(), "truncated -8", NULL, NULL);

  snprintf(p, sizeof p, "%s/foreign.h5", dir);
  hid_t f = H5Fcreate(p, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  H5Fclose(f);
  expect_refused(p, good(), "foreign", "not a sealed dgrun checkpoint", NULL);
  /* an HDF5 file with a valid seal that is not a checkpoint */
  snprintf(p, sizeof p, "%s/foreign_sealed.h5", dir);
  {
    hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
    H5Pset_userblock(fcpl, DG_SEAL_SIZE);
    f = H5Fcreate(p, H5F_ACC_TRUNC, fcpl, H5P_DEFAULT);
    H5Fclose(f);
    H5Pclose(fcpl);
    reseal(p);
  }
  expect_refused(p, good(), "foreign sealed", "not a dgrun checkpoint", NULL);
}

/* a field deleted, a field of the wrong size (edited with the HDF5 API) */
static void edited_fields(const char *dir, const char *ck) {
  char p[4300];
  size_t len;
  free(tu_slurp(ck, &len));
  snprintf(p, sizeof p, "%s/nofield.h5", dir);
  copy_prefix(ck, p, len);
  hid_t f = H5Fopen(p, H5F_ACC_RDWR, H5P_DEFAULT);
  H5Ldelete(f, "/fields/v", H5P_DEFAULT);
  H5Fclose(f);
  reseal(p);
  expect_refused(p, good(), "no field", "no field 'v'", NULL);
  snprintf(p, sizeof p, "%s/wrongsize.h5", dir);
  copy_prefix(ck, p, len);
  f = H5Fopen(p, H5F_ACC_RDWR, H5P_DEFAULT);
  H5Ldelete(f, "/fields/u", H5P_DEFAULT);
  hsize_t n = K * NP - 1;
  hid_t s = H5Screate_simple(1, &n, NULL);
  hid_t d = H5Dcreate2(f, "/fields/u", H5T_NATIVE_DOUBLE, s, H5P_DEFAULT, H5P_DEFAULT,
                       H5P_DEFAULT);
  H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, a);
  H5Dclose(d);
  H5Sclose(s);
  H5Fclose(f);
  reseal(p);
  expect_refused(p, good(), "wrong size", "'u'", NULL);
}

/* one bit flipped inside the raw data of v */
static void bit_flip(const char *dir, const char *ck) {
  char p[4300];
  size_t len;
  char *bytes = tu_slurp(ck, &len);
  char *hit = NULL;
  for (size_t i = 0; i + sizeof b <= len && !hit; ++i)
    if (!memcmp(bytes + i, b, sizeof b))
      hit = bytes + i;
  EXPECT(hit != NULL, "raw data of v not found in the file");
  if (hit) {
    hit[8 * 17 + 3] ^= 0x10;
    snprintf(p, sizeof p, "%s/flipped.h5", dir);
    tu_write(p, bytes, len);
    /* the seal sees it first; resealed, the field's own checksum does */
    expect_refused(p, good(), "bit flip", "do not match the SHA-256", NULL);
    reseal(p);
    expect_refused(p, good(), "bit flip", "corrupt", "'v'");
  }
  free(bytes);
}

/* writes that must fail: into an unwritable directory, over a directory
 * (leaving nothing), with bad arguments */
static void write_failures(const char *dir, const char *ck, const void *const *fields) {
  char p[4300];
  dg_checkpoint_info in = good(), m;
  /* unwritable directory: below a regular file */
  snprintf(p, sizeof p, "%s/afile", dir);
  tu_write(p, "x", 1);
  snprintf(p, sizeof p, "%s/afile/ck.h5", dir);
  int before = tu_count(dir, "");
  dg_error err = dg_checkpoint_write(p, &in, fields);
  EXPECT(err == DG_ERR_IO, "unwritable: got %d", err);
  EXPECT(strstr(dg_error_message(), "afile/ck.h5") != NULL, "message: %s", dg_error_message());
  printf("%-14s -> %s\n", "unwritable", dg_error_message());
  /* final name taken by a directory: the commit fails */
  snprintf(p, sizeof p, "%s/isdir.h5", dir);
  mkdir(p, 0755);
  err = dg_checkpoint_write(p, &in, fields);
  EXPECT(err == DG_ERR_IO, "over a directory: got %d", err);
  EXPECT(tu_count(dir, "") == before + 1, "files were left behind");
  /* bad arguments */
  m = good();
  const char *dup[NF] = {"u", "u"};
  m.field_names = dup;
  EXPECT(dg_checkpoint_write(ck, &m, fields) == DG_ERR_ARG, "repeated names accepted");
  m = good();
  m.real_size = 2;
  EXPECT(dg_checkpoint_write(ck, &m, fields) == DG_ERR_ARG, "real_size 2 accepted");
}

int main(void) {
  for (int n = 0; n < K * NP; ++n) {
    a[n] = (double)tu_rand();
    b[n] = -(double)tu_rand();
  }
  char dir[4096], ck[4200];
  tu_mkdtemp(dir, sizeof dir);
  snprintf(ck, sizeof ck, "%s/ck.h5", dir);
  dg_checkpoint_info in = good();
  const void *const fields[NF] = {a, b};
  EXPECT(dg_checkpoint_write(ck, &in, fields) == DG_OK, "write: %s", dg_error_message());
  identity_mismatches(ck);
  old_numbering(dir, ck);
  damaged_files(dir, ck);
  edited_fields(dir, ck);
  bit_flip(dir, ck);
  /* the good file still reads */
  dg_checkpoint_info m = good();
  EXPECT(dg_checkpoint_read(ck, &m, out) == DG_OK && !memcmp(ra, a, sizeof a) &&
             !memcmp(rb, b, sizeof b),
         "good checkpoint: %s", dg_error_message());
  write_failures(dir, ck, fields);
  return tu_finish(dir, failures);
}
#endif
