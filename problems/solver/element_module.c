/* The solver's side modules: load and launch (element_module.h). */
#include "problems/solver/element_module.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fsutil.h"

dg_codegen_target dg_element_module_target(const dg_solver *s, int target) {
  if (target >= 0)
    return (dg_codegen_target)target;
  return dg_device_get_info(dg_solver_device(s))->backend == DG_BACKEND_CUDA ? DG_CODEGEN_CUDA
                                                                              : DG_CODEGEN_C;
}

/* --dump-kernels: the module beside dg_operators. */
static dg_error dump_source(const char *dir, const char *name, dg_codegen_target tg,
                            const char *src) {
  DG_CALL(dg_fsutil_mkdir_p(dir, 0755));
  char file[128];
  snprintf(file, sizeof file, "%s.%s", name, tg == DG_CODEGEN_CUDA ? "cu" : "c");
  char *path = dg_fsutil_join(dir, file);
  DG_CHECK(path, DG_ERR_MEMORY, "out of memory");
  dg_error err = dg_fsutil_write_atomic(path, src, strlen(src), 0644);
  free(path);
  DG_CALL(err);
  return DG_OK;
}

dg_error dg_element_module_load(dg_solver *s, const char *name, dg_codegen_target tg,
                                char *src, char *(*wrap)(const char *), dg_module **mod,
                                dg_kernel **k) {
  dg_error err = DG_OK;
  if (dg_solver_dump_dir(s))
    DG_CALL_GOTO(err, done, dump_source(dg_solver_dump_dir(s), name, tg, src));
  if (wrap) {
    char *w = wrap(src);
    free(src);
    src = w;
    DG_CHECK_GOTO(err, done, src, DG_ERR_MEMORY, "out of memory");
  }
  DG_CALL_GOTO(err, done, dg_device_compile(dg_solver_device(s), name, src, NULL, 0, mod));
  DG_CALL_GOTO(err, done, dg_module_get_kernel(*mod, name, k));
done:
  free(src);
  return err;
}

dg_error dg_element_module_launch(dg_solver *s, dg_kernel *k, int64_t K_owned, int one_chunk,
                                  void **args) {
  if (K_owned <= 0)
    return DG_OK;
  dg_launch l;
  memset(&l, 0, sizeof l);
  unsigned threads = 128;
  l.grid[0] = (unsigned)((K_owned + threads - 1) / threads);
  l.grid[1] = l.grid[2] = 1;
  l.block[0] = threads;
  l.block[1] = l.block[2] = 1;
  l.items = K_owned;
  l.chunk = one_chunk ? K_owned : dg_solver_kernels(s)->cpu_chunk;
  DG_CALL(dg_kernel_launch(k, &l, args, NULL));
  return DG_OK;
}
