/* Preconditioned conjugate gradients on a distributed sparse matrix.
 *
 * Algorithm: PCG as in Saad, Iterative Methods for Sparse Linear Systems
 * (2nd ed., 2003), Algorithm 9.1, with M^-1 one of
 *   none          M = I;
 *   jacobi        M = diag(A);
 *   block-jacobi  M = the b x b diagonal blocks of A (b consecutive local
 *                 rows each: the element blocks of a DG matrix), inverted
 *                 once on the host with LAPACKE (dgetrf + dgetri) and
 *                 applied as a block-diagonal bsr SpMV.
 * Stopping test: ||r||_2 <= max(rtol * ||b||_2, atol).  When the recurrence
 * residual passes it, the true residual b - A x is computed; if that fails
 * the test (the recurrence drifted), CG restarts from the true residual.
 * The solve succeeds only on a true residual that passes.
 *
 * Never a silent wrong answer: DG_ERR_NUMERIC, with the iteration count and
 * a summary of the residual history, when
 *   - max_iterations pass without convergence,
 *   - p . A p <= 0 (A is not positive definite: indefinite or singular with
 *     a search direction in its null space),
 *   - r . M^-1 r <= 0 with r != 0 (the preconditioner is not positive
 *     definite), or a NaN / Inf appears,
 *   - a diagonal entry (jacobi) or block (block-jacobi) is singular.
 * x then holds the last iterate (useful for diagnosis only).
 *
 * Memory passes per iteration (n local entries, all generated kernels):
 *   q = A p                         SpMV (distributed: ghost exchange)
 *   p . q                           1 reduction, reads 2n
 *   x += a p, r -= a q, r . r       1 fused reduction, reads 4n writes 2n
 *   jacobi: z = d r, r . z          1 fused reduction, reads 2n writes n
 *   block-jacobi: z = B r; r . z    bsr SpMV + 1 reduction
 *   p = z + beta p                  1 elementwise pass, reads 2n writes n
 * Global dots: one dg_comm allreduce for p . q and one (of two values
 * with a preconditioner) for r . r and r . z; every rank takes the same
 * branch, so errors come out on all ranks together. */
#ifndef DG_CORE_KRYLOV_H
#define DG_CORE_KRYLOV_H

#include <stdint.h>

#include "core/array.h"
#include "core/error.h"
#include "core/sparse.h"

typedef enum dg_krylov_pc {
  DG_KRYLOV_PC_NONE = 0,
  DG_KRYLOV_PC_JACOBI,
  DG_KRYLOV_PC_BLOCK_JACOBI
} dg_krylov_pc;

/* "none", "jacobi", "block-jacobi". */
const char *dg_krylov_pc_name(dg_krylov_pc pc);
dg_error dg_krylov_pc_parse(const char *name, dg_krylov_pc *out);

typedef struct dg_krylov_options {
  double rtol;         /* relative to ||b||; default 1e-8 */
  double atol;         /* absolute; default 0 */
  int max_iterations;  /* default 1000 */
  dg_krylov_pc pc;     /* default none */
  int block;           /* block-jacobi block size (b = Np) */
  int log_every;       /* dg_info line every k iterations (0: none) */
} dg_krylov_options;

/* The defaults above. */
dg_krylov_options dg_krylov_defaults(void);

/* What a solve did (filled on success and on DG_ERR_NUMERIC). */
typedef struct dg_krylov_result {
  int iterations;         /* CG steps taken */
  int restarts;           /* true-residual restarts */
  int converged;
  double b_norm;          /* ||b|| */
  double residual;        /* final ||b - A x|| (true residual on success) */
  double target;          /* max(rtol ||b||, atol) */
} dg_krylov_result;

typedef struct dg_krylov dg_krylov;

/* Set up CG for A.  A_local is this rank's rows of A on the host (the
 * matrix A was built from) for the preconditioner; it is not kept.
 * Collective (a singular block on one rank is an error on all). */
dg_error dg_krylov_create(dg_sparse_dist *A, const dg_csr *A_local,
                          const dg_krylov_options *opt, dg_krylov **out);
void dg_krylov_destroy(dg_krylov **k);

/* Solve A x = b; x holds the initial guess on entry.  Collective.  b and x
 * hold this rank's entries (dtype of A). */
dg_error dg_krylov_solve(dg_krylov *k, const dg_array *b, dg_array *x,
                         dg_krylov_result *result);

/* The iteration log of the last solve: ||r|| (recurrence residual; the
 * true one after a restart) before iteration 0, 1, ..., iterations. */
const double *dg_krylov_history(const dg_krylov *k, int *count);

#endif
