/* operators.cuda_emulate_*: the generated CUDA kernels, run on the CPU, give
 * the cpu backend's right-hand side to round-off for every loop slicing
 * (work per thread parallel / sequence / inline, gemm, mma), shared prefetch, matrix
 * placement, layout, the fused update and the fused surface flux — without a GPU.
 *
 * The CUDA module is compiled as C by the cpu backend with a small shim:
 * thread blocks run one after the other, the threads of a block as fibers
 * (ucontext) on one OS thread, each resumed in turn until it waits at a
 * barrier (__syncthreads, or its warp's in a tensor-core step); shared
 * memory is one static buffer.  That executes exactly the generated
 * indexing, barriers and shared-memory traffic of the kernels, at the cost
 * of a user-space switch per barrier and thread (an OpenMP team of up to
 * 1024 OS threads spent minutes in the kernel's scheduler on 2 cores).
 *
 * usage: test_cuda_emulate problem.cfg [--orders=A,B,...] [--curved [--uniform]]
 *                          [section.key=value ...]
 *   --orders: the polynomial orders to check (default 1,3; at most 4)
 *   --curved: a mesh with curved elements: the curved module instead
 *             (dg_surface_curved, dg_volume_curved over the curved elements,
 *             with their per-node metric terms), every variant as the solver
 *             maps it to the curved kernels' knobs (dg_solver_curved_config),
 *             the fused-surface ones also against the separate-surface one
 *   --uniform: the state is the problem's initial state (a uniform flow,
 *             exact on the boundaries): every variant's right-hand side on
 *             the curved elements is zero to round-off (free-stream)
 * With discretization.precision=float both modules run in float (the
 * tensor-core variants as split TF32), compared to 5e-5 relative. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/device.h"
#include "core/error.h"
#include "core/log.h"
#include "core/nvrtc.h"
#include "core/strbuf.h"
#include "dg/bernstein.h"
#include "dg/face_geometry.h"
#include "dg/opdata.h"
#include "operators/flux_affine.h"
#include "operators/kernel_knobs.h"
#include "operators/physics.h"
#include "problems/driver/problem.h"
#include "problems/solver/coefficients.h"
#include "problems/solver/solver.h"
#include "tests/expect.h"

static const char *SHIM =
    "#define _DEFAULT_SOURCE\n" /* mmap's MAP_ANONYMOUS */
    "#include <math.h>\n#include <stdint.h>\n#include <string.h>\n"
    "#include <sys/mman.h>\n#include <ucontext.h>\n"
    "#define __global__\n#define __device__\n#define __constant__\n#define __shared__\n"
    "#define __restrict__ restrict\n#define __launch_bounds__(...)\n"
    "#define __align__(n) __attribute__((aligned(n)))\n"
    "#define __forceinline__\n#define DG_PREFETCH_L2(p) ((void)(p))\n"
    "#define DG_LD_NC(p) (*(p))\n#define DG_LD_CS(p) (*(p))\n#define DG_ST_CS(p, v) (*(p) = (v))\n"
    "typedef struct { double x, y; } double2;\ntypedef struct { float x, y; } float2;\n"
    "typedef struct { float x, y, z, w; } float4;\n"
    "typedef struct { unsigned x, y, z; } emu_dim3;\n"
    "static emu_dim3 threadIdx, blockIdx, blockDim, gridDim;\n"
    "static double smem_raw[SMEM_DOUBLES] __attribute__((aligned(16)));\n"
    /* a block's threads: one fiber each, resumed in turn by emu_volume
     * until it waits at a barrier or returns; a barrier opens when every
     * thread still running has reached it (threads that returned do not
     * count, as on the GPU) */
    "enum { EMU_THREADS = 1024, EMU_STACK = 256 << 10 };\n"
    "static ucontext_t emu_main, emu_fiber[EMU_THREADS];\n"
    "static int emu_cur, emu_running, emu_done[EMU_THREADS];\n"
    "static void emu_yield(void) { swapcontext(&emu_fiber[emu_cur], &emu_main); }\n"
    "static int emu_count[33], emu_gen[33];\n" /* warps 0..31; 32: the block */
    "static void emu_barrier(int w, int n) {\n"
    "  const int g = emu_gen[w];\n"
    "  if (++emu_count[w] == n) {\n"
    "    emu_count[w] = 0;\n"
    "    ++emu_gen[w];\n"
    "  }\n"
    "  while (emu_gen[w] == g) emu_yield();\n"
    "}\n"
    "#define __syncthreads() emu_barrier(32, emu_running)\n"
    "static void emu_warp_barrier(int w) { emu_barrier(w, 32); }\n"
    /* the fp64 tensor-core step of work_mode mma, warp-collective: the 32
     * lanes meet at their warp's barrier, each computes its two entries of
     * D += A B from the exchanged fragments */
    "static double emu_fa[32][32], emu_fa1[32][32], emu_fb[32][32];\n"
    /* m8n8k4 (rows 8) and m16n8k4 (rows 16: lane l's a1 and d2, d3 are
     * rows l/4 + 8); D entries (row, 2(l%4) + h) */
    "static void emu_dmma_rows(double *d[4], int rows, double a0, double a1, double b) {\n"
    "  const int t = (int)(threadIdx.y * blockDim.x + threadIdx.x), w = t >> 5, l = t & 31;\n"
    "  emu_fa[w][l] = a0; emu_fa1[w][l] = a1; emu_fb[w][l] = b;\n"
    "  emu_warp_barrier(w);\n"
    "  const int row = l >> 2;\n"
    "  for (int o = 0; o < rows / 4; ++o) {\n"
    "    const int col = (l & 3) * 2 + (o & 1);\n"
    "    const double *fa = o < 2 ? emu_fa[w] : emu_fa1[w];\n"
    "    double s = *d[o];\n"
    "    for (int k = 0; k < 4; ++k) s += fa[row * 4 + k] * emu_fb[w][col * 4 + k];\n"
    "    *d[o] = s;\n"
    "  }\n"
    "  emu_warp_barrier(w);\n"
    "}\n"
    "static void emu_dmma(double *d0, double *d1, double a, double b) {\n"
    "  double *d[4] = {d0, d1, 0, 0};\n"
    "  emu_dmma_rows(d, 8, a, 0.0, b);\n"
    "}\n"
    "static void emu_dmma16(double *d0, double *d1, double *d2, double *d3, double a0,\n"
    "                       double a1, double b) {\n"
    "  double *d[4] = {d0, d1, d2, d3};\n"
    "  emu_dmma_rows(d, 16, a0, a1, b);\n"
    "}\n"
    "#define DG_DMMA16(d0, d1, d2, d3, a0, a1, b) \\\n"
    "  emu_dmma16(&(d0), &(d1), &(d2), &(d3), (a0), (a1), (b))\n"
    "#define DG_DMMA(d0, d1, a, b) emu_dmma(&(d0), &(d1), (a), (b))\n"
    /* float: the TF32 m16n8k8 step: lane l = 4g + t holds A (g + 8(h%2), t +
     * 4(h/2)), B (t + 4h, g), D (g + 8(h/2), 2t + h%2); a TF32 operand's low
     * 13 bits are zero (the generator's split clears them) */
    "static float __uint_as_float(unsigned u) { float f; memcpy(&f, &u, 4); return f; }\n"
    "static unsigned __float_as_uint(float f) { unsigned u; memcpy(&u, &f, 4); return u; }\n"
    "static float emu_ta[32][32][4], emu_tb[32][32][2];\n"
    "static void emu_tmma(float *d0, float *d1, float *d2, float *d3, const unsigned *a,\n"
    "                     unsigned b0, unsigned b1) {\n"
    "  const int t = (int)(threadIdx.y * blockDim.x + threadIdx.x), w = t >> 5, l = t & 31;\n"
    "  for (int h = 0; h < 4; ++h) emu_ta[w][l][h] = __uint_as_float(a[h] & 0xffffe000u);\n"
    "  emu_tb[w][l][0] = __uint_as_float(b0 & 0xffffe000u);\n"
    "  emu_tb[w][l][1] = __uint_as_float(b1 & 0xffffe000u);\n"
    "  emu_warp_barrier(w);\n"
    "  float *d[4] = {d0, d1, d2, d3};\n"
    "  for (int o = 0; o < 4; ++o) {\n"
    "    const int row = (l >> 2) + 8 * (o >> 1), col = (l & 3) * 2 + (o & 1);\n"
    "    double s = 0;\n"
    "    for (int k = 0; k < 8; ++k)\n"
    "      s += (double)emu_ta[w][(row & 7) * 4 + (k & 3)][(row >> 3) + 2 * (k >> 2)] *\n"
    "           emu_tb[w][col * 4 + (k & 3)][k >> 2];\n"
    "    *d[o] = (float)(*d[o] + s);\n"
    "  }\n"
    "  emu_warp_barrier(w);\n"
    "}\n"
    "#define DG_TMMA(d0, d1, d2, d3, a, b0, b1) \\\n"
    "  emu_tmma(&(d0), &(d1), &(d2), &(d3), (a), (b0), (b1))\n";

