/* dg.timestep_embedded: the embedded pairs rk34 / rk45 and the PI
 * controller (dg/timestep_embedded.h).
 *  - The Butcher tableau the 2R registers amount to (A[i][j] = b[j] for
 *    j < i-1, A[i][i-1] = a[i-1]) satisfies the order conditions of the
 *    solution up to its order and of the embedded one up to order - 1 (the
 *    rooted-tree values 1, 1/2, 1/3, 1/6, 1/4, 1/8, 1/12, 1/24; Hairer,
 *    Norsett & Wanner I, table II.2.2), to 1e-12 (the coefficients are
 *    ratios of 14-digit integers: the conditions hold to about 1e-14).
 *  - Run in exactly the register form of the header with fixed steps on
 *    y' = A y (a rotating, decaying system, exact solution in closed form),
 *    the solution converges at its order and the embedded one at order - 1
 *    (observed rates >= design - 0.1).
 *  - Adaptive on the same system: the global error follows the tolerance
 *    (at most 10 * tol and shrinking with it over 1e-3..1e-9), every
 *    landing time (multiples of 0.25) is hit exactly, a far too large
 *    step is rejected, counted and cut by min_fac (a NaN error counts as
 *    err = 100), and the run continued from the controller state saved at
 *    t = 1 ends bitwise equal to the uninterrupted one (same steps, counts). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dg/timestep_embedded.h"
#include "tests/expect.h"

static void L(const double *y, double *out) {
  out[0] = -0.3 * y[0] + 2 * y[1];
  out[1] = -2 * y[0] - 0.3 * y[1];
}

static void exact(double t, double *y) {
  double d = exp(-0.3 * t), c = cos(2 * t), s = sin(2 * t);
  y[0] = d * (c * 1 + s * 0.5);
  y[1] = d * (-s * 1 + c * 0.5);
}

/* One step in the register form of the header: u becomes the solution,
 * err the difference to the embedded one. */
static void step(const dg_rk_embedded *rk, double *u, double dt, double *err) {
  double x[2] = {u[0], u[1]}, k[2];
  err[0] = err[1] = 0;
  for (int i = 0; i < rk->nstages; i++) {
    L(x, k);
    for (int j = 0; j < 2; j++) {
      err[j] += dt * rk->e[i] * k[j];
      if (i + 1 < rk->nstages)
        x[j] = u[j] + dt * rk->a[i] * k[j];
      u[j] += dt * rk->b[i] * k[j];
    }
  }
}

static void order_conditions(const dg_rk_embedded *rk) {
  int s = rk->nstages;
  double A[5][5] = {{0}}, c[5];
  for (int i = 1; i < s; i++) {
    for (int j = 0; j + 1 < i; j++)
      A[i][j] = rk->b[j];
    A[i][i - 1] = rk->a[i - 1];
  }
  for (int i = 0; i < s; i++) {
    c[i] = 0;
    for (int j = 0; j < s; j++)
      c[i] += A[i][j];
    EXPECT(fabs(c[i] - rk->c[i]) < 1e-14, "%s: c[%d] = %.17g, row sum %.17g", rk->name, i,
           rk->c[i], c[i]);
  }
  double Ac[5], Acc[5], AAc[5];
  for (int i = 0; i < s; i++) {
    Ac[i] = Acc[i] = 0;
    for (int j = 0; j < s; j++) {
      Ac[i] += A[i][j] * c[j];
      Acc[i] += A[i][j] * c[j] * c[j];
    }
  }
  for (int i = 0; i < s; i++) {
    AAc[i] = 0;
    for (int j = 0; j < s; j++)
      AAc[i] += A[i][j] * Ac[j];
  }
  const double *w[2] = {rk->b, rk->bhat};
  for (int m = 0; m < 2; m++) {
    int p = rk->order - m;
    double v[8] = {0}, want[8] = {1, 0.5, 1.0 / 3, 1.0 / 6, 0.25, 0.125, 1.0 / 12, 1.0 / 24};
    int order_of[8] = {1, 2, 3, 3, 4, 4, 4, 4};
    for (int i = 0; i < s; i++) {
      v[0] += w[m][i];
      v[1] += w[m][i] * c[i];
      v[2] += w[m][i] * c[i] * c[i];
      v[3] += w[m][i] * Ac[i];
      v[4] += w[m][i] * c[i] * c[i] * c[i];
      v[5] += w[m][i] * c[i] * Ac[i];
      v[6] += w[m][i] * Acc[i];
      v[7] += w[m][i] * AAc[i];
    }
    for (int q = 0; q < 8; q++)
      if (order_of[q] <= p)
        EXPECT(fabs(v[q] - want[q]) < 1e-12, "%s %s: order condition %d = %.15g, want %.15g",
               rk->name, m ? "bhat" : "b", q, v[q], want[q]);
  }
}

static void fixed_order(const dg_rk_embedded *rk) {
  double e[2][3];
  for (int l = 0; l < 3; l++) {
    int n = 20 << l;
    double dt = 2.0 / n, u[2] = {1, 0.5}, uh[2] = {1, 0.5}, err[2], y[2];
    for (int s = 0; s < n; s++)
      step(rk, u, dt, err);
    for (int s = 0; s < n; s++) { /* the embedded solution advanced on its own */
      double v[2] = {uh[0], uh[1]};
      step(rk, v, dt, err);
      uh[0] = v[0] - err[0];
      uh[1] = v[1] - err[1];
    }
    exact(2.0, y);
    e[0][l] = hypot(u[0] - y[0], u[1] - y[1]);
    e[1][l] = hypot(uh[0] - y[0], uh[1] - y[1]);
  }
  for (int m = 0; m < 2; m++)
    for (int l = 1; l < 3; l++) {
      double rate = log2(e[m][l - 1] / e[m][l]);
      printf("%s %s: n = %d error %.3e rate %.3f\n", rk->name, m ? "embedded" : "solution",
             20 << l, e[m][l], rate);
      EXPECT(rate >= rk->order - m - 0.1, "%s %s: rate %.3f, want %d", rk->name,
             m ? "embedded" : "solution", rate, rk->order - m);
    }
}

