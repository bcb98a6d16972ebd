/* Embedded Runge–Kutta pairs in two-register (van der Houwen, 2R) form and
 * the PI step-size controller that drives them: the numerics of adaptive
 * time steps ([time] atol / rtol, issue 42 item 2), without the device.
 *
 * A pair of s stages advances u (the register of the accumulated
 * solution, acc) with a second register x of the next stage's input:
 *     x = u, acc = u
 *     for i = 0..s-1:  k = L(t + c[i]*dt, x)
 *                      err += dt*(b[i] - bhat[i])*k
 *                      i < s-1:  x = acc + dt*a[i]*k,  acc += dt*b[i]*k
 *                      i = s-1:  acc += dt*b[i]*k
 * so that stage i+1 sees u + dt*(sum_{j<i} b[j] k_j + a[i] k_i) and
 * c[i+1] = sum_{j<i} b[j] + a[i].  acc is the solution of order `order`,
 * acc - err the embedded one of order `order - 1`.  The coefficients are
 * the 2R+ schemes RK3(2)4[2R+]C and RK4(3)5[2R+]C of Kennedy, Carpenter &
 * Lewis, Appl. Numer. Math. 35 (2000) 177–219, tables 7 and 12 (the
 * rk34 / rk45 of PyFR).
 *
 * The controller is the PI controller of Gustafsson (1991) in the form
 * PyFR uses: with err the scaled error norm of the step (accepted when
 * err < 1) and p the order,
 *     fac = clamp(safety * err^(-alpha/p) * err_prev^(beta/p), min_fac, max_fac)
 *     dt_next = fac * dt,
 * err_prev the error of the last accepted step (1 at the start; errors
 * floored at 1e-10); a non-finite err counts as 100 (rejected). */
#ifndef DG_DG_TIMESTEP_EMBEDDED_H
#define DG_DG_TIMESTEP_EMBEDDED_H

#include <stdint.h>

#include "core/error.h"

enum { DG_RK_EMBEDDED_MAX_STAGES = 5 };

typedef struct dg_rk_embedded {
  const char *name; /* "rk34" or "rk45" */
  int order;        /* of the solution advanced; the embedded one is order - 1 */
  int nstages;
  double a[DG_RK_EMBEDDED_MAX_STAGES];    /* a[0..nstages-2] */
  double b[DG_RK_EMBEDDED_MAX_STAGES];    /* weights of the solution */
  double bhat[DG_RK_EMBEDDED_MAX_STAGES]; /* weights of the embedded solution */
  double c[DG_RK_EMBEDDED_MAX_STAGES];    /* stage times, from a and b */
  double e[DG_RK_EMBEDDED_MAX_STAGES];    /* b - bhat: the error estimate's weights */
} dg_rk_embedded;

/* Look up a pair by name ("rk34", "rk45"); DG_ERR_INPUT otherwise. */
dg_error dg_rk_embedded_get(const char *name, dg_rk_embedded *out);

/* The scaled error norm of a step (PyFR's "l2" errest):
 *     sqrt( (1/n) sum_i ( err_i / (atol + rtol * max(|u_old_i|, |u_new_i|)) )^2 )
 * n_total is the number of values over all ranks (sum_sq: the local sum of
 * the squares, for the caller to add over ranks before dg_rk_error_finish). */
double dg_rk_error_sum_sq(int64_t n, const double *u_old, const double *u_new, const double *err,
                          double atol, double rtol);
double dg_rk_error_finish(double sum_sq, double n_total);

/* The controller's parameters (dg_rk_pi_defaults: PyFR's alpha 0.7,
 * beta 0.4, safety 0.8, max_fac 2.5, min_fac 0.3) and its state.  The
 * state is plain data: saved and restored with a checkpoint, it continues
 * the step sequence bit for bit. */
typedef struct dg_rk_pi {
  double alpha, beta, safety, max_fac, min_fac;
  int order;
} dg_rk_pi;
typedef struct dg_rk_pi_state {
  double dt;       /* the next step to try */
  double err_prev; /* error of the last accepted step (1 at the start) */
  int64_t accepted, rejected;
} dg_rk_pi_state;

void dg_rk_pi_defaults(int order, dg_rk_pi *pi);
/* DG_ERR_INPUT unless 0 < min_fac < 1 <= max_fac, 0 < safety <= 1, order >= 1. */
dg_error dg_rk_pi_check(const dg_rk_pi *pi);
void dg_rk_pi_start(double dt0, dg_rk_pi_state *st);

/* The step to try from t towards the landing time stop: st->dt, cut to
 * land on stop exactly when it would pass it (or leave less than 1e-3 of
 * a step before it: no sliver step).  *lands says it ends on stop: the
 * caller then sets t = stop (not t + dt, which may round past it). */
double dg_rk_pi_step_size(const dg_rk_pi_state *st, double t, double stop, int *lands);

/* The outcome of a step of size dt with scaled error err: *accept when
 * err < 1; st->dt becomes the next step to try, the counters and err_prev
 * move. */
void dg_rk_pi_update(const dg_rk_pi *pi, dg_rk_pi_state *st, double dt, double err, int *accept);

#endif
