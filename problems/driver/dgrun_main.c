/* dgrun: the driver.
 *
 *   dgrun problem.cfg [section.key=value ...] [--quiet] [--restart ckpt.h5]
 *                     [--dump-kernels DIR]
 *   dgrun --devices          backends and devices this build can use
 *   dgrun --help-config      every problem.cfg key, with type and default
 *
 * Exit status: 0 when the run completed, 1 on any error (printed with its
 * trace), 2 on a usage error, 128 + N when signal N (SIGINT: 130, SIGTERM:
 * 143) stopped the run after writing a checkpoint (problems/signals.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/config.h"
#include "core/device.h"
#include "core/error.h"
#include "core/log.h"
#include "meshes/mesh_h5.h"
#include "problems/problem.h"
#include "problems/run.h"

static void usage(FILE *out) {
  fprintf(out,
          "usage: dgrun problem.cfg [section.key=value ...] [--quiet] [--restart ckpt.h5]\n"
          "                         [--dump-kernels DIR]\n"
          "       dgrun import mesh.msh mesh.h5 [--parts P]\n"
          "       dgrun --devices\n"
          "       dgrun --help-config [--markdown]\n");
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
    usage(stdout);
    return 0;
  }
  if (strcmp(argv[1], "--devices") == 0) {
    if (dg_device_list(stdout) != DG_OK) {
      dg_error_print(stderr);
      return 1;
    }
    return 0;
  }
  if (strcmp(argv[1], "import") == 0) {
    /* dgrun import mesh.msh mesh.h5 [--parts P] */
    long parts = 1;
    if (argc == 6 && strcmp(argv[4], "--parts") == 0) {
      char *end;
      parts = strtol(argv[5], &end, 10);
      if (*end || parts < 1 || parts > 1000000) {
        fprintf(stderr, "dgrun import: --parts '%s' must be a whole number in 1..1000000\n",
                argv[5]);
        return 2;
      }
    } else if (argc != 4) {
      fprintf(stderr, "usage: dgrun import mesh.msh mesh.h5 [--parts P]\n");
      return 2;
    }
    if (dg_mesh_import(argv[2], argv[3], (int)parts) != DG_OK) {
      dg_error_print(stderr);
      return 1;
    }
    return 0;
  }
  if (strcmp(argv[1], "--help-config") == 0) {
    int md = argc > 2 && strcmp(argv[2], "--markdown") == 0;
    dg_config_print_schema(stdout, dg_problem_schema, dg_problem_schema_size,
                           md ? DG_CONFIG_DOC_MARKDOWN : DG_CONFIG_DOC_TEXT);
    return 0;
  }
  dg_run_options opt;
  memset(&opt, 0, sizeof opt);
  const char **overrides = calloc((size_t)argc, sizeof *overrides);
  if (!overrides) {
    fprintf(stderr, "dgrun: out of memory\n");
    return 1;
  }
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
      opt.quiet = 1;
    } else if ((strcmp(a, "--restart") == 0 || strcmp(a, "--dump-kernels") == 0) &&
               i + 1 < argc) {
      if (a[2] == 'r')
        opt.restart = argv[++i];
      else
        opt.dump_kernels = argv[++i];
    } else if (strncmp(a, "--", 2) == 0) {
      fprintf(stderr, "dgrun: unknown option '%s'\n", a);
      usage(stderr);
      free(overrides);
      return 2;
    } else if (strchr(a, '=')) {
      overrides[opt.noverrides++] = a;
    } else if (!opt.cfg_path) {
      opt.cfg_path = a;
    } else {
      fprintf(stderr, "dgrun: a second problem file '%s' (only one run at a time)\n", a);
      free(overrides);
      return 2;
    }
  }
  if (!opt.cfg_path) {
    usage(stderr);
    free(overrides);
    return 2;
  }
  opt.overrides = overrides;
  if (opt.quiet)
    dg_log_set_level(DG_LOG_WARN);
  dg_run_result res;
  dg_error err = dg_run(&opt, &res);
  free(overrides);
  if (err == DG_ERR_INTERRUPTED && res.interrupted_by > 0) {
    fprintf(stderr, "\ndgrun: %s\n", dg_error_message());
    return 128 + res.interrupted_by;
  }
  if (err != DG_OK) {
    dg_error_print(stderr);
    return 1;
  }
  return 0;
}
