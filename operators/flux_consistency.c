#include "operators/flux_consistency.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "operators/flux_eval.h"

/* Normals per state sample, and the agreement asked of the two values: a
 * consistent flux reproduces the surface form up to a few roundings of the
 * terms it sums (avg(e) = 0.5*(e + e) and jump(e) = e - e are exact, so
 * shipped fluxes agree to 1e-15 relative); 1e-9 of the field's largest
 * value leaves room for any rewriting, and a wrong factor (2x the flux,
 * a sign) is off by O(1). */
enum { NORMALS = 3 };
static const double TOL = 1e-9;

typedef struct rng {
  uint64_t s;
} rng;

/* uniform in [-1, 1) (xorshift64*): fixed seed, so a reported sample is the
 * same on every run */
static double uniform(rng *r) {
  r->s ^= r->s >> 12;
  r->s ^= r->s << 25;
  r->s ^= r->s >> 27;
  return 2.0 * (double)((r->s * 2685821657736338717ull) >> 11) / 9007199254740992.0 - 1.0;
}

static void random_normal(rng *r, int dim, double *n) {
  double len;
  do {
    len = 0;
    for (int i = 0; i < dim; i++) {
      n[i] = uniform(r);
      len += n[i] * n[i];
    }
  } while (len < 0.01);
  for (int i = 0; i < dim; i++)
    n[i] /= sqrt(len);
}

static int all_finite(const double *v, int n) {
  for (int i = 0; i < n; i++)
    if (!isfinite(v[i]))
      return 0;
  return 1;
}

/* "(a, b, c)" of n values into buf. */
static const char *tuple(const double *v, int n, char *buf, size_t size) {
  size_t len = 0;
  buf[0] = 0;
  for (int i = 0; i < n && len + 1 < size; i++) {
    int w = snprintf(buf + len, size - len, "%s%.6g", i ? ", " : "(", v[i]);
    len += w > 0 ? (size_t)w : 0;
  }
  if (len + 1 < size)
    snprintf(buf + len, size - len, ")");
  return buf;
}

/* State sample s at point x: the initial condition (even s) or the exact
 * solution at t = 0 (odd s, where the file has one), scaled by 1 + 5 % r
 * per component for s >= 2.  Returns 0 when the sample does not exist. */
static int sample_state(const dg_flux_program *prog, const double *x, int s, rng *r, double *u,
                        int *is_exact) {
  int nf = dg_flux_field_count(prog);
  *is_exact = s % 2;
  if (*is_exact) {
    for (int f = 0; f < nf; f++)
      if (!dg_flux_field(prog, f)->exact)
        return 0;
    for (int f = 0; f < nf; f++)
      if (dg_flux_eval_exact(prog, f, x, 0.0, u + dg_flux_field(prog, f)->offset) != DG_OK)
        return 0;
  } else if (dg_flux_eval_initial_state(prog, x, 0.0, u) != DG_OK) {
    return 0;
  }
  dg_error_clear();
  if (s >= 2)
    for (int c = 0; c < dg_flux_state_size(prog); c++)
      u[c] *= 1 + 0.05 * uniform(r);
  return all_finite(u, dg_flux_state_size(prog));
}

/* Each coefficient drawn inside its bounds: lower + 0.5..2 when bounded
 * below only, upper - 0.5..2 above only, the middle 80 % of the interval
 * when bounded on both sides, else 0.5..2 (a positive material value, as
 * eps, mu, rho, c are).  The same values serve as interior and exterior
 * traces: consistency is the flux at equal states, material included. */
static void sample_coefs(const dg_flux_program *prog, rng *r, double *c) {
  for (int i = 0; i < dg_flux_coef_count(prog); i++) {
    const dg_flux_coef_info *ci = dg_flux_coef(prog, i);
    double u01 = 0.5 * (uniform(r) + 1.0), span = 0.5 + 1.5 * u01;
    c[i] = ci->has_min && ci->has_max ? ci->min + (ci->max - ci->min) * (0.1 + 0.8 * u01)
           : ci->has_min              ? ci->min + span
           : ci->has_max              ? ci->max - span
                                      : span;
  }
}

/* Second-order terms: random lifted gradients, the same on both sides (at
 * equal traces ldg(e) = avg(e) = e and jump(e) = 0 whatever the switch,
 * so a consistent viscous flux is dot(n, F(u, Q))), and a random switch
 * beta_n in [-0.5, 0.5]; nothing is drawn for a first-order program. */
static void sample_gradients(rng *r, int n, double *q, double *ldgb) {
  for (int i = 0; i < n; i++)
    q[i] = uniform(r);
  if (n > 0)
    *ldgb = 0.5 * uniform(r);
}

/* " and gradients (a, b, ...), beta_n = b on both sides", or "". */
static const char *grad_text(int n, const double *q, double ldgb, char *buf, size_t size) {
  char t[200];
  buf[0] = 0;
  if (n > 0)
    snprintf(buf, size, " and gradients %s, beta_n = %.6g", tuple(q, n, t, sizeof t), ldgb);
  return buf;
}

