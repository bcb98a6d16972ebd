#include "tuning/tune_db.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fsutil.h"
#include "core/hash.h"
#include "core/kernel_cache.h"
#include "core/log.h"
#include "operators/kernel_knobs.h"

#ifndef DGRUN_TUNING_DEFAULTS_DIR
#define DGRUN_TUNING_DEFAULTS_DIR "tuning/defaults"
#endif

void dg_tune_key_make(const dg_device_info *info, const char *op_digest, int dim, int N,
                      int ncomp, int is_float, dg_tune_key *k) {
  memset(k, 0, sizeof *k);
  snprintf(k->device_model, sizeof k->device_model, "%s|cc%d%d|%s", info->name,
           info->cc_major, info->cc_minor, info->backend_name);
  snprintf(k->device, sizeof k->device, "%s|drv%d|%s", k->device_model, info->driver_version,
           info->compiler_identity);
  snprintf(k->op, sizeof k->op, "%.32s|dim%d|N%d|nc%d|%s|gen%d", op_digest, dim, N, ncomp,
           is_float ? "float" : "double", dg_codegen_version());
}

char *dg_tune_db_entry_path(const char *dir, const dg_tune_key *k) {
  dg_hash h;
  dg_hash_init(&h);
  dg_hash_update_field(&h, k->device_model);
  dg_hash_update_field(&h, k->op);
  unsigned char d[DG_HASH_SIZE];
  dg_hash_final(&h, d);
  char name[2 * DG_HASH_SIZE + 8];
  dg_hash_hex(d, 16, name);
  strcat(name, ".tune");
  return dg_fsutil_join(dir, name);
}

static const char *MAGIC = "dgrun-tuning 1\n";

/* Copy the rest of the line at *p (after "name ") into out; advance *p past
 * the newline.  0 when the line does not start with name. */
static int take_line(const char **p, const char *name, char *out, size_t n) {
  size_t l = strlen(name);
  if (strncmp(*p, name, l) != 0 || (*p)[l] != ' ')
    return 0;
  const char *v = *p + l + 1, *e = strchr(v, '\n');
  if (!e || (size_t)(e - v) >= n)
    return 0;
  memcpy(out, v, (size_t)(e - v));
  out[e - v] = '\0';
  *p = e + 1;
  return 1;
}

/* The identity lines of an entry. */
typedef struct entry_id {
  char dev[700], model[400], op[200];
} entry_id;

/* Parse one entry's lines; 0 on success, -1 when damaged.  After device,
 * model and op, one line per knob (operators/kernel_knobs.h, in any order;
 * knobs absent keep their defaults), rhs_ms, end. */
static int parse_fields(const char *text, entry_id *id, dg_kernel_config *c, double *ms) {
  size_t ml = strlen(MAGIC);
  if (strncmp(text, MAGIC, ml) != 0)
    return -1;
  const char *p = text + ml;
  char val[64];
  if (!take_line(&p, "device", id->dev, sizeof id->dev) ||
      !take_line(&p, "model", id->model, sizeof id->model) ||
      !take_line(&p, "op", id->op, sizeof id->op))
    return -1;
  *c = dg_kernel_config_default();
  for (;;) {
    char name[64];
    size_t l = strcspn(p, " \n");
    if (l == 0 || l >= sizeof name || p[l] != ' ')
      return -1;
    memcpy(name, p, l);
    name[l] = '\0';
    if (!take_line(&p, name, val, sizeof val))
      return -1;
    if (strcmp(name, "rhs_ms") == 0) {
      char *e = NULL;
      *ms = strtod(val, &e);
      if (e == val || *e != '\0')
        return -1;
      break;
    }
    const dg_kernel_knob *kn = dg_kernel_knob_find(name);
    int v = 0;
    if (!kn || dg_kernel_knob_parse(kn, val, &v) != DG_OK) {
      dg_error_clear();
      return -1;
    }
    dg_kernel_knob_put(c, kn, v);
  }
  if (strcmp(p, "end\n") != 0)
    return -1;
  if (dg_kernel_config_check(c, 1) != DG_OK) {
    dg_error_clear();
    return -1;
  }
  return 0;
}

/* Read and parse the entry at path: 0 on success, -1 when damaged, -2 when
 * it cannot be read (a missing entry). */
static int read_entry(const char *path, entry_id *id, dg_kernel_config *c, double *ms) {
  void *data = NULL;
  size_t n = 0;
  if (dg_fsutil_read_file(path, &data, &n) != DG_OK) {
    dg_error_clear();
    return -2;
  }
  /* dg_fsutil_read_file ends the text with a '\0'; one inside is damage */
  int rc = memchr(data, '\0', n) ? -1 : parse_fields(data, id, c, ms);
  free(data);
  return rc;
}

/* The "|cc90|cuda" end of a device model (name|cc|backend). */
static const char *model_family(const char *model) {
  const char *bar = strchr(model, '|');
  return bar ? bar : model;
}

