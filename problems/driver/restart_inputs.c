/* The problem of a restart (see restart_inputs.h). */
#include "problems/driver/restart_inputs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "problems/io/checkpoint.h"

static const char allowed[] =
    "a restart may change only time.final, time.max_steps, time.dt, time.cfl, "
    "time.wave_speed, time.dt_interval, time.dt_growth, time.diffusivity, time.divergence_factor, time.divergence_window, mesh.file (the same mesh elsewhere), problem.flux (a flux file of the "
    "same text) and the [output], [backend] and [parallel] keys";

/* May section.key differ from the checkpoint's value? */
static int may_change(const char *section, const char *key) {
  static const char *const sections[] = {"output", "backend", "parallel"};
  static const char *const keys[][2] = {
      {"time", "final"},     {"time", "max_steps"}, {"time", "dt"},
      {"time", "cfl"},       {"time", "wave_speed"}, {"time", "diffusivity"},
      {"time", "dt_interval"}, {"time", "dt_growth"},
      {"mesh", "file"},
      {"time", "divergence_factor"}, {"time", "divergence_window"},
      {"problem", "flux"},   {"problem", "name"}, /* the checkpoint's problem id */
  };
  for (size_t i = 0; i < sizeof sections / sizeof *sections; i++)
    if (strcmp(section, sections[i]) == 0)
      return 1;
  for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
    if (strcmp(section, keys[i][0]) == 0 && strcmp(key, keys[i][1]) == 0)
      return 1;
  return 0;
}

/* 1 if section.key reads the same in a and b, as the type the schema gives
 * it (so "4" and "4.0" are the same double); 0 if not. */
static dg_error same_value(const dg_config *a, const dg_config *b, const char *section,
                           const char *key, dg_config_type type, int *same) {
  int64_t ia = 0, ib = 0;
  double da = 0, db = 0;
  int ea = 0, eb = 0;
  const char *sa = NULL, *sb = NULL;
  switch (type) {
  case DG_CONFIG_INT:
    DG_CALL(dg_config_get_int(a, section, key, &ia));
    DG_CALL(dg_config_get_int(b, section, key, &ib));
    *same = ia == ib;
    return DG_OK;
  case DG_CONFIG_DOUBLE:
    DG_CALL(dg_config_get_double(a, section, key, &da));
    DG_CALL(dg_config_get_double(b, section, key, &db));
    *same = da == db;
    return DG_OK;
  case DG_CONFIG_BOOL:
    DG_CALL(dg_config_get_bool(a, section, key, &ea));
    DG_CALL(dg_config_get_bool(b, section, key, &eb));
    *same = ea == eb;
    return DG_OK;
  case DG_CONFIG_ENUM:
    DG_CALL(dg_config_get_enum(a, section, key, &ea));
    DG_CALL(dg_config_get_enum(b, section, key, &eb));
    *same = ea == eb;
    return DG_OK;
  default:
    DG_CALL(dg_config_get_string(a, section, key, &sa));
    DG_CALL(dg_config_get_string(b, section, key, &sb));
    *same = strcmp(sa, sb) == 0;
    return DG_OK;
  }
}

/* One line of the message for a key that differs. */
static dg_error add_conflict(dg_strbuf *b, const dg_config *run, const dg_config *stored,
                             const char *ckpt, const char *section, const char *key) {
  char loc[600];
  const char *now = "(absent)", *then = "(absent)";
  if (dg_config_get_string(run, section, key, &now) != DG_OK)
    dg_error_clear(); /* a key of an open section this run lacks */
  if (dg_config_get_string(stored, section, key, &then) != DG_OK)
    dg_error_clear();
  dg_strbuf_appendf(b, "%s%s: error: [%s] %s = '%s', but checkpoint '%s' was written with '%s'",
                    b->len ? "\n" : "", dg_config_where(run, section, key, loc, sizeof loc),
                    section, key, now, ckpt, then);
  return DG_OK;
}

/* An open section's keys (params, boundaries): the same keys, the same
 * values. */
static dg_error compare_open(dg_strbuf *b, const dg_config *run, const dg_config *stored,
                             const char *ckpt, const char *section, dg_config_type type) {
  const char *k;
  for (size_t i = 0; (k = dg_config_key_at(stored, section, i)); i++) {
    int same = 0;
    if (dg_config_has(run, section, k))
      DG_CALL(same_value(run, stored, section, k, type, &same));
    if (!same)
      DG_CALL(add_conflict(b, run, stored, ckpt, section, k));
  }
  for (size_t i = 0; (k = dg_config_key_at(run, section, i)); i++)
    if (!dg_config_has(stored, section, k))
      DG_CALL(add_conflict(b, run, stored, ckpt, section, k));
  return DG_OK;
}