static const char *WRAPPERS =
    /* the curved module (DG_EMU_CURVED): its kernels over [0, KC), KC last */
    "#ifdef DG_EMU_CURVED\n"
    "#define dg_surface(...) dg_surface_curved(__VA_ARGS__, *(real **)a[10], *(real **)a[11], KC)\n"
    "#define dg_volume(...) dg_volume_curved(__VA_ARGS__, *(real **)a[20], *(real **)a[21], \\\n"
    "    *(real **)a[22], KC)\n"
    "#undef NCF\n#undef NGR\n"
    "#define EMU_KS 12\n#define EMU_KV 23\n"
    "#else\n"
    "#define EMU_KS 8\n#define EMU_KV 6\n"
    "#endif\n"
    "void emu_surface(void **a, int64_t first, int64_t count) {\n"
    "  (void)first; (void)count;\n"
    "  const long long K = *(const long long *)a[8], KC = *(const long long *)a[EMU_KS];\n"
    "  (void)KC;\n"
    "  const int nt = *(const int *)a[9];\n"
    "  const long long nb = (KC * NFNFP + nt - 1) / nt;\n"
    "  blockDim.x = nt; blockDim.y = blockDim.z = 1;\n"
    "  for (long long b = 0; b < nb; ++b) {\n"
    "    blockIdx.x = (unsigned)b;\n"
    "    for (int t = 0; t < nt; ++t) { /* no barriers in dg_surface */\n"
    "      threadIdx.x = t; threadIdx.y = threadIdx.z = 0;\n"
    "      dg_surface(*(real **)a[0], *(real **)a[1], *(int **)a[2], *(int **)a[3],\n"
    "                 *(int **)a[4], *(real **)a[5], *(real **)a[6], *(real *)a[7], K\n"
    "#if defined(NCF) || defined(NGR)\n" /* coefficients: the face traces */
    "                 , *(real **)a[10]\n"
    "#endif\n"
    "#ifdef NGR\n" /* second-order terms: the lifted gradients */
    "                 , *(real **)a[11]\n"
    "#endif\n"
    "                 );\n"
    "    }\n"
    "  }\n"
    "}\n"
    "static void **emu_args;\n"
    "static int emu_kind;\n" /* 0: dg_volume, 1: dg_gradient */
    "static void emu_thread(void) {\n"
    "  void **a = emu_args;\n"
    "  const long long KC = *(const long long *)a[EMU_KV];\n"
    "  (void)KC;\n"
    "#ifdef NGR\n"
    "  if (emu_kind == 1)\n"
    "    dg_gradient(*(real **)a[0], *(real **)a[1], *(int **)a[2], *(int **)a[3],\n"
    "                *(int **)a[4], *(real **)a[5], *(real **)a[6], *(real **)a[7],\n"
    "                *(real *)a[8], *(const long long *)a[9], *(real **)a[10]);\n"
    "  else\n"
    "#endif\n"
    "  dg_volume(*(real **)a[0], *(real **)a[1], *(real **)a[2], *(real **)a[3],\n"
    "            *(real **)a[4], *(real *)a[5], *(const long long *)a[6], *(real **)a[7],\n"
    "            *(real *)a[8], *(real *)a[9], *(real *)a[10], *(real **)a[14],\n"
    "            *(int **)a[15], *(int **)a[16], *(int **)a[17], *(real **)a[18],\n"
    "            *(real **)a[19]\n"
    "#if defined(NCF) || defined(NGR)\n" /* coefficients: node values and face traces */
    "            , *(real **)a[20], *(real **)a[21]\n"
    "#endif\n"
    "#ifdef NGR\n"
    "            , *(real **)a[22]\n"
    "#endif\n"
    "            );\n"
    "  emu_done[emu_cur] = 1;\n"
    "  if (--emu_running > 0 && emu_count[32] == emu_running) {\n"
    "    emu_count[32] = 0;\n"
    "    ++emu_gen[32];\n"
    "  }\n"
    "}\n"
    /* nb blocks of blk[0] x blk[1] threads of the kernel emu_kind names */
    "static void emu_blocks(void **a, long long nb, const unsigned *blk, int *bad) {\n"
    "  const int nth = (int)(blk[0] * blk[1]);\n"
    /* the stacks, each above a guard page (an overflow faults) */
    "  const size_t page = 4096, span = EMU_STACK + page;\n"
    "  char *stacks = nth > EMU_THREADS ? MAP_FAILED\n"
    "                 : mmap(NULL, span * (size_t)nth, PROT_READ | PROT_WRITE,\n"
    "                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);\n"
    "  if (stacks == MAP_FAILED) {\n"
    "    *bad = 1;\n"
    "    return;\n"
    "  }\n"
    "  for (int t = 0; t < nth; ++t) mprotect(stacks + span * (size_t)t, page, PROT_NONE);\n"
    "  emu_args = a;\n"
    "  blockDim.x = blk[0]; blockDim.y = blk[1]; blockDim.z = 1;\n"
    "  for (long long b = 0; b < nb; ++b) {\n"
    "    blockIdx.x = (unsigned)b;\n"
    "    for (int t = 0; t < nth; ++t) {\n"
    "      getcontext(&emu_fiber[t]);\n"
    "      emu_fiber[t].uc_stack.ss_sp = stacks + span * (size_t)t + page;\n"
    "      emu_fiber[t].uc_stack.ss_size = EMU_STACK;\n"
    "      emu_fiber[t].uc_link = &emu_main;\n"
    "      makecontext(&emu_fiber[t], emu_thread, 0);\n"
    "      emu_done[t] = 0;\n"
    "    }\n"
    /* in turn, the direction reversed each pass: a barrier missing between
     * a store and a load of another thread shows whichever comes first */
    "    emu_running = nth;\n"
    "    for (int pass = 0; emu_running > 0; ++pass)\n"
    "      for (int i = 0; i < nth; ++i) {\n"
    "        const int t = pass % 2 ? nth - 1 - i : i;\n"
    "        if (emu_done[t])\n"
    "          continue;\n"
    "        emu_cur = t;\n"
    "        threadIdx.x = t % blk[0]; threadIdx.y = t / blk[0]; threadIdx.z = 0;\n"
    "        swapcontext(&emu_main, &emu_fiber[t]);\n"
    "      }\n"
    "  }\n"
    "  munmap(stacks, span * (size_t)nth);\n"
    "}\n"
    "void emu_volume(void **a, int64_t first, int64_t count) {\n"
    "  (void)first; (void)count;\n"
    "  const long long K = *(const long long *)a[EMU_KV];\n"
    "  const int per_block = *(const int *)a[12];\n"
    "  emu_kind = 0;\n"
    "  emu_blocks(a, (K + per_block - 1) / per_block, *(const unsigned **)a[11], *(int **)a[13]);\n"
    "}\n"
    "#ifdef NGR\n"
    "void emu_gradient(void **a, int64_t first, int64_t count) {\n"
    "  (void)first; (void)count;\n"
    "  const long long K = *(const long long *)a[9];\n"
    "  const unsigned *blk = *(const unsigned **)a[12];\n" /* NP x GEPB threads */
    "  const long long gepb = blk[0] / NP;\n"
    "  emu_kind = 1;\n"
    "  emu_blocks(a, (K + gepb - 1) / gepb, blk, *(int **)a[11]);\n"
    "}\n"
    "#endif\n";

