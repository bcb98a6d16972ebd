/* dgbench mma: the tensor-core steps the generator's work_mode mma uses
 * (fp64 in double, split TF32 in float), measured on this GPU, and their
 * fragment layouts checked.
 *
 *   dgbench mma [--iters I]
 *
 * Why: whether the 16-row tiles (m16n8k4) pay for their padding depends on
 * their rate against m8n8k4 and plain FMA on the GPU at hand (H100: 66
 * against 33 and 30 TFLOP/s, tuning/RESULTS.md).  Each rate kernel keeps 8
 * independent accumulations per warp in flight on every SM; FLOP counts 2
 * per multiply-add.  The layout kernels multiply known matrices with one
 * step and compare every entry of D with the host's product, so a wrong
 * lane map fails here (exit 1) before it fails inside a DG kernel.  The
 * TF32 check runs the float kernels' split product (x = big + small by bit
 * masks, three m16n8k8 steps) and must keep fp32-level accuracy; the plain one-step TF32
 * error is printed beside it for scale.
 * Exit 77 (skipped) without a CUDA device or fp64 tensor cores (cc < 8.0). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/device.h"
#include "core/error.h"

static const char *const MMA_SOURCE =
    "#define STEP8(d, a, b) asm volatile(\"mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 "
    "{%0,%1}, {%2}, {%3}, {%0,%1};\" : \"+d\"(d[0]), \"+d\"(d[1]) : \"d\"(a), \"d\"(b))\n"
    "#define STEP16(d, a0, a1, b) asm volatile(\"mma.sync.aligned.m16n8k4.row.col.f64.f64."
    "f64.f64 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};\" : \"+d\"(d[0]), \"+d\"(d[1]), "
    "\"+d\"(d[2]), \"+d\"(d[3]) : \"d\"(a0), \"d\"(a1), \"d\"(b))\n"
    "/* shape 8: m8n8k4, 16: m16n8k4, 0: plain fma; 8 chains a thread */\n"
    "template <int S> __device__ void rate(double *out, int iters) {\n"
    "  double d[8][4] = {};\n"
    "  const double a0 = 1e-3 * threadIdx.x, a1 = a0 + 1e-3, b = 1.0 - 1e-4 * threadIdx.x;\n"
    "  for (int it = 0; it < iters; ++it) {\n"
    "    #pragma unroll\n"
    "    for (int c = 0; c < 8; ++c) {\n"
    "      if (S == 8) STEP8(d[c], a0, b);\n"
    "      if (S == 16) STEP16(d[c], a0, a1, b);\n"
    "      if (S == 0) d[c][0] = fma(a0, d[c][0], b);\n"
    "    }\n"
    "  }\n"
    "  double s = 0;\n"
    "  for (int c = 0; c < 8; ++c) s += d[c][0] + d[c][1] + d[c][2] + d[c][3];\n"
    "  out[blockIdx.x * blockDim.x + threadIdx.x] = s; /* keeps the work */\n"
    "}\n"
    "extern \"C\" __global__ void rate8(double *out, int iters) { rate<8>(out, iters); }\n"
    "extern \"C\" __global__ void rate16(double *out, int iters) { rate<16>(out, iters); }\n"
    "extern \"C\" __global__ void rate_fma(double *out, int iters) { rate<0>(out, iters); }\n"
    "/* one step on A (rows x 4, row-major), B (4 x 8): D (rows x 8); lane l holds\n"
    " * A (l/4 + 8h, l%4), B (l%4, l/4), D (l/4 + 8h, 2(l%4) + {0,1}) */\n"
    "extern \"C\" __global__ void layout8(const double *A, const double *B, double *D) {\n"
    "  const int l = threadIdx.x, g = l >> 2, t = l & 3;\n"
    "  double d[2] = {0, 0};\n"
    "  STEP8(d, A[g * 4 + t], B[t * 8 + g]);\n"
    "  D[g * 8 + 2 * t] = d[0]; D[g * 8 + 2 * t + 1] = d[1];\n"
    "}\n"
    "extern \"C\" __global__ void layout16(const double *A, const double *B, double *D) {\n"
    "  const int l = threadIdx.x, g = l >> 2, t = l & 3;\n"
    "  double d[4] = {0, 0, 0, 0};\n"
    "  STEP16(d, A[g * 4 + t], A[(g + 8) * 4 + t], B[t * 8 + g]);\n"
    "  D[g * 8 + 2 * t] = d[0]; D[g * 8 + 2 * t + 1] = d[1];\n"
    "  D[(g + 8) * 8 + 2 * t] = d[2]; D[(g + 8) * 8 + 2 * t + 1] = d[3];\n"
    "}\n"
    "#define TSTEP(d, a, b0, b1) asm volatile(\"mma.sync.aligned.m16n8k8.row.col.f32.tf32."
    "tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\" : \"+f\"(d[0]), "
    "\"+f\"(d[1]), \"+f\"(d[2]), \"+f\"(d[3]) : \"r\"(a[0]), \"r\"(a[1]), \"r\"(a[2]), "
    "\"r\"(a[3]), \"r\"(b0), \"r\"(b1))\n"
    "/* a TF32 value: x with its low 13 mantissa bits cleared (the generator's\n"
    " * split, operators/gen_volume_mma.c) */\n"
    "__device__ unsigned tf32(float x) { return __float_as_uint(x) & 0xffffe000u; }\n"
    "extern \"C\" __global__ void rate_tf32(double *out, int iters) {\n"
    "  float d[8][4] = {};\n"
    "  const unsigned a[4] = {tf32(1e-3f * threadIdx.x), tf32(0.5f), tf32(0.25f), tf32(2.0f)};\n"
    "  const unsigned b0 = tf32(1.0f - 1e-4f * threadIdx.x), b1 = tf32(0.75f);\n"
    "  for (int it = 0; it < iters; ++it) {\n"
    "    #pragma unroll\n"
    "    for (int c = 0; c < 8; ++c) TSTEP(d[c], a, b0, b1);\n"
    "  }\n"
    "  double s = 0;\n"
    "  for (int c = 0; c < 8; ++c) s += d[c][0] + d[c][1] + d[c][2] + d[c][3];\n"
    "  out[blockIdx.x * blockDim.x + threadIdx.x] = s;\n"
    "}\n"
    "/* A (16 x 8), B (8 x 8), D (16 x 8), all row-major; lane l = 4g + t holds\n"
    " * A (g + 8(h%2), t + 4(h/2)), B (t + 4h, g), D (g + 8(h/2), 2t + h%2);\n"
    " * split: three steps on x = big + small, else one on big */\n"
    "extern \"C\" __global__ void layout_tf32(const float *A, const float *B, float *D,\n"
    "                                        int split) {\n"
    "  const int l = threadIdx.x, g = l >> 2, t = l & 3;\n"
    "  float d[4] = {0, 0, 0, 0};\n"
    "  unsigned ab[4], as[4], bb[2], bs[2];\n"
    "  for (int h = 0; h < 4; ++h) {\n"
    "    const float x = A[(g + 8 * (h % 2)) * 8 + t + 4 * (h / 2)];\n"
    "    ab[h] = tf32(x);\n"
    "    as[h] = tf32(x - __uint_as_float(ab[h]));\n"
    "  }\n"
    "  for (int h = 0; h < 2; ++h) {\n"
    "    const float x = B[(t + 4 * h) * 8 + g];\n"
    "    bb[h] = tf32(x);\n"
    "    bs[h] = tf32(x - __uint_as_float(bb[h]));\n"
    "  }\n"
    "  if (split) {\n"
    "    TSTEP(d, as, bb[0], bb[1]);\n"
    "    TSTEP(d, ab, bs[0], bs[1]);\n"
    "  }\n"
    "  TSTEP(d, ab, bb[0], bb[1]);\n"
    "  for (int h = 0; h < 4; ++h) D[(g + 8 * (h / 2)) * 8 + 2 * t + h % 2] = d[h];\n"
    "}\n";

