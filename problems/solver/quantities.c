/* The run's quantities by element quadrature on the device (quantities.h). */
#include "problems/solver/quantities.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/reduction.h"
#include "dg/bernstein.h"
#include "dg/cubature.h"
#include "operators/gen_quadrature.h"
#include "operators/physics.h"
#include "problems/solver/element_module.h"

struct dg_quantities {
  dg_solver *s;
  dg_device *dev;
  dg_parallel *par;
  dg_physics ph;
  dg_physics_tables *tables;
  int nexact, nintegrals, nout, degree, ncub, basis;
  char **names;          /* nout */
  int *is_max;           /* nout: reduced by max (else by sum) */
  int *is_l2;            /* nout: an L2 error (sqrt of the sum) */
  const char **no_exact; /* fields without an exact solution */
  int nno_exact;
  dg_module *mod;
  dg_kernel *k;
  int one_chunk;         /* dg_quantities_create_wrapped */
  dg_codegen_target tg;  /* of the module */
  void *Jk, *IQ, *IX, *W, *out;
  dg_reduction *rsum, *rmax;
  int64_t K, K_owned;
};

void dg_quantities_destroy(dg_quantities **qp) {
  if (!qp || !*qp)
    return;
  dg_quantities *q = *qp;
  for (int i = 0; q->names && i < q->nout; i++)
    free(q->names[i]);
  free(q->names);
  free(q->is_max);
  free(q->is_l2);
  free(q->no_exact);
  dg_module_destroy(&q->mod);
  void *dev_arrays[] = {q->Jk, q->IQ, q->IX, q->W, q->out};
  for (int i = 0; i < 5; i++)
    if (dev_arrays[i])
      dg_device_free(q->dev, dev_arrays[i]);
  dg_reduction_destroy(&q->rsum);
  dg_reduction_destroy(&q->rmax);
  dg_physics_tables_destroy(&q->tables);
  free(q);
  *qp = NULL;
}

int dg_quantities_count(const dg_quantities *q) { return q->nout; }
int dg_quantities_degree(const dg_quantities *q) { return q->degree; }
const char *dg_quantities_name(const dg_quantities *q, int i) {
  return i >= 0 && i < q->nout ? q->names[i] : NULL;
}
int dg_quantities_fields_without_exact(const dg_quantities *q, const char **names, int max) {
  for (int i = 0; i < q->nno_exact && i < max; i++)
    names[i] = q->no_exact[i];
  return q->nno_exact;
}

static dg_error upload(dg_device *dev, const void *host, size_t bytes, void **out) {
  DG_CALL(dg_device_malloc(dev, bytes, out));
  DG_CALL(dg_device_upload(dev, *out, host, bytes));
  return DG_OK;
}

/* Names and reductions of the outputs, and the fields without an exact
 * solution. */
static dg_error name_outputs(dg_quantities *q, const dg_flux_program *prog) {
  int nf = dg_flux_field_count(prog);
  q->names = calloc((size_t)q->nout + 1, sizeof *q->names);
  q->is_max = calloc((size_t)q->nout + 1, sizeof *q->is_max);
  q->is_l2 = calloc((size_t)q->nout + 1, sizeof *q->is_l2);
  q->no_exact = calloc((size_t)nf + 1, sizeof *q->no_exact);
  DG_CHECK(q->names && q->is_max && q->is_l2 && q->no_exact, DG_ERR_MEMORY, "out of memory");
  int o = 0;
  for (int f = 0; f < nf; f++) {
    const dg_flux_field_info *fi = dg_flux_field(prog, f);
    if (!fi->exact) {
      q->no_exact[q->nno_exact++] = fi->name;
      continue;
    }
    size_t len = strlen(fi->name) + 5;
    q->names[o] = malloc(len);
    q->names[o + 1] = malloc(len);
    DG_CHECK(q->names[o] && q->names[o + 1], DG_ERR_MEMORY, "out of memory");
    snprintf(q->names[o], len, "l2_%s", fi->name);
    snprintf(q->names[o + 1], len, "max_%s", fi->name);
    q->is_l2[o] = 1;
    q->is_max[o + 1] = 1;
    o += 2;
  }
  for (int i = 0; i < q->nintegrals; i++, o++) {
    q->names[o] = strdup(dg_flux_integral(prog, i)->name);
    DG_CHECK(q->names[o], DG_ERR_MEMORY, "out of memory");
  }
  return DG_OK;
}

/* The interpolation matrices (NCUB + NP) x NP of the kernel: IX from nodal
 * values to the cubature points, then the identity at the nodes; IQ the
 * same for the state, times the Bernstein Vandermonde when the state holds
 * Bernstein-Bezier coefficients.  W the reference weights. */
