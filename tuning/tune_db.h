/* The tuning database: keys, entry files (one per device model and
 * operator, written atomically), the shipped defaults folder and the kin
 * lookup of related models' entries. */
#ifndef DG_TUNING_TUNE_DB_H
#define DG_TUNING_TUNE_DB_H

#include "core/device.h"
#include "core/error.h"
#include "operators/codegen.h"
#include "tuning/tune_space.h"

/* A key: the device identity (name, compute capability, driver, compiler)
 * plus the operator identity (a digest of the problem's generated source
 * under the default knobs, which covers physics, dim, N, fields, precision
 * and generator version) and those fields in readable form. */
typedef struct dg_tune_key {
  char device[640];   /* "NVIDIA H100 80GB HBM3|cc90|drv12040|nvrtc 12.4 sm_90" */
  char device_model[360]; /* name + cc only: shipped defaults match on this */
  char op[128];       /* operator digest + "|dim3|N3|nc5|double|gen2" */
} dg_tune_key;

void dg_tune_key_make(const dg_device_info *info, const char *op_digest, int dim, int N,
                      int ncomp, int is_float, dg_tune_key *out);

/* Entries are files <dir>/<hex of the first 16 bytes of SHA-256 over the
 * device model and the operator>.tune (so a model's entries can be shipped
 * as they are), written atomically; the full device identity is checked
 * inside the entry unless match_model_only.  A missing
 * or unreadable/corrupt entry is "not found" (*found = 0) and will be
 * rewritten by the next put; a corrupt one is reported with dg_warn. */
/* That file's path for key (malloc'd; NULL when out of memory): its name
 * reads only key->device_model and key->op. */
char *dg_tune_db_entry_path(const char *dir, const dg_tune_key *key);
dg_error dg_tune_db_get(const char *dir, const dg_tune_key *key, int match_model_only,
                        dg_kernel_config *cfg, double *rhs_ms, int *found);
dg_error dg_tune_db_put(const char *dir, const dg_tune_key *key, const dg_kernel_config *cfg,
                        double rhs_ms);
/* The entries in dir for key's operator on other device models of the same
 * compute capability and backend (another Hopper for an H200, say), at
 * most DG_TUNE_KIN_MAX, fastest recorded first, into space->kin (replacing
 * what was there).  Damaged entries are skipped, as dg_tune_db_get does. */
#define DG_TUNE_KIN_MAX 4
dg_error dg_tune_db_kin(const char *dir, const dg_tune_key *key, dg_tune_space *space);
/* The database folder next to the kernel cache (DGRUN_CACHE_DIR/tuning). */
dg_error dg_tune_db_default_dir(char **dir);
/* The shipped defaults folder of the source tree (tuning/defaults). */
const char *dg_tune_defaults_dir(void);


#endif
