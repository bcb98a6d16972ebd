/* Explicit Runge–Kutta schemes for du/dt = L(u), and the step-size rules.
 *
 * Both schemes are written in the two-register, low-storage form the
 * generated update kernel uses: for stage s = 0..nstages-1
 *     res = a[s]*res + dt*L(q)        (res is the scheme's second register)
 *     q   = q + b[s]*res
 * with t_stage = t + c[s]*dt.  LSERK4 is Carpenter & Kennedy (1994), the
 * 5-stage 4th-order scheme of Hesthaven & Warburton (2008) eq. (3.6).
 * LSRK14 (kind DG_RK_LSERK4: the same 2N form) is the 14-stage 4th-order
 * scheme RK4(14) of Niegemann, Diehl & Busch, J. Comput. Phys. 231 (2012)
 * 364-372, table 4, whose stability region is optimised for the spectra of
 * DG operators (issue 42 item 3): 2.8 times the stages of LSERK4 for a
 * larger step per stage on DG advection (problems/PROBLEM_CFG.md).
 * SSP-RK3 (Shu & Osher 1988) is not a 2N-storage scheme in this form, so it
 * is described by its Shu–Osher coefficients instead:
 *     q_s = alpha[s]*q0 + beta[s]*(q_{s-1} + dt*L(q_{s-1}))
 * where q0 is the state at the start of the step. */
#ifndef DG_DG_TIMESTEP_H
#define DG_DG_TIMESTEP_H

#include <stdint.h>

#include "core/error.h"

typedef enum { DG_RK_LSERK4 = 0, DG_RK_SSPRK3 = 1 } dg_rk_kind;

enum { DG_RK_MAX_STAGES = 14 };

typedef struct dg_rk_scheme {
  dg_rk_kind kind;
  const char *name; /* "lserk4", "lsrk14" or "ssprk3" */
  int order;
  int nstages;
  /* LSERK4: a, b, c.  SSPRK3: alpha, beta, c. */
  double a[DG_RK_MAX_STAGES], b[DG_RK_MAX_STAGES], c[DG_RK_MAX_STAGES];
  double alpha[DG_RK_MAX_STAGES], beta[DG_RK_MAX_STAGES];
} dg_rk_scheme;

/* Look up a scheme by name ("lserk4", "lsrk14", "ssprk3"); DG_ERR_INPUT otherwise. */
dg_error dg_rk_scheme_get(const char *name, dg_rk_scheme *out);

/* Stable step from the CFL condition for nodal DG on simplices:
 *     dt = cfl * h_min / (wave_speed * (N+1)^2)
 * where h_min is the smallest element length scale (for simplices the
 * ratio J / max(sJ) over the element's faces, i.e. about the inradius; see
 * dg/discretization.h), and (N+1)^2 reflects the O(N^-2) clustering of the
 * nodes near element edges (Hesthaven & Warburton 2008, sec. 4.8). */
dg_error dg_rk_cfl_dt(double cfl, double h_min, double wave_speed, int N,
                      double *dt);

/* The same with second-order terms of largest diffusion coefficient
 * diffusivity >= 0 (nu of u_t = nu lap u; for Navier-Stokes the larger of
 * mu/rho and gamma mu/(Pr rho)):
 *     dt = cfl / ((N+1)^2 wave_speed / h_min + (N+1)^4 diffusivity / h_min^2)
 * The advective limit h/((N+1)^2 a) adds, as rates, to the diffusive one
 * h^2/((N+1)^4 nu): the spectral radius of the DG Laplacian grows as
 * (N+1)^4/h^2, so explicit stepping of diffusion needs dt = O(h^2/N^4)
 * (Hesthaven & Warburton 2008, ch. 7, sec. 7.1 on the heat equation).  diffusivity = 0 is
 * dg_rk_cfl_dt exactly (bit for bit). */
dg_error dg_rk_cfl_dt_diffusive(double cfl, double h_min, double wave_speed,
                                double diffusivity, int N, double *dt);

/* The default cfl of a scheme for dt = cfl / max_k ((N+1)^2 lambda_k / h_k)
 * with the computed wave speed: the smallest largest-stable cfl measured
 * over N = 1..4 on advection (2D, 3D) and the Euler vortex on simplices,
 * times 0.7 (the table is in problems/PROBLEM_CFG.md): lserk4 2.4, lsrk14
 * 9.1, ssprk3 1.4. */
double dg_rk_default_cfl(const dg_rk_scheme *scheme);

/* Split [t0, t_final] into steps of at most dt_max that land exactly on
 * t_final: nsteps = ceil((t_final - t0)/dt_max), dt = (t_final-t0)/nsteps,
 * so all steps are equal and the last one ends on t_final (no round-off
 * sliver step).  DG_ERR_INPUT for dt_max <= 0, t_final < t0, non-finite
 * values, or more than max_steps steps (max_steps <= 0: no limit). */
dg_error dg_rk_plan_steps(double t0, double t_final, double dt_max,
                          int64_t max_steps, int64_t *nsteps, double *dt);

#endif