/* The CUDA module made compilable as C with the shim. */
static char *emulated_source(const char *cuda, unsigned shared_bytes, int curved) {
  const char *key = "#define KERNEL extern \"C\" __global__\n";
  const char *at = strstr(cuda, key);
  if (!at)
    return NULL;
  dg_strbuf b;
  dg_strbuf_init(&b);
  if (curved)
    dg_strbuf_append(&b, "#define DG_EMU_CURVED 1\n");
  dg_strbuf_appendf(&b, "#define SMEM_DOUBLES %u\n", shared_bytes / 8 + 1);
  dg_strbuf_append(&b, SHIM);
  dg_strbuf_appendf(&b, "%.*s", (int)(at - cuda), cuda);
  dg_strbuf_append(&b, "#define KERNEL\n");
  dg_strbuf_append(&b, at + strlen(key));
  dg_strbuf_append(&b, WRAPPERS);
  char *s = NULL;
  if (dg_strbuf_finish(&b, &s) != DG_OK)
    return NULL;
  return s;
}

typedef struct run_out {
  double *r; /* rhs in logical order */
} run_out;

/* The residual a fused update starts from at state offset z (any values
 * that are not zero: rk_a R0 must show in the result). */
static double residual0(int64_t z) { return 0.3 * sin(0.7 * (double)z); }

/* Surface + volume of one module on the given data; returns the rhs in
 * logical order [(c*K + k)*Np + i]. */
/* The nodal state u ([nc][K][Np]) into the kernels' layout q, as reals of
 * the module's size. */
static void pack_state(const dg_discretization *d, const dg_opdata *od, int nc, const double *u,
                       void *q) {
  size_t rs = od->real_size;
  for (int c = 0; c < nc; c++)
    for (int64_t k = 0; k < od->K; k++)
      for (int i = 0; i < d->Np; i++) {
        double v = u[((int64_t)c * od->K + k) * d->Np + i];
        int64_t z = dg_opdata_offset(od, k, i, c);
        if (rs == 4)
          ((float *)q)[z] = (float)v;
        else
          ((double *)q)[z] = v;
      }
}

/* The kernels' result r (rhs, or with a fused update rk_a R0 + dt rhs)
 * back to [nc][K][Np] doubles, less the 0.5 R0 a fused update added. */
static void unpack_result(const dg_discretization *d, const dg_opdata *od, int nc,
                          int fuse_update, const void *r, double *out) {
  size_t rs = od->real_size;
  for (int c = 0; c < nc; c++)
    for (int64_t k = 0; k < od->K; k++)
      for (int i = 0; i < d->Np; i++) {
        int64_t z = dg_opdata_offset(od, k, i, c);
        /* R0 as stored (float: rounded), subtracted exactly in double */
        double r0 = !fuse_update ? 0.0
                    : rs == 4         ? (double)(float)residual0(z)
                                      : residual0(z);
        out[((int64_t)c * od->K + k) * d->Np + i] =
            (rs == 4 ? (double)((const float *)r)[z] : ((const double *)r)[z]) - 0.5 * r0;
      }
}

