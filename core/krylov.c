#include "core/krylov.h"

#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/comm.h"
#include "core/elementwise.h"
#include "core/log.h"
#include "core/reduction.h"

struct dg_krylov {
  dg_sparse_dist *A;
  dg_comm *comm;
  dg_device *dev;
  dg_dtype dtype;
  int64_t n;
  dg_krylov_options opt;
  dg_array *r, *z, *p, *q; /* z: only with a preconditioner */
  dg_array *dinv;          /* jacobi: 1 / diag(A) */
  dg_sparse *binv;         /* block-jacobi: inverted diagonal blocks */
  dg_reduction *dot, *residual, *update, *jacobi;
  dg_elementwise *direction;
  double *history;
  int hcount, hcap;
};

static const char *const pc_names[] = {"none", "jacobi", "block-jacobi"};

const char *dg_krylov_pc_name(dg_krylov_pc pc) {
  return (unsigned)pc <= DG_KRYLOV_PC_BLOCK_JACOBI ? pc_names[pc] : "?";
}

dg_error dg_krylov_pc_parse(const char *name, dg_krylov_pc *out) {
  DG_CHECK(name && out, DG_ERR_ARG, "dg_krylov_pc_parse: NULL argument");
  for (int k = 0; k <= DG_KRYLOV_PC_BLOCK_JACOBI; k++)
    if (strcmp(name, pc_names[k]) == 0) {
      *out = (dg_krylov_pc)k;
      return DG_OK;
    }
  DG_RAISE(DG_ERR_INPUT, "unknown preconditioner '%s' (expected none, "
           "jacobi or block-jacobi)", name);
}

dg_krylov_options dg_krylov_defaults(void) {
  return (dg_krylov_options){.rtol = 1e-8,
                             .atol = 0.0,
                             .max_iterations = 1000,
                             .pc = DG_KRYLOV_PC_NONE,
                             .block = 1,
                             .log_every = 0};
}

/* ---- preconditioner setup (host) ------------------------------------------ */

static dg_error setup_jacobi(dg_krylov *k, const dg_csr *A, int64_t rs) {
  double *d = malloc((size_t)(A->nrows > 0 ? A->nrows : 1) * sizeof *d);
  DG_CHECK(d != NULL, DG_ERR_MEMORY, "out of host memory");
  dg_error err = DG_OK;
  for (int64_t i = 0; i < A->nrows && err == DG_OK; i++) {
    double a = 0.0;
    for (int64_t j = A->rowptr[i]; j < A->rowptr[i + 1]; j++)
      if (A->colind[j] == rs + i)
        a = A->values[j];
    if (!(a != 0.0 && isfinite(a)))
      err = dg_error_raise(DG_ERR_NUMERIC, __FILE__, __LINE__, __func__,
                           "jacobi preconditioner: diagonal entry of global "
                           "row %lld is %g", (long long)(rs + i), a);
    d[i] = 1.0 / a;
  }
  if (err == DG_OK)
    err = dg_array_create(k->dev, k->dtype, A->nrows, &k->dinv);
  if (err == DG_OK)
    err = dg_array_upload_double(k->dinv, d);
  free(d);
  DG_CALL(err);
  return DG_OK;
}

/* The b x b diagonal blocks of the local rows, inverted (LU with partial
 * pivoting, LAPACKE dgetrf + dgetri), as a block-diagonal CSR uploaded in
 * bsr format. */