/* Every key that may not change reads the same in run and stored. */
static dg_error compare_configs(const dg_config *run, const dg_config *stored,
                                const char *ckpt) {
  size_t n = 0;
  const dg_config_key *schema = dg_problem_schema(&n);
  dg_strbuf b;
  dg_strbuf_init(&b);
  dg_error err = DG_OK;
  for (size_t i = 0; i < n && err == DG_OK; i++) {
    const dg_config_key *k = &schema[i];
    if (!k->key) {
      err = compare_open(&b, run, stored, ckpt, k->section, k->type);
      continue;
    }
    if (may_change(k->section, k->key))
      continue;
    int same = 0;
    err = same_value(run, stored, k->section, k->key, k->type, &same);
    if (err == DG_OK && !same)
      err = add_conflict(&b, run, stored, ckpt, k->section, k->key);
  }
  char *msg = NULL;
  if (err == DG_OK && b.len)
    err = dg_strbuf_finish(&b, &msg);
  dg_strbuf_free(&b);
  if (err == DG_OK && msg)
    err = dg_error_raise(DG_ERR_INPUT, __FILE__, __LINE__, __func__, "%s\n(%s)", msg, allowed);
  free(msg);
  DG_CALL(err);
  return DG_OK;
}

/* Does one of the overrides set problem.flux? */
static int flux_overridden(const dg_run_options *opt) {
  for (int i = 0; i < opt->noverrides; i++) {
    const char *o = opt->overrides[i];
    size_t n = strlen("problem.flux");
    if (strncmp(o, "problem.flux", n) == 0 && (o[n] == '=' || o[n] == ' ' || o[n] == '\t'))
      return 1;
  }
  return 0;
}

/* The run's configuration (from the cfg, or from the checkpoint's text)
 * and, when the checkpoint stores one, the comparison with it. */
static dg_error restart_config(const dg_run_options *opt, const dg_checkpoint_inputs *in,
                               const char *cfg_name, dg_config **out) {
  const char *ckpt = opt->restart;
  if (!opt->cfg_path)
    DG_CHECK(in->config_text, DG_ERR_INPUT,
             "checkpoint '%s' does not store the configuration it was written with (format "
             "version %lld, written by an older dgrun): give the problem file, as in "
             "dgrun problem.cfg --restart %s [the same overrides]",
             ckpt, (long long)in->version, ckpt);
  DG_CALL(dg_problem_read_config(opt->cfg_path ? opt->cfg_path : cfg_name,
                                 opt->cfg_path ? NULL : in->config_text, opt->overrides,
                                 opt->noverrides, out));
  if (!in->config_text)
    return DG_OK; /* an old checkpoint: its identity attributes are checked on read */
  dg_config *stored = NULL;
  dg_error err = dg_problem_read_config(cfg_name, in->config_text, NULL, 0, &stored);
  if (err == DG_OK)
    err = compare_configs(*out, stored, ckpt);
  dg_config_destroy(&stored);
  if (err != DG_OK) {
    dg_config_destroy(out);
    return dg_error_push(err, __FILE__, __LINE__, __func__);
  }
  return DG_OK;
}

dg_error dg_restart_load_problem(const dg_run_options *opt, int rank, int nranks,
                                 dg_problem **out) {
  *out = NULL;
  dg_checkpoint_inputs in;
  DG_CALL(dg_checkpoint_read_inputs(opt->restart, opt->comm, &in));
  size_t n = strlen(opt->restart) + 32;
  char *cfg_name = malloc(n), *flux_name = malloc(n);
  dg_error err = DG_OK;
  DG_CHECK_GOTO(err, done, cfg_name && flux_name, DG_ERR_MEMORY, "out of memory");
  snprintf(cfg_name, n, "<checkpoint %s:config>", opt->restart);
  snprintf(flux_name, n, "<checkpoint %s:flux>", opt->restart);
  dg_config *cfg = NULL;
  DG_CALL_GOTO(err, done, restart_config(opt, &in, cfg_name, &cfg));
  /* without a cfg the stored flux text, unless a flux file is named */
  int stored_flux = !opt->cfg_path && !flux_overridden(opt);
  DG_CALL_GOTO(err, done,
               dg_problem_load_config(cfg, stored_flux ? in.flux_text : NULL,
                                      stored_flux ? strlen(in.flux_text) : 0, flux_name, rank,
                                      nranks, out));
  if (!stored_flux && in.flux_text && strcmp((*out)->flux_text, in.flux_text) != 0) {
    err = dg_error_raise(DG_ERR_INPUT, __FILE__, __LINE__, __func__,
                         "flux file '%s' differs from the one checkpoint '%s' was written "
                         "with: a restart continues the same physics (restart without the "
                         "cfg to use the stored flux text)",
                         (*out)->flux_name, opt->restart);
    dg_problem_destroy(out);
  }
done:
  free(cfg_name);
  free(flux_name);
  dg_checkpoint_inputs_free(&in);
  DG_CALL(err);
  return DG_OK;
}
