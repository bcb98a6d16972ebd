/* The step rate from the flux file's `wave_speed = expr`, computed on the
 * device (operators/gen_wave_speed.h): per owned element
 *   r_k = (N+1)^2 max_i |wave_speed(u_i, x_i, t)| / h_k + (N+1)^4 nu / h_k^2,
 * reduced to max_k r_k on the device (core/reduction.h) and over the ranks
 * (a max: exact, so the same on any number of ranks).  The time loop takes
 * dt = cfl / rate (problems/driver/run_loop_speed.c).  A NaN anywhere gives
 * NaN.
 *
 * The module is generated and compiled in dg_wave_speed_create (once: it is
 * cached like every kernel) and launched only by dg_wave_speed_rate. */
#ifndef DG_PROBLEMS_WAVE_SPEED_H
#define DG_PROBLEMS_WAVE_SPEED_H

#include "dg/discretization.h"
#include "operators/codegen.h"
#include "operators/flux.h"
#include "problems/solver/parallel.h"
#include "problems/solver/solver.h"

typedef struct dg_wave_speed dg_wave_speed;

/* The rate of prog's wave_speed (which it must declare) on the state of s
 * (disc: the solver's).  Collective over the ranks of par (NULL: serial). */
dg_error dg_wave_speed_create(dg_solver *s, const dg_discretization *disc,
                              const dg_flux_program *prog, dg_parallel *par,
                              dg_wave_speed **ws);
void dg_wave_speed_destroy(dg_wave_speed **ws);
/* max_k r_k at time t of the solver's current state with diffusivity nu
 * >= 0 (0: the advective rate only); every rank gets the same value. */
dg_error dg_wave_speed_rate(dg_wave_speed *ws, double t, double nu, double *rate);

/* Testing: the module generated for target tg (which may differ from the
 * device's) and handed through wrap, whose malloc'd result is compiled on
 * the solver's device and launched over all elements as one chunk (the
 * CUDA source run on the CPU by an emulation shim). */
dg_error dg_wave_speed_create_wrapped(dg_solver *s, const dg_discretization *disc,
                                      const dg_flux_program *prog, dg_parallel *par,
                                      dg_codegen_target tg, char *(*wrap)(const char *source),
                                      dg_wave_speed **ws);

#endif
