/* Embedded Runge–Kutta steps on the device (embedded.h).  Per stage i of
 * the 2R pair (dg/timestep_embedded.h), with k = L(t + c_i dt, q) in the
 * solver's right-hand-side register R:
 *     err += dt e_i k;   q = acc + dt a_i k;   acc += dt b_i k
 * one elementwise kernel; in the last stage a_i is replaced by b_i, so the
 * kernel writes q = acc + dt b_i k, the same expression (the same bits) as
 * the new acc: the solver's state is the solution of the step without a
 * copy.  The scaled error norm (PyFR's l2 errest, Kennedy et al. 2000 eq.
 * (5)) is one sum reduction over the owned logical values. */
#include "problems/solver/embedded.h"

#include <stdio.h>
#include <stdlib.h>

#include "core/elementwise.h"
#include "core/reduction.h"
#include "problems/solver/shock.h"
#include "problems/solver/solver_private.h"

struct dg_embedded {
  dg_solver *s;
  void *u0, *acc, *err;
  dg_elementwise *k_start, *k_stage, *k_zero;
  dg_reduction *norm;
};

/* The kernels' text: name, signature and operation (or map) of kernel
 * which (DG_EMBEDDED_*), for real type rt. */
typedef struct spec {
  char name[64], sig[256], op[1024];
} spec;

/* sum over logical value i = (c K_owned + k) Np + j (element-major:
 * (k ncomp + c) Np + j) of (err / (atol + rtol max(|u0|, |q|)))^2 at
 * device index (g / A) B + (g % A) np_pad + j, g = i / Np */
#define IX "((i / np) / A * B + (i / np) % A * np_pad + i % np)"
#define W                                                                                     \
  "((double)err[" IX "] / (atol + rtol * fmax(fabs((double)u0[" IX "]), fabs((double)q[" IX  \
  "]))))"
static const char norm_map[] = W " * " W;
#undef W
#undef IX

static void kernel_spec(int which, int is_float, spec *k) {
  const char *rt = is_float ? "float" : "double";
  switch (which) {
  case DG_EMBEDDED_START: /* u0 = acc = q, err = 0 */
    snprintf(k->name, sizeof k->name, "rk_embedded_start_%s", rt);
    snprintf(k->sig, sizeof k->sig, "%s *u0, %s *acc, %s *err, const %s *q", rt, rt, rt, rt);
    snprintf(k->op, sizeof k->op, "u0[i] = q[i]; acc[i] = q[i]; err[i] = 0");
    break;
  case DG_EMBEDDED_STAGE: /* one stage: ea, aa, ba = dt e_i, dt a_i, dt b_i (in double) */
    snprintf(k->name, sizeof k->name, "rk_embedded_stage_%s", rt);
    snprintf(k->sig, sizeof k->sig,
             "%s *q, %s *acc, %s *err, const %s *k, double ea, double aa, double ba", rt, rt,
             rt, rt);
    snprintf(k->op, sizeof k->op,
             "const double r = (double)k[i]; const double a0 = (double)acc[i]; "
             "err[i] = (%s)((double)err[i] + ea * r); q[i] = (%s)(a0 + aa * r); "
             "acc[i] = (%s)(a0 + ba * r)",
             rt, rt, rt);
    break;
  case DG_EMBEDDED_ZERO:
    snprintf(k->name, sizeof k->name, "rk_embedded_zero_%s", rt);
    snprintf(k->sig, sizeof k->sig, "%s *x", rt);
    snprintf(k->op, sizeof k->op, "x[i] = 0");
    break;
  default: /* DG_EMBEDDED_NORM */
    snprintf(k->name, sizeof k->name, "rk_embedded_norm_%s", rt);
    snprintf(k->sig, sizeof k->sig,
             "const %s *err, const %s *u0, const %s *q, double atol, double rtol, int64_t np, "
             "int64_t A, int64_t B, int64_t np_pad",
             rt, rt, rt);
    snprintf(k->op, sizeof k->op, "%s", norm_map);
    break;
  }
}

dg_error dg_embedded_kernel_source(int which, int is_float, int cuda, dg_strbuf *out) {
  spec k;
  kernel_spec(which, is_float, &k);
  if (which == DG_EMBEDDED_NORM)
    return dg_reduction_emit_source(k.name, k.sig, k.op, DG_REDUCE_SUM, 0.0, cuda, out);
  return dg_elementwise_emit_source(k.name, k.sig, k.op, cuda, out);
}

static dg_error kernels(dg_embedded *e) {
  dg_solver *s = e->s;
  dg_elementwise **ew[] = {&e->k_start, &e->k_stage, &e->k_zero};
  spec k;
  for (int w = 0; w < 3; w++) {
    kernel_spec(w, s->rs == 4, &k);
    DG_CALL(dg_elementwise_create(s->dev, k.name, k.sig, k.op, ew[w]));
  }
  kernel_spec(DG_EMBEDDED_NORM, s->rs == 4, &k);
  DG_CALL(dg_reduction_create(s->dev, k.name, k.sig, k.op, DG_REDUCE_SUM, 0.0, &e->norm));
  return DG_OK;
}

