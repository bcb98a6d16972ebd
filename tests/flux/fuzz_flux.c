/* Fuzz target of the flux language: any bytes, for each dimension, must
 * give either a checked program or DG_ERR_INPUT with diagnostics, never a
 * crash, a hang, a leak or undefined behaviour.  A program that checks is
 * also printed and evaluated (initial states, surface forms, fluxes and
 * boundary values at a made-up face point), so the evaluator and printer
 * see every shape of AST the checker lets through. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "operators/flux.h"
#include "operators/flux_eval.h"
#include "operators/flux_expr.h"
#include "operators/flux_lower.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void exercise(dg_flux_program *prog) {
  int ns = dg_flux_state_size(prog);
  double *u = calloc((size_t)ns + 1, sizeof *u), *w = calloc((size_t)ns + 1, sizeof *w);
  double out[DG_FLUX_MAX_COMPONENTS];
  double x[3] = {0.25, 0.5, 0.75}, n[3] = {0.6, 0.8, 0.0};
  char text[512];
  if (!u || !w)
    goto done;
  for (int i = 0; i < ns; i++)
    u[i] = 1.0 + 0.1 * i, w[i] = 1.5 - 0.05 * i;
  double c[DG_FLUX_MAX_COEFS], ci[DG_FLUX_MAX_COEFS], ce[DG_FLUX_MAX_COEFS];
  for (int i = 0; i < DG_FLUX_MAX_COEFS; i++)
    c[i] = 1.0 + 0.01 * i, ci[i] = 1.25 + 0.02 * i, ce[i] = 2.0 - 0.01 * i;
  /* lifted gradients of second-order terms: at the node and both traces */
  double q[DG_FLUX_MAX_GRADIENTS * 3], qi[DG_FLUX_MAX_GRADIENTS * 3], qe[DG_FLUX_MAX_GRADIENTS * 3];
  for (int i = 0; i < DG_FLUX_MAX_GRADIENTS * 3; i++)
    q[i] = 0.5 - 0.01 * i, qi[i] = 0.25 + 0.02 * i, qe[i] = -0.75 + 0.01 * i;
  dg_flux_point pt = {.x = x, .t = 0.5, .n = n, .u = u, .u_int = u, .u_ext = w,
                      .c = c, .c_int = ci, .c_ext = ce, .q = q, .q_int = qi, .q_ext = qe,
                      .ldgb = 0.5};
  for (int f = 0; f < dg_flux_field_count(prog); f++) {
    const dg_flux_field_info *fi = dg_flux_field(prog, f);
    const dg_flux_node *nodes[] = {fi->surface, fi->flux, fi->initial, fi->exact, fi->source};
    for (size_t k = 0; k < sizeof nodes / sizeof *nodes; k++) {
      if (!nodes[k])
        continue;
      if (dg_flux_eval(prog, nodes[k], &pt, out, DG_FLUX_MAX_COMPONENTS) != DG_OK)
        abort(); /* checked pointwise expressions always evaluate */
      dg_flux_print(prog, nodes[k], text, sizeof text);
    }
    dg_flux_print(prog, fi->rhs, text, sizeof text);
    /* lowering: every component of the rhs splits into derivative terms,
     * every component of the flux evaluates as its lowered scalar tree */
    dg_flux_arena *a = dg_flux_program_arena(prog);
    int dim = dg_flux_program_dim(prog);
    for (int c = 0; c < fi->ncomp; c++) {
      dg_flux_node *lc;
      dg_flux_volume v;
      dg_error e = dg_flux_lower_component(a, dim, fi->rhs, c, &lc);
      if (e == DG_OK && dg_flux_lower_volume(a, lc, &v) != DG_OK)
        abort(); /* a checked rhs always splits */
      if (e != DG_OK && e != DG_ERR_INPUT)
        abort(); /* only the size limit may stop it */
      if (dg_flux_lower_component(a, dim, fi->flux, c, &lc) == DG_OK &&
          dg_flux_eval(prog, lc, &pt, out, 1) != DG_OK)
        abort();
      dg_error_clear();
    }
  }
  for (int b = 0; b < dg_flux_boundary_count(prog); b++) {
    for (int f = 0; f < dg_flux_field_count(prog); f++)
      if (dg_flux_eval(prog, dg_flux_boundary(prog, b)->exterior[f], &pt, out,
                       DG_FLUX_MAX_COMPONENTS) != DG_OK)
        abort();
    for (int j = 0; j < dg_flux_gradient_count(prog); j++)
      if (dg_flux_eval(prog, dg_flux_boundary(prog, b)->grad_exterior[j], &pt, out,
                       DG_FLUX_MAX_COMPONENTS) != DG_OK ||
          dg_flux_eval(prog, dg_flux_gradient(prog, j)->arg, &pt, out, 1) != DG_OK)
        abort(); /* every boundary gives every gradient; its scalar is of the state */
  }
  if (dg_flux_param_count(prog) > 0 &&
      dg_flux_set_param(prog, dg_flux_param(prog, 0)->name, 2.0) != DG_OK)
    abort();
  if (dg_flux_eval_initial_state(prog, x, 0.0, u) != DG_OK)
    abort();
done:
  free(u);
  free(w);
}

/* The bytes as a problem.cfg value (up to the first NUL), checked against
 * prog (may be NULL): a value or DG_ERR_INPUT, and a value evaluates. */
static void exercise_value(const uint8_t *data, size_t size, const dg_flux_program *prog) {
  char *text = malloc(size + 1);
  if (!text)
    return;
  memcpy(text, data, size);
  text[size] = '\0';
  dg_flux_expr *e = NULL;
  double x[3] = {0.25, -0.5, 0.75}, v;
  dg_error err = dg_flux_expr_parse(text, "fuzz.cfg", 3, 7, 3, prog, &e);
  if (err == DG_OK && (!e || dg_flux_expr_eval(e, x, &v) != DG_OK))
    abort();
  if (err != DG_OK && (err != DG_ERR_INPUT || e))
    abort();
  dg_flux_expr_destroy(&e);
  dg_error_clear();
  free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static dg_flux_diags diags;
  exercise_value(data, size, NULL);
  for (int dim = 0; dim <= 3; dim++) {
    dg_flux_program *prog = NULL;
    dg_error err = dg_flux_parse_buffer((const char *)data, size, "fuzz.flux", dim, &prog,
                                        &diags);
    if (err == DG_OK) {
      if (!prog || diags.count != 0)
        abort();
      exercise(prog);
      dg_flux_program_destroy(&prog);
    } else if (err != DG_ERR_INPUT || prog || diags.count == 0) {
      abort(); /* a rejected input must say why, and leave nothing behind */
    }
    dg_error_clear();
  }
  return 0;
}
