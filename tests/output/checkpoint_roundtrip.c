/* problems.checkpoint_roundtrip: fields of fresh random bit patterns (so
 * NaN payloads, infinities, subnormals and signed zeros all occur) come back
 * bit for bit, in double (3D) and float (2D), into poisoned buffers; time,
 * dt and step come back exactly; overwriting a checkpoint replaces it; no
 * temp file remains. */
#include <stdlib.h>
#include <string.h>

#include "problems/io/checkpoint.h"
#include "testutil.h"

#if !defined(DGRUN_HAVE_HDF5)
int main(void) { return 77; }
#else

static void roundtrip(const char *dir, int dim, int N, int Np, int real_size) {
  enum { NF = 3, K = 7 };
  const char *names[NF] = {"rho", "rhou", "E"};
  size_t bytes = (size_t)K * (size_t)Np * (size_t)real_size;
  void *in[NF], *out[NF];
  char path[4200];
  snprintf(path, sizeof path, "%s/ck_%d.h5", dir, dim);
  for (int pass = 0; pass < 2; ++pass) { /* the second overwrites the first */
    for (int i = 0; i < NF; ++i) {
      in[i] = malloc(bytes);
      out[i] = malloc(bytes);
      for (size_t b = 0; b < bytes; b += 8) {
        uint64_t r = tu_rand();
        memcpy((char *)in[i] + b, &r, bytes - b < 8 ? bytes - b : 8);
      }
      memset(out[i], 0xA5, bytes); /* poison */
    }
    double t = (double)tu_rand() / 3.0, dt = 1.0 / (double)(tu_rand() | 1);
    int64_t step = (int64_t)(tu_rand() >> 20);
    dg_checkpoint_info info = {dim, N, Np, K, real_size, NF, names, "lserk4", "advect-2d#abc", "input",
                               t, dt, step, (uint64_t)tu_rand(), "m", NULL, NULL, 0, NULL, NULL, 0 /* dt_max */, 0, 1, 0};
    dg_error err = dg_checkpoint_write(path, &info, (const void *const *)in);
    EXPECT(err == DG_OK, "write %s: %s", path, dg_error_message());
    dg_checkpoint_info rd = info;
    rd.time = rd.dt = -1.0;
    rd.step = -1;
    err = dg_checkpoint_read(path, &rd, out);
    EXPECT(err == DG_OK, "read %s: %s", path, dg_error_message());
    for (int i = 0; i < NF; ++i)
      EXPECT(!memcmp(in[i], out[i], bytes), "dim %d pass %d: field %s differs", dim, pass,
             names[i]);
    EXPECT(!memcmp(&rd.time, &t, 8) && !memcmp(&rd.dt, &dt, 8) && rd.step == step,
           "time/dt/step: %.17g %.17g %lld", rd.time, rd.dt, (long long)rd.step);
    for (int i = 0; i < NF; ++i) {
      free(in[i]);
      free(out[i]);
    }
  }
}

int main(void) {
  char dir[4096];
  tu_mkdtemp(dir, sizeof dir);
  roundtrip(dir, 3, 3, 20, 8);
  roundtrip(dir, 2, 4, 15, 4);
  roundtrip(dir, 1, 1, 2, 8);
  EXPECT(tu_count(dir, "") == 3, "%d files, want 3", tu_count(dir, ""));
  return tu_finish(dir, failures);
}
#endif
