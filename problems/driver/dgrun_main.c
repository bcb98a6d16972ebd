/* dgrun: the driver.
 *
 *   dgrun problem.cfg [section.key=value ...] [--quiet] [--restart ckpt.h5]
 *   dgrun --restart ckpt.h5 [section.key=value ...] [...]
 *                     (the problem stored in the checkpoint; restart_inputs.h)
 *                     [--dump-kernels DIR] [--tune=off|auto|full] [--timings]
 *                     (--timings: after the run, the wall time of each set-up
 *                     phase and of the first step)
 *   dgrun tune problem.cfg [section.key=value ...] [--tune=auto|full]
 *                            tune (full search unless --tune=auto), print the
 *                            candidate table and the choice, record it
 *   dgrun --devices          backends and devices this build can use
 *   dgrun --help-config      every problem.cfg key, with type and default
 *   dgrun --help | --version the options explained (problems/driver/cli.c);
 *                            version, commit, build options, CUDA/NVRTC found
 *   --debug (or DGRUN_DEBUG=1) anywhere: errors print their call trace
 *
 * Exit status: 0 when the run completed, 1 on any error (its message; the
 * trace with --debug), 2 on a usage error, 128 + N when signal N (SIGINT:
 * 130, SIGTERM: 143) stopped the run after writing a checkpoint
 * (problems/driver/signals.h).
 *
 * Under mpirun (detected from the launcher's environment) every rank runs
 * its part of the mesh (problems/solver/parallel.h); rank 0 alone prints progress.
 * An error on any rank ends every rank with status 1.  Where all ranks meet
 * (set-up, NaN checks, output) the error is agreed on and rank 0 alone
 * prints it, naming the failing rank; elsewhere (e.g. in the middle of a
 * halo exchange, where agreeing could hang) the failing rank prints its
 * trace naming itself and MPI_Abort stops the job. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/comm.h"

#include "core/config.h"
#include "core/device.h"
#include "core/error.h"
#include "core/log.h"
#include "meshes/mesh_h5.h"
#include "problems/driver/cli.h"
#include "problems/driver/poisson_run.h"
#include "problems/driver/problem.h"
#include "problems/driver/run.h"
#include "problems/solver/parallel.h"

/* Started by an MPI launcher with more than one process? */
static int launched_by_mpi(void) {
  const char *vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS"};
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
    if (getenv(vars[i]))
      return 1;
  return 0;
}

/* Print a parallel run's error once per cause and end every rank. */
static void parallel_fail(dg_comm *comm, dg_error err) {
  int rank = dg_comm_rank(comm);
  const char *msg = dg_error_message();
  int agreed_elsewhere = err == DG_ERR_PEER;
  if (!agreed_elsewhere) {
    fprintf(stderr, "dgrun: rank %d of %d failed:\n", rank, dg_comm_size(comm));
    dg_error_print(stderr);
  } else if (rank == 0) {
    fprintf(stderr, "dgrun: stopping all ranks: %s\n", msg);
  }
  fflush(stderr);
  /* Give the failing rank a moment to print before the job is torn down. */
  if (agreed_elsewhere)
    sleep(1);
  dg_comm_abort(comm, 1);
}

/* DGRUN_DEBUG=1 (or any value but 0 and empty) or --debug anywhere. */
static void set_traces(int argc, char **argv) {
  const char *e = getenv("DGRUN_DEBUG");
  int on = e && *e && strcmp(e, "0") != 0;
  for (int i = 1; i < argc; i++)
    on |= strcmp(argv[i], "--debug") == 0;
  dg_error_set_traces(on);
}

/* dgrun import mesh.msh mesh.h5 [--parts P] [--geometry-order K] */
static int run_import(int argc, char **argv) {
  long parts = 1, order = 1;
  int ok = argc >= 4 && argc % 2 == 0;
  for (int i = 4; ok && i + 1 < argc; i += 2) {
    int is_parts = strcmp(argv[i], "--parts") == 0;
    if (!is_parts && strcmp(argv[i], "--geometry-order") != 0) {
      ok = 0;
      break;
    }
    char *end;
    long v = strtol(argv[i + 1], &end, 10), max = is_parts ? 1000000 : 6;
    if (*end || v < 1 || v > max) {
      fprintf(stderr, "dgrun import: %s '%s' must be a whole number in 1..%ld\n", argv[i],
              argv[i + 1], max);
      return 2;
    }
    *(is_parts ? &parts : &order) = v;
  }
  if (!ok) {
    fprintf(stderr, "usage: dgrun import mesh.msh mesh.h5 [--parts P] [--geometry-order K]\n");
    return 2;
  }
  /* Gmsh's element order is chosen when a .geo is meshed; a .msh (or .h5)
   * keeps the order it was written with, so the flag would do nothing */
  size_t n = strlen(argv[2]);
  int order_given = 0;
  for (int i = 4; i + 1 < argc; i += 2)
    order_given |= strcmp(argv[i], "--geometry-order") == 0;
  if (order_given && !(n >= 4 && strcmp(argv[2] + n - 4, ".geo") == 0)) {
    fprintf(stderr,
            "dgrun import: --geometry-order applies to a .geo meshed at import; '%s' keeps "
            "the geometry order it was written with (mesh the .geo at the order wanted)\n",
            argv[2]);
    return 2;
  }
  if (dg_mesh_import_order(argv[2], argv[3], (int)parts, (int)order) != DG_OK) {
    dg_error_print(stderr);
    return 1;
  }
  return 0;
}

