/* dgbench source: the generated module of a problem as its [backend] knobs
 * shape it, for either target, without a device.
 *
 *   dgbench source problem.cfg [section.key=value ...] [--target cuda|c] [--curved]
 *
 * --curved: the module of the curved elements' kernels (issue 40; the
 * problem's mesh need not be curved).
 *
 * For reading the kernels and for the compiler's own report on them, e.g.
 *   dgbench source euler.cfg discretization.order=5 backend.work_per_thread=2 > k.cu
 *   nvcc -arch=sm_90 -cubin -Xptxas -v k.cu      (registers, spills)
 * (NVRTC compiles the same text at run time; nvcc is only for the report.) */
#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "core/log.h"
#include "dg/bernstein.h"
#include "dg/refelem.h"
#include "operators/codegen.h"
#include "operators/physics.h"
#include "problems/driver/problem.h"

static int usage(void) {
  fprintf(stderr, "usage: dgbench source problem.cfg [section.key=value ...] "
                  "[--target cuda|c] [--curved]\n");
  return 2;
}

int dg_sourcedump_main(int argc, char **argv) {
  const char *cfg = NULL, *ov[64];
  int nov = 0, curved = 0;
  dg_codegen_target target = DG_CODEGEN_CUDA;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--target") == 0 && i + 1 < argc) {
      const char *t = argv[++i];
      if (strcmp(t, "cuda") != 0 && strcmp(t, "c") != 0) {
        fprintf(stderr, "dgbench source: unknown target '%s' (cuda or c)\n", t);
        return usage();
      }
      target = strcmp(t, "c") == 0 ? DG_CODEGEN_C : DG_CODEGEN_CUDA;
    } else if (strcmp(a, "--curved") == 0) {
      curved = 1;
    } else if (strncmp(a, "--", 2) == 0) {
      fprintf(stderr, "dgbench source: unknown option '%s'\n", a);
      return usage();
    } else if (strchr(a, '=') && nov < 64) {
      ov[nov++] = a;
    } else if (!cfg && !strchr(a, '=')) {
      cfg = a;
    } else {
      fprintf(stderr, "dgbench source: unexpected argument '%s'\n", a);
      return usage();
    }
  }
  if (!cfg)
    return usage();
  dg_log_set_level(DG_LOG_WARN);
  dg_problem *p = NULL;
  dg_physics ph;
  dg_physics_tables *tab = NULL;
  dg_refelem *re = NULL;
  dg_generated g = {0};
  dg_error err = dg_problem_load(cfg, ov, nov, &p);
  if (err == DG_OK)
    err = dg_physics_from_program(p->program, &ph, &tab);
  if (err == DG_OK)
    err = dg_refelem_create(p->mesh->dim, p->order, &re);
  dg_bernstein *bb = NULL; /* basis bernstein: the operators on BB coefficients */
  if (err == DG_OK && p->kernels.basis)
    err = dg_bernstein_create(re, &bb);
  if (err == DG_OK) {
    dg_element_ops el = bb ? dg_element_ops_of_bernstein(re, bb) : dg_element_ops_of(re);
    el.curved = curved;
    err = dg_codegen_generate(target, &el, &ph, p->precision == DG_FLOAT, &p->kernels, &g);
  }
  if (err == DG_OK && fputs(g.source, stdout) == EOF)
    err = dg_error_raise(DG_ERR_IO, __FILE__, __LINE__, __func__,
                         "dgbench source: cannot write the module to standard output");
  if (err != DG_OK)
    dg_error_print(stderr);
  dg_generated_free(&g);
  dg_bernstein_destroy(&bb);
  dg_refelem_destroy(&re);
  dg_physics_tables_destroy(&tab);
  dg_problem_destroy(&p);
  return err == DG_OK ? 0 : 1;
}
