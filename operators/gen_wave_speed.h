/* Kernel family: dg_wave_speed, the time step's rate from the flux file's
 * `wave_speed = expr` (gen_wave_speed.c): a module of its own, compiled
 * beside dg_operators and launched every [time] dt_interval steps, never
 * part of a right-hand side.
 *
 * Per owned element k it evaluates lambda = |wave_speed| at every volume
 * node (the state there: the nodal values, or for a Bernstein-Bezier state
 * its values through VB) and writes
 *   out[k] = (N+1)^2 * max_i lambda_i / h_k + (N+1)^4 * nu / h_k^2
 * the element's step rate: the advective CFL limit h/((N+1)^2 lambda) and
 * the diffusive one h^2/((N+1)^4 nu) added as rates (Hesthaven & Warburton
 * 2008, sec. 4.8 and ch. 7; dg/timestep.h).  max_k out[k] over the elements
 * and the ranks gives dt = cfl / max.  A NaN anywhere is kept (a blown-up
 * state gives a NaN rate, not a silent step).
 *
 * Arguments (args[i] points at the value, both backends):
 *   (q, vx, hk, VB, t, nu, K, K_owned, out, cf)
 * q the state (device layout, sreal), vx the node coordinates
 * vx[(d*K + k)*NP_PAD + i] (sreal), hk[k] the element size (double,
 * dg_discretization's h), VB the NP x NP row-major Bernstein Vandermonde
 * (double; read only for a Bernstein-Bezier state), t and nu double, K
 * (the state's stride) and K_owned long long, out double, cf the
 * coefficients (sreal, as the state; read only with ncoef > 0).  cuda: one
 * thread per element, K_owned threads.  All arithmetic is in double. */
#ifndef DG_OPERATORS_GEN_WAVE_SPEED_H
#define DG_OPERATORS_GEN_WAVE_SPEED_H

#include "core/strbuf.h"
#include "operators/codegen.h"

typedef struct dg_wave_speed_spec {
  int dim, N, Np, np_pad;
  dg_field_layout layout; /* of the state */
  int state_float;        /* q, vx and cf hold floats */
  int bernstein;          /* q and cf hold Bernstein-Bezier coefficients */
  const dg_physics *ph;   /* fields, lets, params and coefficients the expression uses */
  const dg_flux_node *speed; /* the checked `wave_speed` expression */
} dg_wave_speed_spec;

/* The whole dg_wave_speed module for target tg into *source (malloc'd). */
dg_error dg_gen_wave_speed(dg_codegen_target tg, const dg_wave_speed_spec *spec, char **source);

#endif