dg_error dg_tune_db_kin(const char *dir, const dg_tune_key *k, dg_tune_space *s) {
  free(s->kin);
  s->kin = NULL;
  s->nkin = 0;
  char **names = NULL;
  int n = 0;
  DG_CALL(dg_fsutil_list(dir, ".tune", &names, &n));
  /* the fastest recorded first; one slot more for the insertion */
  struct {
    dg_kernel_config cfg;
    double ms;
  } kin[DG_TUNE_KIN_MAX + 1];
  int nk = 0;
  /* the name is a hash of model and op, so every file is read: a folder of
   * a few dozen small entries */
  for (int i = 0; i < n; i++) {
    char *path = dg_fsutil_join(dir, names[i]);
    entry_id id;
    dg_kernel_config c;
    double ms = 0;
    int ok = path && read_entry(path, &id, &c, &ms) == 0 && strcmp(id.op, k->op) == 0 &&
             strcmp(id.model, k->device_model) != 0 &&
             strcmp(model_family(id.model), model_family(k->device_model)) == 0;
    free(path);
    if (!ok)
      continue;
    int at = nk;
    while (at > 0 && kin[at - 1].ms > ms)
      at--;
    if (at == DG_TUNE_KIN_MAX)
      continue;
    memmove(&kin[at + 1], &kin[at], (size_t)(nk - at) * sizeof kin[0]);
    kin[at].cfg = c;
    kin[at].ms = ms;
    if (nk < DG_TUNE_KIN_MAX)
      nk++;
  }
  dg_fsutil_free_names(names, n);
  if (nk) {
    s->kin = malloc((size_t)nk * sizeof *s->kin);
    DG_CHECK(s->kin, DG_ERR_MEMORY, "out of memory");
    for (int i = 0; i < nk; i++)
      s->kin[i] = kin[i].cfg;
    s->nkin = nk;
  }
  return DG_OK;
}

dg_error dg_tune_db_get(const char *dir, const dg_tune_key *k, int model_only,
                        dg_kernel_config *cfg, double *rhs_ms, int *found) {
  *found = 0;
  char *path = dg_tune_db_entry_path(dir, k);
  DG_CHECK(path, DG_ERR_MEMORY, "out of memory");
  entry_id id;
  dg_kernel_config c;
  double ms = 0;
  int rc = read_entry(path, &id, &c, &ms);
  if (rc == -1)
    dg_warn("tuning database entry %s is corrupt: ignored (it is rewritten after tuning)",
            path);
  free(path);
  /* another key with the same digest prefix is not ours; a local entry of
   * another driver or compiler is tuned again */
  if (rc == 0 && strcmp(id.model, k->device_model) == 0 && strcmp(id.op, k->op) == 0 &&
      (model_only || strcmp(id.dev, k->device) == 0)) {
    *found = 1;
    *cfg = c;
    if (rhs_ms)
      *rhs_ms = ms;
  }
  return DG_OK;
}

dg_error dg_tune_db_put(const char *dir, const dg_tune_key *k, const dg_kernel_config *c,
                        double rhs_ms) {
  DG_CALL(dg_fsutil_mkdir_p(dir, 0755));
  char buf[2048];
  int n = snprintf(buf, sizeof buf, "%sdevice %s\nmodel %s\nop %s\n", MAGIC, k->device,
                   k->device_model, k->op);
  for (int i = 0; i < dg_kernel_nknobs && n > 0 && (size_t)n < sizeof buf; i++) {
    char v[64];
    dg_kernel_knob_text(c, &dg_kernel_knobs[i], 0, v, sizeof v);
    n += snprintf(buf + n, sizeof buf - (size_t)n, "%s %s\n", dg_kernel_knobs[i].key, v);
  }
  if (n > 0 && (size_t)n < sizeof buf)
    n += snprintf(buf + n, sizeof buf - (size_t)n, "rhs_ms %.6f\nend\n", rhs_ms);
  DG_CHECK(n > 0 && (size_t)n < sizeof buf, DG_ERR_INTERNAL, "tuning entry too long");
  char *path = dg_tune_db_entry_path(dir, k);
  DG_CHECK(path, DG_ERR_MEMORY, "out of memory");
  dg_error err = dg_fsutil_write_atomic(path, buf, (size_t)n, 0644);
  free(path);
  DG_CALL(err);
  return DG_OK;
}

dg_error dg_tune_db_default_dir(char **dir) {
  char *cache = NULL;
  DG_CALL(dg_kernel_cache_default_dir(&cache));
  *dir = dg_fsutil_join(cache, "tuning");
  free(cache);
  DG_CHECK(*dir, DG_ERR_MEMORY, "out of memory");
  return DG_OK;
}

const char *dg_tune_defaults_dir(void) {
  const char *env = getenv("DGRUN_TUNING_DEFAULTS");
  return env && *env ? env : DGRUN_TUNING_DEFAULTS_DIR;
}
