/* Shock capturing's first-order twin as an operator of its own (issue 41;
 * autotune.h, autotune_companion.h): the kernels a smooth stage runs
 * (problems/solver/solver_smooth.h) take knobs of their own, since the
 * viscous kernels' choice (field-major, tuned for the gradient pass) is
 * not the first-order physics' best.  The key is the digest of the twin's
 * module marked as a twin: a file whose own first-order kernels are the
 * same module keeps its own entries, whose layout and fused update may
 * differ from what the twin shares with its solver. */
#include <string.h>

#include "core/hash.h"
#include "problems/solver/autotune_companion.h"

static dg_error twin_digest(const dg_autotune_request *q, const dg_physics *twin,
                            char hex[65]) {
  char op[65];
  DG_CALL(dg_autotune_op_digest(q->disc->re, twin, q->disc->precision == DG_FLOAT, op));
  static const char tag[] = "dgrun first-order twin of shock capturing\n";
  dg_hash h;
  dg_hash_init(&h);
  dg_hash_update(&h, tag, sizeof tag - 1);
  dg_hash_update(&h, op, 64);
  unsigned char dig[DG_HASH_SIZE];
  dg_hash_final(&h, dig);
  dg_hash_hex(dig, 32, hex);
  return DG_OK;
}

dg_error dg_autotune_smooth(const dg_autotune_request *q, dg_solver *s, int coef,
                            dg_autotune_outcome *out) {
  memset(out, 0, sizeof *out);
  out->cfg = *dg_solver_kernels(s);
  int available = 0;
  DG_CALL(dg_solver_smooth_prepare(s, coef, &available));
  if (!available)
    return DG_OK;
  out->cfg = *dg_solver_kernels_smooth(s);
  if (q->mode == DG_TUNE_OFF)
    return DG_OK;
  const dg_physics *twin = dg_solver_physics_smooth(s);
  char hex[65];
  DG_CALL(twin_digest(q, twin, hex));
  dg_autotune_companion c = {"shock capturing's first-order twin",
                             "first-order twin",
                             DG_SOLVER_SURFACE_SMOOTH,
                             DG_SOLVER_VOLUME_SMOOTH,
                             twin,
                             0,
                             hex,
                             dg_solver_kernels_smooth,
                             dg_solver_set_kernels_smooth,
                             dg_solver_smooth_config,
                             0};
  DG_CALL(dg_autotune_companion_run(q, s, &c, out));
  return DG_OK;
}
