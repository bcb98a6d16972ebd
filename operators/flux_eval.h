/* Host-side evaluation of checked flux expressions at one point: initial
 * conditions, exact solutions and sources for given x, t, and any
 * pointwise node (fluxes, boundary values, surface forms) given the states.
 * This is the reference the generated kernels are tested against, and what
 * sets initial conditions on the host. */
#ifndef DG_OPERATORS_FLUX_EVAL_H
#define DG_OPERATORS_FLUX_EVAL_H

#include "operators/flux.h"

/* What a pointwise expression may read.  Pointers may be NULL where the
 * expression does not need them (reading one that is NULL is DG_ERR_ARG). */
typedef struct dg_flux_point {
  const double *x;     /* dim coordinates */
  double t;
  const double *n;     /* outward unit normal (faces) */
  const double *u;     /* state at a volume node: dg_flux_state_size values */
  const double *u_int; /* interior trace state */
  const double *u_ext; /* exterior trace state */
  const double *c;     /* coefficients at the volume node: dg_flux_coef_count values */
  const double *c_int; /* their interior traces (the element's own values at the face node) */
  const double *c_ext; /* their exterior traces (the neighbour's; on a boundary face the
                          interior values again, as the kernels' fcf) */
  const double *q;     /* lifted gradients at the volume node: [j*dim + d] for gradient j
                          (dg_flux_gradient_count * dim values) */
  const double *q_int; /* their interior traces */
  const double *q_ext; /* their exterior traces */
  double ldgb;         /* the face's LDG switch beta_n (DG_FLUX_LDGB) */
} dg_flux_point;

/* Evaluate node at pt into out[0..size) (the node's components, flattened
 * row by row for a matrix); nout must be at least that.  Comparisons and
 * && || ! give 1 or 0; `c ? a : b` takes a when c != 0.  Derivatives
 * cannot be evaluated pointwise (DG_ERR_ARG). */
dg_error dg_flux_eval(const dg_flux_program *prog, const dg_flux_node *node,
                      const dg_flux_point *pt, double *out, int nout);

/* Field `field`'s initial condition / exact solution / source at (x, t)
 * into out[0..ncomp).  No exact solution: DG_ERR_INPUT; no source: zeros. */
dg_error dg_flux_eval_initial(const dg_flux_program *prog, int field, const double *x,
                              double t, double *out);
dg_error dg_flux_eval_exact(const dg_flux_program *prog, int field, const double *x,
                            double t, double *out);
dg_error dg_flux_eval_source(const dg_flux_program *prog, int field, const double *x,
                             double t, double *out);

/* All fields' initial condition at (x, t) into u[0..state_size). */
dg_error dg_flux_eval_initial_state(const dg_flux_program *prog, const double *x, double t,
                                    double *u);

#endif
