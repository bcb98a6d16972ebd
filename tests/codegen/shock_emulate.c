/* operators.shock_emulate_*: the generated CUDA kernels of the shock module
 * (operators/gen_shock.h: the Persson-Peraire sensor, the vertex maximum and
 * node values of the continuous artificial viscosity, the positivity
 * limiter), run on the CPU, give the cpu backend's kernels' results to
 * round-off; and NVRTC compiles the CUDA module for sm_90 where it is
 * installed (no GPU needed).
 *
 * The CUDA module is compiled as C by the cpu backend with a small shim:
 * blockIdx / threadIdx are globals, shared memory one static buffer, and a
 * wrapper of the cpu calling convention per kernel runs the blocks of its
 * launch shape, the threads of a block as fibers (ucontext) resumed in turn
 * until each waits at __syncthreads (tests/codegen/cuda_emulate.c's way:
 * the generated indexing, barriers and shared-memory traffic run as they
 * are).  The
 * inputs: the problem's initial state with every fourth element's nodes
 * pushed below zero around their mean (so that the limiter works, with the
 * means kept positive) and a jump (so that the sensor fires).  Then
 * dg_shock_viscosity_active of both modules on that state and on a smooth
 * one (check_active).
 * usage: test_shock_emulate problem.cfg [--element-major] [section.key=value ...]
 *   --element-major: the solver's state element-major, NP_PAD = Np rounded up
 *                    to a multiple of 8 (default: field-major, NP_PAD = Np) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/device.h"
#include "core/error.h"
#include "core/log.h"
#include "core/nvrtc.h"
#include "core/strbuf.h"
#include "dg/refelem.h"
#include "operators/physics.h"
#include "problems/driver/problem.h"
#include "problems/solver/shock.h"
#include "problems/solver/solver.h"
#include "tests/expect.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static const char *SHIM =
    "#define _DEFAULT_SOURCE\n#include <math.h>\n#include <stdint.h>\n#include <stdlib.h>\n"
    "#include <sys/mman.h>\n#include <ucontext.h>\n"
    "typedef struct { unsigned x, y, z; } emu_dim3;\n"
    "static _Thread_local emu_dim3 threadIdx, blockIdx, blockDim;\n"
    "#define __device__\n#define __constant__\n#define __restrict__\n#define __shared__ _Thread_local\n#define __align__(n)\n"
    "#define __launch_bounds__(n)\n"
    "static _Thread_local double smem_raw[EMU_SMEM];\n"
    /* a block's threads: fibers resumed in turn (the direction reversed each
     * pass, so that a missing barrier shows) until each waits at the
     * barrier or returns; the barrier opens when every thread still running
     * has reached it.  The shim's state is per OpenMP thread: the cpu
     * backend runs chunks of blocks side by side (shared, it crashed 3
     * runs in 8 on 2 threads) */
    "enum { EMU_MAX = 1024, EMU_STACK = 64 << 10 };\n"
    "static _Thread_local ucontext_t emu_main, emu_fib[EMU_MAX];\n"
    "static _Thread_local int emu_cur, emu_running, emu_waiting, emu_gen, emu_done[EMU_MAX];\n"
    "static _Thread_local void **emu_args;\n"
    "static void emu_sync(void) {\n"
    "  const int g = emu_gen;\n"
    "  if (++emu_waiting == emu_running) { emu_waiting = 0; ++emu_gen; }\n"
    "  while (emu_gen == g) swapcontext(&emu_fib[emu_cur], &emu_main);\n"
    "}\n"
    "#define __syncthreads() emu_sync()\n"
    "static void emu_exit(void) {\n"
    "  emu_done[emu_cur] = 1;\n"
    "  if (--emu_running > 0 && emu_waiting == emu_running) { emu_waiting = 0; ++emu_gen; }\n"
    "}\n"
    /* the blocks of ipb items, tpb threads each, whose first item is in
     * [first, first + count): every block once over the cpu chunks */
    "static void emu_blocks(void (*body)(void), void **args, int tpb, int ipb, int64_t first,\n"
    "                       int64_t count) {\n"
    /* mmap'd stacks, as cuda_emulate.c's (sanitizer builds: not heap memory) */
    "  const size_t span = (size_t)tpb * EMU_STACK;\n"
    "  char *stacks = mmap(NULL, span, PROT_READ | PROT_WRITE,\n"
    "                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);\n"
    "  if (stacks == MAP_FAILED || tpb > EMU_MAX) abort();\n"
    "  emu_args = args;\n"
    "  blockDim.x = (unsigned)tpb; blockDim.y = blockDim.z = 1;\n"
    "  for (int64_t b = (first + ipb - 1) / ipb; b * ipb < first + count; ++b) {\n"
    "    blockIdx.x = (unsigned)b;\n"
    "    for (int t = 0; t < tpb; ++t) {\n"
    "      getcontext(&emu_fib[t]);\n"
    "      emu_fib[t].uc_stack.ss_sp = stacks + (size_t)t * EMU_STACK;\n"
    "      emu_fib[t].uc_stack.ss_size = EMU_STACK;\n"
    "      emu_fib[t].uc_link = &emu_main;\n"
    "      makecontext(&emu_fib[t], body, 0);\n"
    "      emu_done[t] = 0;\n"
    "    }\n"
    "    emu_running = tpb;\n"
    "    emu_waiting = 0;\n"
    "    for (int pass = 0; emu_running > 0; ++pass)\n"
    "      for (int j = 0; j < tpb; ++j) {\n"
    "        const int t = pass % 2 ? tpb - 1 - j : j;\n"
    "        if (emu_done[t]) continue;\n"
    "        emu_cur = t;\n"
    "        threadIdx.x = (unsigned)t; threadIdx.y = threadIdx.z = 0;\n"
    "        swapcontext(&emu_main, &emu_fib[t]);\n"
    "      }\n"
    "  }\n"
    "  munmap(stacks, span);\n"
    "}\n";

