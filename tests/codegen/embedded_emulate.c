/* operators.embedded_emulate: the CUDA kernels of the adaptive step
 * (problems/solver/embedded.h: the start, a stage and zeroing, elementwise)
 * run on the CPU and give the formula of the 2R stage (dg/timestep_embedded.h)
 * and the cpu backend's kernels' values; and NVRTC compiles all four
 * modules (with the error norm's reduction, whose warp shuffles and barriers
 * the shim below does not emulate: its map is checked through the runs,
 * problems.adaptive_layouts) for sm_90 where it is installed.
 *
 * The CUDA text is compiled as C by the cpu backend with a small shim (the
 * elementwise loops have no shared memory or barriers): blockIdx, threadIdx
 * and gridDim are globals, and a wrapper of the cpu calling convention runs
 * a grid of 3 blocks' threads one after the other, so that the grid-stride
 * loop, its full tiles and the partial last tile all run (n = 3 tiles + 37).
 * usage: test_embedded_emulate */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/device.h"
#include "core/elementwise.h"
#include "core/error.h"
#include "core/log.h"
#include "core/nvrtc.h"
#include "core/strbuf.h"
#include "problems/solver/embedded.h"
#include "tests/expect.h"

enum { GRID = 3, NITEMS = 3 * 256 * 4 + 37 };

static const char *SHIM = "#include <math.h>\n#include <stdint.h>\n"
                          "typedef struct { unsigned x, y, z; } emu_dim3;\n"
                          "static emu_dim3 threadIdx, blockIdx, gridDim;\n"
                          "#define __global__ static\n#define __launch_bounds__(n)\n"
                          "#define __restrict__ restrict\n";

/* The cuda text of one elementwise kernel as C: the shim, the kernel as
 * static cu_NAME, and NAME(void **args, int64_t first, int64_t count)
 * running GRID blocks of DG_BLOCK threads. */
static char *emulated(const char *cuda, const char *name) {
  dg_strbuf b;
  dg_strbuf_init(&b);
  dg_strbuf_append(&b, SHIM);
  char head[128];
  snprintf(head, sizeof head, "\n%s(\n", name);
  const char *k = strstr(cuda, head), *ext = strstr(cuda, "extern \"C\" ");
  CHECK(k && ext && ext < k, "no kernel %s in the cuda text", name);
  dg_strbuf_appendf(&b, "%.*s", (int)(ext - cuda), cuda);
  dg_strbuf_appendf(&b, "%.*s", (int)(k - ext - 11), ext + 11);
  dg_strbuf_appendf(&b, "\ncu_%s(\n", name);
  const char *params = k + strlen(head), *close = strstr(params, ")\n{");
  CHECK(close, "no parameter list");
  dg_strbuf_append(&b, params);
  /* the wrapper: each parameter "TYPE NAME" read as *(TYPE *)args[a] */
  dg_strbuf_appendf(&b,
                    "\nvoid %s(void **args, int64_t first, int64_t count) {\n"
                    "  (void)first; (void)count;\n  gridDim.x = %d;\n"
                    "  for (unsigned g = 0; g < %d; ++g)\n"
                    "    for (unsigned t = 0; t < DG_BLOCK; ++t) {\n"
                    "      blockIdx.x = g; threadIdx.x = t;\n      cu_%s(",
                    name, GRID, GRID, name);
  int a = 0;
  for (const char *q = params; q < close;) {
    q += strspn(q, " \n");
    const char *c = memchr(q, ',', (size_t)(close - q));
    const char *end = c ? c : close, *sp = end;
    while (sp > q && sp[-1] != ' ' && sp[-1] != '*')
      sp--;
    dg_strbuf_appendf(&b, "%s*(%.*s *)args[%d]", a ? ", " : "", (int)(sp - q), q, a);
    a++;
    q = c ? c + 1 : close;
  }
  dg_strbuf_append(&b, ");\n    }\n}\n");
  char *out = NULL;
  MUST(dg_strbuf_finish(&b, &out));
  return out;
}

static char *source(int which, int is_float, int cuda) {
  dg_strbuf b;
  dg_strbuf_init(&b);
  MUST(dg_embedded_kernel_source(which, is_float, cuda, &b));
  char *s = NULL;
  MUST(dg_strbuf_finish(&b, &s));
  return s;
}

/* NVRTC compiles every module for sm_90, where NVRTC exists. */
static void check_nvrtc(void) {
  const char *path = NULL;
  if (dg_nvrtc_path(&path) != DG_OK) {
    dg_error_clear();
    printf("no NVRTC: the cuda kernels are only emulated\n");
    return;
  }
  for (int f = 0; f < 2; f++)
    for (int w = 0; w < DG_EMBEDDED_NKERNELS; w++) {
      char *src = source(w, f, 1);
      void *cubin = NULL;
      size_t size = 0;
      dg_error e = dg_nvrtc_compile("rk_embedded", src, "sm_90", NULL, 0, &cubin, &size);
      if (e != DG_OK)
        dg_error_print(stdout);
      EXPECT(e == DG_OK, "NVRTC does not compile kernel %d (%s)", w, f ? "float" : "double");
      if (e == DG_OK)
        printf("NVRTC: kernel %d (%s) compiles for sm_90 (%zu bytes)\n", w,
               f ? "float" : "double", size);
      free(cubin);
      free(src);
    }
}

