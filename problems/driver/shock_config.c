/* [shock] of problem.cfg (problems/PROBLEM_CFG.md): shock capturing by
 * artificial viscosity and the positivity-preserving limiter
 * (problems/solver/shock.h).  Names are resolved against the flux file when
 * the solver is built; here the numbers are read and checked. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "problems/driver/problem.h"

enum { WHERE = 600 };

static dg_error get_double(const dg_config *cfg, const char *key, double lo, int strict,
                           double *out) {
  char loc[WHERE];
  DG_CALL(dg_config_get_double(cfg, "shock", key, out));
  DG_CHECK(isfinite(*out) && (strict ? *out > lo : *out >= lo), DG_ERR_INPUT,
           "%s: [shock] %s = %g must be %s %g", dg_config_where(cfg, "shock", key, loc, sizeof loc),
           key, *out, strict ? "above" : "at least", lo);
  return DG_OK;
}

dg_error dg_problem_load_shock(dg_problem *p) {
  const dg_config *cfg = p->cfg;
  dg_shock_settings *s = &p->shock;
  memset(s, 0, sizeof *s);
  DG_CALL(dg_config_get_string(cfg, "shock", "sensor", &s->sensor));
  DG_CALL(dg_config_get_string(cfg, "shock", "viscosity", &s->viscosity));
  DG_CALL(dg_config_get_string(cfg, "shock", "positivity", &s->positivity));
  DG_CALL(dg_config_get_double(cfg, "shock", "c0", &s->c0));
  DG_CALL(get_double(cfg, "kappa", 0, 1, &s->kappa));
  DG_CALL(get_double(cfg, "scale", 0, 0, &s->scale));
  DG_CALL(get_double(cfg, "max_viscosity", 0, 0, &s->max_viscosity));
  DG_CALL(get_double(cfg, "positivity_eps", 0, 1, &s->positivity_eps));
  char loc[WHERE];
  if (s->sensor[0])
    DG_CHECK(s->max_viscosity > 0 && s->viscosity[0], DG_ERR_INPUT,
             "%s: [shock] sensor = %s needs viscosity (the flux file's coefficient that receives "
             "the artificial viscosity) and a positive max_viscosity (it bounds the time step)",
             dg_config_where(cfg, "shock", "sensor", loc, sizeof loc), s->sensor);
  /* the names against the flux file, at their places in the cfg */
  char w[3][WHERE + 2];
  const char *keys[3] = {"sensor", "viscosity", "positivity"};
  for (int i = 0; i < 3; i++)
    snprintf(w[i], sizeof w[i], "%s: ", dg_config_where(cfg, "shock", keys[i], loc, sizeof loc));
  s->where_sensor = w[0], s->where_viscosity = w[1], s->where_positivity = w[2];
  dg_error err = dg_problem_shock_enabled(p) ? dg_shock_check(p->program, s) : DG_OK;
  s->where_sensor = s->where_viscosity = s->where_positivity = NULL;
  DG_CALL(err);
  return DG_OK;
}

int dg_problem_shock_enabled(const dg_problem *p) {
  return (p->shock.sensor && p->shock.sensor[0]) || (p->shock.positivity && p->shock.positivity[0]);
}