/* The commands that stand alone as the first argument; -1: none of them. */
static int run_command(int argc, char **argv) {
  if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
    dg_cli_help(stdout);
    return 0;
  }
  if (strcmp(argv[1], "--version") == 0) {
    dg_cli_version(stdout);
    return 0;
  }
  if (strcmp(argv[1], "--devices") == 0) {
    if (dg_device_list(stdout) != DG_OK) {
      dg_error_print(stderr);
      return 1;
    }
    return 0;
  }
  if (strcmp(argv[1], "import") == 0)
    return run_import(argc, argv);
  if (strcmp(argv[1], "--help-config") == 0) {
    int md = argc > 2 && strcmp(argv[2], "--markdown") == 0;
    size_t nschema = 0;
    const dg_config_key *schema = dg_problem_schema(&nschema);
    dg_config_print_schema(stdout, schema, nschema, md ? DG_CONFIG_DOC_MARKDOWN : DG_CONFIG_DOC_TEXT);
    return 0;
  }
  return -1;
}

/* The options of a run into opt (overrides: argc + 1 entries, filled);
 * 0, or the exit status of a usage error (printed). */
static int parse_run(int argc, char **argv, const char **overrides, dg_run_options *opt) {
  memset(opt, 0, sizeof *opt);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int takes_value = 0;
    dg_cli_option o = a[0] == '-' ? dg_cli_find(a, &takes_value) : DG_CLI_UNKNOWN;
    if (takes_value && i + 1 >= argc) {
      fprintf(stderr, "dgrun: %s needs a value\n", a);
      dg_cli_usage(stderr);
      return 2;
    }
    if (o == DG_CLI_QUIET) {
      opt->quiet = 1;
    } else if (o == DG_CLI_TIMINGS) {
      opt->timings = 1;
    } else if (o == DG_CLI_DEBUG) {
      /* set_traces read it */
    } else if (i == 1 && strcmp(a, "tune") == 0) {
      opt->tune_only = 1;
    } else if (o == DG_CLI_TUNE) {
      static char tune_ov[32];
      snprintf(tune_ov, sizeof tune_ov, "backend.tuning=%s", a + 7);
      overrides[opt->noverrides++] = tune_ov;
    } else if (o == DG_CLI_RESTART) {
      opt->restart = argv[++i];
    } else if (o == DG_CLI_DUMP_KERNELS) {
      opt->dump_kernels = argv[++i];
    } else if (a[0] == '-') {
      const char *near = dg_cli_suggest(a);
      if (near)
        fprintf(stderr, "dgrun: unknown option '%s'; did you mean '%s'?\n", a, near);
      else
        fprintf(stderr, "dgrun: unknown option '%s' (dgrun --help lists them)\n", a);
      return 2;
    } else if (strchr(a, '=')) {
      overrides[opt->noverrides++] = a;
    } else if (!opt->cfg_path) {
      opt->cfg_path = a;
    } else {
      fprintf(stderr, "dgrun: a second problem file '%s' (only one run at a time)\n", a);
      return 2;
    }
  }
  if (!opt->cfg_path && !opt->restart) { /* a checkpoint stores its problem */
    dg_cli_usage(stderr);
    return 2;
  }
  opt->overrides = overrides;
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    dg_cli_usage(stderr);
    return 2;
  }
  set_traces(argc, argv);
  int status = run_command(argc, argv);
  if (status >= 0)
    return status;
  dg_run_options opt;
  const char **overrides = calloc((size_t)argc + 1, sizeof *overrides);
  if (!overrides) {
    fprintf(stderr, "dgrun: out of memory\n");
    return 1;
  }
  status = parse_run(argc, argv, overrides, &opt);
  if (status) {
    free(overrides);
    return status;
  }
  dg_comm *world = NULL;
  /* A Poisson solve sets up MPI itself (problems/driver/poisson_run.c). */
  int poisson = opt.cfg_path && dg_poisson_is_kind(opt.cfg_path, overrides, opt.noverrides);
  if (!poisson && dg_comm_mpi_built() && launched_by_mpi()) {
    if (dg_comm_create_world(&world) != DG_OK) {
      dg_error_print(stderr);
      free(overrides);
      return 1;
    }
    if (dg_comm_size(world) == 1)
      dg_comm_destroy(&world);
  }
  opt.comm = world;
  if (world && dg_comm_rank(world) != 0)
    opt.quiet = 1; /* progress and results from rank 0 */
  if (opt.quiet)
    dg_log_set_level(DG_LOG_WARN);
  dg_error err;
  dg_run_result res;
  memset(&res, 0, sizeof res);
  if (poisson) {
    /* [problem] kind = poisson: one elliptic solve, no time loop. */
    if (opt.restart)
      fprintf(stderr, "dgrun: --restart ignored: a Poisson problem has no time loop\n");
    dg_poisson_result pres;
    err = dg_poisson_run(&opt, &pres);
  } else {
    err = dg_run(&opt, &res);
  }
  free(overrides);
  if (err == DG_ERR_INTERRUPTED && res.interrupted_by > 0) {
    /* every rank stopped after the same step (the signal is agreed on in
     * the time loop): rank 0 says so once, all finalize and exit alike */
    if (!world || dg_comm_rank(world) == 0)
      fprintf(stderr, "\ndgrun: %s\n", dg_error_message());
    dg_comm_destroy(&world);
    return 128 + res.interrupted_by;
  }
  if (err != DG_OK && world && dg_parallel_error_agreed()) {
    /* Every rank stopped at the same point: rank 0 reports, all exit. */
    if (dg_comm_rank(world) == 0) {
      fprintf(stderr, "dgrun: rank %d of %d failed; every rank stopped:\n",
              dg_parallel_error_rank(), dg_comm_size(world));
      dg_error_print(stderr);
    }
    dg_comm_destroy(&world);
    return 1;
  }
  if (err != DG_OK) {
    if (world)
      parallel_fail(world, err);
    dg_error_print(stderr);
    return 1;
  }
  dg_comm_destroy(&world);
  return 0;
}
