/* The state's modal filter on the device (filter.h). */
#include "problems/solver/filter.h"

#include <stdlib.h>
#include <string.h>

#include "operators/gen_filter.h"

struct dg_state_filter {
  dg_solver *s;
  dg_module *mod;
  dg_kernel *k;
  int one_chunk;
  dg_codegen_target tg;
  long long K, K_owned;
};

void dg_state_filter_destroy(dg_state_filter **fp) {
  if (!fp || !*fp)
    return;
  dg_module_destroy(&(*fp)->mod);
  free(*fp);
  *fp = NULL;
}

static dg_error load_module(dg_state_filter *f, const dg_discretization *disc,
                            const dg_filter_params *p, char *(*wrap)(const char *)) {
  const dg_opdata *od = dg_solver_opdata(f->s);
  double *F = malloc(sizeof(double) * (size_t)(od->Np * od->Np));
  DG_CHECK(F, DG_ERR_MEMORY, "out of memory");
  char *src = NULL;
  dg_error err = dg_filter_matrix(disc->re, p, F);
  dg_filter_spec spec = {od->Np, od->np_pad, od->ncomp,
                         od->element_major ? DG_LAYOUT_ELEMENT_MAJOR : DG_LAYOUT_FIELD_MAJOR,
                         disc->precision == DG_FLOAT, F};
  if (err == DG_OK)
    err = dg_gen_filter(f->tg, &spec, &src);
  free(F);
  DG_CALL(err);
  if (wrap) {
    char *w = wrap(src);
    free(src);
    src = w;
    DG_CHECK(src, DG_ERR_MEMORY, "out of memory");
  }
  err = dg_device_compile(dg_solver_device(f->s), "dg_filter", src, NULL, 0, &f->mod);
  free(src);
  DG_CALL(err);
  DG_CALL(dg_module_get_kernel(f->mod, "dg_filter", &f->k));
  return DG_OK;
}

static dg_error create(dg_solver *s, const dg_discretization *disc, const dg_filter_params *p,
                       int target, char *(*wrap)(const char *), dg_state_filter **out) {
  *out = NULL;
  DG_CHECK(dg_solver_kernels(s)->basis == 0, DG_ERR_INPUT,
           "[discretization] filter acts on nodal values: it needs [backend] basis = nodal");
  DG_CALL(dg_filter_check(p, disc->N));
  dg_state_filter *f = calloc(1, sizeof *f);
  DG_CHECK(f, DG_ERR_MEMORY, "out of memory");
  f->s = s;
  const dg_opdata *od = dg_solver_opdata(s);
  f->K = od->K;
  f->K_owned = od->K_owned;
  f->one_chunk = wrap != NULL;
  f->tg = target >= 0 ? (dg_codegen_target)target
          : dg_device_get_info(dg_solver_device(s))->backend == DG_BACKEND_CUDA
              ? DG_CODEGEN_CUDA
              : DG_CODEGEN_C;
  dg_error err = load_module(f, disc, p, wrap);
  if (err != DG_OK) {
    dg_state_filter_destroy(&f);
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  }
  *out = f;
  return DG_OK;
}

dg_error dg_state_filter_create(dg_solver *s, const dg_discretization *disc,
                                const dg_filter_params *p, dg_state_filter **out) {
  DG_CALL(create(s, disc, p, -1, NULL, out));
  return DG_OK;
}

dg_error dg_state_filter_create_wrapped(dg_solver *s, const dg_discretization *disc,
                                        const dg_filter_params *p, dg_codegen_target tg,
                                        char *(*wrap)(const char *source),
                                        dg_state_filter **out) {
  DG_CALL(create(s, disc, p, (int)tg, wrap, out));
  return DG_OK;
}

dg_error dg_state_filter_apply(dg_state_filter *f) {
  if (f->K_owned == 0)
    return DG_OK;
  void *state = dg_solver_device_state(f->s);
  void *args[] = {&state, &f->K, &f->K_owned};
  const long long nt = DG_GEN_FILTER_THREADS;
  dg_launch l;
  memset(&l, 0, sizeof l);
  l.grid[0] = (unsigned)((f->K_owned + nt - 1) / nt);
  l.grid[1] = l.grid[2] = 1;
  l.block[0] = (unsigned)nt;
  l.block[1] = l.block[2] = 1;
  l.items = f->K_owned;
  l.chunk = f->one_chunk ? f->K_owned : dg_solver_kernels(f->s)->cpu_chunk;
  DG_CALL(dg_kernel_launch(f->k, &l, args, NULL));
  return DG_OK;
}