/* The cuda text as C: the shim, the kernels renamed cu_NAME and static, and
 * per kernel NAME(void **args, int64_t first, int64_t count) running the
 * blocks of its launch shape (dg_codegen_shock_shape, as shock.c launches
 * them) over the items first .. first + count - 1. */
static char *emulated(const char *cuda, const dg_element_ops *el, const dg_physics *ph,
                      int is_float) {
  static const char *names[DG_SHOCK_NKERNELS] = {"dg_shock_sensor", "dg_shock_vertex",
                                                 "dg_shock_nodes", "dg_shock_faces",
                                                 "dg_shock_limit"};
  dg_strbuf b, w;
  dg_strbuf_init(&b);
  dg_strbuf_init(&w);
  unsigned smem = 0;
  for (int k = 0; k < DG_SHOCK_NKERNELS; k++) {
    unsigned sb = dg_codegen_shock_shape(el, ph, is_float, (dg_shock_kernel_id)k).shared_bytes;
    smem = sb > smem ? sb : smem;
  }
  dg_strbuf_appendf(&b, "#define EMU_SMEM %u\n", smem / 8 + 1);
  dg_strbuf_append(&b, SHIM);
  const char *p = cuda;
  while (*p) {
    const char *e = strchr(p, '\n');
    size_t len = e ? (size_t)(e - p) + 1 : strlen(p);
    if (strncmp(p, "#define KERNEL ", 15) == 0) {
      dg_strbuf_append(&b, "#define KERNEL static\n");
    } else if (strncmp(p, "KERNEL void ", 12) == 0) {
      /* KERNEL void [__launch_bounds__(...) ]NAME(params...) {, over lines */
      const char *name = p + 12;
      if (strncmp(name, "__launch_bounds__(", 18) == 0)
        name = strchr(name, ')') + 2;
      const char *open = strchr(name, '('), *close = strchr(open, ')');
      int which = -1;
      for (int k = 0; k < DG_SHOCK_NKERNELS; k++)
        if ((size_t)(open - name) == strlen(names[k]) && !strncmp(name, names[k], strlen(names[k])))
          which = k;
      if (which < 0)
        return NULL;
      dg_shock_shape sh = dg_codegen_shock_shape(el, ph, is_float, (dg_shock_kernel_id)which);
      dg_strbuf_appendf(&b, "%.*scu_%.*s", (int)(name - p), p, (int)(close + 1 - name), name);
      dg_strbuf_appendf(&w, "static void emu_body_%s(void) {\n  void **a = emu_args;\n  cu_%s(",
                        names[which], names[which]);
      int a = 0;
      for (const char *q = open + 1; q < close;) {
        while (*q == ' ' || *q == '\n')
          q++;
        const char *c = memchr(q, ',', (size_t)(close - q));
        const char *end = c ? c : close, *sp = end;
        while (sp > q && sp[-1] != ' ' && sp[-1] != '*')
          sp--;
        dg_strbuf_appendf(&w, "%s*(%.*s *)a[%d]", a ? ", " : "", (int)(sp - q), q, a);
        a++;
        q = c ? c + 1 : close;
      }
      dg_strbuf_appendf(&w, ");\n  emu_exit();\n}\n"
                            "void %s(void **args, int64_t first, int64_t count) {\n"
                            "  emu_blocks(emu_body_%s, args, %d, %d, first, count);\n}\n",
                        names[which], names[which], sh.threads_per_item * sh.items_per_block,
                        sh.items_per_block);
      len = (size_t)(close + 1 - p);
    } else {
      dg_strbuf_appendf(&b, "%.*s", (int)len, p);
    }
    p += len;
  }
  char *wt = NULL, *out = NULL;
  if (dg_strbuf_finish(&w, &wt) != DG_OK)
    return NULL;
  dg_strbuf_append(&b, wt);
  free(wt);
  if (dg_strbuf_finish(&b, &out) != DG_OK)
    return NULL;
  return out;
}