/* One warp of kernel `entry` on A and B (host arrays of na and nb bytes)
 * into D (nd bytes back); `split`, if given, is the kernel's 4th argument. */
static dg_error run_warp(dg_device *dev, dg_module *mod, const char *entry, const void *A,
                         size_t na, const void *B, size_t nb, void *D, size_t nd, int *split) {
  void *dA = NULL, *dB = NULL, *dD = NULL;
  dg_kernel *k = NULL;
  dg_error err;
  DG_CALL_GOTO(err, done, dg_module_get_kernel(mod, entry, &k));
  DG_CALL_GOTO(err, done, dg_device_malloc(dev, na, &dA));
  DG_CALL_GOTO(err, done, dg_device_malloc(dev, nb, &dB));
  DG_CALL_GOTO(err, done, dg_device_malloc(dev, nd, &dD));
  DG_CALL_GOTO(err, done, dg_device_upload(dev, dA, A, na));
  DG_CALL_GOTO(err, done, dg_device_upload(dev, dB, B, nb));
  dg_launch ln = {.grid = {1, 1, 1}, .block = {32, 1, 1}};
  void *args[] = {&dA, &dB, &dD, split};
  DG_CALL_GOTO(err, done, dg_kernel_launch(k, &ln, args, NULL));
  DG_CALL_GOTO(err, done, dg_device_download(dev, D, dD, nd));
done:
  (void)dg_device_free(dev, dA);
  (void)dg_device_free(dev, dB);
  (void)dg_device_free(dev, dD);
  return err;
}

