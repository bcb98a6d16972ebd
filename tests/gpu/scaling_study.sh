#!/usr/bin/env bash
# Multi-GPU scaling study (issue 11): weak and strong scaling of Maxwell 3D
# and Euler 3D at N = 4 on 1, 2, 4, 8 GPUs of one host (as many as exist, or
# up to $MAX_GPUS), one rank per GPU.  Writes $OUT/scaling.csv and
# $OUT/scaling.png (tests/gpu/plot_scaling.py, no dependencies) and the logs.
#
# usage (repo root, on the GPU machine):  bash tests/gpu/scaling_study.sh
#   WEAK_CELLS=n    cells per GPU along each axis of the weak-scaling box
#                   (n x n x n hexahedra x 6 tets per GPU; the box grows along
#                   x with the rank count).  Default 40: 384,000 tets, 80.6M
#                   DOFs of Maxwell at N = 4 per GPU, ~40 GB of device memory
#                   (state, two RK registers, face fluxes, geometry): over half
#                   of an H100's 80 GB; use 48 on an H200 (141 GB).
#   STRONG_CELLS=n  cells per axis of the fixed strong-scaling box (default 40)
#   STEPS=s         time steps timed per run (default 100: the loop's rate
#                   counts its first exchanges, whose set-up (MPI connections,
#                   pinned buffers) weighed 10-30 % in 20-step loops)
#   TUNING=mode     backend.tuning of every run: off (default kernels, the
#                   default) or auto (the tuning database; shipped H100
#                   entries, else each rank tunes once before its loop)
# Before the timed runs each problem runs once, untimed, on every GPU count
# (a few steps): that compiles its kernels into the cache and warms the
# GPUs, so the 1-GPU baseline is not a cold run (in the 20-step 2-GPU study
# of 2026-11-25 the cold 1-GPU Maxwell run was 25 % slower than the same
# run warm).
# The figure of merit is dgrun's DOF-updates/s of the time loop (all ranks);
# weak efficiency E(P) = rate(P) / (P * rate(1)); strong speedup S(P) =
# rate(P) / rate(1) on the same mesh.  NVLink multicast is never used (dgrun
# only calls MPI point-to-point; no cuMulticastCreate anywhere).
set -uo pipefail
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
B=${BUILD:-/tmp/dgrun-build}
WEAK_CELLS=${WEAK_CELLS:-40}
STRONG_CELLS=${STRONG_CELLS:-40}
STEPS=${STEPS:-100}
TUNING=${TUNING:-off}
export DGRUN_CACHE_DIR=${DGRUN_CACHE_DIR:-/tmp/dgrun-cache}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
NGPU=$(nvidia-smi -L 2>/dev/null | wc -l)
MAX_GPUS=${MAX_GPUS:-$NGPU}
if [ "$NGPU" -lt 1 ]; then echo "no GPU: nothing to measure"; exit 0; fi
if [ ! -x "$B/problems/dgrun" ]; then
  cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release > "$OUT/cmake.log" 2>&1 || { tail -30 "$OUT/cmake.log"; exit 1; }
  cmake --build "$B" -j16 > "$OUT/build.log" 2>&1 || { grep -E "error" "$OUT/build.log" | head -30; exit 1; }
fi
D=$B/problems/dgrun
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | head -1 > "$OUT/gpu.txt"
CSV=$OUT/scaling.csv
echo "study,problem,gpus,elements,dofs,steps,loop_seconds,dof_updates_per_s,efficiency_or_speedup" > "$CSV"

halo_wait() { grep "halo (rank 0)" "$1" | sed -E 's/.*\(([0-9.]+)% of the time loop\).*/\1/'; }
rate() { grep -E "step [0-9]+/[0-9]+ .*DOF-updates/s" "$1" | tail -1 | sed -E 's/.* ([0-9.e+-]+) DOF-updates\/s.*/\1/'; }
wall() { grep -E "step [0-9]+/[0-9]+ .*DOF-updates/s" "$1" | tail -1 | sed -E 's/.*wall ([0-9.]+) s.*/\1/'; }
dofs() { grep -E "elements, [0-9]+ DOFs" "$1" | head -1 | sed -E 's/.* ([0-9]+) elements, ([0-9]+) DOFs.*/\1 \2/'; }

# launch log steps P cfg nx ny nz lx ly lz
launch() {
  local log=$1 steps=$2 P=$3 cfg=$4 nx=$5 ny=$6 nz=$7 lx=$8 ly=$9 lz=${10}
  # a fixed dt (below the CFL limit of every mesh here) so every run takes
  # exactly the given steps
  mpiexec -n "$P" --bind-to none -x DGRUN_CACHE_DIR "$D" "$cfg" backend.device=cuda \
    "backend.tuning=$TUNING" output.enabled=false discretization.order=4 "mesh.cells=$nx $ny $nz" \
    "mesh.lower=0 0 0" "mesh.upper=$lx $ly $lz" time.dt=1e-4 "time.final=$(python3 -c "print($steps*1e-4)")" \
    > "$log" 2>&1
}

# run study problem cfg P nx ny nz lx ly lz
run() {
  local study=$1 prob=$2 cfg=$3 P=$4 nx=$5 ny=$6 nz=$7 lx=$8 ly=$9 lz=${10}
  local log=$OUT/${study}_${prob}_np${P}.log
  launch "$log" "$STEPS" "$P" "$cfg" "$nx" "$ny" "$nz" "$lx" "$ly" "$lz"
  local rc=$?
  local r w ed
  r=$(rate "$log"); w=$(wall "$log"); ed=$(dofs "$log")
  echo "$study $prob P=$P cells=$nx.$ny.$nz exit=$rc rate=$r wall=$w halo_wait=$(halo_wait "$log")%"
  [ $rc -eq 0 ] && [ -n "$r" ] || { tail -5 "$log"; return 1; }
  echo "$study,$prob,$P,${ed% *},${ed#* },$STEPS,$w,$r," >> "$CSV"
}

for prob in maxwell3d euler3d_vortex; do
  cfg=problems/cases/$prob/$prob.cfg
  P=1
  while [ $P -le "$MAX_GPUS" ]; do # untimed warm-up: kernels compiled, GPUs awake
    launch "$OUT/warmup_${prob}_np${P}.log" 5 $P $cfg $((8 * P)) 8 8 $((10 * P)) 10 10 ||
      { echo "warm-up $prob P=$P failed"; tail -5 "$OUT/warmup_${prob}_np${P}.log"; }
    P=$((P * 2))
  done
  P=1
  while [ $P -le "$MAX_GPUS" ]; do
    n=$WEAK_CELLS
    # weak: the box grows along x, the same n^3 cells on every GPU
    run weak $prob $cfg $P $((n * P)) $n $n $((10 * P)) 10 10 || true
    # strong: one fixed box on P GPUs
    run strong $prob $cfg $P $STRONG_CELLS $STRONG_CELLS $STRONG_CELLS 10 10 10 || true
    P=$((P * 2))
  done
done
python3 tests/gpu/plot_scaling.py "$CSV" "$OUT/scaling.png" | tee "$OUT/scaling.txt"
