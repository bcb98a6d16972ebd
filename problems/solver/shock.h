/* Shock capturing on the device (issue 41): before every right-hand side
 * the Persson-Peraire sensor and the continuous artificial viscosity
 * written into a coefficient of the flux file (which its viscous flux
 * reads, e.g. `dx(av*dx(u))`), and after every Runge-Kutta stage the
 * Zhang-Shu positivity-preserving limiter.  Kernels: operators/gen_shock.h,
 * in a module of their own (the DG operators are those of a run without).
 *
 * Partitioned runs (dg_shock_create_for a solver with a halo): the sensor
 * and the limiter are element-local; what reads across elements is
 * exchanged, so that every rank computes the serial run's values:
 *  - the vertex maximum: a vertex whose elements lie on several ranks (a
 *    halo face's, or one where ranks meet at a vertex or edge alone) takes
 *    the maximum over the ranks too, by its global id
 *    (problems/solver/vertex_exchange.h), between dg_shock_vertex and
 *    dg_shock_nodes;
 *  - the exterior face trace: dg_shock_faces reads the neighbour's node
 *    value through mapP, which points into the ghost slots on a halo face;
 *    the neighbours' node values of the viscosity coefficient go there
 *    through an exchange over the state's halo faces (dg_halo_create_
 *    coefficient), between dg_shock_nodes and dg_shock_faces. */
#ifndef DG_PROBLEMS_SOLVER_SHOCK_H
#define DG_PROBLEMS_SOLVER_SHOCK_H

#include "core/device.h"
#include "dg/discretization.h"
#include "dg/opdata.h"
#include "operators/flux.h"
#include "operators/gen_shock.h"

typedef struct dg_shock dg_shock;

/* What problem.cfg's [shock] asks for, as names of the flux file. */
typedef struct dg_shock_settings {
  const char *sensor;     /* a scalar field, a component m[1] or a scalar let of fields; ""
                             or NULL: no sensor */
  const char *viscosity;  /* the coefficient that receives the viscosity */
  double c0;              /* s0 = -(c0 + 4 log10 N) (Persson & Peraire 2006) */
  double kappa;           /* half-width of the ramp in s */
  double scale;           /* eps0 = min(max_viscosity, scale * h / N), h the element size */
  double max_viscosity;
  const char *positivity; /* comma-separated names (fields, components, lets), in the
                             order limited; "" or NULL: no limiter */
  double positivity_eps;
  /* where the names stand, "file:line:col: " for messages (NULL: nowhere) */
  const char *where_sensor, *where_viscosity, *where_positivity;
} dg_shock_settings;

/* The names of set against the program, at load (before any kernel): an
 * unknown or unsuitable name is DG_ERR_INPUT naming it, at its place. */
dg_error dg_shock_check(dg_flux_program *prog, const dg_shock_settings *set);

/* Resolve the names against the program (errors name the bad one) and
 * fill the generator's description (trees in the program's arena, tables
 * owned by the caller's dg_shock). */
dg_error dg_shock_create(dg_device *dev, const dg_discretization *disc, const dg_opdata *od,
                         dg_flux_program *prog, const dg_physics *ph,
                         const dg_shock_settings *set, int is_float, dg_shock **out);
/* The same for solver's state and coefficient tables, its source also
 * written where the solver dumps its own (--dump-kernels: dg_shock.cu /
 * dg_shock.c); a partitioned solver's: collective over its ranks (the
 * exchanges above). */
struct dg_solver;
dg_error dg_shock_create_for(const struct dg_solver *solver, const dg_discretization *disc,
                             dg_flux_program *prog, const dg_physics *ph,
                             const dg_shock_settings *set, int is_float, dg_shock **out);
void dg_shock_destroy(dg_shock **s);
/* The module's source for target tg (malloc'd), and dg_shock_create with
 * its module compiled from source instead (NULL: the device's own): the
 * emulator test runs the cuda kernels through the cpu backend this way
 * (tests/codegen/shock_emulate.c); dump: a solver whose dump directory gets
 * the source (NULL: none). */
dg_error dg_shock_source(const dg_discretization *disc, const dg_opdata *od,
                         dg_flux_program *prog, const dg_physics *ph,
                         const dg_shock_settings *set, dg_codegen_target tg, int is_float,
                         char **source);
dg_error dg_shock_create_source(dg_device *dev, const dg_discretization *disc,
                                const dg_opdata *od, dg_flux_program *prog,
                                const dg_physics *ph, const dg_shock_settings *set,
                                int is_float, const char *source,
                                const struct dg_solver *dump, dg_shock **out);

/* The sensor, the vertex maximum and the node values: cf and fcf of the
 * solver (codegen.h layouts) get the viscosity of state q. */
dg_error dg_shock_viscosity(dg_shock *s, void *q, void *cf, void *fcf);
/* The same, and *active = whether any element has viscosity: the sensor
 * runs, its flag comes to the host (a synchronisation), and the spreading
 * (vertex maximum, node values, face traces, their exchanges) runs only if
 * *active or if cf, fcf may hold other than zeros (written by an active
 * call or by anything else since; never by this dg_shock: the caller's
 * start values).  Why: a smooth flow's viscosity is zero everywhere, and
 * where it is, the caller may run the kernels without the second-order
 * terms instead; the tables are zero then either way.  The flag is the
 * maximum over a partitioned solver's ranks, so that every rank gets the
 * same answer (and takes the same collective branch).  No sensor: *active
 * = 0 and nothing runs (the coefficient is not this module's: the caller
 * asks dg_shock_viscosity_coefficient, -1 then, before it trusts a zero). */
dg_error dg_shock_viscosity_active(dg_shock *s, void *q, void *cf, void *fcf, int *active);
/* The coefficient tables were written by others (dg_solver_set_coefficients,
 * a restart): the next dg_shock_viscosity_active spreads again, whatever
 * the sensor says (it would skip after an inactive call otherwise). */
void dg_shock_forget_coefficients(dg_shock *s);
/* The positivity limiter on q in place (nothing without quantities). */
dg_error dg_shock_limit(dg_shock *s, void *q);
/* The element viscosities of the last dg_shock_viscosity(_active) (host,
 * K_owned). */
dg_error dg_shock_element_viscosity(dg_shock *s, double *out);
/* The largest viscosity the sensor can give (the time step's limit). */
double dg_shock_max_viscosity(const dg_shock *s);

/* The module's kernels one at a time, for the benchmark (dgbench rhs):
 * which = 0 the sensor, 1 the vertex maximum, 2 the node values, 3 the
 * face traces (these four are dg_shock_viscosity), 4 the limiter
 * (dg_shock_limit), on the state and coefficients of solver,
 * asynchronously.  dg_shock_kernel_launches: whether `which` exists in this
 * module (no sensor: 0-3 do not; no positivity: 4 does not). */
enum { DG_SHOCK_NKERNELS = 5 };
const char *dg_shock_kernel_name(int which);
int dg_shock_kernel_launches(const dg_shock *s, int which);
dg_error dg_shock_launch_kernel(dg_shock *s, const struct dg_solver *solver, int which);

/* The coefficient that receives the viscosity (-1: no sensor). */
int dg_shock_viscosity_coefficient(const dg_shock *s);

#endif
