/* The problem file's schema (dg_problem_schema, problem.h): every [section]
 * key with its type, choices, default and help text, the kernel knobs
 * (operators/kernel_knobs.h) inserted after [backend] tuning.  One table
 * feeds the reader's checks, --help-config and problems/PROBLEM_CFG.md. */
#include "problems/driver/problem.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "operators/kernel_knobs.h"

/* The schema without the kernel knobs, which dg_problem_schema() inserts
 * from operators/kernel_knobs.h after [backend] tuning. */
static const dg_config_key schema_base[] = {
    {"problem", "flux", DG_CONFIG_PATH, NULL, NULL,
     "the .flux file with fields, volume terms, fluxes, boundary conditions"},
    {"problem", "name", DG_CONFIG_STRING, NULL, "",
     "name used for output files, at most 200 characters (default: the cfg file's base "
     "name)"},
    {"problem", "kind", DG_CONFIG_ENUM, "transient|poisson", "transient",
     "transient: explicit time stepping of the flux file's rhs; poisson: -lap u = f "
     "(f = the flux file's source, boundary values from its boundary conditions) by SIPG "
     "and CG, see [poisson]"},
    {"problem", "check_flux_consistency", DG_CONFIG_ENUM, "error|warn|off", "error",
     "at load, each numerical flux with equal traces must equal the surface form of its "
     "field's volume term (at the initial condition and exact solution at points of the "
     "mesh, random normals): error refuses a mismatch, warn reports it and runs (a flux "
     "consistent only on states the run meets), off skips the check"},
    {"problem", "ldg_beta", DG_CONFIG_DOUBLE, NULL, "0.5",
     "LDG switch of a flux file with second-order terms (its ldg() traces and the lifted "
     "gradients' face values), in [-0.5, 0.5]: 0.5 one-sided (PyFR's ldg-beta), 0 central"},
    {"params", NULL, DG_CONFIG_DOUBLE, NULL, NULL,
     "open section: name = value overrides a param of the flux file"},
    {"mesh", "type", DG_CONFIG_ENUM, "interval|rectangle|box|file", NULL,
     "built-in mesh: interval (1D), rectangle (2D, triangles), box (3D, 6 tets per cube); "
     "or file"},
    {"mesh", "file", DG_CONFIG_STRING, NULL, "",
     "type = file: a Gmsh .msh/.geo file (needs the Gmsh SDK) or a dgrun .h5 mesh"},
    {"mesh", "size", DG_CONFIG_DOUBLE, NULL, "0",
     "type = file with a .geo: largest element size when meshing (0: Gmsh's default)"},
    {"mesh", "geometry_order", DG_CONFIG_INT, NULL, "1",
     "type = file with a .geo: geometry order k (1..6) of the elements Gmsh makes (its "
     "Mesh.ElementOrder, with Mesh.HighOrderOptimize = 2): k > 1 gives curved elements whose "
     "nodes lie on the curved entities; a .msh or .h5 file keeps its own order"},
    {"mesh", "default_tag", DG_CONFIG_STRING, NULL, "",
     "type = file: tag for boundary faces without a physical group (empty: an error)"},
    {"mesh", "cells", DG_CONFIG_STRING, NULL, "",
     "cells per axis, one integer per dimension, e.g. \"16 16\""},
    {"mesh", "lower", DG_CONFIG_STRING, NULL, "",
     "lower corner of the domain, one number per dimension (default all 0)"},
    {"mesh", "upper", DG_CONFIG_STRING, NULL, "",
     "upper corner of the domain, one number per dimension (default all 1)"},
    {"mesh", "periodic", DG_CONFIG_STRING, NULL, "none",
     "periodic axes: any of x y z, or none"},
    {"mesh", "order", DG_CONFIG_ENUM, "hilbert|input", "hilbert",
     "element numbering: hilbert (along a Hilbert curve through the centroids, so that face "
     "neighbours are near in memory: faster right-hand sides) or input (as built or read; "
     "a pre-partitioned .h5 mesh keeps its stored order)"},
    {"boundaries", NULL, DG_CONFIG_STRING, NULL, NULL,
     "open section: mesh tag = boundary condition name of the flux file "
     "(tags left right bottom top front back)"},
    {"regions", NULL, DG_CONFIG_STRING, NULL, NULL,
     "open section: name = predicate on the element centroid x (e.g. x[0] > 0); the "
     "elements where it is true are in region name (beside the mesh's own regions)"},
    {"coefficients", NULL, DG_CONFIG_STRING, NULL, NULL,
     "open section: coefficient = value (the default; an expression of x is evaluated per "
     "node) and coefficient.region = value (in that region) for the flux file's "
     "coefficients"},
    {"discretization", "order", DG_CONFIG_INT, NULL, NULL, "polynomial order N (1..15)"},
    {"discretization", "precision", DG_CONFIG_ENUM, "float|double", "double",
     "floating-point precision of the device computation"},
    {"discretization", "filter", DG_CONFIG_ENUM, "none|exponential", "none",
     "modal filter of the state after every time step (dg/filter.h; Hesthaven & Warburton "
     "2008 sec. 5.3): exponential scales the modes of degree d > filter_cutoff by "
     "exp(-filter_alpha ((d - Nc)/(N - Nc))^filter_order); it keeps polynomials of degree "
     "<= Nc, so the element means (mass, momentum, energy) are conserved; it stabilises "
     "under-resolved nonlinear flows (aliasing) at the cost of some dissipation"},
    {"discretization", "filter_cutoff", DG_CONFIG_INT, NULL, "0",
     "filter: the highest mode degree Nc kept unchanged (0..N-1)"},
    {"discretization", "filter_order", DG_CONFIG_INT, NULL, "16",
     "filter: the exponent s of the filter shape (1..64; larger: sharper)"},
    {"discretization", "filter_alpha", DG_CONFIG_DOUBLE, NULL, "36",
     "filter: the strength (0, 100]; the degree-N modes are scaled by exp(-alpha) every "
     "step (36: removed; 0.01: 1 % per step)"},
    {"time", "scheme", DG_CONFIG_ENUM, "lserk4|ssprk3|rk34|rk45|lsrk14", "lserk4",
     "explicit Runge-Kutta scheme (lsrk14: Niegemann, Diehl & Busch 2012, 14 stages, a "
     "larger stability region for DG); rk34, rk45: embedded pairs (Kennedy, Carpenter & Lewis "
     "2000, 2R+) with adaptive steps from a PI controller (atol, rtol; dt or the CFL dt "
     "is the first step)"},
    {"time", "atol", DG_CONFIG_DOUBLE, NULL, "1e-6",
     "rk34/rk45: absolute tolerance of the scaled error norm sqrt(mean((err / (atol + "
     "rtol max(|u_old|, |u_new|)))^2)); a step is accepted when it is < 1 (>= 0, not both 0)"},
    {"time", "rtol", DG_CONFIG_DOUBLE, NULL, "1e-6",
     "rk34/rk45: relative tolerance of the error norm (>= 0, not both 0 with atol)"},
    {"time", "safety", DG_CONFIG_DOUBLE, NULL, "0.8",
     "rk34/rk45: safety factor of the PI controller, dt_next = dt clamp(safety "
     "err^(-pi_alpha/p) err_prev^(pi_beta/p), min_fac, max_fac), in (0, 1]"},
    {"time", "max_fac", DG_CONFIG_DOUBLE, NULL, "2.5",
     "rk34/rk45: the most dt grows from one step to the next (>= 1)"},
    {"time", "min_fac", DG_CONFIG_DOUBLE, NULL, "0.3",
     "rk34/rk45: the most dt shrinks from one step to the next, rejected steps too (0, 1)"},
    {"time", "pi_alpha", DG_CONFIG_DOUBLE, NULL, "0.7",
     "rk34/rk45: the PI controller's exponent of this step's error (> 0)"},
    {"time", "pi_beta", DG_CONFIG_DOUBLE, NULL, "0.4",
     "rk34/rk45: the PI controller's exponent of the last accepted step's error (>= 0)"},
    {"time", "final", DG_CONFIG_DOUBLE, NULL, "-1",
     "final time (the start is 0); required for kind = transient"},
    {"time", "cfl", DG_CONFIG_STRING, NULL, "auto",
     "dt = cfl / max_k ((N+1)^2 lambda_k / h_k + (N+1)^4 diffusivity / h_k^2), lambda_k the "
     "largest wave speed at element k's nodes and h_k its size; auto: with [time] wave_speed "
     "0.5 (as before), with the flux file's wave_speed the scheme's default (lserk4 2.4, "
     "lsrk14 9.1, ssprk3 1.4: 0.7 times the smallest measured limit, problems/PROBLEM_CFG.md)"},
    {"time", "dt", DG_CONFIG_DOUBLE, NULL, "0",
     "fixed time step (0: from the CFL condition); steps are shortened evenly to land on final"},
    {"time", "wave_speed", DG_CONFIG_STRING, NULL, "auto",
     "largest signal speed of the problem, for the CFL condition: overrides the flux file's "
     "wave_speed (dt = cfl * h_min / (wave_speed * (N+1)^2), fixed); auto: computed from "
     "the flux file's wave_speed on the device every dt_interval steps"},
    {"time", "dt_interval", DG_CONFIG_INT, NULL, "10",
     "with the computed wave speed: steps between updates of dt (and at every output time)"},
    {"time", "dt_growth", DG_CONFIG_DOUBLE, NULL, "1.2",
     "with the computed wave speed: the most dt may grow from one update to the next (> 1)"},
    {"time", "diffusivity", DG_CONFIG_DOUBLE, NULL, "0",
     "largest diffusion coefficient of the second-order terms (nu of u_t = nu lap u; "
     "Navier-Stokes: the larger of mu/rho and gamma mu/(Pr rho)); > 0 adds the diffusive "
     "limit: dt = cfl / ((N+1)^2 wave_speed / h_min + (N+1)^4 diffusivity / h_min^2)"},
    {"time", "max_steps", DG_CONFIG_INT, NULL, "0", "refuse runs needing more steps (0: no limit)"},
    {"time", "divergence_factor", DG_CONFIG_STRING, NULL, "1e3",
     "stop the run (non-zero exit, the last good snapshot kept) when the max norm of the "
     "state grows by more than this factor within divergence_window steps and exceeds this "
     "factor times its start; off or 0: no such stop (the NaN check stays)"},
    {"time", "divergence_window", DG_CONFIG_STRING, NULL, "100",
     "steps over which divergence_factor is measured (the norm is sampled every "
     "window/2 steps and at every output time); off or 0: no divergence stop"},
    {"shock", "sensor", DG_CONFIG_STRING, NULL, "",
     "shock capturing: the quantity of the Persson-Peraire sensor (a scalar field, a "
     "component m[0] or a scalar let of fields; empty: no sensor)"},
    {"shock", "viscosity", DG_CONFIG_STRING, NULL, "",
     "the flux file's coefficient that receives the artificial viscosity"},
    {"shock", "c0", DG_CONFIG_DOUBLE, NULL, "1", "sensor threshold s0 = -(c0 + 4 log10 N)"},
    {"shock", "kappa", DG_CONFIG_DOUBLE, NULL, "1",
     "half-width of the sensor's ramp (in log10 of the energy ratio)"},
    {"shock", "scale", DG_CONFIG_DOUBLE, NULL, "1",
     "viscosity scale, a speed: eps0 = min(max_viscosity, scale * h / N)"},
    {"shock", "max_viscosity", DG_CONFIG_DOUBLE, NULL, "0",
     "the largest artificial viscosity (bounds the time step; needed with a sensor)"},
    {"shock", "positivity", DG_CONFIG_STRING, NULL, "",
     "positivity-preserving limiter (Zhang & Shu 2010): names kept above positivity_eps, "
     "in order (e.g. rho, p)"},
    {"shock", "positivity_eps", DG_CONFIG_DOUBLE, NULL, "1e-10",
     "the lower bound the limiter keeps"},
    {"output", "directory", DG_CONFIG_PATH, NULL, "output", "where snapshots and checkpoints go"},
    {"output", "interval", DG_CONFIG_DOUBLE, NULL, "0",
     "time between snapshots (0: only the final state)"},
    {"output", "enabled", DG_CONFIG_BOOL, NULL, "true",
     "write snapshots (in the files of [output] format)"},
    {"output", "fields", DG_CONFIG_STRING, NULL, "all",
     "fields written to snapshots: all, or field names separated by spaces or commas"},
    {"output", "checkpoint_interval", DG_CONFIG_DOUBLE, NULL, "0",
     "time between checkpoints (0: none)"},
    {"output", "history", DG_CONFIG_STRING, NULL, "",
     "CSV file (relative to [output] directory, an absolute path as is; empty: none) of one row per history time: "
     "t, step, dt, wall (s since the time loop started), then the L2 and max errors of each "
     "field with an exact solution and the flux file's integrals; written as "
     "<history>.partial during the run, renamed at the end"},
    {"output", "history_steps", DG_CONFIG_INT, NULL, "0",
     "a history row every this many steps (and at t = 0 and the final time); 0: by time"},
    {"output", "history_interval", DG_CONFIG_DOUBLE, NULL, "0",
     "a history row at every multiple of this time, landed on exactly as the [output] "
     "interval (and at t = 0 and the final time); 0 with history_steps = 0: at the [output] "
     "interval times; set at most one of the two"},
    {"output", "format", DG_CONFIG_ENUM, "both|vtkhdf|xdmf", "vtkhdf",
     "snapshot files: vtkhdf (VTK Lagrange cells of the element's order, the error "
     "against the exact solution, element id and rank; open <name>.hdf.series in "
     "ParaView >= 5.11), xdmf (HDF5 + XDMF of linear sub-cells, <name>.xdmf, for "
     "readers without Lagrange cells), or both"},
    {"output", "parallel_io", DG_CONFIG_ENUM, "auto|collective|gather", "auto",
     "under mpirun: collective writes each snapshot and checkpoint as one file from every "
     "rank (parallel HDF5), gather has rank 0 collect and write it; auto is collective when "
     "dgrun was built with parallel HDF5"},
    {"backend", "device", DG_CONFIG_ENUM, "auto|cuda|cpu", "auto",
     "compute backend: auto picks cuda when a GPU is usable"},
    {"backend", "tuning", DG_CONFIG_ENUM, "off|auto|full", "auto",
     "kernel variant choice: auto looks the variant up in the tuning database or the "
     "shipped entries and, on a GPU, tunes it once when missing (stored for the next runs; "
     "the cpu backend runs the knobs below unless tuning = auto is given); off uses the "
     "knobs below; full re-tunes over every variant.  Without this key, a kernel knob "
     "given by hand means off"},
    {"backend", "nan_check_steps", DG_CONFIG_INT, NULL, "20",
     "check the state for NaN/Inf every this many steps"},
    {"poisson", "neumann", DG_CONFIG_STRING, NULL, "",
     "boundary conditions of the flux file whose value is n . grad u (Neumann data); "
     "the others give u (Dirichlet data)"},
    {"poisson", "penalty", DG_CONFIG_DOUBLE, NULL, "1",
     "SIPG penalty factor C: tau = C (N+1)(N+d)/d max Fscale (dg/sipg.h; too small a C "
     "makes the matrix indefinite, which CG reports)"},
    {"poisson", "preconditioner", DG_CONFIG_ENUM, "none|jacobi|block-jacobi", "block-jacobi",
     "CG preconditioner (block-jacobi inverts the element blocks)"},
    {"poisson", "format", DG_CONFIG_ENUM, "auto|csr-scalar|csr-vector|ell|bsr", "auto",
     "sparse matrix format of the SpMV (auto: the structural heuristic)"},
    {"poisson", "rtol", DG_CONFIG_DOUBLE, NULL, "1e-10",
     "CG stops at ||r|| <= max(rtol ||b||, atol) (with precision = float use >= 1e-5)"},
    {"poisson", "atol", DG_CONFIG_DOUBLE, NULL, "0", "absolute CG tolerance"},
    {"poisson", "max_iterations", DG_CONFIG_INT, NULL, "10000",
     "CG iterations before giving up with an error"},
    {"poisson", "log_every", DG_CONFIG_INT, NULL, "0", "log ||r|| every this many CG iterations (0: never)"},
    {"poisson", "matrix_file", DG_CONFIG_STRING, NULL, "",
     "also write the assembled matrix there (Matrix Market, symmetric; one rank only), "
     "e.g. for spbench --mtx"},
    {"parallel", "partition", DG_CONFIG_ENUM, "auto|metis|rcb", "auto",
     "mpirun: how the mesh is cut into one part per rank (auto: METIS when built with it)"},
    {"parallel", "cuda_aware", DG_CONFIG_ENUM, "auto|off", "auto",
     "mpirun on GPUs: hand device buffers to MPI when the library is CUDA-aware (off: "
     "stage through host memory)"},
    {"parallel", "gpu_oversubscribe", DG_CONFIG_BOOL, NULL, "false",
     "mpirun on GPUs: allow more ranks on a node than GPUs (ranks share GPUs round-robin)"},
    {"parallel", "overlap", DG_CONFIG_BOOL, NULL, "true",
     "mpirun: run the interior kernels while the halo exchange is in flight (false: wait "
     "first; for timing the overlap)"},
};
enum { SCHEMA_BASE = sizeof schema_base / sizeof schema_base[0], MAX_KNOBS = 32 };

