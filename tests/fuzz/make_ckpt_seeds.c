/* Writes the seed corpus of fuzz_checkpoint (tests/fuzz/corpus_ckpt/): one
 * sealed checkpoint per identity of ckpt_seeds.h, with values that are not
 * all alike.  usage: make_ckpt_seeds DIR */
#include <stdio.h>
#include <stdlib.h>

#include "tests/fuzz/ckpt_seeds.h"

int main(int argc, char **argv) {
  if (argc != 2)
    return 2;
  for (int i = 0; i < DG_CKPT_SEED_COUNT; i++) {
    const dg_ckpt_seed *s = &dg_ckpt_seeds[i];
    int64_t n = s->K * s->Np;
    const void *fields[DG_CKPT_SEED_MAX_FIELDS];
    for (int f = 0; f < s->nfields; f++) {
      double *d = malloc((size_t)n * sizeof *d);
      float *x = (float *)d;
      if (!d)
        return 1;
      for (int64_t j = 0; j < n; j++) {
        double v = (double)(j * (f + 3) % 17) / 7.0 - 1.0;
        if (s->real_size == 8)
          d[j] = v;
        else
          x[j] = (float)v;
      }
      fields[f] = d;
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", argv[1], s->file);
    dg_checkpoint_info info = dg_ckpt_seed_info(s);
    if (dg_checkpoint_write(path, &info, fields) != DG_OK) {
      dg_error_print(stderr);
      return 1;
    }
    for (int f = 0; f < s->nfields; f++)
      free((void *)fields[f]);
  }
  return 0;
}
