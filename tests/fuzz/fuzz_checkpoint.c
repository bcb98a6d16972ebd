/* Fuzz target of the checkpoint reader (problems/checkpoint.c): the input
 * bytes are written to a scratch file and read as a checkpoint, whole
 * (dg_checkpoint_read) and as one rank's part with its elements in another
 * order (dg_checkpoint_read_part), with each identity of the seeds
 * (make_ckpt_seeds.c).  Every input must read or fail with DG_ERR_INPUT
 * naming the file; never a crash, hang, leak or undefined behaviour, in our
 * code or in libhdf5 (which the seal keeps damaged bytes from: fuzzing the
 * unsealed reader found use-after-free and heap overflows inside libhdf5
 * 1.10).  A file that reads must hold finite progress values. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "problems/io/checkpoint.h"
#include "tests/fuzz/ckpt_seeds.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void must(int cond) {
  if (!cond)
    abort();
}

static char scratch[64];
static dg_comm *self;

static void write_scratch(const uint8_t *data, size_t size) {
  if (!scratch[0])
    snprintf(scratch, sizeof scratch, "/tmp/dgrun_fuzz_ckpt_%ld.h5", (long)getpid());
  FILE *f = fopen(scratch, "wb");
  must(f != NULL);
  must(fwrite(data, 1, size, f) == size);
  must(fclose(f) == 0);
}

static void check(dg_error e) {
  if (e != DG_OK) {
    must(e == DG_ERR_INPUT);
    must(strstr(dg_error_message(), scratch) != NULL); /* names the file */
  }
  dg_error_clear();
}

static void read_as(const dg_ckpt_seed *s) {
  size_t n = (size_t)(s->K * s->Np) * (size_t)s->real_size;
  void *fields[DG_CKPT_SEED_MAX_FIELDS];
  for (int i = 0; i < s->nfields; i++)
    must((fields[i] = malloc(n)) != NULL);
  dg_checkpoint_info info = dg_ckpt_seed_info(s);
  check(dg_checkpoint_read(scratch, &info, fields));
  /* one rank holding every element, in reverse order */
  int64_t *gk = malloc((size_t)s->K * sizeof *gk);
  must(gk != NULL);
  for (int64_t k = 0; k < s->K; k++)
    gk[k] = s->K - 1 - k;
  dg_h5part *part = NULL;
  must(dg_h5part_create(gk, s->K, s->K, &part) == DG_OK);
  info = dg_ckpt_seed_info(s);
  check(dg_checkpoint_read_part(scratch, &info, fields, self, part));
  dg_h5part_destroy(&part);
  free(gk);
  for (int i = 0; i < s->nfields; i++)
    free(fields[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!self)
    must(dg_comm_create_self(&self) == DG_OK);
  write_scratch(data, size);
  for (int i = 0; i < DG_CKPT_SEED_COUNT; i++)
    read_as(&dg_ckpt_seeds[i]);
  return 0;
}
