/* dg.timestep_plan: steps land exactly on the final time, never exceed the
 * stable dt, and bad inputs are rejected; the CFL formula scales as
 * h/(N+1)^2, with a diffusivity as 1/((N+1)^2 a/h + (N+1)^4 nu/h^2), and
 * is the advective one bit for bit at diffusivity 0 (values by hand). */
#include <math.h>
#include <stdio.h>

#include "dg/timestep.h"

int main(void) {
  int failures = 0;
  int64_t n;
  double dt;
  if (dg_rk_plan_steps(0.0, 1.0, 0.3, 0, &n, &dt) != DG_OK || n != 4 ||
      dt != 0.25) {
    printf("plan(1, 0.3): n=%lld dt=%g, want 4, 0.25\n", (long long)n, dt);
    failures++;
  }
  /* dt_max dividing the span exactly must not add a step. */
  if (dg_rk_plan_steps(0.0, 1.0, 0.1, 0, &n, &dt) != DG_OK || n != 10) {
    printf("plan(1, 0.1): n=%lld, want 10\n", (long long)n);
    failures++;
  }
  /* Summing the steps reaches t_final to round-off. */
  double t = 0.5;
  dg_rk_plan_steps(0.5, 3.7, 0.0123, 0, &n, &dt);
  for (int64_t i = 0; i < n; i++)
    t += dt;
  if (fabs(t - 3.7) > 1e-12 || dt > 0.0123) {
    printf("sum of steps %.17g, dt %g\n", t, dt);
    failures++;
  }
  if (dg_rk_plan_steps(0, 1, 0.001, 10, &n, &dt) != DG_ERR_INPUT) {
    printf("max_steps not enforced\n");
    failures++;
  }
  if (dg_rk_plan_steps(0, -1, 0.1, 0, &n, &dt) != DG_ERR_INPUT ||
      dg_rk_plan_steps(0, 1, 0, 0, &n, &dt) != DG_ERR_INPUT ||
      dg_rk_plan_steps(0, NAN, 0.1, 0, &n, &dt) != DG_ERR_INPUT) {
    printf("bad plan inputs accepted\n");
    failures++;
  }
  /* cfl 0.5, h 0.1, speed 2, N 3: 0.5*0.1/(2*16) = 0.0015625 */
  if (dg_rk_cfl_dt(0.5, 0.1, 2.0, 3, &dt) != DG_OK || fabs(dt - 0.0015625) > 1e-18) {
    printf("cfl dt %g, want 0.0015625\n", dt);
    failures++;
  }
  if (dg_rk_cfl_dt(-1, 0.1, 1, 3, &dt) != DG_ERR_INPUT) {
    printf("negative cfl accepted\n");
    failures++;
  }
  /* cfl 0.5, h 0.1, speed 2, nu 0.01, N 3: 16*2/0.1 + 256*0.01/0.01 = 320 + 256,
   * dt = 0.5/576 = 1/1152 (to a few roundings: 4e-16 relative) */
  if (dg_rk_cfl_dt_diffusive(0.5, 0.1, 2.0, 0.01, 3, &dt) != DG_OK ||
      fabs(dt - 1.0 / 1152) > 4e-16 / 1152) {
    printf("diffusive dt %.17g, want 1/1152 = %.17g\n", dt, 1.0 / 1152);
    failures++;
  }
  /* diffusion dominates: h 0.01, speed 1, nu 1, N 1: 4/0.01 + 16/1e-4 = 160400 */
  if (dg_rk_cfl_dt_diffusive(1.0, 0.01, 1.0, 1.0, 1, &dt) != DG_OK ||
      fabs(dt - 1.0 / 160400) > 4e-16 / 160400) {
    printf("diffusive dt %.17g, want 1/160400\n", dt);
    failures++;
  }
  double dt0 = 0;
  if (dg_rk_cfl_dt_diffusive(0.5, 0.1, 2.0, 0.0, 3, &dt0) != DG_OK ||
      dg_rk_cfl_dt(0.5, 0.1, 2.0, 3, &dt) != DG_OK || dt0 != dt) {
    printf("diffusivity 0: dt %.17g, the advective one %.17g\n", dt0, dt);
    failures++;
  }
  if (dg_rk_cfl_dt_diffusive(0.5, 0.1, 2.0, -1e-3, 3, &dt) != DG_ERR_INPUT ||
      dg_rk_cfl_dt_diffusive(0.5, 0.1, 2.0, NAN, 3, &dt) != DG_ERR_INPUT) {
    printf("negative or NaN diffusivity accepted\n");
    failures++;
  }
  if (!failures)
    printf("ok\n");
  return failures ? 1 : 0;
}