/* Adaptive from t0 (state u, controller st) to T, landing on every multiple
 * of 0.25; returns the number of landings missed (t != stop bitwise). */
static int adaptive(const dg_rk_embedded *rk, const dg_rk_pi *pi, double tol, double t0,
                    double T, double *u, dg_rk_pi_state *st) {
  int missed = 0;
  double t = t0;
  while (t < T) {
    double stop = fmin(T, (floor(t / 0.25 + 1e-9) + 1) * 0.25);
    while (t < stop) {
      int lands, accept;
      double dt = dg_rk_pi_step_size(st, t, stop, &lands), v[2] = {u[0], u[1]}, err[2];
      step(rk, v, dt, err);
      double sq = dg_rk_error_sum_sq(2, u, v, err, tol, tol);
      dg_rk_pi_update(pi, st, dt, dg_rk_error_finish(sq, 2), &accept);
      if (!accept)
        continue;
      u[0] = v[0];
      u[1] = v[1];
      t = lands ? stop : t + dt;
    }
    missed += t != stop;
  }
  return missed;
}

static void adaptive_tests(const dg_rk_embedded *rk) {
  dg_rk_pi pi;
  dg_rk_pi_defaults(rk->order, &pi);
  MUST(dg_rk_pi_check(&pi));
  double prev = INFINITY;
  for (double tol = 1e-3; tol > 1e-10; tol *= 0.01) {
    dg_rk_pi_state st;
    dg_rk_pi_start(0.25, &st);
    double u[2] = {1, 0.5}, y[2];
    int missed = adaptive(rk, &pi, tol, 0, 2.0, u, &st);
    exact(2.0, y);
    double e = hypot(u[0] - y[0], u[1] - y[1]);
    printf("%s tol %.0e: error %.3e, %lld accepted, %lld rejected\n", rk->name, tol, e,
           (long long)st.accepted, (long long)st.rejected);
    EXPECT(missed == 0, "%s: %d landing times missed", rk->name, missed);
    EXPECT(e <= 10 * tol && e < prev * 0.5, "%s tol %g: error %.3e (before: %.3e)", rk->name,
           tol, e, prev);
    prev = e;
  }
  /* a step far too large for the tolerance is rejected, counted, and the
   * next try is min_fac times it (the factor clamped) */
  {
    dg_rk_pi_state st;
    dg_rk_pi_start(0.25, &st);
    int lands, accept;
    double u[2] = {1, 0.5}, v[2] = {1, 0.5}, err[2];
    double dt = dg_rk_pi_step_size(&st, 0, 0.25, &lands);
    step(rk, v, dt, err);
    dg_rk_pi_update(&pi, &st, dt, dg_rk_error_finish(dg_rk_error_sum_sq(2, u, v, err, 1e-12, 0), 2),
                    &accept);
    EXPECT(lands && dt == 0.25 && !accept && st.rejected == 1 && st.accepted == 0 &&
               st.dt == 0.3 * 0.25 && st.err_prev == 1.0,
           "%s: rejection: lands %d dt %g accept %d rejected %lld next %g", rk->name, lands, dt,
           accept, (long long)st.rejected, st.dt);
    dg_rk_pi_update(&pi, &st, 0.1, NAN, &accept);
    /* (counted as err = 100: fac = 0.8 * 100^(-0.7/p), err_prev still 1) */
    double want = 0.1 * fmax(0.3, 0.8 * pow(100.0, -0.7 / rk->order));
    EXPECT(!accept && st.rejected == 2 && fabs(st.dt - want) < 1e-15,
           "%s: a NaN error: accept %d, next %.17g, want %.17g", rk->name, accept, st.dt, want);
  }
  /* restart: the state and controller at t = 1 continue bit for bit */
  dg_rk_pi_state a, b;
  double ua[2] = {1, 0.5}, ub[2] = {1, 0.5};
  dg_rk_pi_start(0.1, &a);
  dg_rk_pi_start(0.1, &b);
  adaptive(rk, &pi, 1e-6, 0, 2.0, ua, &a);
  adaptive(rk, &pi, 1e-6, 0, 1.0, ub, &b);
  dg_rk_pi_state saved = b;
  double us[2] = {ub[0], ub[1]};
  adaptive(rk, &pi, 1e-6, 1.0, 2.0, us, &saved);
  EXPECT(memcmp(ua, us, sizeof ua) == 0 && a.accepted == saved.accepted &&
             a.rejected == saved.rejected && a.dt == saved.dt,
         "%s: the run continued at t = 1 differs from the uninterrupted one", rk->name);
}

int main(void) {
  const char *names[] = {"rk34", "rk45"};
  for (int m = 0; m < 2; m++) {
    dg_rk_embedded rk;
    MUST(dg_rk_embedded_get(names[m], &rk));
    order_conditions(&rk);
    fixed_order(&rk);
    adaptive_tests(&rk);
  }
  dg_rk_embedded bad;
  EXPECT(dg_rk_embedded_get("rk99", &bad) == DG_ERR_INPUT);
  dg_rk_pi pi;
  dg_rk_pi_defaults(3, &pi);
  pi.min_fac = 1.5;
  EXPECT(dg_rk_pi_check(&pi) == DG_ERR_INPUT);
  dg_error_clear();
  return expect_finish();
}
