/* problems.filter_*: the state filter on the device (problems/solver/filter.h)
 * equals F applied on the host (dg/filter.h's matrix times each element's
 * nodal values of each component) to round-off, in the field-major and the
 * element-major layout, on a 2D and a 3D problem; the element means (and so
 * mass) are kept.
 *
 * usage: test_problems_filter_run problem.cfg MODE
 *   cpu      the module the cpu backend compiles
 *   emulate  the CUDA module, compiled as C with a small shim (one thread
 *            per element, no barriers) and run on the CPU; NVRTC compiles it
 *            first where NVRTC exists
 *   gpu      the CUDA module on the GPU (77, skipped, without a GPU) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/nvrtc.h"
#include "core/strbuf.h"
#include "operators/physics.h"
#include "problems/driver/problem.h"
#include "problems/solver/filter.h"
#include "tests/expect.h"

static int nvrtc_compiled;

static char *emulate(const char *cuda) {
  void *cubin = NULL;
#ifdef DG_TEST_NO_NVRTC /* sanitizer builds: the plain pass compiles it */
  dg_error e = DG_ERR_UNSUPPORTED;
#else
  size_t size = 0;
  dg_error e = dg_nvrtc_compile("dg_filter", cuda, "sm_90", NULL, 0, &cubin, &size);
#endif
  free(cubin);
  if (e == DG_OK)
    nvrtc_compiled++;
  else if (e != DG_ERR_UNSUPPORTED) {
    dg_error_print(stdout);
    EXPECT(0, "NVRTC does not compile the CUDA module");
  }
  dg_error_clear();
  dg_strbuf b;
  dg_strbuf_init(&b);
  dg_strbuf_append(&b, "#include <stdint.h>\n#define __restrict__ restrict\n"
                       "#define __constant__\n"
                       "typedef struct { unsigned x, y, z; } emu_dim3;\n"
                       "static emu_dim3 threadIdx, blockIdx, blockDim;\n"
                       "#define KERNEL static\n#define dg_filter dg_filter_cuda\n");
  dg_strbuf_append(&b, cuda);
  dg_strbuf_append(&b, "#undef dg_filter\n"
                       "void dg_filter(void **a, int64_t first, int64_t count) {\n"
                       "  (void)first; (void)count;\n"
                       "  const long long K_owned = *(const long long *)a[2];\n"
                       "  blockDim.x = 128; blockDim.y = blockDim.z = 1;\n"
                       "  for (long long blk = 0; blk * 128 < K_owned; ++blk) {\n"
                       "    blockIdx.x = (unsigned)blk;\n"
                       "    for (unsigned th = 0; th < 128; ++th) {\n"
                       "      threadIdx.x = th;\n"
                       "      dg_filter_cuda(*(real **)a[0], *(const long long *)a[1], K_owned);\n"
                       "    }\n"
                       "  }\n"
                       "}\n");
  char *s = NULL;
  if (dg_strbuf_finish(&b, &s) != DG_OK)
    return NULL;
  return s;
}

int main(int argc, char **argv) {
  CHECK(argc == 3, "usage: %s problem.cfg cpu|emulate|gpu", argv[0]);
  dg_log_set_level(DG_LOG_WARN);
  const char *mode = argv[2];
  int gpu = strcmp(mode, "gpu") == 0, emu = strcmp(mode, "emulate") == 0;
  CHECK(gpu || emu || strcmp(mode, "cpu") == 0, "bad mode '%s'", mode);
  dg_device *dev = NULL;
  if (gpu) {
    int ndev = 0;
    if (dg_device_count("cuda", &ndev) != DG_OK || ndev == 0) {
      dg_error_clear();
      printf("skipped: no CUDA device\n");
      return 77;
    }
    MUST(dg_device_create("cuda", 0, &dev));
  } else {
    MUST(dg_device_create("cpu", 0, &dev));
  }
  dg_problem *p = NULL;
  MUST(dg_problem_load(argv[1], NULL, 0, &p));
  dg_discretization *d = NULL;
  MUST(dg_discretization_create(p->mesh, p->order, p->precision, &d));
  dg_physics ph;
  dg_physics_tables *tab = NULL;
  MUST(dg_physics_from_program(p->program, &ph, &tab));
  int Np = d->Np, nc = ph.ncomp;
  size_t n = (size_t)nc * d->K * Np;
  double *u = malloc(n * sizeof *u), *v = malloc(n * sizeof *v);
  double *F = malloc(sizeof(double) * (size_t)Np * Np);
  CHECK(u && v && F);
  dg_filter_params fp = {1, 8, 2.0};
  MUST(dg_filter_matrix(d->re, &fp, F));
  for (int layout = 0; layout < 2; layout++) {
    dg_kernel_config kc = p->kernels;
    kc.layout = layout ? DG_LAYOUT_ELEMENT_MAJOR : DG_LAYOUT_FIELD_MAJOR;
    dg_solver_options so = {kc, NULL};
    dg_solver *s = NULL;
    MUST(dg_solver_create(dev, d, &ph, p->tag_to_bc, &so, &s));
    /* a rough state: every mode present */
    unsigned seed = 12345u;
    for (size_t z = 0; z < n; z++) {
      seed = seed * 1103515245u + 12345u;
      u[z] = (double)((seed >> 8) & 0xffff) / 65536.0 - 0.5 + (double)(z % 7);
    }
    MUST(dg_solver_set_state(s, u));
    dg_state_filter *f = NULL;
    if (emu)
      MUST(dg_state_filter_create_wrapped(s, d, &fp, DG_CODEGEN_CUDA, emulate, &f));
    else
      MUST(dg_state_filter_create(s, d, &fp, &f));
    MUST(dg_state_filter_apply(f));
    MUST(dg_solver_get_state(s, v));
    /* the host state is (c*K + k)*Np + i (dg_solver_get_state's order) */
    double worst = 0, mean_worst = 0;
    for (int c = 0; c < nc; c++)
      for (int64_t k = 0; k < d->K; k++) {
        const double *uk = u + ((size_t)c * d->K + k) * Np;
        const double *vk = v + ((size_t)c * d->K + k) * Np;
        double mu = 0, mv = 0;
        for (int i = 0; i < Np; i++) {
          double w = 0;
          for (int j = 0; j < Np; j++)
            w += F[i * Np + j] * uk[j];
          worst = fmax(worst, fabs(w - vk[i]));
          for (int j = 0; j < Np; j++) {
            mu += d->re->M[i * Np + j] * uk[j];
            mv += d->re->M[i * Np + j] * vk[j];
          }
        }
        mean_worst = fmax(mean_worst, fabs(mu - mv));
      }
    printf("%s layout %d: max |device - host F u| %.2e, max mean change %.2e\n", mode, layout,
           worst, mean_worst);
    EXPECT(worst < 1e-12, "%s layout %d: filter differs from F u by %.3e", mode, layout, worst);
    EXPECT(mean_worst < 1e-12, "%s layout %d: element mean changed by %.3e", mode, layout,
           mean_worst);
    dg_state_filter_destroy(&f);
    dg_solver_destroy(&s);
  }
  if (emu)
    printf("NVRTC compiled the CUDA module %d times%s\n", nvrtc_compiled,
           nvrtc_compiled ? "" : " (no NVRTC here, or a sanitizer build)");
  free(F);
  free(v);
  free(u);
  dg_physics_tables_destroy(&tab);
  dg_discretization_destroy(&d);
  dg_problem_destroy(&p);
  dg_device_destroy(&dev);
  return expect_finish();
}
