/* The curved elements' kernels as an operator of their own (issue 40):
 * their key is the digest of the curved module (dg_autotune_curved_digest),
 * their candidates the tuning space's volume variants and face-thread
 * counts as the curved kernels take them (dg_solver_curved_config: the
 * node-per-thread work modes, the layout and fused update of the affine
 * choice), on cuda each with the fused surface and without, timed on the
 * solver itself: dg_surface_curved (where launched) + dg_volume_curved over
 * the curved elements, the affine knobs fixed (autotune_companion.h). */
#include <stdio.h>
#include <string.h>

#include "problems/solver/autotune_companion.h"

static dg_kernel_config map_curved(const dg_solver *s, const dg_kernel_config *cfg) {
  return dg_solver_curved_config(dg_solver_kernels(s), cfg);
}

dg_error dg_autotune_curved(const dg_autotune_request *q, dg_solver *s,
                            dg_autotune_outcome *out) {
  if (q->mode == DG_TUNE_OFF || dg_solver_curved_elements(s) == 0) {
    memset(out, 0, sizeof *out);
    out->cfg = *dg_solver_kernels_curved(s);
    return DG_OK;
  }
  char hex[65], what[96];
  DG_CALL(dg_autotune_curved_digest(q->disc->re, q->physics, q->disc->precision == DG_FLOAT,
                                    hex));
  snprintf(what, sizeof what, "the curved elements' kernels (%lld elements)",
           (long long)dg_solver_curved_elements(s));
  /* cuda: the fused surface and the separate one for every candidate (the
   * c kernels have one form, dg_solver_curved_load) */
  int twins = dg_device_get_info(q->dev)->backend == DG_BACKEND_CUDA;
  dg_autotune_companion c = {what,        "curved kernels",          DG_SOLVER_SURFACE_CURVED,
                             DG_SOLVER_VOLUME_CURVED, q->physics, 1, hex,
                             dg_solver_kernels_curved, dg_solver_set_kernels_curved, map_curved,
                             twins};
  DG_CALL(dg_autotune_companion_run(q, s, &c, out));
  return DG_OK;
}
