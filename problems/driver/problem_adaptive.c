/* [time] keys of the adaptive step (issue 42 item 2): scheme = rk34 | rk45
 * picks an embedded pair (dg/timestep_embedded.h), atol and rtol its
 * error norm's tolerances, safety, max_fac, min_fac, pi_alpha and pi_beta
 * its PI controller (PyFR's defaults).  A [time] key the scheme cannot use
 * is refused where it was written: dt_interval and dt_growth (the computed
 * wave speed's updates) with an adaptive scheme, the tolerances and the
 * controller's keys with a fixed-step one.  A key counts as set when the
 * cfg gives it a value other than its default (a checkpoint's resolved
 * cfg lists every key with its default). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "problems/driver/problem.h"

enum { WHERE_MAX = 600 };
#define AT(cfg, sec, key) dg_config_where((cfg), (sec), (key), loc, sizeof loc)

typedef struct key_default {
  const char *key;
  double def;
} key_default;

static const key_default adaptive_only[] = {
    {"atol", 1e-6},  {"rtol", 1e-6},     {"safety", 0.8}, {"max_fac", 2.5},
    {"min_fac", 0.3}, {"pi_alpha", 0.7}, {"pi_beta", 0.4},
};
static const key_default fixed_only[] = {{"dt_interval", 10}, {"dt_growth", 1.2}};

/* The first key of keys[0..n) set to other than its default, or NULL. */
static const char *set_key(const dg_config *cfg, const key_default *keys, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (!dg_config_has(cfg, "time", keys[i].key))
      continue;
    double v = 0;
    if (strcmp(keys[i].key, "dt_interval") == 0) {
      int64_t iv = 0;
      if (dg_config_get_int(cfg, "time", keys[i].key, &iv) != DG_OK)
        return keys[i].key;
      v = (double)iv;
    } else if (dg_config_get_double(cfg, "time", keys[i].key, &v) != DG_OK) {
      return keys[i].key;
    }
    if (v != keys[i].def)
      return keys[i].key;
  }
  return NULL;
}

static dg_error get_nonneg(const dg_config *cfg, const char *key, double *v) {
  char loc[WHERE_MAX];
  DG_CALL(dg_config_get_double(cfg, "time", key, v));
  DG_CHECK(isfinite(*v) && *v >= 0, DG_ERR_INPUT, "%s: [time] %s = %g must be >= 0",
           AT(cfg, "time", key), key, *v);
  return DG_OK;
}

static dg_error controller(dg_problem *p) {
  const dg_config *cfg = p->cfg;
  char loc[WHERE_MAX];
  dg_rk_pi *pi = &p->pi;
  dg_rk_pi_defaults(p->embedded.order, pi);
  DG_CALL(dg_config_get_double(cfg, "time", "safety", &pi->safety));
  DG_CALL(dg_config_get_double(cfg, "time", "max_fac", &pi->max_fac));
  DG_CALL(dg_config_get_double(cfg, "time", "min_fac", &pi->min_fac));
  DG_CALL(dg_config_get_double(cfg, "time", "pi_alpha", &pi->alpha));
  DG_CALL(dg_config_get_double(cfg, "time", "pi_beta", &pi->beta));
  DG_CHECK(isfinite(pi->safety) && pi->safety > 0 && pi->safety <= 1, DG_ERR_INPUT,
           "%s: [time] safety = %g must be in (0, 1]", AT(cfg, "time", "safety"), pi->safety);
  DG_CHECK(isfinite(pi->max_fac) && pi->max_fac >= 1, DG_ERR_INPUT,
           "%s: [time] max_fac = %g must be >= 1", AT(cfg, "time", "max_fac"), pi->max_fac);
  DG_CHECK(pi->min_fac > 0 && pi->min_fac < 1, DG_ERR_INPUT,
           "%s: [time] min_fac = %g must be in (0, 1)", AT(cfg, "time", "min_fac"),
           pi->min_fac);
  DG_CHECK(isfinite(pi->alpha) && pi->alpha > 0, DG_ERR_INPUT,
           "%s: [time] pi_alpha = %g must be > 0", AT(cfg, "time", "pi_alpha"), pi->alpha);
  DG_CHECK(isfinite(pi->beta) && pi->beta >= 0, DG_ERR_INPUT,
           "%s: [time] pi_beta = %g must be >= 0", AT(cfg, "time", "pi_beta"), pi->beta);
  DG_CALL(dg_rk_pi_check(pi));
  return DG_OK;
}

dg_error dg_problem_adaptive_keys(dg_problem *p, int scheme_index) {
  const dg_config *cfg = p->cfg;
  char loc[WHERE_MAX];
  p->adaptive = scheme_index == 2 || scheme_index == 3;
  const char *name = scheme_index == 2 ? "rk34" : scheme_index == 3 ? "rk45" : NULL;
  if (!p->adaptive) {
    const char *k = set_key(cfg, adaptive_only, sizeof adaptive_only / sizeof *adaptive_only);
    DG_CHECK(!k, DG_ERR_INPUT,
             "%s: [time] %s is a key of the adaptive schemes (scheme = rk34 | rk45), "
             "not of scheme = %s, which takes equal steps",
             AT(cfg, "time", k), k, p->scheme.name);
    return DG_OK;
  }
  const char *k = set_key(cfg, fixed_only, sizeof fixed_only / sizeof *fixed_only);
  DG_CHECK(!k, DG_ERR_INPUT,
           "%s: [time] %s does not apply to scheme = %s: its steps come from the error "
           "controller (atol, rtol), [time] dt or the CFL dt is only the first one",
           AT(cfg, "time", k), k, name);
  DG_CALL(dg_rk_embedded_get(name, &p->embedded));
  DG_CALL(get_nonneg(cfg, "atol", &p->atol));
  DG_CALL(get_nonneg(cfg, "rtol", &p->rtol));
  DG_CHECK(p->atol > 0 || p->rtol > 0, DG_ERR_INPUT,
           "%s: [time] atol and rtol are both 0: the error norm needs one of them > 0",
           AT(cfg, "time", dg_config_has(cfg, "time", "atol") ? "atol" : "rtol"));
  DG_CALL(controller(p));
  return DG_OK;
}
