/* Derivatives in the flux language: the checks of grad, div, curl and the
 * partials (where they may stand, their argument's shape, the result's),
 * and the structure a volume term needs for its strong-form surface term
 * (linear in its derivatives with field-free factors).  The derivatives
 * that are lifted gradients (second-order terms) are flux_check_grad.c's. */
#include "operators/flux_check_expr.h"

dg_flux_node *dg_flux_check_deriv(dg_flux_checker *ck, dg_flux_scope *sc, const dg_flux_syn *s,
                                  const char *name, int id) {
  char b1[48];
  int dim = ck->prog->dim;
  int dir = id - DG_FLUX_D_X;
  if (id >= DG_FLUX_D_X && dir >= dim) {
    dg_flux_check_error(ck, s->loc, "'%s' needs dimension %d or more; this is a %dD problem",
                        name, dir + 1, dim);
    return NULL;
  }
  if (id == DG_FLUX_D_CURL && dim == 1) {
    dg_flux_check_error(ck, s->loc, "curl needs dimension 2 or 3; this is a 1D problem");
    return NULL;
  }
  /* Inside a derivative's argument, a let, a numerical flux or a boundary
   * condition a derivative is a lifted gradient (second-order terms). */
  if (sc->ctx == DG_FLUX_CTX_LET || sc->ctx == DG_FLUX_CTX_FLUX || sc->ctx == DG_FLUX_CTX_BC ||
      (sc->ctx == DG_FLUX_CTX_RHS && sc->in_deriv))
    return dg_flux_check_gradient(ck, sc, s, name, id);
  if (sc->ctx != DG_FLUX_CTX_RHS) {
    dg_flux_check_error(ck, s->loc,
                        "derivatives ('%s') exist only in volume terms (rhs), let bindings, "
                        "numerical fluxes and boundary conditions, not in %s",
                        name, sc->what);
    return NULL;
  }
  sc->in_deriv = 1;
  dg_flux_node *g = dg_flux_check_expr(ck, sc, s->args[0]);
  sc->in_deriv = 0;
  if (!g)
    return NULL;
  dg_flux_shape r = g->shape, gs = g->shape;
  switch ((dg_flux_deriv)id) {
  case DG_FLUX_D_GRAD:
    if (gs.rank != 0) {
      dg_flux_check_error(ck, s->loc, "grad needs a scalar argument, got %s",
                          dg_flux_check_a_shape(gs, b1));
      return NULL;
    }
    r = dg_flux_shape_vector(dim);
    break;
  case DG_FLUX_D_DIV:
    if (gs.rank == 1 && gs.rows == dim)
      r = dg_flux_shape_scalar();
    else if (gs.rank == 2 && gs.cols == dim)
      r = dg_flux_shape_vector(gs.rows);
    else {
      dg_flux_check_error(ck, s->loc,
                          "div in %dD needs a %d-vector, or a list of %d-vectors (one per row), "
                          "got %s",
                          dim, dim, dim, dg_flux_check_a_shape(gs, b1));
      return NULL;
    }
    break;
  case DG_FLUX_D_CURL:
    if (dg_flux_cross_shape(dim, dg_flux_shape_vector(dim), gs, &r) != 0) {
      dg_flux_check_error(ck, s->loc, "curl in %dD needs %s, got %s", dim,
                          dim == 3 ? "a 3-vector" : "a scalar or a 2-vector",
                          dg_flux_check_a_shape(gs, b1));
      return NULL;
    }
    break;
  default: break; /* partials keep the shape */
  }
  dg_flux_node *n = dg_flux_node_unary(ck->a, DG_FLUX_DERIV, r, s->loc, g);
  if (!n) {
    ck->oom = 1;
    return NULL;
  }
  n->ref = id;
  return n;
}

/* Every derivative in n differentiates an expression free of fields (of
 * x, t and params only, e.g. a bathymetry dx(b)): such a D(g) is a given
 * function of position, which a field may multiply (a non-conservative
 * product; its surface form takes the factor on the interior trace). */
static int derivs_field_free(const dg_flux_checker *ck, const dg_flux_node *n) {
  if (n->op == DG_FLUX_DERIV)
    return !dg_flux_check_reads_fields(ck, n->args[0]);
  for (int i = 0; i < n->nargs; i++)
    if (!derivs_field_free(ck, n->args[i]))
      return 0;
  return 1;
}

/* A volume term must be linear in its derivatives with field-free factors
 * (sum of coefficient * D(g) plus pointwise terms), or it has no strong-form
 * surface term.  Returns 0 after reporting the first violation. */
int dg_flux_check_linear_in_derivs(dg_flux_checker *ck, const dg_flux_node *n) {
  if (!dg_flux_node_has_deriv(n) || n->op == DG_FLUX_DERIV)
    return 1;
  switch (n->op) {
  case DG_FLUX_ADD:
  case DG_FLUX_SUB:
  case DG_FLUX_NEG:
  case DG_FLUX_VEC:
  case DG_FLUX_INDEX:
    for (int i = 0; i < n->nargs; i++)
      if (!dg_flux_check_linear_in_derivs(ck, n->args[i]))
        return 0;
    return 1;
  case DG_FLUX_MUL:
  case DG_FLUX_DIV:
  case DG_FLUX_CALL:
    if (n->op != DG_FLUX_CALL || n->ref == DG_FLUX_FN_DOT || n->ref == DG_FLUX_FN_CROSS) {
      const dg_flux_node *x = n->args[0], *y = n->args[1];
      int dx = dg_flux_node_has_deriv(x), dy = dg_flux_node_has_deriv(y);
      if (n->op == DG_FLUX_DIV && dy) {
        dg_flux_check_error(ck, n->loc, "a derivative cannot be in a denominator");
        return 0;
      }
      if (dx && dy) {
        dg_flux_check_error(ck, n->loc,
                            "a product of two derivatives is not allowed in a volume term");
        return 0;
      }
      const dg_flux_node *coef = dx ? y : x;
      if (dg_flux_check_reads_fields(ck, coef) && !derivs_field_free(ck, dx ? x : y)) {
        dg_flux_check_error(ck, coef->loc,
                            "a derivative may be multiplied only by an expression of "
                            "constants, params, coefficients, x and t; this factor depends "
                            "on fields");
        return 0;
      }
      return dg_flux_check_linear_in_derivs(ck, dx ? x : y);
    }
    /* fallthrough */
  default:
    dg_flux_check_error(ck, n->loc,
                        "a derivative may appear only in sums, differences, products with "
                        "field-free factors, vectors and components; not inside this operation");
    return 0;
  }
}

