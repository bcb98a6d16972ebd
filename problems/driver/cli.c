#include "problems/driver/cli.h"

#include <string.h>

#include "core/device.h"
#include "core/suggest.h"
#include "dgrun_build_info.h"
#include "dgrun_git.h"

typedef struct option_row {
  const char *name;  /* as typed; "--tune=" takes its value after the '=' */
  dg_cli_option id;
  int takes_value;   /* reads the next argument */
  const char *arg;   /* the value's name in the help, or NULL */
  const char *help;
} option_row;

/* Help lines wrap at 80 columns: a continuation starts with the padding of
 * print_options' second column (25 spaces). */
#define CONT "\n                         "
static const option_row OPTIONS[] = {
    {"--quiet", DG_CLI_QUIET, 0, NULL,
     "warnings and errors only (no set-up lines, no" CONT "progress); also -q"},
    {"--restart", DG_CLI_RESTART, 1, "ckpt.h5",
     "continue from a checkpoint (output.checkpoint_interval" CONT
     "writes them, and a run stopped by SIGINT/SIGTERM writes" CONT
     "one); ends bitwise equal to an uninterrupted run;" CONT
     "without problem.cfg the checkpoint's stored cfg and" CONT
     "flux text are used (only time.final, time.max_steps," CONT
     "time.dt/cfl and [output], [backend], [parallel] keys" CONT
     "may change)"},
    {"--tune=", DG_CLI_TUNE, 0, "off|auto|full",
     "kernel variants.  auto (the default): the tuning" CONT
     "database's or a shipped entry; on a GPU, where there is" CONT
     "none, tuned once (about a minute, announced) and stored" CONT
     "for the next runs; the cpu backend runs its defaults" CONT
     "there unless auto is given.  off: the fixed default" CONT
     "knobs (also when backend knobs are set by hand).  full:" CONT
     "search every variant again.  Also: backend.tuning=..."},
    {"--dump-kernels", DG_CLI_DUMP_KERNELS, 1, "DIR",
     "write every generated kernel module to DIR (CUDA or C)"},
    {"--timings", DG_CLI_TIMINGS, 0, NULL,
     "after the run: wall and CPU time of each set-up phase" CONT "and of the first step"},
    {"--debug", DG_CLI_DEBUG, 0, NULL, "errors print their call trace (also DGRUN_DEBUG=1)"},
};
#undef CONT
enum { NOPTIONS = sizeof OPTIONS / sizeof OPTIONS[0] };

/* Options that stand alone as the first argument (not in the run's table). */
static const char *const COMMANDS[] = {"--help", "--version", "--devices", "--help-config",
                                       "-h", "-q", "tune", "import"};
enum { NCOMMANDS = sizeof COMMANDS / sizeof COMMANDS[0] };

dg_cli_option dg_cli_find(const char *a, int *takes_value) {
  *takes_value = 0;
  if (strcmp(a, "-q") == 0)
    return DG_CLI_QUIET;
  for (int i = 0; i < NOPTIONS; i++) {
    const option_row *o = &OPTIONS[i];
    int match = o->id == DG_CLI_TUNE
                    ? (!strcmp(a, "--tune=off") || !strcmp(a, "--tune=auto") ||
                       !strcmp(a, "--tune=full"))
                    : strcmp(a, o->name) == 0;
    if (match) {
      *takes_value = o->takes_value;
      return o->id;
    }
  }
  return DG_CLI_UNKNOWN;
}

const char *dg_cli_suggest(const char *a) {
  const char *names[NOPTIONS + NCOMMANDS + 2];
  int n = 0;
  for (int i = 0; i < NOPTIONS; i++)
    if (OPTIONS[i].id != DG_CLI_TUNE)
      names[n++] = OPTIONS[i].name;
  names[n++] = "--tune=auto";
  names[n++] = "--tune=off";
  for (int i = 0; i < NCOMMANDS; i++)
    names[n++] = COMMANDS[i];
  /* "--tune=fast" is closest to "--tune=auto"/"--tune=off": fine */
  return dg_suggest_closest(a, names, (size_t)n);
}