static dg_error setup_block_jacobi(dg_krylov *k, const dg_csr *A, int64_t rs) {
  int b = k->opt.block;
  DG_CHECK(b >= 1 && A->nrows % b == 0, DG_ERR_ARG,
           "block-jacobi block size %d does not divide the %lld local rows",
           b, (long long)A->nrows);
  int64_t nb = A->nrows / b;
  dg_csr *M = NULL;
  DG_CALL(dg_sparse_csr_create(A->nrows, A->nrows, A->nrows * b, &M));
  double *blk = malloc((size_t)b * b * sizeof *blk);
  lapack_int *ipiv = malloc((size_t)b * sizeof *ipiv);
  dg_error err = DG_OK;
  DG_CHECK_GOTO(err, done, blk && ipiv, DG_ERR_MEMORY, "out of host memory");
  for (int64_t e = 0; e < nb; e++) {
    memset(blk, 0, (size_t)b * b * sizeof *blk);
    for (int t = 0; t < b; t++) {
      int64_t i = e * b + t;
      for (int64_t j = A->rowptr[i]; j < A->rowptr[i + 1]; j++) {
        int64_t c = A->colind[j] - rs - e * b;
        if (c >= 0 && c < b)
          blk[c * b + t] = A->values[j]; /* column-major */
      }
    }
    lapack_int info = LAPACKE_dgetrf(LAPACK_COL_MAJOR, b, b, blk, b, ipiv);
    DG_CHECK_GOTO(err, done, info == 0, DG_ERR_NUMERIC,
                  "block-jacobi preconditioner: diagonal block %lld (global "
                  "rows %lld..%lld) is singular (LU pivot %d is zero)",
                  (long long)e, (long long)(rs + e * b),
                  (long long)(rs + e * b + b - 1), (int)info);
    info = LAPACKE_dgetri(LAPACK_COL_MAJOR, b, blk, b, ipiv);
    DG_CHECK_GOTO(err, done, info == 0, DG_ERR_NUMERIC,
                  "block-jacobi preconditioner: inverting diagonal block "
                  "%lld failed (LAPACK info %d)", (long long)e, (int)info);
    for (int t = 0; t < b; t++) {
      int64_t i = e * b + t;
      M->rowptr[i + 1] = M->rowptr[i] + b;
      for (int c = 0; c < b; c++) {
        M->colind[M->rowptr[i] + c] = e * b + c;
        M->values[M->rowptr[i] + c] = blk[c * b + t];
      }
    }
  }
  DG_CALL_GOTO(err, done, dg_sparse_create(k->dev, M, DG_SPARSE_BSR, b,
                                           k->dtype, &k->binv));
done:
  free(blk);
  free(ipiv);
  dg_sparse_csr_destroy(&M);
  return err;
}

/* ---- kernels ----------------------------------------------------------- */

static dg_error create_kernels(dg_krylov *k) {
  const char *t = dg_dtype_name(k->dtype);
  char name[64], args[160], map[256];
  DG_CALL(dg_reduction_create_dot(k->dev, k->dtype, &k->dot));
  /* r = b - q and r . r in one pass. */
  snprintf(name, sizeof name, "cg_residual_%s", t);
  snprintf(args, sizeof args, "%s *r, const %s *b, const %s *q", t, t, t);
  DG_CALL(dg_reduction_create(k->dev, name, args,
                              "(r[i] = b[i] - q[i], (double)r[i] * r[i])",
                              DG_REDUCE_SUM, 0.0, &k->residual));
  /* x += a p, r -= a q and r . r in one pass (Saad 2003, Alg. 9.1, lines
   * 4-5 fused with the norm of the stopping test). */
  snprintf(name, sizeof name, "cg_update_%s", t);
  snprintf(args, sizeof args,
           "%s *x, %s *r, const %s *p, const %s *q, double a", t, t, t, t);
  snprintf(map, sizeof map,
           "(x[i] += (%s)a * p[i], r[i] -= (%s)a * q[i], (double)r[i] * r[i])",
           t, t);
  DG_CALL(dg_reduction_create(k->dev, name, args, map, DG_REDUCE_SUM, 0.0,
                              &k->update));
  if (k->opt.pc == DG_KRYLOV_PC_JACOBI) {
    /* z = D^-1 r and r . z in one pass. */
    snprintf(name, sizeof name, "cg_jacobi_%s", t);
    snprintf(args, sizeof args, "%s *z, const %s *r, const %s *d", t, t, t);
    DG_CALL(dg_reduction_create(k->dev, name, args,
                                "(z[i] = d[i] * r[i], (double)r[i] * z[i])",
                                DG_REDUCE_SUM, 0.0, &k->jacobi));
  }
  snprintf(name, sizeof name, "cg_direction_%s", t);
  snprintf(args, sizeof args, "%s *p, const %s *z, double beta", t, t);
  snprintf(map, sizeof map, "p[i] = z[i] + (%s)beta * p[i]", t);
  DG_CALL(dg_elementwise_create(k->dev, name, args, map, &k->direction));
  return DG_OK;
}

