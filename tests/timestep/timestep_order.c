/* dg.timestep_order: each scheme, run in exactly the register form the
 * generated update kernel uses, integrates y' = L(y) for a rotating, decaying
 * linear system y' = A y (exact solution exp(At) y0, computed in closed form)
 * with the observed order of convergence >= its design order - 0.1; the
 * stage times c[s] are checked with a time-dependent forcing y' = cos(t). */
#include <math.h>
#include <stdio.h>

#include "dg/timestep.h"

/* A = [[-0.3, 2], [-2, -0.3]]: exp(At) = e^{-0.3t} [[cos 2t, sin 2t], [-sin 2t, cos 2t]]. */
static void L(const double *y, double t, int forced, double *out) {
  if (forced) {
    out[0] = cos(t);
    out[1] = 2 * t;
    return;
  }
  out[0] = -0.3 * y[0] + 2 * y[1];
  out[1] = -2 * y[0] - 0.3 * y[1];
}

static double run(const dg_rk_scheme *rk, int nsteps, int forced) {
  double T = 2.0, dt = T / nsteps, t = 0;
  double q[2] = {1, 0.5}, res[2] = {0, 0}, q0[2], rhs[2];
  for (int n = 0; n < nsteps; n++) {
    q0[0] = q[0];
    q0[1] = q[1];
    for (int s = 0; s < rk->nstages; s++) {
      L(q, t + rk->c[s] * dt, forced, rhs);
      for (int i = 0; i < 2; i++) {
        if (rk->kind == DG_RK_LSERK4) {
          res[i] = rk->a[s] * res[i] + dt * rhs[i];
          q[i] += rk->b[s] * res[i];
        } else {
          q[i] = rk->alpha[s] * q0[i] + rk->beta[s] * (q[i] + dt * rhs[i]);
        }
      }
    }
    t += dt;
  }
  double e0, e1;
  if (forced) {
    e0 = q[0] - (1 + sin(T));
    e1 = q[1] - (0.5 + T * T);
  } else {
    double d = exp(-0.3 * T), c = cos(2 * T), s = sin(2 * T);
    e0 = q[0] - d * (c * 1 + s * 0.5);
    e1 = q[1] - d * (-s * 1 + c * 0.5);
  }
  return sqrt(e0 * e0 + e1 * e1);
}

int main(void) {
  const char *names[] = {"lserk4", "ssprk3", "lsrk14"};
  int failures = 0;
  for (int m = 0; m < 3; m++) {
    dg_rk_scheme rk;
    if (dg_rk_scheme_get(names[m], &rk) != DG_OK)
      return 1;
    for (int forced = 0; forced < 2; forced++) {
      double e1 = run(&rk, 40, forced), e2 = run(&rk, 80, forced);
      double rate = log2(e1 / e2);
      /* Forcing cos(t), 2t: the quadrature-in-time error exposes wrong c[s];
       * a polynomial 2t is integrated exactly by any consistent scheme. */
      int ok = rate >= rk.order - 0.1 || (e1 < 1e-13 && e2 < 1e-13);
      printf("%s %s: err %.3e -> %.3e, rate %.2f (order %d) %s\n", rk.name,
             forced ? "forced" : "linear", e1, e2, rate, rk.order,
             ok ? "ok" : "FAIL");
      failures += !ok;
    }
  }
  dg_rk_scheme rk;
  if (dg_rk_scheme_get("euler", &rk) != DG_ERR_INPUT) {
    printf("unknown scheme accepted\n");
    failures++;
  }
  return failures ? 1 : 0;
}