void dg_cli_usage(FILE *out) {
  fprintf(out,
          "usage: dgrun problem.cfg [section.key=value ...] [--quiet] [--restart ckpt.h5]\n"
          "                         [--dump-kernels DIR] [--tune=off|auto|full] [--timings]\n"
          "                         [--debug]\n"
          "       dgrun --restart ckpt.h5 [section.key=value ...] [options as above]\n"
          "       dgrun tune problem.cfg [section.key=value ...] [--tune=auto|full]\n"
          "       dgrun import mesh.msh mesh.h5 [--parts P] [--geometry-order K]\n"
          "       dgrun --devices | --help-config [--markdown] | --help | --version\n");
}

static void print_options(FILE *out) {
  fprintf(out, "Options of a run:\n");
  for (int i = 0; i < NOPTIONS; i++) {
    const option_row *o = &OPTIONS[i];
    char head[64];
    snprintf(head, sizeof head, "%s%s%s", o->name, o->arg && o->id != DG_CLI_TUNE ? " " : "",
             o->arg ? o->arg : "");
    fprintf(out, "  %-22s %s\n", head, o->help);
  }
  fprintf(out,
          "  section.key=value      set a problem.cfg key for this run (wins over the\n"
          "                         file); every key: dgrun --help-config\n");
}

void dg_cli_help(FILE *out) {
  fprintf(out, "dgrun %s: discontinuous Galerkin solvers whose GPU/CPU kernels are generated\n"
               "for the problem at hand.  A problem is a .cfg file and a .flux file (the PDE\n"
               "as expressions); no C, no rebuild.\n\n",
          DGRUN_BUILD_VERSION);
  dg_cli_usage(out);
  fprintf(out, "\n");
  print_options(out);
  fprintf(out,
          "\nCommands:\n"
          "  tune problem.cfg       tune the kernels for this problem now (a full search;\n"
          "                         --tune=auto: auto's, where no entry exists), print\n"
          "                         the candidates and the choice (kept in the database)\n"
          "  import in.msh out.h5   convert a Gmsh mesh to dgrun's HDF5 mesh format;\n"
          "                         --parts P: pre-partitioned for P MPI ranks;\n"
          "                         --geometry-order K: a .geo meshed curved, order K\n"
          "  --devices              backends and devices, and which one 'auto' picks\n"
          "  --help-config          every problem.cfg key: its type, default and meaning\n"
          "                         (--markdown: as problems/PROBLEM_CFG.md)\n"
          "  --version              version, commit, build options, CUDA/NVRTC found\n"
          "\nExamples:\n"
          "  dgrun problems/cases/demo/demo.cfg                  the demo (2D Euler vortex)\n"
          "  dgrun maxwell3d.cfg discretization.order=5 \"mesh.cells=8 8 8\"\n"
          "  dgrun --restart output/run_checkpoint_000100.h5 time.final=20\n"
          "  mpirun -np 4 dgrun run.cfg                          one rank per GPU\n"
          "\nExit status: 0 when the run reached its final time, 1 on an error, 2 on a\n"
          "usage error, 128+N when signal N stopped it after writing a checkpoint.\n"
          "Docs: README.md, problems/PROBLEM_CFG.md (every key), operators/FLUX_LANGUAGE.md\n"
          "(the flux language), meshes/MESH_FORMAT.md.\n");
}

void dg_cli_version(FILE *out) {
  fprintf(out, "dgrun %s (%s)\n", DGRUN_BUILD_VERSION, DGRUN_GIT_DESCRIBE);
  fprintf(out, "build: %s, %s\n", DGRUN_BUILD_TYPE, DGRUN_BUILD_COMPILER);
  fprintf(out, "options: %s\n", DGRUN_BUILD_OPTIONS);
  fprintf(out, "backends compiled in:%s cpu\n", dg_device_cuda_built() ? " cuda" : "");
  dg_device_print_runtime(out);
}
