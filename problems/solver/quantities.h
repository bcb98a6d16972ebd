/* The run's scalar quantities, computed on the device by element
 * quadrature (operators/gen_quadrature.h): for each field with an exact
 * solution its L2 error (name "l2_<field>") and its max nodal error
 * ("max_<field>"); then each integral the flux file declares
 * (`integral mass = rho`), in declaration order, named as declared.
 *
 * The L2 error is sqrt(sum_k sum_p w_p J_k |u_h(x_p) - u(x_p, t)|^2) over
 * the points x_p of a collapsed Gauss-Jacobi rule exact for degree 2N + 2
 * (dg/cubature.h), the exact solution evaluated at those points: the
 * error of the discrete solution itself, not of the exact solution's
 * interpolant.  An integral is sum_k sum_p w_p J_k f(u_h(x_p), x_p, t).
 * The max error is over the nodes (and components).  Per-rank sums and
 * maxima are combined over the ranks; a NaN anywhere gives NaN.
 *
 * The module is generated and compiled in dg_quantities_create (once: it
 * is cached like every kernel) and launched only by dg_quantities_eval,
 * never by a time step. */
#ifndef DG_PROBLEMS_QUANTITIES_H
#define DG_PROBLEMS_QUANTITIES_H

#include "dg/discretization.h"
#include "operators/codegen.h"
#include "operators/flux.h"
#include "problems/solver/parallel.h"
#include "problems/solver/solver.h"

typedef struct dg_quantities dg_quantities;

/* The quantities of prog on the state of s (disc: the solver's).  Collective
 * over the ranks of par (NULL: serial): every rank gets the same values. */
dg_error dg_quantities_create(dg_solver *s, const dg_discretization *disc,
                              const dg_flux_program *prog, dg_parallel *par,
                              dg_quantities **q);
void dg_quantities_destroy(dg_quantities **q);
int dg_quantities_count(const dg_quantities *q);
const char *dg_quantities_name(const dg_quantities *q, int i);
/* values[dg_quantities_count(q)] at time t of the solver's current state */
dg_error dg_quantities_eval(dg_quantities *q, double t, double *values);
/* fields without an exact solution (for "no exact solution: rho, m" lines):
 * up to max names into names, returns how many there are */
int dg_quantities_fields_without_exact(const dg_quantities *q, const char **names, int max);
/* The degree the rule integrates exactly (2N + 2), for output labels. */
int dg_quantities_degree(const dg_quantities *q);

/* Testing: the module generated for target tg (which may differ from the
 * device's) and handed through wrap, whose malloc'd result is compiled on
 * the solver's device and launched over all elements as one chunk; the
 * CUDA source run on the CPU by an emulation shim. */
dg_error dg_quantities_create_wrapped(dg_solver *s, const dg_discretization *disc,
                                      const dg_flux_program *prog, dg_parallel *par,
                                      dg_codegen_target tg, char *(*wrap)(const char *source),
                                      dg_quantities **q);

#endif
