#!/usr/bin/env bash
# One device call: build, run every gpu-labelled test, the array benchmark
# and dgrun on >= 1M DOF 3D problems; logs go to $OUT (or ./gpu-out).
# usage (on the GPU machine, in the repo root): bash tests/gpu/h100_check.sh
set -uo pipefail
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
B=/tmp/dgrun-build
export DGRUN_CACHE_DIR=/tmp/dgrun-cache
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee "$OUT/gpu.txt"
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release > "$OUT/cmake.log" 2>&1 || { tail -30 "$OUT/cmake.log"; exit 1; }
cmake --build $B -j16 > "$OUT/build.log" 2>&1 || { grep -E "error" "$OUT/build.log" | head -30; exit 1; }
$B/problems/dgrun --devices | tee "$OUT/devices.txt"
ctest --test-dir $B -L gpu --output-on-failure -j4 > "$OUT/ctest_gpu.log" 2>&1
grep -E "tests passed|Failed|\*\*\*" "$OUT/ctest_gpu.log"
$B/core/dgbench --backend cuda 2>&1 | tee "$OUT/dgbench.txt" | tail -12
run() { # name cfg overrides...
  local name=$1; shift
  echo "== $name"
  /usr/bin/time -f "wall %e s" $B/problems/dgrun "$@" output.enabled=false > /tmp/$name.log 2>&1; cat /tmp/$name.log >> "$OUT/runs.log"
  grep -E "DOFs|step .*/|final|wall|error" /tmp/$name.log | tail -6
}
P=problems/cases
run maxwell3d_N3 $P/maxwell3d/maxwell3d.cfg discretization.order=3 "mesh.cells=24 24 24" time.final=0.05
run maxwell3d_N5 $P/maxwell3d/maxwell3d.cfg discretization.order=5 "mesh.cells=16 16 16" time.final=0.05
run euler3d_N3 $P/euler3d_vortex/euler3d_vortex.cfg discretization.order=3 "mesh.cells=48 48 4" "mesh.lower=0 -5 0" "mesh.upper=10 5 1" time.final=0.2
run euler3d_N5 $P/euler3d_vortex/euler3d_vortex.cfg discretization.order=5 "mesh.cells=32 32 4" "mesh.lower=0 -5 0" "mesh.upper=10 5 1" time.final=0.2
run maxwell3d_N3_float $P/maxwell3d/maxwell3d.cfg discretization.order=3 "mesh.cells=24 24 24" time.final=0.05 discretization.precision=float
run maxwell3d_N3_fused $P/maxwell3d/maxwell3d.cfg discretization.order=3 "mesh.cells=24 24 24" time.final=0.05 backend.fuse_update=true backend.matrices=shared
