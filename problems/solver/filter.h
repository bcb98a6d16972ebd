/* The modal filter of the run's state on the device ([discretization]
 * filter = exponential; dg/filter.h has the filter, operators/gen_filter.h
 * its kernel): created once after the solver, applied by the run loop after
 * every time step.  Its module is compiled only for a run that asks for it,
 * so the right-hand side's kernels are those of a run without it.  A state
 * of Bernstein-Bezier coefficients is refused (the filter acts on nodal
 * values). */
#ifndef DG_PROBLEMS_SOLVER_FILTER_H
#define DG_PROBLEMS_SOLVER_FILTER_H

#include "dg/discretization.h"
#include "dg/filter.h"
#include "operators/codegen.h"
#include "problems/solver/solver.h"

typedef struct dg_state_filter dg_state_filter;

dg_error dg_state_filter_create(dg_solver *s, const dg_discretization *disc,
                                const dg_filter_params *p, dg_state_filter **out);
void dg_state_filter_destroy(dg_state_filter **f);
/* The solver's state, filtered in place (the owned elements). */
dg_error dg_state_filter_apply(dg_state_filter *f);

/* Testing: the module generated for target tg and handed through wrap
 * (malloc'd result), compiled on the solver's device, launched as one
 * chunk (the CUDA source run on the CPU by an emulation shim). */
dg_error dg_state_filter_create_wrapped(dg_solver *s, const dg_discretization *disc,
                                        const dg_filter_params *p, dg_codegen_target tg,
                                        char *(*wrap)(const char *source),
                                        dg_state_filter **out);

#endif
