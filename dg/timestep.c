#include "dg/timestep.h"

#include <math.h>
#include <string.h>

dg_error dg_rk_scheme_get(const char *name, dg_rk_scheme *out) {
  memset(out, 0, sizeof *out);
  if (strcmp(name, "lserk4") == 0) {
    /* Carpenter & Kennedy (1994), solution 3; H&W (2008) p. 64. */
    static const double a[5] = {0.0, -567301805773.0 / 1357537059087.0,
                                -2404267990393.0 / 2016746695238.0,
                                -3550918686646.0 / 2091501179385.0,
                                -1275806237668.0 / 842570457699.0};
    static const double b[5] = {1432997174477.0 / 9575080441755.0,
                                5161836677717.0 / 13612068292357.0,
                                1720146321549.0 / 2090206949498.0,
                                3134564353537.0 / 4481467310338.0,
                                2277821191437.0 / 14882151754819.0};
    static const double c[5] = {0.0, 1432997174477.0 / 9575080441755.0,
                                2526269341429.0 / 6820363962896.0,
                                2006345519317.0 / 3224310063776.0,
                                2802321613138.0 / 2924317926251.0};
    out->kind = DG_RK_LSERK4;
    out->name = "lserk4";
    out->order = 4;
    out->nstages = 5;
    memcpy(out->a, a, sizeof a);
    memcpy(out->b, b, sizeof b);
    memcpy(out->c, c, sizeof c);
    return DG_OK;
  }
  if (strcmp(name, "ssprk3") == 0) {
    /* Shu & Osher (1988): q1 = q0 + dt L(q0);
     * q2 = 3/4 q0 + 1/4 (q1 + dt L(q1)); q = 1/3 q0 + 2/3 (q2 + dt L(q2)). */
    out->kind = DG_RK_SSPRK3;
    out->name = "ssprk3";
    out->order = 3;
    out->nstages = 3;
    const double alpha[3] = {0.0, 0.75, 1.0 / 3.0};
    const double beta[3] = {1.0, 0.25, 2.0 / 3.0};
    const double c[3] = {0.0, 1.0, 0.5};
    memcpy(out->alpha, alpha, sizeof alpha);
    memcpy(out->beta, beta, sizeof beta);
    memcpy(out->c, c, sizeof c);
    return DG_OK;
  }
  DG_RAISE(DG_ERR_INPUT, "unknown time scheme '%s' (choose lserk4 or ssprk3)",
           name);
}

dg_error dg_rk_cfl_dt(double cfl, double h_min, double wave_speed, int N,
                      double *dt) {
  DG_CHECK(isfinite(cfl) && cfl > 0, DG_ERR_INPUT,
           "cfl %g must be a positive number", cfl);
  DG_CHECK(isfinite(h_min) && h_min > 0, DG_ERR_INPUT,
           "smallest element size %g must be positive", h_min);
  DG_CHECK(isfinite(wave_speed) && wave_speed > 0, DG_ERR_INPUT,
           "wave speed %g must be a positive number", wave_speed);
  DG_CHECK(N >= 1, DG_ERR_INPUT, "order %d must be >= 1", N);
  *dt = cfl * h_min / (wave_speed * (double)(N + 1) * (double)(N + 1));
  return DG_OK;
}

dg_error dg_rk_cfl_dt_diffusive(double cfl, double h_min, double wave_speed,
                                double diffusivity, int N, double *dt) {
  DG_CHECK(isfinite(diffusivity) && diffusivity >= 0, DG_ERR_INPUT,
           "diffusivity %g must be a number >= 0", diffusivity);
  DG_CALL(dg_rk_cfl_dt(cfl, h_min, wave_speed, N, dt));
  if (diffusivity == 0)
    return DG_OK;
  double n2 = (double)(N + 1) * (double)(N + 1);
  *dt = cfl / (n2 * wave_speed / h_min + n2 * n2 * diffusivity / (h_min * h_min));
  return DG_OK;
}

double dg_rk_default_cfl(const dg_rk_scheme *scheme) {
  /* 0.7 times the smallest measured limit of the scheme (problems/PROBLEM_CFG.md:
   * lserk4 3.5, ssprk3 2.0, both on 3D advection at N = 1) */
  return scheme->kind == DG_RK_SSPRK3 ? 1.4 : 2.4;
}

dg_error dg_rk_plan_steps(double t0, double t_final, double dt_max,
                          int64_t max_steps, int64_t *nsteps, double *dt) {
  DG_CHECK(isfinite(t0) && isfinite(t_final), DG_ERR_INPUT,
           "start time %g and final time %g must be finite", t0, t_final);
  DG_CHECK(t_final >= t0, DG_ERR_INPUT,
           "final time %g is before the start time %g", t_final, t0);
  DG_CHECK(isfinite(dt_max) && dt_max > 0, DG_ERR_INPUT,
           "time step %g must be a positive number", dt_max);
  double span = t_final - t0;
  if (span == 0) {
    *nsteps = 0;
    *dt = 0;
    return DG_OK;
  }
  double n = ceil(span / dt_max * (1.0 - 1e-12));
  if (n < 1)
    n = 1;
  DG_CHECK(n < 9.0e15, DG_ERR_INPUT,
           "time step %g is too small for the interval %g (%.3g steps)",
           dt_max, span, n);
  DG_CHECK(max_steps <= 0 || n <= (double)max_steps, DG_ERR_INPUT,
           "reaching t = %g with dt <= %g needs %.0f steps, more than "
           "time.max_steps = %lld",
           t_final, dt_max, n, (long long)max_steps);
  *nsteps = (int64_t)n;
  *dt = span / n;
  return DG_OK;
}