static dg_error setup(dg_krylov *k, const dg_csr *A_local) {
  int64_t rs = dg_sparse_dist_row_start(k->A);
  DG_CHECK(A_local->nrows == k->n, DG_ERR_ARG,
           "A_local has %lld rows, the distributed matrix %lld on this rank",
           (long long)A_local->nrows, (long long)k->n);
  DG_CALL(dg_array_create(k->dev, k->dtype, k->n, &k->r));
  DG_CALL(dg_array_create(k->dev, k->dtype, k->n, &k->p));
  DG_CALL(dg_array_create(k->dev, k->dtype, k->n, &k->q));
  if (k->opt.pc != DG_KRYLOV_PC_NONE)
    DG_CALL(dg_array_create(k->dev, k->dtype, k->n, &k->z));
  if (k->opt.pc == DG_KRYLOV_PC_JACOBI)
    DG_CALL(setup_jacobi(k, A_local, rs));
  if (k->opt.pc == DG_KRYLOV_PC_BLOCK_JACOBI)
    DG_CALL(setup_block_jacobi(k, A_local, rs));
  DG_CALL(create_kernels(k));
  return DG_OK;
}

dg_error dg_krylov_create(dg_sparse_dist *A, const dg_csr *A_local,
                          const dg_krylov_options *opt, dg_krylov **out) {
  DG_CHECK(A && A_local && opt && out, DG_ERR_ARG,
           "dg_krylov_create: NULL argument");
  *out = NULL;
  DG_CHECK(opt->rtol >= 0 && opt->atol >= 0 && opt->rtol + opt->atol > 0,
           DG_ERR_ARG, "CG tolerances rtol = %g, atol = %g: both >= 0, not "
           "both 0", opt->rtol, opt->atol);
  DG_CHECK(opt->max_iterations >= 0, DG_ERR_ARG,
           "CG max_iterations = %d must be >= 0", opt->max_iterations);
  DG_CHECK((unsigned)opt->pc <= DG_KRYLOV_PC_BLOCK_JACOBI, DG_ERR_ARG,
           "unknown preconditioner %d", (int)opt->pc);
  dg_krylov *k = calloc(1, sizeof *k);
  DG_CHECK(k != NULL, DG_ERR_MEMORY, "out of host memory");
  k->A = A;
  k->comm = dg_sparse_dist_comm(A);
  k->dev = dg_sparse_dist_device(A);
  k->dtype = dg_sparse_dist_dtype(A);
  k->n = dg_sparse_dist_local_rows(A);
  k->opt = *opt;
  dg_error err = setup(k, A_local);
  /* A singular block on one rank is an error on every rank. */
  err = dg_comm_agree(k->comm, err);
  if (err != DG_OK) {
    dg_krylov_destroy(&k);
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  }
  *out = k;
  return DG_OK;
}

void dg_krylov_destroy(dg_krylov **kp) {
  if (!kp || !*kp)
    return;
  dg_krylov *k = *kp;
  dg_array_destroy(&k->r);
  dg_array_destroy(&k->z);
  dg_array_destroy(&k->p);
  dg_array_destroy(&k->q);
  dg_array_destroy(&k->dinv);
  dg_sparse_destroy(&k->binv);
  dg_reduction_destroy(&k->dot);
  dg_reduction_destroy(&k->residual);
  dg_reduction_destroy(&k->update);
  dg_reduction_destroy(&k->jacobi);
  dg_elementwise_destroy(&k->direction);
  free(k->history);
  free(k);
  *kp = NULL;
}

