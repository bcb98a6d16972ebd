#!/usr/bin/env bash
# One device call: build (Release, Gmsh off), tune and benchmark the PyFR
# comparison cases and Maxwell, time-to-first-step with a warm cache, then
# the gpu-labelled tests.  Logs go to $OUT (or ./gpu-out).
# usage (GPU machine, repo root): bash tuning/h100_tune.sh [quick]
set -uo pipefail
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
B=/tmp/dgrun-build
export DGRUN_CACHE_DIR=/tmp/dgrun-cache
export DGRUN_TUNING_DEFAULTS=/nonexistent   # tune for real, do not read the shipped defaults
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee "$OUT/gpu.txt"
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDGRUN_WITH_GMSH=OFF > "$OUT/cmake.log" 2>&1 || { tail -30 "$OUT/cmake.log"; exit 1; }
cmake --build $B -j16 > "$OUT/build.log" 2>&1 || { grep -E "error" "$OUT/build.log" | head -30; exit 1; }
E=problems/euler3d_vortex/euler3d_vortex.cfg
M=problems/maxwell3d/maxwell3d.cfg
T() { timeout "$@"; }
# PyFR cases: 35^3 x 6 = 257,250 tets (N = 3, 5), 60^3 x 6 = 1,296,000 tets (N = 1)
for c in "3 35" "1 60" "5 35"; do
  set -- $c
  echo "== tune euler3d N=$1 cells=$2"
  /usr/bin/time -f "tune wall %e s" T 150 $B/problems/dgrun tune $E --tune=auto discretization.order=$1 "mesh.cells=$2 $2 $2" > "$OUT/tune_euler_N$1.txt" 2>&1
  grep -E "chosen|wall|error" "$OUT/tune_euler_N$1.txt"
  T 120 $B/core/dgbench rhs $E discretization.order=$1 "mesh.cells=$2 $2 $2" --tune=auto > "$OUT/bench_euler_N$1.txt" 2>&1
  cat "$OUT/bench_euler_N$1.txt"
done
echo "== time to first step (warm cache, tuned): euler N=3 35^3, one step"
/usr/bin/time -f "first-step wall %e s" T 60 $B/problems/dgrun $E --tune=auto discretization.order=3 "mesh.cells=35 35 35" output.enabled=false time.final=0.001 2>&1 | tail -3 | tee "$OUT/first_step.txt"
echo "== dgrun euler N=3 35^3 (loop DOF-updates/s)"
T 60 $B/problems/dgrun $E --tune=auto discretization.order=3 "mesh.cells=35 35 35" output.enabled=false time.final=0.05 2>&1 | tail -4 | tee "$OUT/run_euler_N3.txt"
echo "== maxwell N=3 / 5"
T 100 $B/problems/dgrun tune $M --tune=auto discretization.order=3 "mesh.cells=40 40 40" > "$OUT/tune_maxwell_N3.txt" 2>&1; grep chosen "$OUT/tune_maxwell_N3.txt"
T 60 $B/core/dgbench rhs $M discretization.order=3 "mesh.cells=40 40 40" --tune=auto 2>&1 | tee "$OUT/bench_maxwell_N3.txt"
mkdir -p "$OUT/tuning-db" && cp $DGRUN_CACHE_DIR/tuning/*.tune "$OUT/tuning-db/" 2>/dev/null
[ "${1:-}" = quick ] && exit 0
echo "== gpu tests"
T 200 ctest --test-dir $B -L gpu --output-on-failure -j2 > "$OUT/ctest_gpu.log" 2>&1
grep -E "tests passed|Failed|\*\*\*" "$OUT/ctest_gpu.log" | head -20
