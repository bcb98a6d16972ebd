#!/usr/bin/env bash
# Poisson / sparse check on a GPU machine, in one device call: build (Gmsh
# off), run every gpu-labelled test, then the SIPG benchmark of issue 8:
#   - dgrun assembles the SIPG matrix of a 3D box at N = 3 (>= 10M nonzeros)
#     and solves it with PCG on cuda for each SpMV format (CG time per
#     iteration with block-Jacobi, in the log line), writing the matrix once;
#   - spbench on that matrix: SpMV ms, GB/s and fraction of the copy
#     bandwidth per format, CG ms per iteration (no preconditioner and
#     block-Jacobi);
#   - spbench on the synthetic matrix the issue compares with cuSPARSE / CuPy
#     (K = 100000 blocks of 20 x 20, 5 blocks per block row, ~200M nonzeros).
# Logs and a summary go to $OUT (or ./gpu-out).
# usage (on the GPU machine, in the repo root): bash tests/gpu/poisson_check.sh [cells]
# Knobs for a dry run elsewhere: BACKEND=cpu, B=<existing build dir>,
# SKIP_BUILD=1, SKIP_TESTS=1, SKIP_SYNTHETIC=1.
set -uo pipefail
OUT=${OUT:-gpu-out}
CELLS=${1:-10}
BACKEND=${BACKEND:-cuda}
mkdir -p "$OUT"
B=${B:-/tmp/dgrun-build-poisson}
export DGRUN_CACHE_DIR=/tmp/dgrun-cache
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
command -v nvidia-smi > /dev/null &&
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee "$OUT/gpu.txt"
if [ -z "${SKIP_BUILD:-}" ]; then
  cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDGRUN_WITH_GMSH=OFF > "$OUT/cmake.log" 2>&1 \
    || { tail -30 "$OUT/cmake.log"; exit 1; }
  cmake --build $B -j16 > "$OUT/build.log" 2>&1 || { grep -E "error" "$OUT/build.log" | head -30; exit 1; }
fi
$B/problems/dgrun --devices | tee "$OUT/devices.txt"

if [ -z "${SKIP_TESTS:-}" ]; then
  echo "== gpu-labelled tests"
  ctest --test-dir $B -L gpu --output-on-failure -j4 > "$OUT/ctest_gpu.log" 2>&1
  grep -E "tests passed|Failed|\*\*\*" "$OUT/ctest_gpu.log"
  echo "== poisson tests on the GPU machine (cpu backend and mpi)"
  ctest --test-dir $B -R "poisson|sipg" --output-on-failure -j8 > "$OUT/ctest_poisson.log" 2>&1
  grep -E "tests passed|Failed|\*\*\*" "$OUT/ctest_poisson.log"
fi

MTX=/tmp/sipg3d_N3.mtx
P=problems/cases/poisson/poisson3d.cfg
common=(discretization.order=3 "mesh.cells=$CELLS $CELLS $CELLS" backend.device=$BACKEND output.enabled=false)
echo "== dgrun SIPG 3D N=3, cells $CELLS^3 x 6 tets, PCG block-jacobi per format" | tee "$OUT/poisson_runs.log"
first=1
for f in bsr csr-vector ell csr-scalar; do
  extra=()
  if [ $first = 1 ]; then extra=(poisson.matrix_file=$MTX); first=0; fi
  echo "-- format $f" >> "$OUT/poisson_runs.log"
  /usr/bin/time -f "wall %e s" $B/problems/dgrun $P "${common[@]}" poisson.format=$f "${extra[@]}" \
    >> "$OUT/poisson_runs.log" 2>&1
  # a second run: kernels cached, so the per-iteration time excludes compilation
  /usr/bin/time -f "wall %e s" $B/problems/dgrun $P "${common[@]}" poisson.format=$f \
    >> "$OUT/poisson_runs.log" 2>&1
done
grep -E "format|nonzeros|CG converged|L2 error|wall|error" "$OUT/poisson_runs.log"

echo "== spbench on the SIPG matrix" | tee "$OUT/spbench_sipg.txt"
$B/core/spbench --backend $BACKEND --mtx $MTX --np 20 --reps 50 --iters 100 --tune 2>&1 | tee -a "$OUT/spbench_sipg.txt"
$B/core/spbench --backend $BACKEND --mtx $MTX --np 20 --reps 20 --iters 100 --pc block-jacobi \
  --formats bsr 2>&1 | tail -2 | tee -a "$OUT/spbench_sipg.txt"
$B/core/spbench --backend $BACKEND --mtx $MTX --np 20 --reps 20 --float 2>&1 | tail -9 \
  | tee -a "$OUT/spbench_sipg.txt"
if [ -z "${SKIP_SYNTHETIC:-}" ]; then
  echo "== spbench on the synthetic 200M-nonzero matrix (issue 8's cuSPARSE / CuPy comparison)" \
    | tee "$OUT/spbench_synthetic.txt"
  $B/core/spbench --backend $BACKEND --reps 20 --iters 40 2>&1 | tee -a "$OUT/spbench_synthetic.txt"
  $B/core/spbench --backend $BACKEND --reps 20 --iters 40 --pc block-jacobi --formats bsr 2>&1 \
    | tail -2 | tee -a "$OUT/spbench_synthetic.txt"
fi
rm -f $MTX
echo "done; logs in $OUT"
