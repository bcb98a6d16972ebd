/* `dgrun poisson.cfg` for [problem] kind = poisson: -lap u = f by SIPG
 * (dg/sipg.h), solved with preconditioned CG (core/krylov.h) on the cfg's
 * backend, distributed over the MPI ranks of the job.
 *
 * The flux file gives one scalar field u: `source u = f`, optionally
 * `exact u = ...` (error norms), and boundary conditions `boundary NAME
 * { u = g }` mapped to mesh tags by [boundaries]; g is the Dirichlet value,
 * or n . grad u for the conditions listed in [poisson] neumann (n, x and
 * params may appear in g).  The flux file's rhs / flux / initial statements
 * are not used (the language requires them).
 *
 * Distribution: elements are partitioned (meshes/partition.h: METIS when
 * built with it); rank r owns the rows of its elements, numbered
 * consecutively in rank order, and the matrix is a dg_sparse_dist whose
 * ghost columns are the neighbouring ranks' elements.  Each rank builds the
 * discretization of its own elements plus the layer of face neighbours the
 * assembly reads (meshes/submesh.h); the mesh itself (vertices, elements,
 * face connectivity) and the partition are still held whole by every rank,
 * as dg_problem_load reads them.
 * Output: the solution and node coordinates are gathered on rank 0
 * (dg_parallel_gather_ids), which writes one HDF5/XDMF snapshot
 * (problems/io/snapshot.h, serial) with the error norms: that step holds
 * K*Np*(dim+1) doubles on rank 0 only. */
#ifndef DG_PROBLEMS_POISSON_RUN_H
#define DG_PROBLEMS_POISSON_RUN_H

#include <stdint.h>

#include "core/comm.h"
#include "core/error.h"
#include "problems/driver/run.h"

typedef struct dg_poisson_result {
  int iterations;       /* CG iterations */
  int have_exact;       /* the flux file gives an exact solution */
  double l2, maxerr;    /* errors against it */
  int64_t dofs, nnz;    /* global */
  int nranks;
  double assemble_seconds, solve_seconds;
  const char *format;   /* SpMV format used */
} dg_poisson_result;

/* Whether cfg_path (with the overrides) sets [problem] kind = poisson.  An
 * unreadable file answers 0 (the normal run reports the error). */
int dg_poisson_is_kind(const char *cfg_path, const char *const *overrides, int noverrides);

/* Solve on comm (collective).  u_global (may be NULL): the whole solution,
 * K*Np values in global element order, on rank 0 (caller frees); NULL on
 * the other ranks. */
dg_error dg_poisson_solve(dg_comm *comm, const dg_run_options *opt, dg_poisson_result *res,
                          double **u_global);

/* The driver's entry: dg_poisson_solve on all ranks of the job. */
dg_error dg_poisson_run(const dg_run_options *opt, dg_poisson_result *res);

#endif