static void run_module(dg_device *dev, const dg_discretization *d, const dg_opdata *od,
                       int nc, const dg_kernel_config *cfg, const char *src, int emulated,
                       int curved, const double *u, int ncf, const double *coef, int nq,
                       double *out) {
  dg_module *mod = NULL;
  /* the emulated module at -O0 (after the backend's -O3): what it checks
   * is the indexing, on meshes of a few elements, and the compile is the
   * test's time (Maxwell 2D's 111 variants: 18.5 CPU-s at -O0, 23.3 at
   * -O1, which itself took 28 % less than -O3 at N = 7) */
  const char *o1[] = {"-O0"};
  MUST(dg_device_compile(dev, emulated ? "emu_operators" : "dg_operators", src,
                         emulated ? o1 : NULL, emulated, &mod));
  dg_kernel *ks, *kv;
  MUST(dg_module_get_kernel(mod, emulated ? "emu_surface" : curved ? "dg_surface_curved" : "dg_surface", &ks));
  MUST(dg_module_get_kernel(mod, emulated ? "emu_volume" : curved ? "dg_volume_curved" : "dg_volume", &kv));
  int64_t n = dg_opdata_state_length(od);
  size_t rs = od->real_size; /* float or double, as the modules' real */
  void *q = calloc((size_t)n, rs), *rhs = calloc((size_t)n, rs);
  void *res = calloc((size_t)n, rs), *qo = calloc((size_t)n, rs);
  void *fl = calloc((size_t)nc * od->K * od->nfnfp + 1, rs);
  pack_state(d, od, nc, u, q);
  long long K = od->K;
  /* the kernels' real scalars t, rk_a, rk_b, dt; a fused update starts
   * from a residual R0 (z) and gives rk_a R0 + dt rhs: rk_a = 0.5 checks
   * that the kernels read the residual (early_residual loads it ahead) */
  double sc[4] = {0.125, cfg->fuse_update ? 0.5 : 0.0, 0, cfg->fuse_update ? 1.0 : 0.0};
  float scf[4] = {0.125f, cfg->fuse_update ? 0.5f : 0.0f, 0, cfg->fuse_update ? 1.0f : 0.0f};
  for (int64_t z = 0; z < n && cfg->fuse_update; z++) {
    if (rs == 4)
      ((float *)res)[z] = (float)residual0(z);
    else
      ((double *)res)[z] = residual0(z);
  }
  void *t = rs == 4 ? (void *)&scf[0] : (void *)&sc[0], *a = rs == 4 ? (void *)&scf[1] : (void *)&sc[1];
  void *b = rs == 4 ? (void *)&scf[2] : (void *)&sc[2], *dt = rs == 4 ? (void *)&scf[3] : (void *)&sc[3];
  /* the volume block as the solver launches it (dg_kernel_config_volume_block) */
  unsigned blk[2];
  dg_kernel_config_volume_block(cfg, od->Np, blk);
  unsigned *blkp = blk;
  int nt = cfg->face_threads;
  int per_block = cfg->elements_per_block * cfg->work_per_thread, bad = 0;
  int *badp = &bad;
  void *fgeo = NULL;
  size_t fgeo_bytes = 0;
  MUST(dg_face_geometry_per_face(od, &fgeo, &fgeo_bytes));
  void *egeo = od->egeo, *fx = od->fx, *vx = od->vx;
  long long KC = od->Kc; /* curved: the kernels' range, their per-node geometry */
  void *fgeo_run = fgeo;
  if (curved) {
    egeo = od->cgeo;
    fgeo_run = od->cfgeo;
  }
  void *cf = NULL, *fcf = NULL; /* coefficients: as the solver lays them out */
  if (ncf > 0) {
    cf = calloc((size_t)ncf * od->K * od->np_pad, rs);
    fcf = calloc((size_t)od->K * od->nfnfp * ncf * 2, rs);
    if (!cf || !fcf) {
      printf("out of memory\n");
      exit(1);
    }
    dg_opdata_coef_nodes(od, ncf, coef, cf);
    dg_opdata_coef_traces(od, ncf, coef, NULL, fcf);
  }
  void *mapM = od->mapM, *mapP = od->mapP, *fbc = od->fbc;
  /* second-order terms: dg_gradient first, into Qg (field-major, as the solver's) */
  void *Qg = nq > 0 ? calloc((size_t)nq * od->K * od->np_pad, rs) : NULL;
  if (nq > 0) {
    dg_kernel *kg;
    MUST(dg_module_get_kernel(mod, emulated ? "emu_gradient" : "dg_gradient", &kg));
    unsigned gblk[2] = {(unsigned)(od->Np * dg_codegen_gradient_elements_per_block(
                            od->Np, cfg->face_threads)), 1};
    unsigned *gblkp = gblk;
    void *ga[] = {&q, &Qg, &mapM, &mapP, &fbc, &fgeo, &fx, &egeo, t, &K, &fcf, &badp, &gblkp};
    dg_launch gl;
    memset(&gl, 0, sizeof gl);
    gl.items = emulated ? 1 : K;
    gl.chunk = emulated ? 1 : 0;
    MUST(dg_kernel_launch(kg, &gl, ga, NULL));
  }
  /* the native module takes the solver's arguments, the emulator's
   * wrappers theirs (block shape, flags), both the coefficient tables last */
  void *sa_n[] = {&q, &fl, &mapM, &mapP, &fbc, &fgeo_run, &fx, t, &K, &fcf, &Qg, &KC};
  void *sa_e[] = {&q, &fl, &mapM, &mapP, &fbc, &fgeo_run, &fx, t, &K, &nt, &fcf, &Qg, &KC};
  void *va_n[] = {&q,   &rhs,  &fl,   &egeo, &vx,   t,    &K,  &res, a,   b,
                  dt,   &qo,   &mapM, &mapP, &fbc,  &fgeo_run, &fx, &cf,  &fcf, &Qg, &KC};
  void *va_e[] = {&q,    &rhs,  &fl,  &egeo, &vx,   t,  &K,        &res,  a,    b,
                  dt,    &blkp, &per_block, &badp, &qo, &mapM, &mapP, &fbc, &fgeo_run, &fx,
                  &cf,   &fcf,  &Qg, &KC};
  void **sa = emulated ? sa_e : sa_n, **va = emulated ? va_e : va_n;
  dg_launch l;
  memset(&l, 0, sizeof l);
  l.items = emulated ? 1 : curved ? KC : K;
  l.chunk = emulated ? 1 : 0;
  if (!(emulated && cfg->fuse_surface)) /* fused: fl stays zero, unused */
    MUST(dg_kernel_launch(ks, &l, sa, NULL));
  MUST(dg_kernel_launch(kv, &l, va, NULL));
  if (bad) {
    printf("a thread block over 1024 threads, or no memory for its stacks: cannot emulate\n");
    exit(1);
  }
  unpack_result(d, od, nc, cfg->fuse_update, cfg->fuse_update ? res : rhs, out);
  free(q);
  free(rhs);
  free(res);
  free(qo);
  free(fl);
  free(fgeo);
  free(cf);
  free(fcf);
  free(Qg);
  dg_module_destroy(&mod);
}

/* Variant v's knobs (the list the header names); Np bounds the elements per
 * block of the non-mma variants. */
