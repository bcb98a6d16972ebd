#!/usr/bin/env bash
# One device call: build (Release, Gmsh off), tune and benchmark the PyFR
# comparison cases and Maxwell, time-to-first-step with a warm cache, then
# the gpu-labelled tests.  Logs go to $OUT (or ./gpu-out).
# usage (GPU machine, repo root): bash tuning/h100_tune.sh [quick|sweep]
#   (default) tests + PyFR comparison + Maxwell, ~8 min on the H100
#   sweep     dgbench rhs sweep N = 1..7, double and float, 3D and 2D -> $OUT/sweep_*.csv
set -uo pipefail
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
L=/tmp/dglogs; mkdir -p $L
exec > >(tee "$OUT/h100.log") 2>&1   # one log file comes back
B=/tmp/dgrun-build
export DGRUN_CACHE_DIR=/tmp/dgrun-cache-tune   # fresh: tuning times include every compile
rm -rf $DGRUN_CACHE_DIR
export DGRUN_TUNING_DEFAULTS=/nonexistent   # tune for real, do not read the shipped defaults
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDGRUN_WITH_GMSH=OFF > "$L/cmake.log" 2>&1 || { tail -30 "$L/cmake.log"; exit 1; }
cmake --build $B -j16 > "$L/build.log" 2>&1 || { grep -E "error" "$L/build.log" | head -30; exit 1; }
E=problems/cases/euler3d_vortex/euler3d_vortex.cfg
M=problems/cases/maxwell3d/maxwell3d.cfg
if [ "${1:-}" = sweep ]; then
  # 3D Maxwell on 24^3 x 6 = 82,944 tets (>= 1M DOFs from N = 2 on), 2D Euler 300^2 x 2
  timeout 280 $B/core/dgbench rhs $M "mesh.cells=24 24 24" --tune=auto --sweep "$OUT/sweep_maxwell3d.csv" > /tmp/sweep3.log 2>&1
  timeout 280 $B/core/dgbench rhs problems/cases/euler2d_vortex/euler2d_vortex.cfg "mesh.cells=300 300" --tune=auto --sweep "$OUT/sweep_euler2d.csv" > /tmp/sweep2.log 2>&1
  tail -5 /tmp/sweep3.log /tmp/sweep2.log; cat "$OUT"/sweep_*.csv
  exit 0
fi
T() { timeout "$@"; }
if [ -z "${SKIP_TESTS:-}" ]; then # session_check.sh 1 runs these too
  echo "== gpu numerics: cuda vs cpu for the kernel variants (backend_match)"
  T 100 ctest --test-dir $B -R "backend_match_(maxwell3d|euler3d_float|euler2d)" --output-on-failure -j3 > $L/ctest1.log 2>&1
  grep -E "variant|tests passed|Failed|\*\*\*" $L/ctest1.log | head -60
fi
# PyFR cases: 35^3 x 6 = 257,250 tets (N = 3, 5), 60^3 x 6 = 1,296,000 tets (N = 1)
for c in "3 35" "1 60" "5 35"; do
  set -- $c
  echo "== tune euler3d N=$1 cells=$2"
  /usr/bin/time -f "tune wall %e s" timeout 110 $B/problems/dgrun tune $E --tune=auto discretization.order=$1 "mesh.cells=$2 $2 $2" > "$L/tune_euler_N$1.txt" 2>&1
  grep -E "chosen|wall|error" "$L/tune_euler_N$1.txt"
  T 120 $B/core/dgbench rhs $E discretization.order=$1 "mesh.cells=$2 $2 $2" --tune=auto > "$L/bench_euler_N$1.txt" 2>&1
  cat "$L/bench_euler_N$1.txt"
done
echo "== time to first step (warm cache, tuned): euler N=3 35^3, one step"
/usr/bin/time -f "first-step wall %e s" timeout 120 $B/problems/dgrun $E --tune=auto discretization.order=3 "mesh.cells=35 35 35" output.enabled=false time.final=0.001 --timings 2>&1 | tee "$L/first_step.txt"
echo "== dgrun euler N=3 35^3 (loop DOF-updates/s)"
T 60 $B/problems/dgrun $E --tune=auto discretization.order=3 "mesh.cells=35 35 35" output.enabled=false time.final=0.05 2>&1 | tail -4 | tee "$L/run_euler_N3.txt"
echo "== maxwell N=3 / 5"
T 100 $B/problems/dgrun tune $M --tune=auto discretization.order=3 "mesh.cells=40 40 40" > "$L/tune_maxwell_N3.txt" 2>&1; grep chosen "$L/tune_maxwell_N3.txt"
T 60 $B/core/dgbench rhs $M discretization.order=3 "mesh.cells=40 40 40" --tune=auto 2>&1 | tee "$L/bench_maxwell_N3.txt"
tar -C $DGRUN_CACHE_DIR -cf "$OUT/tuning-db.tar" tuning 2>/dev/null
cat $L/tune_*.txt > "$OUT/tune_tables.txt"
[ "${1:-}" = quick ] && exit 0
echo "== gpu tests"
T 200 ctest --test-dir $B -L gpu -E backend_match --output-on-failure -j2 > "$L/ctest_gpu.log" 2>&1
grep -E "tests passed|Failed|\*\*\*" "$L/ctest_gpu.log" | head -20
