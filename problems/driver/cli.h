/* The dgrun command line: one table of options, from which the parser, the
 * help text and the "did you mean" of a mistyped option all come. */
#ifndef DG_PROBLEMS_DRIVER_CLI_H
#define DG_PROBLEMS_DRIVER_CLI_H

#include <stdio.h>

typedef enum {
  DG_CLI_QUIET,
  DG_CLI_TIMINGS,
  DG_CLI_TUNE,    /* --tune=off|auto|full */
  DG_CLI_RESTART, /* takes a file */
  DG_CLI_DUMP_KERNELS,
  DG_CLI_DEBUG,
  DG_CLI_UNKNOWN
} dg_cli_option;

/* The option that argument a names (for DG_CLI_TUNE, a is the whole
 * "--tune=..." argument); DG_CLI_UNKNOWN if none.  *takes_value: the
 * option reads the next argument. */
dg_cli_option dg_cli_find(const char *a, int *takes_value);
/* The option closest to a mistyped a (for "did you mean"), or NULL. */
const char *dg_cli_suggest(const char *a);

/* Usage lines only (after a usage error). */
void dg_cli_usage(FILE *out);
/* dgrun --help: every option and command explained, with examples. */
void dg_cli_help(FILE *out);
/* dgrun --version: version, commit, build options, backends compiled in and
 * what they find at run time (CUDA driver, NVRTC, the C compiler). */
void dg_cli_version(FILE *out);

#endif