const double *dg_krylov_history(const dg_krylov *k, int *count) {
  *count = k->hcount;
  return k->history;
}

/* ---- the iteration --------------------------------------------------------- */

static dg_error record(dg_krylov *k, double rnorm) {
  if (k->hcount == k->hcap) {
    int cap = k->hcap ? 2 * k->hcap : 64;
    double *h = realloc(k->history, (size_t)cap * sizeof *h);
    DG_CHECK(h != NULL, DG_ERR_MEMORY, "out of host memory for the CG log");
    k->history = h;
    k->hcap = cap;
  }
  k->history[k->hcount++] = rnorm;
  return DG_OK;
}

/* "it 0: 1.0e+00, it 25: 3.1e-02, ..., it 200: 4.4e-05 (min 3.9e-05 at it
 * 180)": at most 8 samples of ||r|| / ||b||, for error messages. */
static void history_summary(const dg_krylov *k, double scale, char *buf,
                            size_t size) {
  size_t at = 0;
  int n = k->hcount;
  buf[0] = '\0';
  if (n == 0)
    return;
  int step = n > 8 ? (n + 6) / 7 : 1;
  int imin = 0;
  for (int i = 0; i < n; i++)
    if (k->history[i] < k->history[imin])
      imin = i;
  for (int i = 0; at < size; i += step) {
    if (i >= n - 1)
      i = n - 1;
    at += (size_t)snprintf(buf + at, size - at, "%sit %d: %.2e",
                           at ? ", " : "", i, k->history[i] / scale);
    if (i == n - 1)
      break;
  }
  if (at < size)
    snprintf(buf + at, size - at, " (min %.2e at it %d)",
             k->history[imin] / scale, imin);
}

/* Raise DG_ERR_NUMERIC with what happened, where, and the history. */
static dg_error fail(dg_krylov *k, const dg_krylov_result *res,
                     const char *what) {
  char hist[512];
  double scale = res->b_norm > 0 ? res->b_norm : 1.0;
  history_summary(k, scale, hist, sizeof hist);
  return dg_error_raise(
      DG_ERR_NUMERIC, __FILE__, __LINE__, __func__,
      "CG (preconditioner %s, rtol %g, atol %g) %s after %d iterations: "
      "||r|| = %.3e (%.3e of ||b||), target %.3e; ||r||/||b|| history: %s",
      dg_krylov_pc_name(k->opt.pc), k->opt.rtol, k->opt.atol, what,
      res->iterations, res->residual, res->residual / scale, res->target,
      hist);
}

static dg_error global_dot(dg_krylov *k, dg_reduction *red, const dg_arg *args,
                           double *out) {
  DG_CALL(dg_reduction_call(red, k->n, args, out));
  DG_CALL(dg_comm_allreduce_sum(k->comm, out, 1));
  return DG_OK;
}

/* r = b - A x; returns ||r||^2 (global). */
static dg_error true_residual(dg_krylov *k, const dg_array *b,
                              const dg_array *x, double *rr) {
  DG_CALL(dg_sparse_dist_spmv(k->A, x, k->q));
  dg_arg a[] = {DG_ARG_ARRAY(k->r), DG_ARG_ARRAY(b), DG_ARG_ARRAY(k->q)};
  DG_CALL(global_dot(k, k->residual, a, rr));
  return DG_OK;
}