static double maxdiff(dg_device *dev, const void *a, const void *b, size_t n, size_t rs,
                      double *scale) {
  double *x = malloc(n * 8 + 8), *y = malloc(n * 8 + 8), d = 0;
  float *xf = (float *)x, *yf = (float *)y;
  MUST(dg_device_download(dev, x, a, n * rs));
  MUST(dg_device_download(dev, y, b, n * rs));
  *scale = 0;
  for (size_t i = 0; i < n; i++) {
    double u = rs == 4 ? xf[i] : x[i], v = rs == 4 ? yf[i] : y[i];
    if (!(fabs(u - v) <= d))
      d = fabs(u - v);
    *scale = fmax(*scale, fabs(u));
  }
  free(x);
  free(y);
  return d;
}

/* NVRTC compiles the cuda module for sm_90, where NVRTC exists: 1 if not. */
static int check_nvrtc(const char *cuda) {
  int fail = 0;
  const char *nvrtc = NULL;
  if (dg_nvrtc_path(&nvrtc) == DG_OK) {
    void *cubin = NULL;
    size_t size = 0;
    dg_error e = dg_nvrtc_compile("dg_shock", cuda, "sm_90", NULL, 0, &cubin, &size);
    if (e != DG_OK) {
      dg_error_print(stderr);
      printf("FAIL: NVRTC does not compile the cuda shock module\n");
      fail = 1;
    } else {
      printf("NVRTC: the cuda shock module compiles for sm_90 (%zu bytes)\n", size);
    }
    free(cubin);
  } else {
    dg_error_clear();
    printf("no NVRTC: the cuda module is only emulated\n");
  }
  return fail;
}

/* The cpu kernel's element viscosities ea against the formula on the host
 * (Persson & Peraire 2006), where the sensor is field component 0: modal
 * coefficients by invV, the energy fraction of the degree-N modes, the sine
 * ramp.  1 if they differ. */
