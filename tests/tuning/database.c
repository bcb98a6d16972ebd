/* tuning.database: entries round-trip; keys separate devices, drivers,
 * operators, orders and precisions; a driver change misses the local entry
 * but matches shipped defaults (model only); corrupt entries read as
 * missing and are rewritten by the next put. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fsutil.h"
#include "core/log.h"
#include "tuning/tuner.h"

#include "tests/expect.h"


static dg_device_info h100(int driver) {
  dg_device_info i;
  memset(&i, 0, sizeof i);
  i.backend = DG_BACKEND_CUDA;
  strcpy(i.backend_name, "cuda");
  strcpy(i.name, "NVIDIA H100 80GB HBM3");
  i.cc_major = 9;
  strcpy(i.compiler_identity, "nvrtc 12.4 sm_90");
  i.driver_version = driver;
  return i;
}

int main(void) {
  dg_log_set_level(DG_LOG_WARN);
  char *dir = NULL;
  if (dg_fsutil_make_temp_dir("dgtune", &dir) != DG_OK)
    return 1;
  dg_device_info d1 = h100(12040), d2 = h100(12050);
  dg_tune_key k, k_drv, k_N, k_float;
  dg_tune_key_make(&d1, "abcdef", 3, 3, 5, 0, &k);
  dg_tune_key_make(&d2, "abcdef", 3, 3, 5, 0, &k_drv);
  dg_tune_key_make(&d1, "abcdef", 3, 4, 5, 0, &k_N);
  dg_tune_key_make(&d1, "abcdef", 3, 3, 5, 1, &k_float);
  EXPECT(strcmp(k.device, k_drv.device) != 0 && strcmp(k.device_model, k_drv.device_model) == 0);
  EXPECT(strcmp(k.op, k_N.op) != 0 && strcmp(k.op, k_float.op) != 0);
  dg_kernel_config c = dg_kernel_config_default(), r;
  c.elements_per_block = 8;
  c.work_mode = DG_WORK_INLINE;
  c.work_per_thread = 2;
  c.prefetch = 1;
  c.matrices = DG_MATRIX_SHARED;
  c.np_align = 4;
  c.layout = DG_LAYOUT_ELEMENT_MAJOR;
  c.fuse_update = 1;
  c.face_threads = 512;
  c.fuse_surface = 1;
  int found = -1;
  double ms = 0;
  EXPECT(dg_tune_db_get(dir, &k, 0, &r, &ms, &found) == DG_OK && found == 0);
  EXPECT(dg_tune_db_put(dir, &k, &c, 1.25) == DG_OK);
  EXPECT(dg_tune_db_get(dir, &k, 0, &r, &ms, &found) == DG_OK && found == 1);
  EXPECT(memcmp(&r, &c, sizeof c) == 0 && ms == 1.25);
  /* another order / precision: not found */
  EXPECT(dg_tune_db_get(dir, &k_N, 0, &r, &ms, &found) == DG_OK && found == 0);
  EXPECT(dg_tune_db_get(dir, &k_float, 0, &r, &ms, &found) == DG_OK && found == 0);
  /* a new driver: the local entry is stale, a shipped default still applies */
  EXPECT(dg_tune_db_get(dir, &k_drv, 0, &r, &ms, &found) == DG_OK && found == 0);
  EXPECT(dg_tune_db_get(dir, &k_drv, 1, &r, &ms, &found) == DG_OK && found == 1);
  /* corrupt the entry in several ways: each reads as missing, put repairs it */
  const char *bad[] = {"", "garbage\n", "dgrun-tuning 1\ndevice x\n",
                       "dgrun-tuning 1\n\0\0\0binary"};
  for (int b = 0; b < 4; b++) {
    /* find the single entry file */
    dg_tune_db_put(dir, &k, &c, 1.25);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "ls %s/*.tune > %s/list", dir, dir);
    EXPECT(system(cmd) == 0);
    char *lp = dg_fsutil_join(dir, "list");
    FILE *f = fopen(lp, "r");
    char path[512] = {0};
    EXPECT(f && fgets(path, sizeof path, f));
    if (f)
      fclose(f);
    free(lp);
    path[strcspn(path, "\n")] = 0;
    EXPECT(dg_fsutil_write_file(path, bad[b], b == 3 ? 24 : strlen(bad[b]), 0644) == DG_OK);
    EXPECT(dg_tune_db_get(dir, &k, 0, &r, &ms, &found) == DG_OK && found == 0);
    EXPECT(dg_tune_db_put(dir, &k, &c, 2.5) == DG_OK);
    EXPECT(dg_tune_db_get(dir, &k, 0, &r, &ms, &found) == DG_OK && found == 1 && ms == 2.5);
  }
  dg_fsutil_remove_tree(dir);
  free(dir);
  printf("%d failures\n", failures);
  return failures ? 1 : 0;
}