static dg_kernel_config variant(int v, int Np) {
  dg_kernel_config c = dg_kernel_config_default();
  c.face_threads = 64;
  switch (v) {
  case 0: c.elements_per_block = 1; break;
  case 1: c.elements_per_block = 3; c.prefetch = 1; break;
  case 2: c.work_mode = DG_WORK_INLINE; c.work_per_thread = 2; c.prefetch = 1; c.unroll = 2; c.vector_loads = 1; break;
  case 3: c.work_mode = DG_WORK_SEQUENCE; c.work_per_thread = 3; c.matrices = DG_MATRIX_SHARED; break;
  case 4: c.work_mode = DG_WORK_INLINE; c.work_per_thread = 4; c.fuse_update = 1; c.elements_per_block = 1; c.unroll = 1; break;
  case 5: c.matrices = DG_MATRIX_CONSTANT; c.layout = DG_LAYOUT_ELEMENT_MAJOR; c.elements_per_block = 2; break;
  case 6: c.np_align = 4; c.work_mode = DG_WORK_SEQUENCE; c.work_per_thread = 2; c.prefetch = 1; c.fuse_update = 1; break;
  case 8: c.fuse_surface = 1; c.elements_per_block = 2; c.vector_loads = 1; break;
  case 9: c.fuse_surface = 1; c.fuse_update = 1; c.work_mode = DG_WORK_INLINE; c.work_per_thread = 2; c.prefetch = 1; c.unroll = 8; c.gather_ahead = 1; break;
  case 11: c.work_mode = DG_WORK_GEMM; c.elements_per_block = 2; c.fuse_surface = 1; c.fuse_update = 1; c.gather_ahead = 1; break;
  case 12: c.work_mode = DG_WORK_GEMM; c.elements_per_block = 3; c.matrices = DG_MATRIX_SHARED; break;
  case 13: c.work_mode = DG_WORK_GEMM; c.elements_per_block = 4; c.matrices = DG_MATRIX_CONSTANT; c.layout = DG_LAYOUT_ELEMENT_MAJOR; c.np_align = 4; c.fuse_surface = 1; break;
  case 14: c.work_mode = DG_WORK_GEMM; c.elements_per_block = 1; c.fuse_update = 1; c.layout = DG_LAYOUT_ELEMENT_MAJOR; break;
  case 15: c.work_mode = DG_WORK_MMA; c.elements_per_block = 8; c.fuse_surface = 1; c.fuse_update = 1; c.gather_ahead = 1; break;
  case 16: c.work_mode = DG_WORK_MMA; c.elements_per_block = 16; c.layout = DG_LAYOUT_ELEMENT_MAJOR; c.np_align = 4; break;
  case 17: c.work_mode = DG_WORK_MMA; c.mma_rows = 16; c.elements_per_block = 8; c.fuse_surface = 1; c.fuse_update = 1; break;
  case 18: c.work_mode = DG_WORK_MMA; c.mma_rows = 16; c.elements_per_block = 16; c.gather_ahead = 0; break;
  case 19: c.work_mode = DG_WORK_MMA; c.mma_pairs = 1; c.elements_per_block = 8; c.fuse_surface = 1; c.fuse_update = 1; c.gather_ahead = 1; c.mma_extra_blocks = 1; break;
  case 20: c.work_mode = DG_WORK_MMA; c.mma_pairs = 1; c.elements_per_block = 16; c.np_align = 4; c.l2_prefetch = 1; break;
  case 21: c.work_mode = DG_WORK_MMA; c.elements_per_block = 8; c.fuse_surface = 1; c.fuse_update = 1; c.l2_prefetch = 1; c.layout = DG_LAYOUT_ELEMENT_MAJOR; break;
  case 22: c.work_mode = DG_WORK_MMA; c.mma_rows = 16; c.elements_per_block = 8; c.fuse_surface = 1; c.fuse_update = 1; c.gather_ahead = 1; c.l2_prefetch = 1; c.volume_passes = 2; break;
  case 23: c.work_mode = DG_WORK_MMA; c.mma_pairs = 1; c.elements_per_block = 16; c.fuse_update = 1; c.volume_passes = 4; break;
  case 24: c.work_mode = DG_WORK_GEMM; c.elements_per_block = 4; c.fuse_surface = 1; c.fuse_update = 1; c.volume_passes = 2; break;
  case 25: c.work_mode = DG_WORK_MMA; c.elements_per_block = 8; c.fuse_surface = 1; c.fuse_update = 1; c.l2_prefetch = 1; c.early_residual = 1; c.mma_extra_blocks = 1; break;
  case 26: c.work_mode = DG_WORK_GEMM; c.elements_per_block = 2; c.fuse_surface = 1; c.fuse_update = 1; c.early_residual = 1; break;
  case 27: c.work_mode = DG_WORK_MMA; c.mma_rows = 16; c.elements_per_block = 16; c.fuse_update = 1; c.early_residual = 1; c.gather_ahead = 0; break;
  /* Bernstein-Bezier coefficients (affine physics only; the others refuse):
   * the sparse two-level derivative of gemm and mma against the cpu
   * module's dense BB matrices */
  case 28: c.basis = 1; c.work_mode = DG_WORK_MMA; c.elements_per_block = 8; c.fuse_surface = 1; c.fuse_update = 1; c.early_residual = 1; c.l2_prefetch = 1; break;
  case 29: c.basis = 1; c.work_mode = DG_WORK_MMA; c.mma_rows = 16; c.elements_per_block = 16; c.layout = DG_LAYOUT_ELEMENT_MAJOR; break;
  case 30: c.basis = 1; c.work_mode = DG_WORK_GEMM; c.elements_per_block = 3; c.fuse_surface = 1; c.fuse_update = 1; break;
  case 31: c.basis = 1; c.work_mode = DG_WORK_MMA; c.mma_pairs = 1; c.elements_per_block = 16; c.fuse_update = 1; c.volume_passes = 4; break;
  case 32: c.basis = 1; c.elements_per_block = 2; c.fuse_surface = 1; break; /* node per thread, dense BB */
  /* stage_state: the state in shared memory, level 1 evaluates the flux
   * quantities on its differences */
  case 33: c.basis = 1; c.stage_state = 1; c.work_mode = DG_WORK_MMA; c.elements_per_block = 8; c.fuse_surface = 1; c.fuse_update = 1; c.gather_ahead = 1; break;
  case 34: c.basis = 1; c.stage_state = 1; c.work_mode = DG_WORK_MMA; c.mma_rows = 16; c.elements_per_block = 16; c.fuse_update = 1; c.volume_passes = 2; break;
  case 35: c.basis = 1; c.stage_state = 1; c.work_mode = DG_WORK_GEMM; c.elements_per_block = 3; c.layout = DG_LAYOUT_ELEMENT_MAJOR; break;
  /* at N = 7 (double) level 1 held across the products in two passes */
  case 36: c.basis = 1; c.stage_state = 1; c.work_mode = DG_WORK_MMA; c.mma_pairs = 1; c.elements_per_block = 8; c.fuse_surface = 1; c.fuse_update = 1; c.l2_prefetch = 1; c.volume_passes = 2; break;
  /* stream_update: the update's accesses evict-first, the state read-only */
  case 37: c.basis = 1; c.stage_state = 1; c.stream_update = 1; c.work_mode = DG_WORK_MMA; c.mma_rows = 16; c.elements_per_block = 8; c.fuse_surface = 1; c.fuse_update = 1; c.l2_prefetch = 1; c.volume_passes = 2; break;
  case 38: c.stream_update = 1; c.work_mode = DG_WORK_MMA; c.mma_pairs = 1; c.elements_per_block = 8; c.fuse_surface = 1; c.fuse_update = 1; c.gather_ahead = 1; c.early_residual = 1; break;
  /* local_traces: the state staged before the face fluxes, which read the
   * block's own traces and its neighbours' in the block from it */
  case 39: c.basis = 1; c.stage_state = 1; c.local_traces = 1; c.stream_update = 1; c.work_mode = DG_WORK_MMA; c.mma_rows = 16; c.elements_per_block = 8; c.fuse_surface = 1; c.fuse_update = 1; c.volume_passes = 2; break;
  case 40: c.basis = 1; c.stage_state = 1; c.local_traces = 1; c.work_mode = DG_WORK_MMA; c.mma_pairs = 1; c.elements_per_block = 16; c.fuse_surface = 1; c.fuse_update = 1; c.gather_ahead = 1; c.layout = DG_LAYOUT_ELEMENT_MAJOR; break;
  /* strided_k: each whole block of 4 KW source rows read KW apart (the
   * operator tables in the same order): nodal 16-row tiles over two
   * element tiles, nodal pairs, and the N = 7 form on coefficients */
  case 41: c.strided_k = 1; c.work_mode = DG_WORK_MMA; c.mma_rows = 16; c.elements_per_block = 16; c.fuse_surface = 1; c.fuse_update = 1; break;
  case 42: c.strided_k = 1; c.work_mode = DG_WORK_MMA; c.mma_pairs = 1; c.elements_per_block = 8; c.fuse_surface = 1; c.fuse_update = 1; c.early_residual = 1; break;
  case 43: c.strided_k = 1; c.basis = 1; c.stage_state = 1; c.local_traces = 1; c.stream_update = 1; c.work_mode = DG_WORK_MMA; c.mma_pairs = 1; c.elements_per_block = 8; c.fuse_surface = 1; c.fuse_update = 1; c.l2_prefetch = 1; c.volume_passes = 2; break;
  /* batch_residual off: each field's residual loaded just before its
   * stores (the tuner's register twin), node per thread, gemm and the
   * staged two-pass form on coefficients (with one more block) */
  case 44: c.batch_residual = 0; c.fuse_surface = 1; c.fuse_update = 1; c.work_mode = DG_WORK_INLINE; c.work_per_thread = 2; c.prefetch = 1; break;
  case 45: c.batch_residual = 0; c.work_mode = DG_WORK_GEMM; c.elements_per_block = 2; c.fuse_surface = 1; c.fuse_update = 1; c.volume_passes = 2; break;
  case 46: c.batch_residual = 0; c.basis = 1; c.stage_state = 1; c.local_traces = 1; c.stream_update = 1; c.work_mode = DG_WORK_MMA; c.mma_rows = 16; c.elements_per_block = 8; c.fuse_surface = 1; c.fuse_update = 1; c.volume_passes = 2; c.mma_extra_blocks = 1; break;
  /* overlay_state: level 1 before the face fluxes, which take the staged
   * state's shared memory (16-row tiles in four passes, pairs with the
   * prefetch, and one pass with the early residual) */
  case 47: c.overlay_state = 1; c.basis = 1; c.stage_state = 1; c.stream_update = 1; c.strided_k = 1; c.work_mode = DG_WORK_MMA; c.mma_rows = 16; c.elements_per_block = 8; c.fuse_surface = 1; c.fuse_update = 1; c.volume_passes = 4; break;
  case 48: c.overlay_state = 1; c.basis = 1; c.stage_state = 1; c.work_mode = DG_WORK_MMA; c.mma_pairs = 1; c.elements_per_block = 8; c.fuse_surface = 1; c.fuse_update = 1; c.l2_prefetch = 1; c.volume_passes = 2; c.gather_ahead = 1; break;
  case 49: c.overlay_state = 1; c.basis = 1; c.stage_state = 1; c.work_mode = DG_WORK_MMA; c.elements_per_block = 16; c.fuse_surface = 1; c.fuse_update = 1; c.early_residual = 1; c.mma_extra_blocks = 1; break;
  /* volume_warps: blocks of whole warps whatever NP x EPB is, the per-node
   * phases' last pass partly idle (the overlay with the prefetch, level 1
   * held in registers across the products at N = 7, nodal gemm) */
  case 50: c.volume_warps = 3; c.overlay_state = 1; c.basis = 1; c.stage_state = 1; c.stream_update = 1; c.strided_k = 1; c.work_mode = DG_WORK_MMA; c.mma_rows = 16; c.elements_per_block = 8; c.fuse_surface = 1; c.fuse_update = 1; c.l2_prefetch = 1; break;
  case 51: c.volume_warps = 7; c.basis = 1; c.stage_state = 1; c.local_traces = 1; c.work_mode = DG_WORK_MMA; c.mma_pairs = 1; c.elements_per_block = 8; c.fuse_surface = 1; c.fuse_update = 1; c.batch_residual = 0; c.mma_extra_blocks = 1; break;
  case 52: c.volume_warps = 2; c.work_mode = DG_WORK_GEMM; c.elements_per_block = 4; c.fuse_surface = 1; c.fuse_update = 1; break;
  /* compact_smem: the overlaid face fluxes element by element and level
   * 1's results unpadded (16-row tiles strided in blocks of whole warps,
   * pairs strided, 16-row tiles over two element tiles; the first two
   * with the k-step loops fully unrolled, mma_unroll) */
  case 53: c.mma_unroll = 1; c.compact_smem = 1; c.overlay_state = 1; c.volume_warps = 3; c.basis = 1; c.stage_state = 1; c.stream_update = 1; c.strided_k = 1; c.work_mode = DG_WORK_MMA; c.mma_rows = 16; c.elements_per_block = 8; c.fuse_surface = 1; c.fuse_update = 1; break;
  case 54: c.mma_unroll = 1; c.compact_smem = 1; c.overlay_state = 1; c.basis = 1; c.stage_state = 1; c.strided_k = 1; c.work_mode = DG_WORK_MMA; c.mma_pairs = 1; c.elements_per_block = 8; c.fuse_surface = 1; c.fuse_update = 1; c.volume_passes = 2; c.batch_residual = 0; break;
  case 55: c.compact_smem = 1; c.overlay_state = 1; c.basis = 1; c.stage_state = 1; c.work_mode = DG_WORK_MMA; c.mma_rows = 16; c.elements_per_block = 16; c.fuse_surface = 1; c.fuse_update = 1; c.volume_passes = 2; c.l2_prefetch = 1; break;
  /* sparse_lift: the lift's rows and face-flux columns reordered, its
   * all-zero tensor-core steps left out (the N = 7 pairs form overlaid
   * and strided, 16-row tiles compact over two element tiles, 8-row
   * tiles fed by dg_surface's fluxes, pairs with local traces in blocks
   * of whole warps) */
  case 56: c.sparse_lift = 1; c.overlay_state = 1; c.basis = 1; c.stage_state = 1; c.stream_update = 1; c.strided_k = 1; c.work_mode = DG_WORK_MMA; c.mma_pairs = 1; c.elements_per_block = 8; c.fuse_surface = 1; c.fuse_update = 1; c.volume_passes = 2; break;
  case 57: c.sparse_lift = 1; c.compact_smem = 1; c.overlay_state = 1; c.basis = 1; c.stage_state = 1; c.strided_k = 1; c.work_mode = DG_WORK_MMA; c.mma_rows = 16; c.elements_per_block = 16; c.fuse_surface = 1; c.fuse_update = 1; c.volume_passes = 2; break;
  case 58: c.sparse_lift = 1; c.basis = 1; c.work_mode = DG_WORK_MMA; c.elements_per_block = 8; c.fuse_update = 1; break;
  case 59: c.sparse_lift = 1; c.volume_warps = 3; c.basis = 1; c.stage_state = 1; c.local_traces = 1; c.work_mode = DG_WORK_MMA; c.mma_pairs = 1; c.elements_per_block = 8; c.fuse_surface = 1; c.fuse_update = 1; break;
  case 10: c.fuse_surface = 1; c.fuse_update = 1; c.work_mode = DG_WORK_SEQUENCE; c.work_per_thread = 2; c.layout = DG_LAYOUT_ELEMENT_MAJOR; c.matrices = DG_MATRIX_SHARED; c.vector_loads = 1; break;
  default: c.np_align = 8; c.layout = DG_LAYOUT_ELEMENT_MAJOR; c.work_mode = DG_WORK_INLINE; c.work_per_thread = 3; c.prefetch = 1; c.matrices = DG_MATRIX_SHARED; break;
  }
  if ((long)c.elements_per_block * Np > 256 && c.work_mode != DG_WORK_MMA)
    c.elements_per_block = 1;
  return c;
}