/* Largest |D - A B| of one fp64 layout kernel on fixed data (rows 8 or 16). */
static dg_error check_layout(dg_device *dev, dg_module *mod, const char *entry, int rows,
                             double *err_out) {
  double A[64], B[32], D[128];
  for (int i = 0; i < 64; i++)
    A[i] = sin(1.0 + i);
  for (int i = 0; i < 32; i++)
    B[i] = cos(2.0 + 3 * i);
  DG_CALL(run_warp(dev, mod, entry, A, sizeof A, B, sizeof B, D,
                   (size_t)rows * 8 * sizeof *D, NULL));
  double worst = 0;
  for (int i = 0; i < rows; i++)
    for (int j = 0; j < 8; j++) {
      double s = 0;
      for (int q = 0; q < 4; q++)
        s += A[i * 4 + q] * B[q * 8 + j];
      worst = fmax(worst, fabs(s - D[i * 8 + j]));
    }
  *err_out = worst;
  return DG_OK;
}

/* Largest |D - A B| / max |A B| of the TF32 layout kernel (split or one
 * plain step) on fixed data, against the host's product in double. */
static dg_error check_tf32(dg_device *dev, dg_module *mod, int split, double *err_out) {
  float A[128], B[64], D[128];
  for (int i = 0; i < 128; i++)
    A[i] = (float)sin(1.0 + i);
  for (int i = 0; i < 64; i++)
    B[i] = (float)cos(2.0 + 3 * i);
  DG_CALL(run_warp(dev, mod, "layout_tf32", A, sizeof A, B, sizeof B, D, sizeof D, &split));
  double worst = 0, scale = 0;
  for (int i = 0; i < 16; i++)
    for (int j = 0; j < 8; j++) {
      double s = 0;
      for (int q = 0; q < 8; q++)
        s += (double)A[i * 8 + q] * B[q * 8 + j];
      worst = fmax(worst, fabs(s - D[i * 8 + j]));
      scale = fmax(scale, fabs(s));
    }
  *err_out = worst / scale;
  return DG_OK;
}

/* TFLOP/s of one rate kernel: 8 blocks of 256 threads per SM, one timed
 * launch after a warm-up. */
static dg_error time_rate(dg_device *dev, dg_module *mod, const char *entry,
                          double flop_per_step_warp, int iters, double *tflops) {
  const dg_device_info *info = dg_device_get_info(dev);
  unsigned blocks = 8u * (unsigned)info->multiprocessors, threads = 256;
  void *out = NULL;
  dg_kernel *k = NULL;
  dg_event *e0 = NULL, *e1 = NULL;
  dg_error err;
  DG_CALL_GOTO(err, done, dg_module_get_kernel(mod, entry, &k));
  DG_CALL_GOTO(err, done, dg_device_malloc(dev, (size_t)blocks * threads * sizeof(double), &out));
  DG_CALL_GOTO(err, done, dg_event_create(dev, &e0));
  DG_CALL_GOTO(err, done, dg_event_create(dev, &e1));
  dg_launch ln = {.grid = {blocks, 1, 1}, .block = {threads, 1, 1}};
  void *args[] = {&out, &iters};
  DG_CALL_GOTO(err, done, dg_kernel_launch(k, &ln, args, NULL));
  DG_CALL_GOTO(err, done, dg_event_record(e0, NULL));
  DG_CALL_GOTO(err, done, dg_kernel_launch(k, &ln, args, NULL));
  DG_CALL_GOTO(err, done, dg_event_record(e1, NULL));
  DG_CALL_GOTO(err, done, dg_event_synchronize(e1));
  float ms = 0;
  DG_CALL_GOTO(err, done, dg_event_elapsed_ms(e0, e1, &ms));
  double warps = (double)blocks * threads / 32, steps = warps * iters * 8;
  *tflops = steps * flop_per_step_warp / (ms * 1e-3) / 1e12;
done:
  dg_event_destroy(&e0);
  dg_event_destroy(&e1);
  (void)dg_device_free(dev, out);
  return err;
}

