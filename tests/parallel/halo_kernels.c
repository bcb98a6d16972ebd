/* operators.halo_kernels_cc / operators.halo_kernels_nvrtc: the generated
 * halo pack / unpack kernels, float and double.  cc: compiled by the cpu
 * backend and run on a permuted gather/scatter, checked element by element
 * against plain loops; nvrtc: compiled for sm_90 (skipped without NVRTC).
 * usage: test_halo_kernels cc|nvrtc */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/device.h"
#include "core/error.h"
#include "core/nvrtc.h"
#include "operators/gen_halo.h"

static int run_cc(int is_float) {
  dg_device *dev = NULL;
  dg_module *mod = NULL;
  dg_kernel *pack = NULL, *unpack = NULL;
  char *src = NULL;
  if (dg_gen_halo_source(DG_CODEGEN_C, is_float, &src) != DG_OK ||
      dg_device_create("cpu", 0, &dev) != DG_OK ||
      dg_device_compile(dev, "dg_halo", src, NULL, 0, &mod) != DG_OK ||
      dg_module_get_kernel(mod, "dg_halo_pack", &pack) != DG_OK ||
      dg_module_get_kernel(mod, "dg_halo_unpack", &unpack) != DG_OK) {
    dg_error_print(stdout);
    return 1;
  }
  enum { NQ = 1000, NB = 300 };
  size_t rs = is_float ? 4 : 8;
  char *q = calloc(NQ, rs), *buf = calloc(NB, rs);
  int idx[NB];
  for (int i = 0; i < NQ; i++) {
    if (is_float)
      ((float *)q)[i] = (float)(i * 0.5);
    else
      ((double *)q)[i] = i * 0.25;
  }
  for (int z = 0; z < NB; z++)
    idx[z] = (z * 37 + 11) % NQ; /* distinct: 37 is coprime to 1000 */
  long long n = NB;
  void *qa = q, *ba = buf, *ia = idx;
  void *args[] = {&qa, &ba, &ia, &n};
  dg_launch l;
  memset(&l, 0, sizeof l);
  l.items = NB;
  l.chunk = 64;
  int bad = 0;
  if (dg_kernel_launch(pack, &l, args, NULL) != DG_OK)
    bad = 1;
  for (int z = 0; z < NB && !bad; z++) {
    double want = is_float ? ((float *)q)[idx[z]] : ((double *)q)[idx[z]];
    double got = is_float ? ((float *)buf)[z] : ((double *)buf)[z];
    if (got != want) {
      printf("pack: buf[%d] = %g, want q[%d] = %g\n", z, got, idx[z], want);
      bad = 1;
    }
  }
  /* Scatter -buf back; every listed slot changes sign, the others stay. */
  for (int z = 0; z < NB; z++) {
    if (is_float)
      ((float *)buf)[z] = -((float *)buf)[z];
    else
      ((double *)buf)[z] = -((double *)buf)[z];
  }
  if (!bad && dg_kernel_launch(unpack, &l, args, NULL) != DG_OK)
    bad = 1;
  char *listed = calloc(NQ, 1);
  for (int z = 0; z < NB; z++)
    listed[idx[z]] = 1;
  for (int i = 0; i < NQ && !bad; i++) {
    double v = is_float ? ((float *)q)[i] : ((double *)q)[i];
    double orig = is_float ? (double)(float)(i * 0.5) : i * 0.25;
    double want = listed[i] ? -orig : orig;
    if (v != want) {
      printf("unpack: q[%d] = %g, want %g\n", i, v, want);
      bad = 1;
    }
  }
  if (bad)
    dg_error_print(stdout);
  free(listed);
  free(q);
  free(buf);
  free(src);
  dg_module_destroy(&mod);
  dg_device_destroy(&dev);
  return bad;
}

static int run_nvrtc(int is_float) {
  char *src = NULL;
  if (dg_gen_halo_source(DG_CODEGEN_CUDA, is_float, &src) != DG_OK) {
    dg_error_print(stdout);
    return 1;
  }
  void *cubin = NULL;
  size_t size = 0;
  dg_error e = dg_nvrtc_compile("dg_halo", src, "sm_90", NULL, 0, &cubin, &size);
  free(src);
  free(cubin);
  if (e == DG_ERR_UNSUPPORTED) {
    printf("NVRTC not available: skipped\n");
    return 77;
  }
  if (e != DG_OK) {
    dg_error_print(stdout);
    return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 2 || (strcmp(argv[1], "cc") && strcmp(argv[1], "nvrtc"))) {
    fprintf(stderr, "usage: %s cc|nvrtc\n", argv[0]);
    return 2;
  }
  int nv = strcmp(argv[1], "nvrtc") == 0;
  for (int f = 0; f < 2; f++) {
    int rc = nv ? run_nvrtc(f) : run_cc(f);
    if (rc)
      return rc;
  }
  printf("OK\n");
  return 0;
}