static dg_config_key schema_all[SCHEMA_BASE + MAX_KNOBS];
static size_t schema_count;

/* The base rows, with a row per kernel knob after [backend] tuning.  Once
 * per process (pthread_once): the table is built into static storage and
 * read from any thread afterwards. */
static void build_schema(void) {
  static char choices[MAX_KNOBS][256], defaults[MAX_KNOBS][32];
  static const dg_config_type types[] = {DG_CONFIG_INT, DG_CONFIG_ENUM, DG_CONFIG_BOOL};
  if (dg_kernel_nknobs > MAX_KNOBS) { /* a programming error: raise MAX_KNOBS */
    fprintf(stderr, "dgrun: internal error: %d kernel knobs, room for %d in %s\n",
            dg_kernel_nknobs, (int)MAX_KNOBS, __FILE__);
    abort();
  }
  dg_kernel_config def = dg_kernel_config_default();
  for (size_t i = 0; i < SCHEMA_BASE; i++) {
    schema_all[schema_count++] = schema_base[i];
    if (strcmp(schema_base[i].section, "backend") != 0 || !schema_base[i].key ||
        strcmp(schema_base[i].key, "tuning") != 0)
      continue;
    for (int k = 0; k < dg_kernel_nknobs; k++) {
      const dg_kernel_knob *kn = &dg_kernel_knobs[k];
      dg_kernel_knob_choices(kn, choices[k], sizeof choices[k]);
      dg_kernel_knob_text(&def, kn, 1, defaults[k], sizeof defaults[k]);
      schema_all[schema_count++] = (dg_config_key){"backend", kn->key, types[kn->kind],
                                                   kn->kind == DG_KNOB_ENUM ? choices[k] : NULL,
                                                   defaults[k], kn->help};
    }
  }
}

const dg_config_key *dg_problem_schema(size_t *n) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, build_schema);
  *n = schema_count;
  return schema_all;
}