/* " and coefficients eps = 1.2, mu = 0.8 on both sides", or "". */
static const char *coef_text(const dg_flux_program *prog, const double *c, char *buf,
                             size_t size) {
  int nc = dg_flux_coef_count(prog);
  size_t len = 0;
  buf[0] = 0;
  for (int i = 0; i < nc && len + 1 < size; i++) {
    int w = snprintf(buf + len, size - len, "%s%s = %.6g", i ? ", " : " and coefficients ",
                     dg_flux_coef(prog, i)->name, c[i]);
    len += w > 0 ? (size_t)w : 0;
  }
  if (nc > 0 && len + 1 < size)
    snprintf(buf + len, size - len, " on both sides");
  return buf;
}

dg_error dg_flux_consistency_field(const dg_flux_program *prog, int f, const double *points,
                                   int npoints, dg_flux_consistency_result *result, char *why,
                                   size_t why_size) {
  DG_CHECK(prog && result && why && why_size > 0 && f >= 0 && f < dg_flux_field_count(prog),
           DG_ERR_ARG, "bad arguments");
  DG_CHECK(points || npoints == 0, DG_ERR_ARG, "no sample points");
  const dg_flux_field_info *fi = dg_flux_field(prog, f);
  int dim = dg_flux_program_dim(prog), nstate = dg_flux_state_size(prog);
  *result = DG_FLUX_CONSISTENT;
  why[0] = 0;
  DG_CHECK(fi->flux && fi->surface, DG_ERR_ARG, "field '%s' has no flux or surface form",
           fi->name);
  rng r = {0x9e3779b97f4a7c15ull + (uint64_t)f};
  int ncoef = dg_flux_coef_count(prog);
  double coefs[DG_FLUX_MAX_COEFS];
  DG_CHECK(ncoef <= DG_FLUX_MAX_COEFS, DG_ERR_ARG, "%d coefficients; at most %d are checked",
           ncoef, DG_FLUX_MAX_COEFS);
  int nq = dg_flux_gradient_count(prog) * dim;
  double q[DG_FLUX_MAX_GRADIENTS * 3], ldgb = 0;
  int compared = 0;
  for (int p = 0; p < npoints; p++) {
    const double *x = points + (size_t)p * dim;
    for (int s = 0; s < 4; s++) {
      double u[DG_FLUX_MAX_COMPONENTS * 8], fl[DG_FLUX_MAX_COMPONENTS], sf[DG_FLUX_MAX_COMPONENTS];
      int is_exact;
      if (nstate > (int)(sizeof u / sizeof *u) || !sample_state(prog, x, s, &r, u, &is_exact))
        continue;
      if (ncoef > 0)
        sample_coefs(prog, &r, coefs);
      for (int k = 0; k < NORMALS; k++) {
        double n[3] = {0, 0, 0};
        random_normal(&r, dim, n);
        sample_gradients(&r, nq, q, &ldgb);
        dg_flux_point pt = {.x = x, .t = 0.0, .n = n, .u_int = u, .u_ext = u,
                            .c = coefs, .c_int = coefs, .c_ext = coefs,
                            .q = q, .q_int = q, .q_ext = q, .ldgb = ldgb};
        if (dg_flux_eval(prog, fi->flux, &pt, fl, DG_FLUX_MAX_COMPONENTS) != DG_OK ||
            dg_flux_eval(prog, fi->surface, &pt, sf, DG_FLUX_MAX_COMPONENTS) != DG_OK) {
          dg_error_clear();
          continue;
        }
        if (!all_finite(fl, fi->ncomp) || !all_finite(sf, fi->ncomp))
          continue; /* e.g. a sound speed of a state the flux cannot take */
        compared++;
        double scale = 0;
        for (int c = 0; c < fi->ncomp; c++)
          scale = fmax(scale, fmax(fabs(fl[c]), fabs(sf[c])));
        for (int c = 0; c < fi->ncomp; c++) {
          if (fabs(fl[c] - sf[c]) <= TOL * scale)
            continue;
          char bx[160], bn[96], bu[400], bc[300], bq[260];
          char comp[24] = "";
          if (fi->ncomp > 1)
            snprintf(comp, sizeof comp, "[%d]", c);
          snprintf(why, why_size,
                   "the numerical flux of field '%s' is not consistent with its volume term: "
                   "with u.int = u.ext = %s (the %s at x = %s, t = 0%s)%s%s and n = %s, "
                   "flux %s%s = %.17g but the surface form of the volume term gives %.17g "
                   "(a consistent flux equals it when both traces agree: check its factors "
                   "and signs, or set [problem] check_flux_consistency = warn if it is "
                   "consistent only on states it never meets)",
                   fi->name, tuple(u, nstate, bu, sizeof bu),
                   is_exact ? "exact solution" : "initial condition", tuple(x, dim, bx, sizeof bx),
                   s >= 2 ? ", scaled by up to 5 %" : "", coef_text(prog, coefs, bc, sizeof bc),
                   grad_text(nq, q, ldgb, bq, sizeof bq), tuple(n, dim, bn, sizeof bn), fi->name,
                   comp, fl[c], sf[c]);
          *result = DG_FLUX_INCONSISTENT;
          return DG_OK;
        }
      }
    }
  }
  if (!compared) {
    *result = DG_FLUX_SKIPPED;
    snprintf(why, why_size,
             "the consistency of the flux of field '%s' is not checked: at none of the %d "
             "sample states (the initial condition and exact solution at %d points) are the "
             "flux and the surface form of the volume term both finite",
             fi->name, npoints * 4, npoints);
  }
  return DG_OK;
}
