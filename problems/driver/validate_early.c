#include "problems/driver/validate_early.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "operators/flux.h"
#include "problems/driver/run.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

/* Snapshots write a field of more than 3 components as scalar datasets
 * <name>_<c> (an XDMF vector holds 3); none may take another's name. */
static dg_error check_dataset_names(const dg_problem *p) {
  const dg_flux_program *prog = p->program;
  int nf = dg_flux_field_count(prog);
  for (int f = 0; f < nf; f++) {
    const dg_flux_field_info *v = dg_flux_field(prog, f);
    if (!p->output_field[f] || v->ncomp <= 3)
      continue;
    for (int g = 0; g < nf; g++) {
      const dg_flux_field_info *s = dg_flux_field(prog, g);
      size_t n = strlen(v->name);
      int c;
      char tail;
      if (g == f || !p->output_field[g] || strncmp(s->name, v->name, n) != 0 ||
          sscanf(s->name + n, "_%d%c", &c, &tail) != 1 || c < 0 || c >= v->ncomp)
        continue;
      DG_RAISE(DG_ERR_INPUT,
               "%s: field '%s' has %d components, which snapshots write as '%s_0' ... "
               "'%s_%d', but another field is named '%s': rename it, or leave one of them out "
               "of [output] fields",
               dg_config_name(p->cfg), v->name, v->ncomp, v->name, v->name, v->ncomp - 1,
               s->name);
    }
  }
  return DG_OK;
}

dg_error dg_validate_outputs(const dg_problem *p) {
  int nf = dg_flux_field_count(p->program);
  DG_CHECK(nf <= DG_RUN_MAX_FIELDS, DG_ERR_INPUT,
           "%s: the flux file declares %d fields, a run handles at most %d: combine scalar "
           "fields into vector fields (e.g. 'fields q[5]')",
           dg_config_name(p->cfg), nf, DG_RUN_MAX_FIELDS);
  size_t len = strlen(p->name);
  char loc[600];
  DG_CHECK(len <= DG_PROBLEM_NAME_MAX, DG_ERR_INPUT,
           "%s: [problem] name is %zu characters long, the limit is %d (it names the output "
           "files): give a shorter name",
           dg_config_where(p->cfg, "problem", "name", loc, sizeof loc), len,
           DG_PROBLEM_NAME_MAX);
  /* <dir>/<name>_checkpoint_<19 digits>.h5.tmp.<pid> */
  size_t longest = strlen(p->output_dir) + 1 + len + 64;
  DG_CHECK(longest < PATH_MAX, DG_ERR_INPUT,
           "%s: [output] dir is %zu characters long, too long for the output file names "
           "under it (at most %d characters for a path): choose a shorter one",
           dg_config_where(p->cfg, "output", "directory", loc, sizeof loc),
           strlen(p->output_dir), PATH_MAX - 1);
  DG_CALL(check_dataset_names(p));
  return DG_OK;
}
