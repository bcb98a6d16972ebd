/* dgbench: `dgbench rhs ...` benchmarks the DG right-hand side
 * (problems/bench/rhsbench.c), `dgbench step ...` whole time steps
 * (problems/bench/stepbench.c), `dgbench source ...` prints a generated
 * module (problems/bench/sourcedump.c), `dgbench mma` measures the fp64
 * tensor-core steps (core/bench/mmabench.c); anything else is the array
 * benchmark of the runtime core (core/bench/dgbench.c).  The dispatch lives here, in the
 * problems layer, because only this layer may see both. */
#include <string.h>

int dg_arraybench_main(int argc, char **argv);
int dg_rhsbench_main(int argc, char **argv);
int dg_stepbench_main(int argc, char **argv);
int dg_sourcedump_main(int argc, char **argv);
int dg_mmabench_main(int argc, char **argv);

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "rhs") == 0)
    return dg_rhsbench_main(argc - 2, argv + 2);
  if (argc > 1 && strcmp(argv[1], "step") == 0)
    return dg_stepbench_main(argc - 2, argv + 2);
  if (argc > 1 && strcmp(argv[1], "source") == 0)
    return dg_sourcedump_main(argc - 2, argv + 2);
  if (argc > 1 && strcmp(argv[1], "mma") == 0)
    return dg_mmabench_main(argc - 2, argv + 2);
  return dg_arraybench_main(argc, argv);
}
