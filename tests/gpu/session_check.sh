#!/usr/bin/env bash
# The GPU checks of a session in two device calls of < 10 minutes each.
# usage (GPU machine, repo root):
#   bash tests/gpu/session_check.sh 1   build, every gpu test, compute-sanitizer
#                                       (memcheck, racecheck) on dgrun's kernels,
#                                       tests/gpu/mpi_check.sh (2 ranks on one GPU)
#   bash tests/gpu/session_check.sh 2   tests/gpu/poisson_check.sh (SIPG SpMV/CG),
#                                       dgrun Maxwell/Euler 3D at N=3 and 5, tuned,
#                                       and the 1-GPU baseline of the scaling study
# Logs go to $OUT (or ./gpu-out); summary.txt has the lines that matter.
set -uo pipefail
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
export BUILD=/tmp/dgrun-build B=/tmp/dgrun-build
export DGRUN_CACHE_DIR=/tmp/dgrun-cache
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
S=$OUT/summary.txt
if [ -z "${SKIP_BUILD:-}" ]; then # incremental: a warm machine keeps $B from the last call
  cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDGRUN_WITH_GMSH=OFF > "$OUT/cmake.log" 2>&1 || { tail -30 "$OUT/cmake.log"; exit 1; }
  cmake --build $B -j16 > "$OUT/build.log" 2>&1 || { grep -E "error" "$OUT/build.log" | head -30; exit 1; }
fi
D=$B/problems/dgrun
CS=/usr/local/cuda/bin/compute-sanitizer
small=(backend.device=cuda output.enabled=false time.final=0.002 backend.tuning=off) # the knobs as listed
if [ "${1:-1}" = 1 ]; then
  timeout 240 ctest --test-dir $B -L gpu --output-on-failure -j4 > "$OUT/ctest_gpu.log" 2>&1
  grep -E "tests passed|\*\*\*|Failed" "$OUT/ctest_gpu.log" | tee -a "$S"
  # compute-sanitizer on the generated kernels: default knobs, the fused and
  # tuned-style variants, float; errors make the exit status 9
  for v in "maxwell3d|" "maxwell3d|backend.fuse_update=true backend.fuse_surface=true backend.matrices=shared" \
           "euler3d_vortex|backend.work_mode=inline backend.work_per_thread=2 backend.prefetch=true backend.elements_per_block=2" \
           "euler3d_vortex|discretization.precision=float backend.fuse_surface=true backend.fuse_update=true" \
           "euler3d_vortex|backend.work_mode=gemm backend.elements_per_block=8 backend.fuse_surface=true backend.fuse_update=true" \
           "maxwell3d|backend.work_mode=gemm backend.elements_per_block=3 backend.matrices=shared" \
           "euler3d_vortex|backend.work_mode=mma backend.elements_per_block=8 backend.fuse_surface=true backend.fuse_update=true" \
           "maxwell3d|backend.work_mode=mma backend.elements_per_block=16" \
           "euler3d_vortex|backend.work_mode=mma backend.mma_rows=16 backend.elements_per_block=8 backend.fuse_surface=true backend.fuse_update=true"; do
    prob=${v%%|*}; knobs=${v#*|}
    for tool in memcheck racecheck; do
      timeout 120 $CS --tool $tool --error-exitcode 9 $D problems/cases/$prob/$prob.cfg "${small[@]}" \
        "mesh.cells=3 3 3" discretization.order=3 $knobs > "$OUT/cs_${tool}_${prob}.log" 2>&1
      echo "compute-sanitizer $tool $prob [$knobs]: exit $? ($(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/cs_${tool}_${prob}.log" | tail -1))" | tee -a "$S"
    done
  done
  timeout 60 $CS --tool memcheck --error-exitcode 9 $B/core/spbench --backend cuda --K 400 --np 10 --reps 2 --iters 5 > "$OUT/cs_spbench.log" 2>&1
  echo "compute-sanitizer memcheck spbench: exit $? ($(grep 'ERROR SUMMARY' "$OUT/cs_spbench.log" | tail -1))" | tee -a "$S"
  timeout 200 bash tests/gpu/mpi_check.sh > "$OUT/mpi_check_run.log" 2>&1
  tail -8 "$OUT/mpi_check_run.log" | tee -a "$S"
else
  SKIP_BUILD=1 SKIP_TESTS=1 timeout 240 bash tests/gpu/poisson_check.sh > "$OUT/poisson_run.log" 2>&1
  tail -30 "$OUT/poisson_run.log" | tee -a "$S"
  run() { local name=$1; shift
    timeout 60 $D "$@" output.enabled=false --tune=auto > "$OUT/$name.log" 2>&1
    echo "== $name: $(grep -E 'elements,' "$OUT/$name.log" | sed 's/.*: 3D/3D/') | $(grep -E 'step .*/' "$OUT/$name.log" | tail -1 | sed 's/dgrun: //') | $(grep 'first step' "$OUT/$name.log" | sed 's/dgrun: //')" | tee -a "$S"; }
  P=problems/cases
  run maxwell3d_N3 $P/maxwell3d/maxwell3d.cfg discretization.order=3 "mesh.cells=24 24 24" time.final=0.05
  run maxwell3d_N5 $P/maxwell3d/maxwell3d.cfg discretization.order=5 "mesh.cells=16 16 16" time.final=0.05
  run euler3d_N3 $P/euler3d_vortex/euler3d_vortex.cfg discretization.order=3 "mesh.cells=35 35 35" time.final=0.05
  run euler3d_N5 $P/euler3d_vortex/euler3d_vortex.cfg discretization.order=5 "mesh.cells=35 35 35" time.final=0.02
  MAX_GPUS=1 WEAK_CELLS=24 STRONG_CELLS=24 STEPS=20 timeout 150 bash tests/gpu/scaling_study.sh > "$OUT/scaling_run.log" 2>&1
  tail -8 "$OUT/scaling_run.log" | tee -a "$S"
fi