/* z = M^-1 r and the local r . z (none: z is r, r . z = r . r = rr). */
static dg_error precondition(dg_krylov *k, double rr, double *rz_local) {
  switch (k->opt.pc) {
  case DG_KRYLOV_PC_NONE:
    *rz_local = rr;
    return DG_OK;
  case DG_KRYLOV_PC_JACOBI: {
    dg_arg a[] = {DG_ARG_ARRAY(k->z), DG_ARG_ARRAY(k->r),
                  DG_ARG_ARRAY(k->dinv)};
    DG_CALL(dg_reduction_call(k->jacobi, k->n, a, rz_local));
    return DG_OK;
  }
  case DG_KRYLOV_PC_BLOCK_JACOBI: {
    DG_CALL(dg_sparse_spmv(k->binv, k->r, k->z, 0, NULL));
    dg_arg a[] = {DG_ARG_ARRAY(k->r), DG_ARG_ARRAY(k->z)};
    DG_CALL(dg_reduction_call(k->dot, k->n, a, rz_local));
    return DG_OK;
  }
  }
  DG_RAISE(DG_ERR_INTERNAL, "unknown preconditioner %d", (int)k->opt.pc);
}

/* With a preconditioner: z, and the global r . z (rr is already global). */
static dg_error precondition_global(dg_krylov *k, double rr, double *rz) {
  DG_CALL(precondition(k, rr, rz));
  if (k->opt.pc != DG_KRYLOV_PC_NONE)
    DG_CALL(dg_comm_allreduce_sum(k->comm, rz, 1));
  return DG_OK;
}

static const dg_array *z_of(const dg_krylov *k) {
  return k->opt.pc == DG_KRYLOV_PC_NONE ? k->r : k->z;
}

/* Start (or restart) from the true residual in r: p = z, returns r . z. */
static dg_error start_direction(dg_krylov *k, double rr, double *rz,
                                dg_krylov_result *res) {
  DG_CALL(precondition_global(k, rr, rz));
  if (!(*rz > 0.0))
    return fail(k, res, isfinite(*rz) ? "found r . M^-1 r <= 0 (the "
                "preconditioner is not positive definite)"
                : "produced NaN or Inf in r . M^-1 r");
  DG_CALL(dg_array_copy(k->p, z_of(k)));
  return DG_OK;
}

