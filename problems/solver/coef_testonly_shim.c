/* TEMPORARY (branch coefrt only; the coordinator deletes this file at the
 * merge): minimal stand-ins for APIs that other branches implement, so
 * that the coefficient set-up links and its tests run here.
 *   dg_flux_coef_*      (branch coeflang): a table the tests fill through
 *                       dg_coef_testonly_declare; empty by default, so every
 *                       program reads as having no coefficients
 *   dg_flux_expr_*      (branch coeflang): the expression parsed as the
 *                       initial condition of a one-field flux program
 *   dg_solver_set_coefficients (coordinator): a no-op */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "operators/flux.h"
#include "operators/flux_eval.h"
#include "operators/flux_expr.h"
#include "problems/solver/solver.h"

static dg_flux_coef_info shim_coefs[16];
static int shim_ncoef;

void dg_coef_testonly_declare(int n, const dg_flux_coef_info *infos);
void dg_coef_testonly_declare(int n, const dg_flux_coef_info *infos) {
  shim_ncoef = n;
  for (int i = 0; i < n && i < 16; i++)
    shim_coefs[i] = infos[i];
}

int dg_flux_coef_count(const dg_flux_program *prog) {
  (void)prog;
  return shim_ncoef;
}
const dg_flux_coef_info *dg_flux_coef(const dg_flux_program *prog, int index) {
  (void)prog;
  return index >= 0 && index < shim_ncoef ? &shim_coefs[index] : NULL;
}
dg_error dg_flux_coef_find(const dg_flux_program *prog, const char *name, int *index) {
  (void)prog;
  for (int i = 0; i < shim_ncoef; i++)
    if (strcmp(shim_coefs[i].name, name) == 0) {
      *index = i;
      return DG_OK;
    }
  DG_RAISE(DG_ERR_INPUT, "the flux file has no coefficient '%s'", name);
}

struct dg_flux_expr {
  dg_flux_program *prog;
  int uses_x;
};

dg_error dg_flux_expr_parse(const char *text, const char *file, int line, int col, int dim,
                            const dg_flux_program *prog, dg_flux_expr **out) {
  (void)prog;
  *out = NULL;
  char src[2048];
  snprintf(src, sizeof src, "dim %d\nfields shim_u\nrhs shim_u = 0\nflux shim_u = 0\n"
           "initial shim_u = %s\n", dim, text);
  dg_flux_expr *e = calloc(1, sizeof *e);
  DG_CHECK(e, DG_ERR_MEMORY, "out of memory");
  if (dg_flux_parse_buffer(src, strlen(src), "expr", dim, &e->prog, NULL) != DG_OK) {
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", dg_error_message());
    dg_error_clear();
    free(e);
    DG_RAISE(DG_ERR_INPUT, "%s:%d:%d: error: bad expression '%s' (%s)", file, line, col, text,
             msg);
  }
  e->uses_x = strstr(text, "x[") != NULL;
  *out = e;
  return DG_OK;
}
dg_error dg_flux_expr_eval(const dg_flux_expr *e, const double *x, double *v) {
  DG_CALL(dg_flux_eval_initial(e->prog, 0, x, 0.0, v));
  return DG_OK;
}
int dg_flux_expr_uses_x(const dg_flux_expr *e) { return e->uses_x; }
void dg_flux_expr_destroy(dg_flux_expr **e) {
  if (!e || !*e)
    return;
  dg_flux_program_destroy(&(*e)->prog);
  free(*e);
  *e = NULL;
}

dg_error dg_solver_set_coefficients(dg_solver *s, const double *values) {
  (void)s;
  (void)values;
  return DG_OK;
}
