#include "tuning/tune_prune.h"

#include <stdio.h>

int dg_tune_prune(const dg_kernel_attributes *a, unsigned threads, unsigned dynamic_shared,
                  const dg_device_info *info, char *why, size_t n) {
  if (a->local_bytes > DG_TUNE_MAX_LOCAL_BYTES) {
    snprintf(why, n, "spills: %d bytes of local memory per thread (> %d)", a->local_bytes,
             DG_TUNE_MAX_LOCAL_BYTES);
    return 1;
  }
  if (a->max_threads_per_block > 0 && threads > (unsigned)a->max_threads_per_block) {
    snprintf(why, n, "%u threads per block > %d allowed with %d registers", threads,
             a->max_threads_per_block, a->num_regs);
    return 1;
  }
  /* 64K 32-bit registers per SM on every GPU since Kepler */
  if ((long)a->num_regs * threads > 65536) {
    snprintf(why, n, "%d registers x %u threads exceed the register file", a->num_regs,
             threads);
    return 1;
  }
  int limit = info->max_shared_per_block_optin > 0 ? info->max_shared_per_block_optin
                                                    : info->max_shared_per_block;
  if (info->backend == DG_BACKEND_CUDA && limit > 0 &&
      (long)a->shared_bytes_static + dynamic_shared > limit) {
    snprintf(why, n, "%u + %d bytes of shared memory > %d", dynamic_shared,
             a->shared_bytes_static, limit);
    return 1;
  }
  return 0;
}