dg_error dg_krylov_solve(dg_krylov *k, const dg_array *b, dg_array *x,
                         dg_krylov_result *result) {
  DG_CHECK(k && b && x && result, DG_ERR_ARG, "dg_krylov_solve: NULL argument");
  DG_CHECK(dg_array_length(b) == k->n && dg_array_length(x) == k->n &&
               dg_array_dtype(b) == k->dtype && dg_array_dtype(x) == k->dtype,
           DG_ERR_ARG, "CG on %lld local rows of %s: b has %lld entries of "
           "%s, x %lld of %s", (long long)k->n, dg_dtype_name(k->dtype),
           (long long)dg_array_length(b), dg_dtype_name(dg_array_dtype(b)),
           (long long)dg_array_length(x), dg_dtype_name(dg_array_dtype(x)));
  dg_krylov_result *res = result;
  *res = (dg_krylov_result){0};
  k->hcount = 0;
  double bb;
  dg_arg ab[] = {DG_ARG_ARRAY(b), DG_ARG_ARRAY(b)};
  DG_CALL(global_dot(k, k->dot, ab, &bb));
  DG_CHECK(isfinite(bb), DG_ERR_NUMERIC, "CG: b holds NaN or Inf");
  res->b_norm = sqrt(bb);
  res->target = fmax(k->opt.rtol * res->b_norm, k->opt.atol);
  if (bb == 0.0) {
    /* A x = 0 has the solution x = 0 exactly (A is SPD). */
    DG_CALL(dg_array_fill(x, 0.0));
    res->converged = 1;
    DG_CALL(record(k, 0.0));
    return DG_OK;
  }
  double rr, rz;
  DG_CALL(true_residual(k, b, x, &rr));
  res->residual = sqrt(rr);
  DG_CALL(record(k, res->residual));
  if (!isfinite(rr))
    return fail(k, res, "produced NaN or Inf in the initial residual");
  if (res->residual <= res->target) {
    res->converged = 1;
    return DG_OK;
  }
  DG_CALL(start_direction(k, rr, &rz, res));
  int rank0 = dg_comm_rank(k->comm) == 0;
  while (res->iterations < k->opt.max_iterations) {
    /* a = (r . z) / (p . A p) */
    DG_CALL(dg_sparse_dist_spmv(k->A, k->p, k->q));
    double pq;
    dg_arg apq[] = {DG_ARG_ARRAY(k->p), DG_ARG_ARRAY(k->q)};
    DG_CALL(global_dot(k, k->dot, apq, &pq));
    if (!(pq > 0.0))
      return fail(k, res, isfinite(pq) ? "found p . A p <= 0 (the matrix is "
                  "not positive definite: indefinite, or singular)"
                  : "produced NaN or Inf in p . A p");
    double a = rz / pq;
    /* x += a p, r -= a q, rr = r . r; then z = M^-1 r, rz = r . z; one
     * allreduce for both sums. */
    dg_arg au[] = {DG_ARG_ARRAY(x), DG_ARG_ARRAY(k->r), DG_ARG_ARRAY(k->p),
                   DG_ARG_ARRAY(k->q), DG_ARG_REAL(a)};
    double sums[2];
    DG_CALL(dg_reduction_call(k->update, k->n, au, &sums[0]));
    DG_CALL(precondition(k, sums[0], &sums[1]));
    DG_CALL(dg_comm_allreduce_sum(k->comm, sums,
                                  k->opt.pc == DG_KRYLOV_PC_NONE ? 1 : 2));
    rr = sums[0];
    double rz_new = k->opt.pc == DG_KRYLOV_PC_NONE ? rr : sums[1];
    res->iterations++;
    res->residual = sqrt(rr);
    DG_CALL(record(k, res->residual));
    if (k->opt.log_every > 0 && rank0 &&
        res->iterations % k->opt.log_every == 0)
      dg_info("cg: iteration %d  ||r|| = %.6e  ||r||/||b|| = %.3e",
              res->iterations, res->residual, res->residual / res->b_norm);
    if (!isfinite(rr) || !isfinite(rz_new))
      return fail(k, res, "produced NaN or Inf in the residual");
    if (res->residual <= res->target) {
      /* Accept only a true residual that passes. */
      DG_CALL(true_residual(k, b, x, &rr));
      res->residual = sqrt(rr);
      if (res->residual <= res->target) {
        res->converged = 1;
        if (k->opt.log_every > 0 && rank0)
          dg_info("cg: converged in %d iterations, ||b - A x|| = %.6e",
                  res->iterations, res->residual);
        return DG_OK;
      }
      res->restarts++;
      if (rank0)
        dg_info("cg: recurrence residual passed but ||b - A x|| = %.3e does "
                "not; restarting at iteration %d", res->residual,
                res->iterations);
      k->history[k->hcount - 1] = res->residual;
      DG_CALL(start_direction(k, rr, &rz, res));
      continue;
    }
    if (!(rz_new > 0.0))
      return fail(k, res, "found r . M^-1 r <= 0 (the preconditioner is not "
                  "positive definite)");
    /* p = z + beta p, beta = (r . z)_new / (r . z)_old */
    dg_arg ad[] = {DG_ARG_ARRAY(k->p), DG_ARG_ARRAY(z_of(k)),
                   DG_ARG_REAL(rz_new / rz)};
    DG_CALL(dg_elementwise_call(k->direction, k->n, ad));
    rz = rz_new;
  }
  /* The recurrence residual is an estimate: report the true one. */
  DG_CALL(true_residual(k, b, x, &rr));
  res->residual = sqrt(rr);
  if (res->residual <= res->target) {
    res->converged = 1;
    return DG_OK;
  }
  return fail(k, res, "did not converge");
}
