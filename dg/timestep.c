#include "dg/timestep.h"

#include <math.h>
#include <string.h>

/* A 4th-order scheme of the 2N form of n stages. */
static void set_2n(dg_rk_scheme *out, const char *name, int n, const double *a,
                   const double *b, const double *c) {
  out->kind = DG_RK_LSERK4;
  out->name = name;
  out->order = 4;
  out->nstages = n;
  memcpy(out->a, a, sizeof(double) * (size_t)n);
  memcpy(out->b, b, sizeof(double) * (size_t)n);
  memcpy(out->c, c, sizeof(double) * (size_t)n);
}

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
    set_2n(out, "lserk4", 5, a, b, c);
    return DG_OK;
  }
  if (strcmp(name, "lsrk14") == 0) {
    /* Niegemann, Diehl & Busch (2012), RK4(14), the 2N coefficients A_i,
     * B_i, c_i of their table 4 (given to 16 digits: the order conditions
     * hold to ~4e-14) */
    static const double a[14] = {
        0.0,                 -0.7188012108672410, -0.7785331173421570, -0.0053282796654044,
        -0.8552979934029281, -3.9564138245774565, -1.5780575380587385, -2.0837094552574054,
        -0.7483334182761610, -0.7032861106563359, 0.0013917096117681,  -0.0932075369637460,
        -0.9514200470875948, -7.1151571693922548};
    static const double b[14] = {
        0.0367762454319673, 0.3136296607553959, 0.1531848691869027, 0.0030097086818182,
        0.3326293790646110, 0.2440251405350864, 0.3718879239592277, 0.6204126221582444,
        0.1524043173028741, 0.0760894927419266, 0.0077604214040978, 0.0024647284755382,
        0.0780348340049386, 5.5059777270269628};
    static const double c[14] = {
        0.0,                0.0367762454319673, 0.1249685262725025, 0.2446177702277698,
        0.2476149531070420, 0.2969311120382472, 0.3978149645802642, 0.5270854589440328,
        0.6981269994175695, 0.8190890835352128, 0.8527059887098624, 0.8604711817462826,
        0.8627060376969976, 0.8734213127600976};
    set_2n(out, "lsrk14", 14, a, b, c);
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
  DG_RAISE(DG_ERR_INPUT, "unknown time scheme '%s' (choose lserk4, lsrk14 or ssprk3)",
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
   * lserk4 3.5, ssprk3 2.0, lsrk14 13, all on 3D advection at N = 1) */
  if (scheme->kind == DG_RK_SSPRK3)
    return 1.4;
  return strcmp(scheme->name, "lsrk14") == 0 ? 9.1 : 2.4;
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