static int check_formula(const dg_problem *p, const dg_discretization *disc, const double *u,
                         const double *ea, double emax, int is_float) {
  int f = -1, fail = 0;
  if (dg_flux_field_find(p->program, p->shock.sensor, &f) != DG_OK ||
      dg_flux_field(p->program, f)->offset != 0) {
    dg_error_clear();
    return 0;
  }
  const dg_refelem *re = disc->re;
  int np = re->Np, deg[4096], m = 0, N = re->N;
  for (int i = 0; i <= N; i++)
    for (int j = 0; j <= (disc->dim > 1 ? N - i : 0); j++)
      for (int l = 0; l <= (disc->dim > 2 ? N - i - j : 0); l++)
        deg[m++] = i + j + l;
  double s0 = -(p->shock.c0 + 4 * log10((double)N)), kap = p->shock.kappa, dh = 0;
  for (int64_t k = 0; k < disc->K; k++) {
    double tot = 0, hi = 0;
    for (int a = 0; a < np; a++) {
      double c = 0;
      for (int i = 0; i < np; i++)
        c += re->invV[a * np + i] * u[k * np + i];
      tot += c * c;
      hi += deg[a] == N ? c * c : 0;
    }
    double sk = hi > 0 ? log10(hi / tot) : -1e30;
    double e0 = fmin(p->shock.max_viscosity, p->shock.scale * 2 * disc->h[k] / N);
    double e = sk < s0 - kap ? 0 : sk > s0 + kap ? e0
             : 0.5 * e0 * (1 + sin(M_PI * (sk - s0) / (2 * kap)));
    dh = fmax(dh, fabs(e - ea[k]));
  }
  printf("sensor: c kernel - host formula %.3g\n", dh);
  if (!(dh <= (is_float ? 1e-4 : 1e-10) * fmax(emax, 1e-300)))
    printf("FAIL: the sensor differs from its formula\n"), fail = 1;
  return fail;
}

/* Whether every one of n reals at a is v (exactly). */
static int all_equal(dg_device *dev, const void *a, size_t n, size_t rs, double v) {
  double *x = malloc(n * 8 + 8);
  float *xf = (float *)x;
  MUST(dg_device_download(dev, x, a, n * rs));
  int ok = 1;
  for (size_t i = 0; i < n && ok; i++)
    ok = (rs == 4 ? (double)xf[i] : x[i]) == (rs == 4 ? (double)(float)v : v);
  free(x);
  return ok;
}

static void fill(dg_device *dev, void *a, size_t n, size_t rs, double v) {
  double *x = malloc(n * 8 + 8);
  float *xf = (float *)x;
  for (size_t i = 0; i < n; i++)
    if (rs == 4)
      xf[i] = (float)v;
    else
      x[i] = v;
  MUST(dg_device_upload(dev, a, x, n * rs));
  free(x);
}

/* dg_shock_viscosity_active of module m against dg_shock_viscosity's
 * tables cf_ref, fcf_ref of the discontinuous state qd: a smooth state qs
 * (every element constant: no degree-N modes, zero viscosity) is inactive
 * and leaves the tables zero, also from start values that are not; the
 * discontinuous one is active with the same tables to the bit (the same
 * kernels); an inactive call after it writes the zeros back; and an
 * inactive call after an inactive one leaves the tables alone (the skip:
 * values put there behind the module's back stay, until
 * dg_shock_forget_coefficients).  1 if any fails. */
static int check_active(dg_device *dev, dg_shock *m, void *qs, void *qd, const void *cf_ref,
                        const void *fcf_ref, size_t ncf, size_t nfcf, size_t rs,
                        const char *what) {
  void *cf = NULL, *fcf = NULL;
  MUST(dg_device_malloc(dev, ncf * rs, &cf));
  MUST(dg_device_malloc(dev, nfcf * rs, &fcf));
  int fail = 0, active = -1;
  double s;
  fill(dev, cf, ncf, rs, 7.0);
  fill(dev, fcf, nfcf, rs, 7.0);
  MUST(dg_shock_viscosity_active(m, qs, cf, fcf, &active));
  int zero = all_equal(dev, cf, ncf, rs, 0.0) && all_equal(dev, fcf, nfcf, rs, 0.0);
  printf("%s: smooth state, first call: active %d, tables zero %d\n", what, active, zero);
  if (active != 0 || !zero)
    printf("FAIL: %s: a smooth state's first call\n", what), fail = 1;
  fill(dev, cf, ncf, rs, 7.0);
  MUST(dg_shock_viscosity_active(m, qs, cf, fcf, &active));
  int kept = all_equal(dev, cf, ncf, rs, 7.0);
  printf("%s: smooth again: active %d, skipped %d\n", what, active, kept);
  if (active != 0 || !kept)
    printf("FAIL: %s: an inactive call after an inactive one spread again\n", what), fail = 1;
  dg_shock_forget_coefficients(m); /* ... unless told of them */
  MUST(dg_shock_viscosity_active(m, qs, cf, fcf, &active));
  zero = all_equal(dev, cf, ncf, rs, 0.0) && all_equal(dev, fcf, nfcf, rs, 0.0);
  printf("%s: smooth after dg_shock_forget_coefficients: active %d, tables zero %d\n", what,
         active, zero);
  if (active != 0 || !zero)
    printf("FAIL: %s: dg_shock_forget_coefficients\n", what), fail = 1;
  fill(dev, cf, ncf, rs, 7.0); /* the discontinuous state's call spreads over them */
  MUST(dg_shock_viscosity_active(m, qd, cf, fcf, &active));
  double dc = maxdiff(dev, cf, cf_ref, ncf, rs, &s), df = maxdiff(dev, fcf, fcf_ref, nfcf, rs, &s);
  printf("%s: discontinuous: active %d, tables - dg_shock_viscosity's %.3g %.3g\n", what, active,
         dc, df);
  if (active != 1 || dc != 0 || df != 0)
    printf("FAIL: %s: the discontinuous state's active call\n", what), fail = 1;
  MUST(dg_shock_viscosity_active(m, qs, cf, fcf, &active));
  zero = all_equal(dev, cf, ncf, rs, 0.0) && all_equal(dev, fcf, nfcf, rs, 0.0);
  printf("%s: smooth after it: active %d, tables zero %d\n", what, active, zero);
  if (active != 0 || !zero)
    printf("FAIL: %s: an inactive call after an active one\n", what), fail = 1;
  dg_device_free(dev, cf);
  dg_device_free(dev, fcf);
  return fail;
}

