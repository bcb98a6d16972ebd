/* PROVISIONAL (branch history only): a host-side stand-in for quad's
 * device quadrature behind problems/solver/quantities.h, so that the
 * history observer and its tests run; at the merge quad's quantities.c
 * replaces this file.  Here: the state comes to the host
 * (dg_solver_get_state); the L2 error is the nodal one,
 * sqrt(sum_k J_k e_k^T M e_k) (Hesthaven & Warburton (2008) sec. 6.1,
 * the interpolant's error, not a quadrature of degree 2N + 2), the max
 * error is over the nodes; the flux language has no integral statement
 * yet, so there are no integrals. */
#include "problems/solver/quantities.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "operators/flux_eval.h"

struct dg_quantities {
  dg_solver *s;
  const dg_discretization *disc;
  const dg_flux_program *prog;
  dg_parallel *par;
  int n, *field; /* n quantities: 2 per field with an exact solution */
  char (*names)[160];
  int ncomp;
  double *u; /* the host state, allocated by the first evaluation */
};

dg_error dg_quantities_create(dg_solver *s, const dg_discretization *disc,
                              const dg_flux_program *prog, dg_parallel *par,
                              dg_quantities **out) {
  *out = NULL;
  dg_quantities *q = calloc(1, sizeof *q);
  DG_CHECK(q, DG_ERR_MEMORY, "out of memory");
  *out = q;
  q->s = s;
  q->disc = disc;
  q->prog = prog;
  q->par = par;
  int nf = dg_flux_field_count(prog), ncomp = 0;
  q->field = calloc((size_t)nf + 1, sizeof *q->field);
  q->names = calloc(2 * (size_t)nf + 1, sizeof *q->names);
  DG_CHECK(q->field && q->names, DG_ERR_MEMORY, "out of memory");
  for (int f = 0; f < nf; f++) {
    const dg_flux_field_info *fi = dg_flux_field(prog, f);
    ncomp += fi->ncomp;
    if (fi->exact)
      q->field[q->n++] = f;
  }
  for (int i = 0; i < q->n; i++) {
    const char *name = dg_flux_field(prog, q->field[i])->name;
    snprintf(q->names[i], sizeof q->names[i], "l2_%s", name);
    snprintf(q->names[q->n + i], sizeof q->names[i], "max_%s", name);
  }
  q->ncomp = ncomp;
  return DG_OK;
}

void dg_quantities_destroy(dg_quantities **q) {
  if (!*q)
    return;
  free((*q)->field);
  free((*q)->names);
  free((*q)->u);
  free(*q);
  *q = NULL;
}

int dg_quantities_count(const dg_quantities *q) { return 2 * q->n; }

const char *dg_quantities_name(const dg_quantities *q, int i) {
  return i >= 0 && i < 2 * q->n ? q->names[i] : NULL;
}

/* sum_k J_k e^T M e and max |e| of field f over this rank's elements */
static dg_error field_errors(const dg_quantities *q, int f, double t, double *sum, double *mx) {
  const dg_discretization *d = q->disc;
  const dg_flux_field_info *fi = dg_flux_field(q->prog, f);
  int Np = d->Np, nc = fi->ncomp;
  double *e = malloc(sizeof(double) * (size_t)(Np * nc) + 1);
  DG_CHECK(e, DG_ERR_MEMORY, "out of memory");
  *sum = 0;
  *mx = 0;
  dg_error err = DG_OK;
  for (int64_t k = 0; k < d->K && err == DG_OK; k++) {
    for (int i = 0; i < Np && err == DG_OK; i++) {
      double x[3] = {0}, ex[64];
      for (int a = 0; a < d->dim; a++)
        x[a] = d->X[a][k * Np + i];
      err = dg_flux_eval_exact(q->prog, f, x, t, ex);
      for (int c = 0; c < nc && err == DG_OK; c++) {
        e[c * Np + i] = q->u[((int64_t)(fi->offset + c) * d->K + k) * Np + i] - ex[c];
        *mx = isnan(e[c * Np + i]) || fabs(e[c * Np + i]) > *mx ? fabs(e[c * Np + i]) : *mx;
      }
    }
    for (int c = 0; c < nc && err == DG_OK; c++)
      for (int i = 0; i < Np; i++)
        for (int j = 0; j < Np; j++)
          *sum += d->J[k * Np] * e[c * Np + i] * d->re->M[i * Np + j] * e[c * Np + j];
  }
  free(e);
  DG_CALL(err);
  return DG_OK;
}

dg_error dg_quantities_eval(dg_quantities *q, double t, double *values) {
  if (q->n == 0)
    return DG_OK;
  if (!q->u) {
    q->u = malloc(sizeof(double) * (size_t)(q->ncomp * q->disc->K * q->disc->Np + 1));
    DG_CHECK(q->u, DG_ERR_MEMORY, "out of memory");
  }
  DG_CALL(dg_solver_get_state(q->s, q->u));
  for (int i = 0; i < q->n; i++)
    DG_CALL(field_errors(q, q->field[i], t, &values[i], &values[q->n + i]));
  DG_CALL(dg_parallel_sum(q->par, values, q->n));
  DG_CALL(dg_parallel_max(q->par, values + q->n, q->n));
  for (int i = 0; i < q->n; i++)
    values[i] = sqrt(values[i]);
  return DG_OK;
}

int dg_quantities_fields_without_exact(const dg_quantities *q, const char **names, int max) {
  int n = 0;
  for (int f = 0; f < dg_flux_field_count(q->prog); f++)
    if (!dg_flux_field(q->prog, f)->exact) {
      if (n < max)
        names[n] = dg_flux_field(q->prog, f)->name;
      n++;
    }
  return n;
}