dg_error dg_embedded_create(dg_solver *s, dg_embedded **out) {
  *out = NULL;
  dg_embedded *e = calloc(1, sizeof *e);
  DG_CHECK(e, DG_ERR_MEMORY, "out of memory");
  e->s = s;
  size_t bytes = (size_t)s->n_state * s->rs;
  dg_error err = dg_device_malloc(s->dev, bytes, &e->u0);
  if (err == DG_OK)
    err = dg_device_malloc(s->dev, bytes, &e->acc);
  if (err == DG_OK)
    err = dg_device_malloc(s->dev, bytes, &e->err);
  if (err == DG_OK)
    err = kernels(e);
  if (err != DG_OK) {
    dg_embedded_destroy(&e);
    return err;
  }
  *out = e;
  return DG_OK;
}

void dg_embedded_destroy(dg_embedded **ep) {
  if (!ep || !*ep)
    return;
  dg_embedded *e = *ep;
  dg_device_free(e->s->dev, e->u0);
  dg_device_free(e->s->dev, e->acc);
  dg_device_free(e->s->dev, e->err);
  dg_elementwise_destroy(&e->k_start);
  dg_elementwise_destroy(&e->k_stage);
  dg_elementwise_destroy(&e->k_zero);
  dg_reduction_destroy(&e->norm);
  free(e);
  *ep = NULL;
}

static dg_error error_norm(dg_embedded *e, double atol, double rtol, double *sum_sq,
                           double *count) {
  dg_solver *s = e->s;
  const dg_opdata *od = s->od;
  int64_t n = (int64_t)od->ncomp * od->K_owned * od->Np;
  /* field-major: g = c K_owned + k at (c K + k) np_pad; element-major:
   * g = k ncomp + c at g np_pad (A past every g) */
  int64_t A = od->element_major ? n + 1 : od->K_owned;
  int64_t B = od->element_major ? 0 : od->K * od->np_pad;
  *count = (double)n;
  *sum_sq = 0;
  if (n == 0)
    return DG_OK;
  DG_CALL(dg_reduction_call(
      e->norm, n,
      (dg_arg[]){DG_ARG_POINTER(e->err), DG_ARG_POINTER(e->u0), DG_ARG_POINTER(s->q),
                 DG_ARG_REAL(atol), DG_ARG_REAL(rtol), DG_ARG_INT(od->Np), DG_ARG_INT(A),
                 DG_ARG_INT(B), DG_ARG_INT(od->np_pad)},
      sum_sq));
  return DG_OK;
}

dg_error dg_embedded_step(dg_embedded *e, const dg_rk_embedded *rk, double t, double dt,
                          double atol, double rtol, double *sum_sq, double *count) {
  dg_solver *s = e->s;
  int64_t n = s->n_state;
  DG_CALL(dg_elementwise_call(e->k_start, n,
                              (dg_arg[]){DG_ARG_POINTER(e->u0), DG_ARG_POINTER(e->acc),
                                         DG_ARG_POINTER(e->err), DG_ARG_POINTER(s->q)}));
  for (int i = 0; i < rk->nstages; i++) {
    /* fused update: the volume kernel with a = b = 0, dt = 1 leaves
     * res = L(q) and q unchanged (it may move it: s->q is read after) */
    int fused = s->cfg.fuse_update;
    DG_CALL(dg_solver_eval_rhs(s, t + rk->c[i] * dt, 0.0, 0.0, fused ? 1.0 : 0.0));
    double a = i + 1 < rk->nstages ? rk->a[i] : rk->b[i];
    DG_CALL(dg_elementwise_call(
        e->k_stage, n,
        (dg_arg[]){DG_ARG_POINTER(s->q), DG_ARG_POINTER(e->acc), DG_ARG_POINTER(e->err),
                   DG_ARG_POINTER(fused ? s->res : s->rhs), DG_ARG_REAL(dt * rk->e[i]),
                   DG_ARG_REAL(dt * a), DG_ARG_REAL(dt * rk->b[i])}));
    if (s->shock)
      DG_CALL(dg_shock_limit(s->shock, s->q));
    s->timings.rhs_evaluations++;
  }
  DG_CALL(error_norm(e, atol, rtol, sum_sq, count));
  return DG_OK;
}

dg_error dg_embedded_restore(dg_embedded *e) {
  dg_solver *s = e->s;
  DG_CALL(dg_device_copy(s->dev, s->q, e->u0, (size_t)s->n_state * s->rs));
  /* the fused update reads res (0 * res): a failed step's NaN must not
   * stay in it */
  if (s->cfg.fuse_update)
    DG_CALL(dg_elementwise_call(e->k_zero, s->n_state, (dg_arg[]){DG_ARG_POINTER(s->res)}));
  return DG_OK;
}
