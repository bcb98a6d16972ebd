/* Fuzz target of the HDF5 mesh reader (meshes/mesh_h5.c): the input bytes
 * are written to a scratch file and read as a dgrun mesh file, whole and
 * (when it says it is partitioned) part by part.  Every input must read or
 * fail with DG_ERR_INPUT (DG_ERR_IO only for the scratch file itself),
 * leaving no mesh behind; never a crash, hang, leak or undefined behaviour
 * in our code.  A mesh that reads must pass the reader's own checks, so its
 * connectivity indices are used here to touch every referenced vertex. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "meshes/mesh_h5.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void must(int cond) {
  if (!cond)
    abort();
}

static char scratch[64];

static void write_scratch(const uint8_t *data, size_t size) {
  if (!scratch[0]) {
    snprintf(scratch, sizeof scratch, "/tmp/dgrun_fuzz_mesh_%ld.h5", (long)getpid());
  }
  FILE *f = fopen(scratch, "wb");
  must(f != NULL);
  must(fwrite(data, 1, size, f) == size);
  must(fclose(f) == 0);
}

static void touch(const dg_mesh *m) {
  double s = 0;
  int nv = m->dim + 1;
  for (int64_t k = 0; k < m->K; k++)
    for (int v = 0; v < nv; v++) {
      int64_t i = m->EToV[k * nv + v];
      must(i >= 0 && i < m->Nv);
      for (int a = 0; a < m->dim; a++)
        s += m->VX[i * m->dim + a];
    }
  for (int64_t k = 0; m->region && k < m->K; k++) {
    int r = m->region[k];
    must(r >= -1 && r < m->nregions);
    s += r >= 0 ? (double)strlen(m->region_names[r]) : 0;
  }
  (void)s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  write_scratch(data, size);
  dg_mesh *mesh = NULL;
  dg_partition *part = NULL;
  dg_error e = dg_mesh_h5_read(scratch, &mesh, &part);
  if (e == DG_OK) {
    must(mesh != NULL);
    touch(mesh);
  } else {
    must(e == DG_ERR_INPUT && mesh == NULL && part == NULL);
    must(strstr(dg_error_message(), scratch) != NULL); /* names the file */
  }
  dg_mesh_destroy(&mesh);
  dg_partition_destroy(&part);
  dg_error_clear();
  int np = 0;
  e = dg_mesh_h5_nparts(scratch, &np);
  must(e == DG_OK || e == DG_ERR_INPUT);
  dg_error_clear();
  for (int r = 0; e == DG_OK && r < np && r < 4; r++) {
    dg_partition_local *local = NULL;
    dg_error el = dg_mesh_h5_read_part(scratch, r, &local);
    must(el == DG_OK ? local != NULL : el == DG_ERR_INPUT && local == NULL);
    dg_partition_local_destroy(&local);
    dg_error_clear();
  }
  return 0;
}
