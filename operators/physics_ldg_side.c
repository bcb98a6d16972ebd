/* Which side's lifted gradients a face needs (physics_ldg_side.h).
 *
 * ldg(e) is lowered to avg(e) - beta_n*jump(e) = 0.5*(e.int + e.ext) -
 * beta_n*(e.int - e.ext) (flux_check_grad.c dg_flux_check_ldg, the two
 * traces shared by both halves).  With beta_n = +1/2 that is e.ext, with
 * -1/2 e.int, exactly: the side ldg does not take cancels whatever it holds
 * (Cockburn & Shu 1998's alternating fluxes; PyFR's default ldg-beta).  So
 * when every gradient trace of the numerical fluxes sits inside an ldg(...)
 * and |ldg_beta| = 1/2, an interior face needs the gradient traces of one
 * side only, and the emitter may load those into both gM and gP: half the
 * gradient gathers of the second pass (NS 3D: 12 of the 34 values a face
 * node reads).  A gradient trace anywhere else (grad(T).int, avg(grad(u)),
 * a jump of a let that reads gradients) keeps both sides. */
#include "operators/physics_ldg_side.h"

#include <math.h>
#include <stdlib.h>

/* n is the lowered ldg(e): SUB(MUL(0.5, ADD(i, x)), MUL(LDGB, SUB(i, x)))
 * with the same i and x nodes in both halves. */
static int is_ldg(const dg_flux_node *n) {
  if (n->op != DG_FLUX_SUB || n->nargs != 2)
    return 0;
  const dg_flux_node *avg = n->args[0], *bj = n->args[1];
  if (avg->op != DG_FLUX_MUL || bj->op != DG_FLUX_MUL || avg->nargs != 2 || bj->nargs != 2)
    return 0;
  const dg_flux_node *half = avg->args[0], *sum = avg->args[1];
  const dg_flux_node *beta = bj->args[0], *jump = bj->args[1];
  if (half->op != DG_FLUX_NUM || half->value != 0.5 || beta->op != DG_FLUX_LDGB)
    return 0;
  if (sum->op != DG_FLUX_ADD || jump->op != DG_FLUX_SUB || sum->nargs != 2 || jump->nargs != 2)
    return 0;
  return sum->args[0] == jump->args[0] && sum->args[1] == jump->args[1];
}

typedef struct walk {
  const dg_physics *ph;
  signed char *let_grad; /* per let: -1 unknown, 0 / 1 whether it reads gradients */
} walk;

/* 1 when a gradient is read under n outside every ldg(...). */
static int reads_gradient(walk *w, const dg_flux_node *n) {
  if (n->op == DG_FLUX_GRADQ)
    return 1;
  if (n->op == DG_FLUX_LET) {
    int r = n->ref;
    if (r < 0 || r >= w->ph->nlets)
      return 1; /* (not a let this walk knows: keep both sides) */
    if (w->let_grad[r] < 0) {
      w->let_grad[r] = 1; /* (a cycle, which the checker refuses, stays safe) */
      w->let_grad[r] = (signed char)reads_gradient(w, w->ph->lets[r]);
    }
    return w->let_grad[r];
  }
  if (is_ldg(n))
    return 0;
  for (int i = 0; i < n->nargs; i++)
    if (reads_gradient(w, n->args[i]))
      return 1;
  return 0;
}

int dg_physics_ldg_one_sided(const dg_physics *ph) {
  if (ph->ngrad <= 0 || fabs(ph->ldg_beta) != 0.5)
    return 0;
  walk w = {ph, malloc((size_t)(ph->nlets > 0 ? ph->nlets : 1))};
  if (!w.let_grad)
    return 0; /* (both sides: always right) */
  for (int i = 0; i < ph->nlets; i++)
    w.let_grad[i] = -1;
  int outside = 0;
  for (int f = 0; f < ph->nfields && !outside; f++)
    outside = reads_gradient(&w, ph->flux[f]);
  free(w.let_grad);
  return !outside;
}
