#include "dg/timestep_embedded.h"

#include <math.h>
#include <string.h>

/* c[i+1] = sum_{j<i} b[j] + a[i]; e = b - bhat. */
static void derive(dg_rk_embedded *rk) {
  rk->c[0] = 0;
  double sb = 0;
  for (int i = 0; i + 1 < rk->nstages; i++) {
    rk->c[i + 1] = sb + rk->a[i];
    sb += rk->b[i];
  }
  for (int i = 0; i < rk->nstages; i++)
    rk->e[i] = rk->b[i] - rk->bhat[i];
}

/* The pairs: name, order, stages, a[0..s-2], b, bhat. */
typedef struct pair {
  const char *name;
  int order, nstages;
  double a[DG_RK_EMBEDDED_MAX_STAGES], b[DG_RK_EMBEDDED_MAX_STAGES],
      bhat[DG_RK_EMBEDDED_MAX_STAGES];
} pair;

static const pair pairs[] = {
    /* RK3(2)4[2R+]C, Kennedy, Carpenter & Lewis (2000), table 7. */
    {"rk34", 3, 4,
     {11847461282814.0 / 36547543011857.0, 3943225443063.0 / 7078155732230.0,
      -346793006927.0 / 4029903576067.0},
     {1017324711453.0 / 9774461848756.0, 8237718856693.0 / 13685301971492.0,
      57731312506979.0 / 19404895981398.0, -101169746363290.0 / 37734290219643.0},
     {15763415370699.0 / 46270243929542.0, 514528521746.0 / 5659431552419.0,
      27030193851939.0 / 9429696342944.0, -69544964788955.0 / 30262026368149.0}},
    /* RK4(3)5[2R+]C, Kennedy, Carpenter & Lewis (2000), table 12. */
    {"rk45", 4, 5,
     {970286171893.0 / 4311952581923.0, 6584761158862.0 / 12103376702013.0,
      2251764453980.0 / 15575788980749.0, 26877169314380.0 / 34165994151039.0},
     {1153189308089.0 / 22510343858157.0, 1772645290293.0 / 4653164025191.0,
      -1672844663538.0 / 4480602732383.0, 2114624349019.0 / 3568978502595.0,
      5198255086312.0 / 14908931495163.0},
     {1016888040809.0 / 7410784769900.0, 11231460423587.0 / 58533540763752.0,
      -1563879915014.0 / 6823010717585.0, 606302364029.0 / 971179775848.0,
      1097981568119.0 / 3980877426909.0}},
};

dg_error dg_rk_embedded_get(const char *name, dg_rk_embedded *out) {
  memset(out, 0, sizeof *out);
  for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
    const pair *p = &pairs[i];
    if (strcmp(name, p->name) != 0)
      continue;
    out->name = p->name;
    out->order = p->order;
    out->nstages = p->nstages;
    memcpy(out->a, p->a, sizeof p->a);
    memcpy(out->b, p->b, sizeof p->b);
    memcpy(out->bhat, p->bhat, sizeof p->bhat);
    derive(out);
    return DG_OK;
  }
  DG_RAISE(DG_ERR_INPUT, "unknown embedded Runge-Kutta pair '%s' (known: rk34, rk45)", name);
}

double dg_rk_error_sum_sq(int64_t n, const double *u_old, const double *u_new, const double *err,
                          double atol, double rtol) {
  double s = 0;
  for (int64_t i = 0; i < n; i++) {
    double w = err[i] / (atol + rtol * fmax(fabs(u_old[i]), fabs(u_new[i])));
    s += w * w;
  }
  return s;
}

double dg_rk_error_finish(double sum_sq, double n_total) {
  return n_total > 0 ? sqrt(sum_sq / n_total) : 0;
}

void dg_rk_pi_defaults(int order, dg_rk_pi *pi) {
  *pi = (dg_rk_pi){.alpha = 0.7, .beta = 0.4, .safety = 0.8, .max_fac = 2.5, .min_fac = 0.3,
                   .order = order};
}

dg_error dg_rk_pi_check(const dg_rk_pi *pi) {
  DG_CHECK(pi->min_fac > 0 && pi->min_fac < 1 && pi->max_fac >= 1, DG_ERR_INPUT,
           "step-size factors min_fac = %g, max_fac = %g: need 0 < min_fac < 1 <= max_fac",
           pi->min_fac, pi->max_fac);
  DG_CHECK(pi->safety > 0 && pi->safety <= 1, DG_ERR_INPUT,
           "safety factor %g must be in (0, 1]", pi->safety);
  DG_CHECK(pi->order >= 1, DG_ERR_INPUT, "order %d must be >= 1", pi->order);
  return DG_OK;
}

void dg_rk_pi_start(double dt0, dg_rk_pi_state *st) {
  *st = (dg_rk_pi_state){.dt = dt0, .err_prev = 1.0};
}

double dg_rk_pi_step_size(const dg_rk_pi_state *st, double t, double stop, int *lands) {
  double left = stop - t;
  *lands = st->dt >= left * (1 - 1e-3);
  return *lands ? left : st->dt;
}

void dg_rk_pi_update(const dg_rk_pi *pi, dg_rk_pi_state *st, double dt, double err, int *accept) {
  if (!isfinite(err))
    err = 100;
  /* (an exact step, err = 0, grows dt by max_fac and must not make the
   * next factor 0: errors are floored at 1e-10) */
  double e = fmax(err, 1e-10), p = pi->order;
  double fac = pow(e, -pi->alpha / p) * pow(st->err_prev, pi->beta / p);
  fac = fmin(pi->max_fac, fmax(pi->min_fac, pi->safety * fac));
  st->dt = fac * dt;
  *accept = err < 1;
  if (*accept) {
    st->err_prev = e;
    st->accepted++;
  } else {
    st->rejected++;
  }
}