typedef struct {
  void **cf, **fcf; /* the two modules' dg_shock_viscosity tables */
  size_t ncf, nfcf, rs;
} shock_tables;

/* check_active for both modules: the smooth state is u (logical order,
 * nlog values) with every element's nodes at their mean, set into sol;
 * qorig the discontinuous state. */
static int check_active_both(dg_device *dev, const dg_discretization *disc, dg_solver *sol,
                             double *u, size_t nlog, dg_shock *const *mods, const void *qorig,
                             size_t nstate, const shock_tables *t) {
  for (size_t e = 0; e < nlog / (size_t)disc->Np; e++) {
    double *x = u + e * (size_t)disc->Np, mean = 0;
    for (int i = 0; i < disc->Np; i++)
      mean += x[i] / disc->Np;
    for (int i = 0; i < disc->Np; i++)
      x[i] = mean;
  }
  MUST(dg_solver_set_state(sol, u));
  void *qs = NULL, *qd = NULL;
  MUST(dg_device_malloc(dev, nstate * t->rs, &qs));
  MUST(dg_device_malloc(dev, nstate * t->rs, &qd));
  MUST(dg_device_copy(dev, qs, dg_solver_device_state(sol), nstate * t->rs));
  MUST(dg_device_copy(dev, qd, qorig, nstate * t->rs));
  const char *what[2] = {"c kernels", "cuda kernels"};
  int fail = 0;
  for (int j = 0; j < 2; j++)
    fail |= check_active(dev, mods[j], qs, qd, t->cf[j], t->fcf[j], t->ncf, t->nfcf, t->rs,
                         what[j]);
  dg_device_free(dev, qs);
  dg_device_free(dev, qd);
  return fail;
}

/* Every fourth element's deviation from its (nodal) mean scaled up until
 * its nodes go below zero, with a jump inside (around the mean). */
static void perturb(double *u, const dg_discretization *disc, int ncomp) {
  for (int64_t k = 0; k < disc->K; k += 4)
    for (int c = 0; c < ncomp; c++) {
      double *e = u + ((size_t)c * disc->K + k) * disc->Np, mean = 0;
      for (int i = 0; i < disc->Np; i++)
        mean += e[i] / disc->Np;
      for (int i = 0; i < disc->Np; i++)
        e[i] = mean + (e[i] - mean) * 3 + (i % 2 ? 1.2 : -1.2) * fabs(mean);
    }
}

/* The element viscosities, node values and face traces of the two
 * modules (c, cuda through the shim) on states q, into t's tables; the c
 * sensor against its formula.  1 if they differ. */