/* Parse --orders=A,B,... in argv[2] (then dropped from argv): 0, or 2 for a
 * bad list. */
static int parse_orders(int *argc, char ***argv, int orders[4], int *norders) {
  char **av = *argv;
  if (*argc <= 2 || strncmp(av[2], "--orders=", 9) != 0)
    return 0;
  *norders = 0;
  const char *c = av[2] + 9;
  while (*c) {
    char *end = NULL;
    long o = strtol(c, &end, 10);
    if (end == c || o < 1 || o > 12 || *norders == 4 || (*end && *end != ',')) {
      printf("bad --orders list (up to 4 orders 1..12, comma-separated): %s\n", av[2]);
      return 2;
    }
    orders[(*norders)++] = (int)o;
    c = *end ? end + 1 : end;
  }
  if (*norders == 0) {
    printf("bad --orders list: %s\n", av[2]);
    return 2;
  }
  av[2] = av[1]; /* not an override: drop it */
  (*argv)++;
  (*argc)--;
  return 0;
}

/* What every variant is checked with, and the counts. */
typedef struct {
  dg_problem *p;
  dg_device *dev;
  dg_physics ph;
  int nc, is_float;
  int curved; /* --curved: the curved module over the curved elements */
  int uniform; /* --uniform: the initial state, whose right-hand side is zero */
  char seen[64][DG_KERNEL_CONFIG_TEXT]; /* --curved: the mapped variants checked */
  int nseen;
  int nvrtc; /* --curved: modules NVRTC compiled */
  int nvrtc_fused; /* --curved: of them with the fused surface */
  double tol;
  int failures, checked, checked_mma, checked_bb;
} emu_run;

