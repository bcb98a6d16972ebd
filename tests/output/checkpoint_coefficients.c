/* problems.checkpoint_coefficients: a checkpoint of a run with coefficients
 * (float state, double coefficients) stores them under /coefficients and
 * reads back when the run's values are the same, bit for bit; one changed
 * value is refused naming the coefficient, the element and both values; a
 * run with coefficients refuses a checkpoint without them and the other
 * way round. */
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "problems/io/checkpoint.h"
#include "testutil.h"

#if !defined(DGRUN_HAVE_HDF5)
int main(void) { return 77; }
#else

enum { K = 5, NP = 6, NF = 2, NC = 2 };

static int refused(const char *path, dg_checkpoint_info *in, void **out, const char *want,
                   const char *want2) {
  dg_error err = dg_checkpoint_read(path, in, out);
  const char *msg = err != DG_OK ? dg_error_message() : "";
  int ok = err == DG_ERR_INPUT && strstr(msg, want) && (!want2 || strstr(msg, want2));
  if (!ok)
    fprintf(stderr, "want '%s' / '%s', got %d: %s\n", want, want2 ? want2 : "", (int)err, msg);
  dg_error_clear();
  return ok;
}

int main(void) {
  char dir[4096], path[4200], plain[4200];
  tu_mkdtemp(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/ck.h5", dir);
  snprintf(plain, sizeof plain, "%s/plain.h5", dir);
  const char *names[NF] = {"Ez", "Hx"}, *cnames[NC] = {"eps", "mu"};
  float u[NF][K * NP], got[NF][K * NP];
  double cv[NC][K * NP], cw[NC][K * NP];
  for (int f = 0; f < NF; f++)
    for (int j = 0; j < K * NP; j++)
      u[f][j] = (float)(tu_rand() % 1000) / 7.0f;
  for (int c = 0; c < NC; c++)
    for (int j = 0; j < K * NP; j++)
      cv[c][j] = cw[c][j] = 1.0 + (double)(tu_rand() % 1000) / 3.0;
  const void *in[NF] = {u[0], u[1]};
  void *out[NF] = {got[0], got[1]};
  const double *cvals[NC] = {cv[0], cv[1]}, *cnow[NC] = {cw[0], cw[1]};
  dg_checkpoint_info info = {2, 2, NP, K, 4, NF, names, "lserk4", "p", "input", 0.5, 0.01, 50,
                             7, "m", NULL, NULL, NC, cnames, cvals, 0 /* dt_max */, 0, 1, 0};
  dg_error err = dg_checkpoint_write(path, &info, in);
  EXPECT(err == DG_OK, "write: %s", dg_error_message());
  dg_checkpoint_info plain_info = info;
  plain_info.ncoef = 0;
  err = dg_checkpoint_write(plain, &plain_info, in);
  EXPECT(err == DG_OK, "write plain: %s", dg_error_message());
  /* the stored values, as doubles, through the HDF5 C API */
  hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  EXPECT(file >= 0, "open %s", path);
  double stored[K * NP];
  for (int c = 0; c < NC && file >= 0; c++) {
    char set[64];
    snprintf(set, sizeof set, "/coefficients/%s", cnames[c]);
    hid_t d = H5Dopen2(file, set, H5P_DEFAULT);
    EXPECT(d >= 0 && H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, stored) >= 0 &&
               !memcmp(stored, cv[c], sizeof stored),
           "%s not stored as given", set);
    if (d >= 0)
      H5Dclose(d);
  }
  if (file >= 0)
    H5Fclose(file);
  /* same values: read */
  dg_checkpoint_info rd = info;
  rd.coef_values = cnow;
  err = dg_checkpoint_read(path, &rd, out);
  EXPECT(err == DG_OK, "read: %s", dg_error_message());
  EXPECT(!memcmp(got, u, sizeof u) && rd.step == 50, "state differs");
  /* one value changed: refused, naming it (element 3, node 2 of mu) */
  cw[1][3 * NP + 2] += 0.5;
  EXPECT(refused(path, &rd, out, "coefficient 'mu'", "node 2 of element 3"),
         "a changed coefficient is not refused");
  cw[1][3 * NP + 2] = cv[1][3 * NP + 2];
  /* without coefficients in the file, or in the run */
  EXPECT(refused(plain, &rd, out, "holds no coefficient values", NULL), "plain file read");
  dg_checkpoint_info none = info;
  none.ncoef = 0;
  EXPECT(refused(path, &none, out, "holds coefficient values", NULL), "coefficients ignored");
  EXPECT(dg_checkpoint_read(plain, &none, out) == DG_OK, "plain: %s", dg_error_message());
  return tu_finish(dir, failures);
}
#endif