static int compare_viscosity(dg_device *dev, const dg_problem *p, const dg_discretization *disc,
                             const double *u, dg_shock *const *mods, void *const *q,
                             const shock_tables *t, double tol) {
  int fail = 0;
  double s;
  for (int j = 0; j < 2; j++)
    MUST(dg_shock_viscosity(mods[j], q[j], t->cf[j], t->fcf[j]));
  double *ea = calloc((size_t)disc->K, sizeof *ea), *eb = calloc((size_t)disc->K, sizeof *eb);
  CHECK(ea && eb, "out of memory");
  MUST(dg_shock_element_viscosity(mods[0], ea));
  MUST(dg_shock_element_viscosity(mods[1], eb));
  int nonzero = 0;
  double d = 0, emax = 0;
  for (int64_t k = 0; k < disc->K; k++) {
    d = fmax(d, fabs(ea[k] - eb[k]));
    emax = fmax(emax, ea[k]);
    nonzero += ea[k] > 0;
  }
  printf("sensor: %d of %lld elements viscous (max %.3g), cuda - c %.3g\n", nonzero,
         (long long)disc->K, emax, d);
  /* the cpu kernel against the formula on the host (Persson & Peraire
   * 2006), where the sensor is field component 0: modal coefficients by
   * invV, the energy fraction of the degree-N modes (total degree of mode
   * (i, j, ...) in dg/refelem.c's order), the sine ramp */
  fail |= check_formula(p, disc, u, ea, emax, p->precision == DG_FLOAT);
  if (!(d <= tol * emax) || nonzero == 0)
    printf("FAIL: element viscosities\n"), fail = 1;
  double dc = maxdiff(dev, t->cf[0], t->cf[1], t->ncf, t->rs, &s);
  printf("node values: max %.3g, cuda - c %.3g\n", s, dc);
  if (!(dc <= tol * s) || s == 0)
    printf("FAIL: node values\n"), fail = 1;
  double df = maxdiff(dev, t->fcf[0], t->fcf[1], t->nfcf, t->rs, &s);
  printf("face traces: max %.3g, cuda - c %.3g\n", s, df);
  if (!(df <= tol * s) || s == 0)
    printf("FAIL: face traces\n"), fail = 1;
  free(ea);
  free(eb);
  return fail;
}

/* The two modules' limiters on states q (the solver's state before): the
 * same limited state, changed.  1 if not. */