/* One order's discretization, its element operators and the state u. */
typedef struct {
  dg_discretization *d;
  dg_element_ops el_nodal, el_bb;
  const double *u;
  double *coef; /* the coefficients at the nodes (physics with ncoef > 0) */
  double *ref, *got;
  double *unfused; /* --curved: the separate-surface variant's result */
  int have_unfused;
  int64_t nlog;
} emu_order;

/* The CUDA module through NVRTC (sm_90; skipped where NVRTC is missing,
 * or under the sanitizers): the curved kernels' text must compile as CUDA,
 * not only as the emulator's C. */
static void nvrtc_check(emu_run *R, const char *cuda) {
#ifdef DG_TEST_NO_NVRTC
  (void)R;
  (void)cuda;
#else
  void *cubin = NULL;
  size_t size = 0;
  dg_error e = dg_nvrtc_compile("dg_operators_curved", cuda, "sm_90", NULL, 0, &cubin, &size);
  free(cubin);
  if (e == DG_OK) {
    R->nvrtc++;
    R->nvrtc_fused += strstr(cuda, "fused surface: scaled face fluxes") != NULL;
    printf("NVRTC compiled the curved module (%zu bytes)\n", size);
  } else if (e != DG_ERR_UNSUPPORTED) {
    dg_error_print(stdout);
    printf("FAIL: NVRTC does not compile the curved module\n");
    R->failures++;
  }
  dg_error_clear();
#endif
}

/* The largest difference of the emulated result from the cpu module's
 * (and, curved with the fused surface, from the separate-surface
 * variant's), the curved elements only where the kernels are the curved
 * ones (an affine element holds a fused update's R0); 1 when within the
 * tolerance: relative to the reference, or with --uniform absolute, the
 * free-stream bound of problems.curved_freestream_* (1e-11 of the state's
 * size over h_min: the metric identity to round-off, scaled by 1/J). */
static int compare(emu_run *R, const emu_order *E, const char *what, int fused) {
  const dg_discretization *d = E->d;
  double num = 0, den = 0, unf = 0, mag = 0, scale = 0;
  for (int64_t z = 0; z < E->nlog; z++) {
    scale = fmax(scale, fabs(E->u[z]));
    if (R->curved && (z / d->Np) % d->K >= d->ncurved)
      continue;
    num = fmax(num, fabs(E->got[z] - E->ref[z]));
    den = fmax(den, fabs(E->ref[z]));
    mag = fmax(mag, fabs(E->got[z]));
    if (fused && E->have_unfused)
      unf = fmax(unf, fabs(E->got[z] - E->unfused[z]));
  }
  int ok;
  double bound = 1e-11 * scale / d->h_min;
  if (R->uniform) /* zero, as the reference */
    ok = num <= bound && mag <= bound && unf <= bound;
  else /* a zero reference would prove nothing */
    ok = num / fmax(den, 1e-300) < R->tol && unf / fmax(den, 1e-300) < R->tol && den > 0;
  printf("N=%d %-120s max %s diff %.2e", d->N, what, R->uniform ? "abs" : "rel",
         R->uniform ? num : num / fmax(den, 1e-300));
  if (fused && E->have_unfused)
    printf(", from the separate surface %.2e", R->uniform ? unf : unf / fmax(den, 1e-300));
  if (R->uniform)
    printf(", max |rhs| %.2e (bound %.2e)", mag, bound);
  printf(" %s\n", ok ? "ok" : "FAIL");
  return ok;
}

/* Variant c against the cpu module on the same state: its emulated CUDA
 * module's rhs to tol of the cpu module's.  0, or 1 when the emulated
 * source cannot be built. */
static int check_variant(emu_run *R, emu_order *E, dg_kernel_config c) {
  const dg_discretization *d = E->d;
  dg_generated gc, gg;
  dg_kernel_config cc = dg_kernel_config_default();
  cc.np_align = c.np_align;
  cc.layout = c.layout;
  cc.basis = c.basis;
  const dg_element_ops *el = c.basis ? &E->el_bb : &E->el_nodal;
  dg_element_ops elc = E->el_nodal;
  if (R->curved) { /* the variant as the solver runs it on curved elements */
    c = dg_solver_curved_config(&c, &c);
    cc = dg_solver_curved_config(&cc, &cc);
    elc.curved = 1;
    el = &elc;
    char txt[DG_KERNEL_CONFIG_TEXT];
    dg_kernel_config_describe(&c, txt, sizeof txt);
    for (int i = 0; i < R->nseen; i++)
      if (strcmp(R->seen[i], txt) == 0)
        return 0; /* mapped onto a variant checked already */
    if (R->nseen < 64)
      snprintf(R->seen[R->nseen++], sizeof R->seen[0], "%s", txt);
  }
  dg_error e = dg_codegen_generate(DG_CODEGEN_CUDA, el, &R->ph, R->is_float, &c, &gg);
  if (e == DG_ERR_INPUT) { /* illegal here (constant memory, 8-row tiles in float): skip */
    dg_error_clear();
    return 0;
  }
  MUST(e);
  /* NVRTC as the cuda backend compiles it, where it exists (no GPU
   * needed): two of the separate-surface modules and a fused one */
  if (R->curved && (((c.work_mode != DG_WORK_PARALLEL || c.matrices != DG_MATRIX_GLOBAL) &&
                     R->nvrtc - R->nvrtc_fused < 2) ||
                    (c.fuse_surface && R->nvrtc_fused == 0)))
    nvrtc_check(R, gg.source);
  MUST(dg_codegen_generate(DG_CODEGEN_C, el, &R->ph, R->is_float, &cc, &gc));
  dg_opdata *od = NULL;
  MUST(dg_opdata_create(d, gg.np_pad, c.layout == DG_LAYOUT_ELEMENT_MAJOR, R->nc,
                        R->p->tag_to_bc, &od));
  unsigned gsh = R->ph.ngrad > 0 ? dg_codegen_gradient_shared_bytes(
                                      el, &R->ph, R->is_float,
                                      dg_codegen_gradient_elements_per_block(d->Np, c.face_threads),
                                      dg_codegen_gradient_pairs(DG_CODEGEN_CUDA, &R->ph))
                                : 0;
  char *emu = emulated_source(gg.source, gg.volume_shared_bytes > gsh ? gg.volume_shared_bytes
                                                                      : gsh, R->curved);
  if (!emu) {
    printf("cannot build the emulated source\n");
    return 1;
  }
  run_module(R->dev, d, od, R->nc, &cc, gc.source, 0, R->curved, E->u, R->ph.ncoef, E->coef,
             R->ph.ngrad * d->dim, E->ref);
  run_module(R->dev, d, od, R->nc, &c, emu, 1, R->curved, E->u, R->ph.ncoef, E->coef,
             R->ph.ngrad * d->dim, E->got);
  char buf[DG_KERNEL_CONFIG_TEXT];
  dg_kernel_config_describe(&c, buf, sizeof buf);
  int ok = compare(R, E, buf, c.fuse_surface);
  R->failures += !ok;
  if (R->curved && !c.fuse_surface && !E->have_unfused) { /* what the fused ones must give */
    memcpy(E->unfused, E->got, (size_t)E->nlog * sizeof *E->got);
    E->have_unfused = 1;
  }
  R->checked++;
  R->checked_mma += c.work_mode == DG_WORK_MMA;
  R->checked_bb += c.basis;
  free(emu);
  dg_opdata_destroy(&od);
  dg_generated_free(&gc);
  dg_generated_free(&gg);
  return 0;
}

