/* tuning.database: entries round-trip; keys separate devices, drivers,
 * operators, orders and precisions; a driver change misses the local entry
 * but matches shipped defaults (model only); corrupt entries read as
 * missing and are rewritten by the next put; the kin lookup finds the
 * operator's entries of other models of the same compute capability and
 * backend, fastest first, at most DG_TUNE_KIN_MAX, and none of the asking
 * model's own, another capability's, another operator's or damaged ones. */
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
  /* kin: entries of related models */
  {
    char *kd = NULL;
    EXPECT(dg_fsutil_make_temp_dir("dgkin", &kd) == DG_OK);
    dg_tune_space sp;
    memset(&sp, 0, sizeof sp);
    dg_tune_key ask, other_op;
    dg_device_info h200 = h100(12040), a100 = h100(12040), h100b = h100(12040);
    strcpy(h200.name, "NVIDIA H200");
    strcpy(a100.name, "NVIDIA A100");
    a100.cc_major = 8;
    dg_tune_key_make(&h200, "abcdef", 3, 3, 5, 0, &ask);
    dg_tune_key_make(&h200, "abcdef", 3, 4, 5, 0, &other_op);
    EXPECT(dg_tune_db_kin(kd, &ask, &sp) == DG_OK && sp.nkin == 0); /* empty folder */
    char *missing = dg_fsutil_join(kd, "none");
    EXPECT(dg_tune_db_kin(missing, &ask, &sp) == DG_OK && sp.nkin == 0);
    free(missing);
    /* the H100 entry k (c, 1.25 ms); a second H100-class model, faster; an
     * A100 (cc 8.0), the H200's own and another operator's: not kin */
    dg_tune_key kb, ka, ko;
    strcpy(h100b.name, "NVIDIA H100 PCIe");
    dg_tune_key_make(&h100b, "abcdef", 3, 3, 5, 0, &kb);
    dg_tune_key_make(&a100, "abcdef", 3, 3, 5, 0, &ka);
    dg_tune_key_make(&d1, "abcdef", 3, 4, 5, 0, &ko);
    dg_kernel_config cb = c, other = dg_kernel_config_default();
    cb.elements_per_block = 16;
    EXPECT(dg_tune_db_put(kd, &k, &c, 1.25) == DG_OK);
    EXPECT(dg_tune_db_put(kd, &kb, &cb, 0.75) == DG_OK);
    EXPECT(dg_tune_db_put(kd, &ka, &other, 0.1) == DG_OK);
    EXPECT(dg_tune_db_put(kd, &ask, &other, 0.1) == DG_OK);
    EXPECT(dg_tune_db_put(kd, &ko, &other, 0.1) == DG_OK);
    char *junk = dg_fsutil_join(kd, "junk.tune");
    EXPECT(dg_fsutil_write_file(junk, "garbage\n", 8, 0644) == DG_OK);
    free(junk);
    char **names = NULL;
    int nn = 0;
    EXPECT(dg_fsutil_list(kd, ".tune", &names, &nn) == DG_OK && nn == 6, "%d entries", nn);
    for (int i = 0; i < nn; i++)
      EXPECT(strstr(names[i], ".tune") && (i == 0 || strcmp(names[i - 1], names[i]) < 0));
    dg_fsutil_free_names(names, nn);
    EXPECT(dg_fsutil_list(kd, ".none", &names, &nn) == DG_OK && nn == 0 && !names);
    EXPECT(dg_tune_db_kin(kd, &ask, &sp) == DG_OK && sp.nkin == 2, "%d kin", sp.nkin);
    EXPECT(sp.nkin == 2 && memcmp(&sp.kin[0], &cb, sizeof cb) == 0 &&
           memcmp(&sp.kin[1], &c, sizeof c) == 0);
    /* the asking model's entries are not its own kin; the H200's are the H100's */
    EXPECT(dg_tune_db_kin(kd, &k, &sp) == DG_OK && sp.nkin == 2 &&
           memcmp(&sp.kin[0], &other, sizeof other) == 0 &&
           memcmp(&sp.kin[1], &cb, sizeof cb) == 0);
    EXPECT(dg_tune_db_kin(kd, &other_op, &sp) == DG_OK && sp.nkin == 1 &&
           memcmp(&sp.kin[0], &other, sizeof other) == 0); /* d1's ko */
    /* at most DG_TUNE_KIN_MAX, the fastest */
    for (int m = 0; m < DG_TUNE_KIN_MAX + 2; m++) {
      dg_device_info x = h100(12040);
      snprintf(x.name, sizeof x.name, "Hopper %d", m);
      dg_tune_key kx;
      dg_tune_key_make(&x, "abcdef", 3, 3, 5, 0, &kx);
      dg_kernel_config cx = c;
      cx.elements_per_block = 1 + m;
      EXPECT(dg_tune_db_put(kd, &kx, &cx, 0.15 + 0.1 * m) == DG_OK);
    }
    EXPECT(dg_tune_db_kin(kd, &ask, &sp) == DG_OK && sp.nkin == DG_TUNE_KIN_MAX);
    for (int m = 0; m < sp.nkin; m++)
      EXPECT(sp.kin[m].elements_per_block == 1 + m, "kin %d: epb %d", m,
             sp.kin[m].elements_per_block);
    free(sp.kin);
    dg_fsutil_remove_tree(kd);
    free(kd);
  }
  dg_fsutil_remove_tree(dir);
  free(dir);
  printf("%d failures\n", failures);
  return failures ? 1 : 0;
}