static dg_error build_tables(dg_quantities *q, const dg_refelem *re) {
  int dim = re->dim, Np = re->Np, nc = q->ncub, npt = nc + Np;
  size_t nm = (size_t)npt * Np;
  double *w = malloc(sizeof(double) * (size_t)nc * 4 + 2 * sizeof(double) * nm);
  DG_CHECK(w, DG_ERR_MEMORY, "out of memory");
  double *r = w + nc, *s = r + nc, *t = s + nc, *IX = t + nc, *IQ = IX + nm;
  dg_bernstein *bb = NULL;
  dg_error err = DG_OK;
  DG_CALL_GOTO(err, done, dg_cubature_simplex(dim, q->degree, r, dim > 1 ? s : NULL,
                                              dim > 2 ? t : NULL, w));
  DG_CALL_GOTO(err, done, dg_refelem_interp(re, nc, r, dim > 1 ? s : NULL, dim > 2 ? t : NULL, IX));
  memset(IX + (size_t)nc * Np, 0, sizeof(double) * (size_t)Np * Np);
  for (int i = 0; i < Np; i++)
    IX[(size_t)(nc + i) * Np + i] = 1.0;
  if (q->basis) {
    DG_CALL_GOTO(err, done, dg_bernstein_create(re, &bb));
    for (int p = 0; p < npt; p++)
      for (int a = 0; a < Np; a++) {
        double v = 0;
        for (int j = 0; j < Np; j++)
          v += IX[(size_t)p * Np + j] * bb->V[(size_t)j * Np + a];
        IQ[(size_t)p * Np + a] = v;
      }
  } else {
    memcpy(IQ, IX, sizeof(double) * nm);
  }
  DG_CALL_GOTO(err, done, upload(q->dev, w, sizeof(double) * (size_t)nc, &q->W));
  DG_CALL_GOTO(err, done, upload(q->dev, IX, sizeof(double) * nm, &q->IX));
  DG_CALL_GOTO(err, done, upload(q->dev, IQ, sizeof(double) * nm, &q->IQ));
done:
  dg_bernstein_destroy(&bb);
  free(w);
  return err;
}

/* Generate the module for q->tg, pass it through wrap, compile, look up. */
static dg_error load_module(dg_quantities *q, const dg_flux_program *prog, const dg_opdata *od,
                            int state_float, char *(*wrap)(const char *)) {
  int nf = dg_flux_field_count(prog);
  const dg_flux_node **exact = calloc((size_t)nf + 1, sizeof *exact);
  const dg_flux_node **integrands = calloc((size_t)q->nintegrals + 1, sizeof *integrands);
  dg_error err = DG_OK;
  char *src = NULL;
  DG_CHECK_GOTO(err, done, exact && integrands, DG_ERR_MEMORY, "out of memory");
  for (int f = 0; f < nf; f++)
    exact[f] = dg_flux_field(prog, f)->exact;
  for (int i = 0; i < q->nintegrals; i++)
    integrands[i] = dg_flux_integral(prog, i)->integrand;
  dg_quadrature_spec spec = {od->dim,
                             od->Np,
                             od->np_pad,
                             q->ncub,
                             od->element_major ? DG_LAYOUT_ELEMENT_MAJOR : DG_LAYOUT_FIELD_MAJOR,
                             state_float,
                             &q->ph,
                             exact,
                             integrands,
                             q->nintegrals};
  DG_CALL_GOTO(err, done, dg_gen_quadrature(q->tg, &spec, &src));
  char *mine = src;
  src = NULL; /* (taken over by the load) */
  DG_CALL_GOTO(err, done,
               dg_element_module_load(q->s, "dg_quantities", q->tg, mine, wrap, &q->mod, &q->k));
done:
  free(src);
  free(exact);
  free(integrands);
  return err;
}