static int compare_limiter(dg_device *dev, dg_solver *sol, dg_shock *const *mods,
                           void *const *q, size_t nstate, size_t rs, double tol) {
  double s;
  double before = maxdiff(dev, q[0], dg_solver_device_state(sol), nstate, rs, &s);
  for (int j = 0; j < 2; j++)
    MUST(dg_shock_limit(mods[j], q[j]));
  double changed = maxdiff(dev, q[0], dg_solver_device_state(sol), nstate, rs, &s);
  double dq = maxdiff(dev, q[0], q[1], nstate, rs, &s);
  printf("limiter: changed the state by up to %.3g, cuda - c %.3g\n", changed, dq);
  if (!(dq <= tol * s) || before != 0 || changed == 0) {
    printf("FAIL: limited states\n");
    return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test_shock_emulate problem.cfg [section.key=value ...]\n");
    return 2;
  }
  dg_log_set_level(DG_LOG_WARN);
  const char *ov[32];
  int nov = 0;
  ov[nov++] = "backend.device=cpu";
  ov[nov++] = "output.enabled=false";
  int element_major = 0;
  for (int i = 2; i < argc && nov < 32; i++)
    if (strcmp(argv[i], "--element-major") == 0)
      element_major = 1;
    else
      ov[nov++] = argv[i];
  dg_problem *p = NULL;
  MUST(dg_problem_load(argv[1], ov, nov, &p));
  CHECK(dg_problem_shock_enabled(p), "%s has no [shock]", argv[1]);
  dg_device *dev = NULL;
  MUST(dg_device_create("cpu", 0, &dev));
  dg_discretization *disc = NULL;
  MUST(dg_discretization_create(p->mesh, p->order, p->precision, &disc));
  dg_physics ph;
  dg_physics_tables *tabs = NULL;
  MUST(dg_physics_from_program(p->program, &ph, &tabs));
  dg_solver_options so = {dg_kernel_config_default(), NULL};
  if (element_major) { /* the other layout, with padding (NP_PAD > NP) */
    so.kernels.layout = DG_LAYOUT_ELEMENT_MAJOR;
    so.kernels.np_align = 8;
  }
  dg_solver *sol = NULL;
  MUST(dg_solver_create(dev, disc, &ph, p->tag_to_bc, &so, &sol));
  const dg_opdata *od = dg_solver_opdata(sol);
  int is_float = p->precision == DG_FLOAT;
  size_t rs = is_float ? 4 : 8;
  /* the state: the initial condition, every fourth element's deviation from
   * its (nodal) mean scaled up until its nodes go below zero */
  size_t nlog = (size_t)ph.ncomp * disc->K * disc->Np;
  double *u = calloc(nlog, sizeof *u);
  CHECK(u, "out of memory");
  MUST(dg_solver_set_initial(sol, 0.0));
  MUST(dg_solver_get_state(sol, u));
  perturb(u, disc, ph.ncomp);
  MUST(dg_solver_set_state(sol, u));
  /* two shock modules on the cpu backend: its own C kernels and the cuda
   * kernels through the shim */
  char *cuda = NULL;
  MUST(dg_shock_source(disc, od, p->program, &ph, &p->shock, DG_CODEGEN_CUDA, is_float, &cuda));
  dg_element_ops el = dg_element_ops_of(disc->re);
  char *emu = emulated(cuda, &el, &ph, is_float);
  CHECK(emu, "emulation source");
  int fail = 0;
  fail |= check_nvrtc(cuda);
  dg_shock *sc = NULL, *se = NULL;
  MUST(dg_shock_create(dev, disc, od, p->program, &ph, &p->shock, is_float, &sc));
  MUST(dg_shock_create_source(dev, disc, od, p->program, &ph, &p->shock, is_float, emu, NULL,
                              &se));
  size_t nstate = (size_t)od->ncomp * od->K * od->np_pad;
  size_t ncf = (size_t)(ph.ncoef > 0 ? ph.ncoef : 1) * od->K * od->np_pad;
  size_t nfcf = (size_t)od->K * od->nfnfp * (ph.ncoef > 0 ? ph.ncoef : 1) * 2;
  void *q[2], *cf[2], *fcf[2];
  for (int j = 0; j < 2; j++) {
    MUST(dg_device_malloc(dev, nstate * rs, &q[j]));
    MUST(dg_device_copy(dev, q[j], dg_solver_device_state(sol), nstate * rs));
    MUST(dg_device_malloc(dev, ncf * rs, &cf[j]));
    MUST(dg_device_zero(dev, cf[j], ncf * rs));
    MUST(dg_device_malloc(dev, nfcf * rs, &fcf[j]));
    MUST(dg_device_zero(dev, fcf[j], nfcf * rs));
  }
  dg_shock *mods[2] = {sc, se};
  void *qorig = NULL; /* the discontinuous state, before the limiter */
  MUST(dg_device_malloc(dev, nstate * rs, &qorig));
  MUST(dg_device_copy(dev, qorig, q[0], nstate * rs));
  double tol = is_float ? 1e-5 : 1e-12;
  shock_tables t = {cf, fcf, ncf, nfcf, rs};
  if (p->shock.sensor && p->shock.sensor[0])
    fail |= compare_viscosity(dev, p, disc, u, mods, q, &t, tol);
  if (p->shock.positivity && p->shock.positivity[0])
    fail |= compare_limiter(dev, sol, mods, q, nstate, rs, tol);
  if (p->shock.sensor && p->shock.sensor[0])
    fail |= check_active_both(dev, disc, sol, u, nlog, mods, qorig, nstate, &t);
  dg_device_free(dev, qorig);
  for (int j = 0; j < 2; j++) {
    dg_device_free(dev, q[j]);
    dg_device_free(dev, cf[j]);
    dg_device_free(dev, fcf[j]);
  }
  dg_shock_destroy(&sc);
  dg_shock_destroy(&se);
  free(cuda);
  free(emu);
  free(u);
  dg_solver_destroy(&sol);
  dg_physics_tables_destroy(&tabs);
  dg_discretization_destroy(&disc);
  dg_device_destroy(&dev);
  dg_problem_destroy(&p);
  printf(fail ? "FAILED\n" : "ok\n");
  return fail;
}