typedef struct regs {
  void *q, *acc, *err, *k, *u0;
} regs;

static void fill(dg_device *dev, size_t rs, void *d, unsigned seed) {
  double *v = malloc(NITEMS * 8);
  float *vf = (float *)v;
  for (int i = 0; i < NITEMS; i++) {
    double x = sin(0.37 * i + seed) * (1 + seed);
    if (rs == 4)
      vf[i] = (float)x;
    else
      v[i] = x;
  }
  MUST(dg_device_upload(dev, d, v, NITEMS * rs));
  free(v);
}

static double *down(dg_device *dev, size_t rs, const void *d) {
  double *v = malloc(NITEMS * 8);
  MUST(dg_device_download(dev, v, d, NITEMS * rs));
  if (rs == 4)
    for (int i = NITEMS - 1; i >= 0; i--)
      v[i] = ((float *)v)[i];
  return v;
}

/* Run kernel which (emulated cuda: emu != 0, else the cpu module) on fresh
 * registers; the results in out[0..4] (q, acc, err, k, u0). */
static void run(dg_device *dev, int which, int is_float, int emu, double *out[5]) {
  size_t rs = is_float ? 4 : 8;
  regs r;
  void **p[] = {&r.q, &r.acc, &r.err, &r.k, &r.u0};
  for (int i = 0; i < 5; i++) {
    MUST(dg_device_malloc(dev, NITEMS * rs, p[i]));
    fill(dev, rs, *p[i], (unsigned)i);
  }
  char *cu = source(which, is_float, emu), *src = cu;
  const char *names[] = {"rk_embedded_start", "rk_embedded_stage", "rk_embedded_zero"};
  char name[64];
  snprintf(name, sizeof name, "%s_%s", names[which], is_float ? "float" : "double");
  if (emu)
    src = emulated(cu, name);
  dg_module *mod = NULL;
  dg_kernel *k = NULL;
  MUST(dg_device_compile(dev, name, src, NULL, 0, &mod));
  MUST(dg_module_get_kernel(mod, name, &k));
  double ea = 0.125, aa = -0.3, ba = 0.7;
  long long n = NITEMS;
  void *args[8];
  int na = 0;
  if (which == DG_EMBEDDED_START) {
    void *a[] = {&r.u0, &r.acc, &r.err, &r.q, &n};
    na = 5;
    memcpy(args, a, sizeof a);
  } else if (which == DG_EMBEDDED_STAGE) {
    void *a[] = {&r.q, &r.acc, &r.err, &r.k, &ea, &aa, &ba, &n};
    na = 8;
    memcpy(args, a, sizeof a);
  } else {
    void *a[] = {&r.q, &n};
    na = 2;
    memcpy(args, a, sizeof a);
  }
  (void)na;
  dg_launch l;
  memset(&l, 0, sizeof l);
  l.items = emu ? 1 : NITEMS;
  l.chunk = emu ? 1 : 1000;
  MUST(dg_kernel_launch(k, &l, args, NULL));
  MUST(dg_device_synchronize(dev));
  for (int i = 0; i < 5; i++) {
    out[i] = down(dev, rs, *p[i]);
    dg_device_free(dev, *p[i]);
  }
  dg_module_destroy(&mod);
  if (src != cu)
    free(src);
  free(cu);
}

/* The formula on the host, from the registers' start values. */
static double expected(int which, int reg, int i, int is_float) {
  double v[5];
  for (int j = 0; j < 5; j++) {
    double x = sin(0.37 * i + j) * (1 + j);
    v[j] = is_float ? (double)(float)x : x;
  }
  double q = v[0], acc = v[1], err = v[2], k = v[3], u0 = v[4];
  if (which == DG_EMBEDDED_START) {
    double r[] = {q, q, 0, k, q};
    return r[reg];
  }
  if (which == DG_EMBEDDED_ZERO) {
    double r[] = {0, acc, err, k, u0};
    return r[reg];
  }
  double r[] = {acc - 0.3 * k, acc + 0.7 * k, err + 0.125 * k, k, u0};
  return r[reg];
}

int main(void) {
  dg_log_set_level(DG_LOG_WARN);
  check_nvrtc();
  dg_device *dev = NULL;
  MUST(dg_device_create("cpu", 0, &dev));
  for (int f = 0; f < 2; f++)
    for (int w = 0; w < 3; w++) {
      double *c[5], *e[5], dce = 0, dform = 0;
      run(dev, w, f, 0, c);
      run(dev, w, f, 1, e);
      for (int reg = 0; reg < 5; reg++) {
        for (int i = 0; i < NITEMS; i++) {
          dce = fmax(dce, fabs(c[reg][i] - e[reg][i]));
          dform = fmax(dform, fabs(e[reg][i] - expected(w, reg, i, f)));
        }
        free(c[reg]);
        free(e[reg]);
      }
      double tol = f ? 1e-6 : 1e-15;
      printf("kernel %d (%s): emulated cuda - cpu %.3g, emulated cuda - formula %.3g\n", w,
             f ? "float" : "double", dce, dform);
      EXPECT(dce <= tol && dform <= 4 * tol, "kernel %d (%s) differs", w, f ? "float" : "double");
    }
  dg_device_destroy(&dev);
  return expect_finish();
}
