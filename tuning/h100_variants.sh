#!/usr/bin/env bash
# One device call: build (Release, Gmsh off), check the gemm volume kernel
# against the cpu backend (backend_match), then time explicit kernel
# variants with `dgbench rhs --tune=off` on the PyFR comparison cases and
# Maxwell 3D (no tuning: each row is the knobs given); gemm/mma kernels.  Logs go to $OUT.
# usage (GPU machine, repo root): bash tuning/h100_variants.sh
set -uo pipefail
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
exec > >(tee "$OUT/variants.log") 2>&1
B=/tmp/dgrun-build
export DGRUN_CACHE_DIR=/tmp/dgrun-cache
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
if [ -z "${SKIP_BUILD:-}" ]; then
  cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDGRUN_WITH_GMSH=OFF > /tmp/cmake.log 2>&1 || { tail -30 /tmp/cmake.log; exit 1; }
  cmake --build $B -j16 > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -30; exit 1; }
fi
if [ -z "${SKIP_TESTS:-}" ]; then
  timeout 150 ctest --test-dir $B -R "backend_match_(maxwell3d|euler3d_float|euler2d)" -j3 > /tmp/ctest.log 2>&1
  grep -E "variant (8|9|10|11) |tests passed|Failed|\*\*\*" /tmp/ctest.log | head -40
fi
E=problems/cases/euler3d_vortex/euler3d_vortex.cfg
M=problems/cases/maxwell3d/maxwell3d.cfg
F="backend.fuse_update=true backend.fuse_surface=true"
bench() { # title, then dgbench arguments
  local t=$1; shift
  echo "== $t"
  timeout 90 $B/core/dgbench rhs "$@" --tune=off 2>&1 | grep -E "^(variant|volume|surface|RHS|untuned)|rror" 
}
for N in 3 5 1; do
  cells=35; [ $N = 1 ] && cells=60
  bench "euler N=$N old best" $E discretization.order=$N "mesh.cells=$cells $cells $cells" $F backend.elements_per_block=$([ $N = 5 ] && echo 2 || echo 8) $([ $N = 5 ] && echo backend.work_mode=inline backend.work_per_thread=2)
  case $N in 5) V="8";; *) V="8 16 32";; esac
  for epb in $V; do
    bench "euler N=$N mma epb=$epb" $E discretization.order=$N "mesh.cells=$cells $cells $cells" $F backend.work_mode=mma backend.elements_per_block=$epb
  done
  bench "euler N=$N mma epb=8 unfused surface" $E discretization.order=$N "mesh.cells=$cells $cells $cells" backend.fuse_update=true backend.work_mode=mma backend.elements_per_block=8
done
bench "maxwell N=3 old best" $M discretization.order=3 "mesh.cells=40 40 40" $F backend.elements_per_block=8
for epb in 8 16; do
  bench "maxwell N=3 mma epb=$epb" $M discretization.order=3 "mesh.cells=40 40 40" $F backend.work_mode=mma backend.elements_per_block=$epb
done
bench "maxwell N=5 old best" $M discretization.order=5 "mesh.cells=24 24 24" $F backend.elements_per_block=2
bench "maxwell N=5 mma epb=8" $M discretization.order=5 "mesh.cells=24 24 24" $F backend.work_mode=mma backend.elements_per_block=8