static dg_error create(dg_solver *s, const dg_discretization *disc, const dg_flux_program *prog,
                       dg_parallel *par, int target, char *(*wrap)(const char *),
                       dg_quantities **out) {
  *out = NULL;
  dg_quantities *q = calloc(1, sizeof *q);
  DG_CHECK(q, DG_ERR_MEMORY, "out of memory");
  q->s = s;
  q->dev = dg_solver_device(s);
  q->par = par;
  const dg_opdata *od = dg_solver_opdata(s);
  q->K = od->K;
  q->K_owned = od->K_owned;
  q->basis = dg_solver_kernels(s)->basis;
  q->tg = dg_element_module_target(s, target);
  q->one_chunk = wrap != NULL;
  for (int f = 0; f < dg_flux_field_count(prog); f++)
    q->nexact += dg_flux_field(prog, f)->exact != NULL;
  q->nintegrals = dg_flux_integral_count(prog);
  q->nout = 2 * q->nexact + q->nintegrals;
  /* degree 2N + 2 (issue 37): |u_h - p|^2 integrated exactly for every
   * polynomial p of degree N + 1, so the leading term of the error of a
   * smooth exact solution is, and the rest to higher order in h */
  q->degree = 2 * disc->N + 2;
  q->ncub = dg_cubature_count(disc->dim, q->degree);
  dg_error err = DG_OK;
  DG_CALL_GOTO(err, fail, name_outputs(q, prog));
  if (q->nout == 0) { /* nothing to compute: no module */
    *out = q;
    return DG_OK;
  }
  DG_CALL_GOTO(err, fail, dg_physics_from_program(prog, &q->ph, &q->tables));
  DG_CALL_GOTO(err, fail, build_tables(q, disc->re));
  if (q->K_owned > 0)
    DG_CALL_GOTO(err, fail, upload(q->dev, od->Jk, sizeof(double) * (size_t)q->K_owned, &q->Jk));
  DG_CALL_GOTO(err, fail, dg_device_malloc(q->dev,
                                           sizeof(double) * (size_t)(q->nout * q->K_owned + 1),
                                           &q->out));
  DG_CALL_GOTO(err, fail, load_module(q, prog, od, disc->precision == DG_FLOAT, wrap));
  /* the per-element columns: sums, and maxima of values >= 0 (NaN kept) */
  DG_CALL_GOTO(err, fail, dg_reduction_create_sum(q->dev, DG_DOUBLE, &q->rsum));
  DG_CALL_GOTO(err, fail, dg_reduction_create_max_abs(q->dev, DG_DOUBLE, &q->rmax));
  *out = q;
  return DG_OK;
fail:
  dg_quantities_destroy(&q);
  return err;
}

dg_error dg_quantities_create(dg_solver *s, const dg_discretization *disc,
                              const dg_flux_program *prog, dg_parallel *par,
                              dg_quantities **q) {
  DG_CALL(create(s, disc, prog, par, -1, NULL, q));
  return DG_OK;
}

dg_error dg_quantities_create_wrapped(dg_solver *s, const dg_discretization *disc,
                                      const dg_flux_program *prog, dg_parallel *par,
                                      dg_codegen_target tg, char *(*wrap)(const char *source),
                                      dg_quantities **q) {
  DG_CALL(create(s, disc, prog, par, (int)tg, wrap, q));
  return DG_OK;
}

/* Over the ranks: the sums, then the maxima with a flag per maximum for
 * a NaN (a max that skips NaN would hide a blown-up rank). */
static dg_error combine_ranks(dg_quantities *q, double *values) {
  double *v = malloc(sizeof(double) * 2 * (size_t)q->nout);
  DG_CHECK(v, DG_ERR_MEMORY, "out of memory");
  double *flag = v + q->nout;
  dg_error err = DG_OK;
  for (int pass = 0; pass < 2 && err == DG_OK; pass++) {
    int n = 0;
    for (int o = 0; o < q->nout; o++)
      if (q->is_max[o] == pass) {
        flag[n] = isnan(values[o]);
        v[n++] = values[o];
      }
    err = pass ? dg_parallel_max(q->par, v, n) : dg_parallel_sum(q->par, v, n);
    if (err == DG_OK && pass)
      err = dg_parallel_max(q->par, flag, n);
    n = 0;
    for (int o = 0; o < q->nout && err == DG_OK; o++)
      if (q->is_max[o] == pass) {
        values[o] = pass && flag[n] ? NAN : v[n];
        n++;
      }
  }
  free(v);
  DG_CALL(err);
  return DG_OK;
}

dg_error dg_quantities_eval(dg_quantities *q, double t, double *values) {
  if (q->nout == 0)
    return DG_OK;
  DG_CHECK(dg_solver_kernels(q->s)->basis == q->basis, DG_ERR_ARG,
           "the solver's basis changed since its quantities were set up");
  void *state = dg_solver_device_state(q->s), *vx = dg_solver_device_coordinates(q->s);
  long long K = q->K, K_owned = q->K_owned;
  void *cf = dg_solver_device_coefficients(q->s); /* read only with ncoef > 0 */
  void *args[] = {&state, &vx, &q->Jk, &q->IQ, &q->IX, &q->W, &t, &K, &K_owned, &q->out, &cf};
  DG_CALL(dg_element_module_launch(q->s, q->k, K_owned, q->one_chunk, args));
  for (int o = 0; o < q->nout; o++) {
    void *col = dg_device_offset(q->out, sizeof(double) * (size_t)(o * K_owned));
    DG_CALL(dg_reduction_call(q->is_max[o] ? q->rmax : q->rsum, K_owned,
                              (dg_arg[]){DG_ARG_POINTER(col)}, &values[o]));
  }
  if (q->par && q->par->size > 1)
    DG_CALL(combine_ranks(q, values));
  for (int o = 0; o < q->nout; o++)
    if (q->is_l2[o])
      values[o] = sqrt(values[o]);
  return DG_OK;
}
