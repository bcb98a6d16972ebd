/* The run's scalar quantities at the device state (the columns of the
 * [output] history CSV, problems/driver/observe_history.c): for each field
 * with an exact solution, its L2 error (name "l2_<field>") and its max
 * nodal error ("max_<field>"); then each integral the flux file declares,
 * in declaration order (name = the integral's name). */
#ifndef DG_PROBLEMS_QUANTITIES_H
#define DG_PROBLEMS_QUANTITIES_H

#include "core/error.h"
#include "dg/discretization.h"
#include "operators/flux.h"
#include "problems/solver/parallel.h"
#include "problems/solver/solver.h"

typedef struct dg_quantities dg_quantities;

/* Collective over the ranks of par: every rank gets the same values. */
dg_error dg_quantities_create(dg_solver *s, const dg_discretization *disc,
                              const dg_flux_program *prog, dg_parallel *par,
                              dg_quantities **q);
void dg_quantities_destroy(dg_quantities **q);
int dg_quantities_count(const dg_quantities *q);
const char *dg_quantities_name(const dg_quantities *q, int i);
/* values[dg_quantities_count(q)] at time t of the solver's current state */
dg_error dg_quantities_eval(dg_quantities *q, double t, double *values);
/* fields without an exact solution (for "no exact solution: rho, m" lines) */
int dg_quantities_fields_without_exact(const dg_quantities *q, const char **names, int max);

#endif