/* --uniform: the problem's initial state at the nodes ([nc][K][Np]), as
 * the cpu backend's solver sets it from the flux file. */
static void initial_state(emu_run *R, const dg_discretization *d, double *u) {
  dg_solver *s = NULL;
  MUST(dg_solver_create(R->dev, d, &R->ph, R->p->tag_to_bc, NULL, &s));
  MUST(dg_solver_set_initial(s, 0.0));
  MUST(dg_solver_get_state(s, u));
  dg_solver_destroy(&s);
}

/* The variants checked: every one, or on curved elements 0..6 (the
 * node-per-thread work modes, prefetch, the three matrix places, both
 * layouts, padding, the fused update, pairs, unrolling) and the fused
 * surface without (8) and with the fused update (9: traces gathered ahead;
 * 10: element-major), 15 CPU-s cold. */
static const int curved_variants[] = {0, 1, 2, 3, 4, 5, 6, 8, 9, 10};

/* Every variant at order N on one random state (--uniform: the initial one). */
static int check_order(emu_run *R, int N) {
  int nc = R->nc;
  emu_order E;
  memset(&E, 0, sizeof E);
  MUST(dg_discretization_create(R->p->mesh, N, R->p->precision, &E.d));
  const dg_discretization *d = E.d;
  CHECK(!R->curved || d->ncurved > 0, "--curved: the mesh has no curved elements");
  R->nseen = 0;
  E.el_nodal = dg_element_ops_of(d->re);
  dg_bernstein *bb = NULL;
  MUST(dg_bernstein_create(d->re, &bb));
  E.el_bb = dg_element_ops_of_bernstein(d->re, bb);
  E.nlog = (int64_t)nc * d->K * d->Np;
  double *u = malloc((size_t)E.nlog * sizeof *u);
  E.ref = malloc((size_t)E.nlog * sizeof *E.ref);
  E.got = malloc((size_t)E.nlog * sizeof *E.got);
  E.unfused = malloc((size_t)E.nlog * sizeof *E.unfused);
  srand(7);
  for (int c = 0; c < nc; c++) /* positive density and energy for Euler-like systems */
    for (int64_t z = 0; z < d->K * d->Np; z++) {
      double r = (double)rand() / RAND_MAX;
      u[(int64_t)c * d->K * d->Np + z] =
          c == 0 ? 1 + 0.2 * r : c == nc - 1 ? 2.5 + 0.2 * r : 0.2 * (r - 0.5);
    }
  if (R->uniform)
    initial_state(R, d, u);
  E.u = u;
  dg_coefficients *co = NULL; /* as dgrun builds them from the cfg */
  if (R->ph.ncoef > 0) {
    const dg_problem *p = R->p;
    dg_coefficients_input in = {p->program, p->flux_name, p->cfg, p->mesh, p->mesh->region,
                                p->mesh->nregions, p->mesh->region_names,
                                (const double *const *)d->X, d->Np, NULL};
    MUST(dg_coefficients_build(&in, &co));
    E.coef = co->values;
  }
  int rc = 0;
  int nv = R->curved ? (int)(sizeof curved_variants / sizeof curved_variants[0]) : 60;
  for (int v = 0; v < nv && rc == 0; v++)
    rc = check_variant(R, &E, variant(R->curved ? curved_variants[v] : v, d->Np));
  dg_coefficients_destroy(&co);
  free(u);
  free(E.ref);
  free(E.got);
  free(E.unfused);
  dg_bernstein_destroy(&bb);
  dg_discretization_destroy(&E.d);
  return rc;
}

int main(int argc, char **argv) {
  if (argc < 2)
    return 2;
  dg_log_set_level(DG_LOG_WARN);
  int orders[4] = {1, 3}, norders = 2;
  if (parse_orders(&argc, &argv, orders, &norders))
    return 2;
  emu_run R;
  memset(&R, 0, sizeof R);
  if (argc > 2 && strcmp(argv[2], "--curved") == 0) {
    R.curved = 1;
    argv[2] = argv[1];
    argv++;
    argc--;
    if (argc > 2 && strcmp(argv[2], "--uniform") == 0) {
      R.uniform = 1;
      argv[2] = argv[1];
      argv++;
      argc--;
    }
  }
  MUST(dg_problem_load(argv[1], (const char *const *)argv + 2, argc - 2, &R.p));
  MUST(dg_device_create("cpu", 0, &R.dev));
  dg_physics_tables *tab = NULL;
  MUST(dg_physics_from_program(R.p->program, &R.ph, &tab));
  R.nc = R.ph.ncomp;
  /* an affine physics must get its Bernstein-Bezier variants checked; as in
   * dgrun, conditions no face of the mesh uses are not checked (a periodic
   * box qualifies whatever its flux file's open boundaries read) */
  unsigned char *bc_used = NULL;
  MUST(dg_problem_boundaries_used(R.p->mesh, R.p->tag_to_bc, R.ph.nboundaries, NULL, &bc_used));
  R.ph.bc_used = bc_used;
  int affine = dg_flux_check_affine(&R.ph, NULL, NULL) == DG_OK;
  dg_error_clear();
  R.is_float = R.p->precision == DG_FLOAT;
  /* float: the two modules round differently at every operation, and the
   * split-TF32 products keep about fp32's accuracy */
  R.tol = R.is_float ? 5e-5 : 1e-12;
  for (int o = 0; o < norders; o++)
    if (check_order(&R, orders[o]))
      return 1;
  dg_physics_tables_destroy(&tab);
  free(bc_used);
  dg_device_destroy(&R.dev);
  dg_problem_destroy(&R.p);
  printf("%d variants checked (%d on the tensor cores), %d failures\n", R.checked,
         R.checked_mma, R.failures);
  if (R.curved) {
    printf("curved module: %d distinct variants on the curved elements (%d NVRTC-compiled, "
           "%d of them with the fused surface)\n", R.checked, R.nvrtc, R.nvrtc_fused);
    return R.failures || R.checked == 0;
  }
  if (R.checked_mma == 0)
    printf("FAIL: no tensor-core variant was checked\n");
  printf("%d Bernstein-Bezier variants checked (the physics is %saffine)\n", R.checked_bb,
         affine ? "" : "not ");
  if (affine && R.checked_bb == 0)
    printf("FAIL: no Bernstein-Bezier variant was checked\n");
  return R.failures || R.checked == 0 || R.checked_mma == 0 || (affine && R.checked_bb == 0) ? 1
                                                                                           : 0;
}