/* *status: 0 all layouts right, 1 one wrong, 77 no fp64 tensor cores. */
static dg_error run(int iters, int *status) {
  dg_device *dev = NULL;
  dg_module *mod = NULL;
  dg_error err = DG_OK;
  DG_CALL(dg_device_create("cuda", -1, &dev));
  const dg_device_info *info = dg_device_get_info(dev);
  printf("dgbench mma: %s (cc %d.%d, %d SMs), fp64 and tf32\n", info->name, info->cc_major,
         info->cc_minor, info->multiprocessors);
  *status = 77;
  if (info->cc_major < 8) {
    printf("no fp64 tensor cores before compute capability 8.0: skipped\n");
    goto done;
  }
  DG_CALL_GOTO(err, done, dg_device_compile(dev, "mmabench", MMA_SOURCE, NULL, 0, &mod));
  static const struct {
    const char *entry, *name;
    double flop; /* per warp-wide step */
  } rates[] = {{"rate8", "m8n8k4", 2.0 * 8 * 8 * 4},
               {"rate16", "m16n8k4", 2.0 * 16 * 8 * 4},
               {"rate_fma", "fma (no tensor cores)", 2.0 * 32},
               {"rate_tf32", "tf32 m16n8k8 (float)", 2.0 * 16 * 8 * 8}};
  for (int r = 0; r < 4; r++) {
    double tf = 0;
    DG_CALL_GOTO(err, done, time_rate(dev, mod, rates[r].entry, rates[r].flop, iters, &tf));
    printf("%-22s %8.2f TFLOP/s\n", rates[r].name, tf);
  }
  *status = 0;
  for (int rows = 8; rows <= 16; rows += 8) {
    double e = 0;
    DG_CALL_GOTO(err, done, check_layout(dev, mod, rows == 8 ? "layout8" : "layout16", rows, &e));
    int ok = e <= 1e-13;
    printf("m%dn8k4 fragment layout: max |D - AB| %.2e %s\n", rows, e, ok ? "ok" : "WRONG");
    *status |= !ok;
  }
  double split = 0, plain = 0;
  DG_CALL_GOTO(err, done, check_tf32(dev, mod, 1, &split));
  DG_CALL_GOTO(err, done, check_tf32(dev, mod, 0, &plain));
  int ok = split <= 2e-6; /* fp32-level; one TF32 step alone keeps ~1e-3 */
  printf("tf32 m16n8k8 fragment layout, split (3 steps): max |D - AB| / max |AB| %.2e %s "
         "(one plain step: %.2e)\n", split, ok ? "ok" : "WRONG", plain);
  *status |= !ok;
done:
  dg_module_destroy(&mod);
  dg_device_destroy(&dev);
  return err;
}

int dg_mmabench_main(int argc, char **argv) {
  int iters = 4096;
  for (int k = 0; k < argc; k++) {
    if (strcmp(argv[k], "--iters") == 0 && k + 1 < argc) {
      iters = atoi(argv[++k]);
    } else {
      fprintf(stderr, "usage: dgbench mma [--iters I]  (I > 0, default 4096)\n");
      return 2;
    }
  }
  if (iters < 1) {
    fprintf(stderr, "dgbench mma: --iters must be positive\n");
    return 2;
  }
  if (!dg_device_cuda_available()) {
    printf("dgbench mma: no CUDA device: skipped\n");
    return 77;
  }
  int status = 1;
  if (run(iters, &status) != DG_OK) {
    dg_error_print(stderr);
    return 1;
  }
  return status;
}
