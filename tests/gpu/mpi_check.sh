#!/usr/bin/env bash
# Partitioned runs on GPUs (issue 9); logs go to $OUT (or ./gpu-out).
# usage (on the GPU machine, in the repo root): bash tests/gpu/mpi_check.sh
#  1. the MPI tests of the suite (cpu backend, label mpi);
#  2. correctness on one GPU: Maxwell 3D, 1 rank vs 2 ranks sharing the GPU
#     (parallel.gpu_oversubscribe), error norms must agree to 1e-10;
#  3. with >= 2 GPUs: weak scaling of Maxwell 3D at N = 4, the same DOFs per
#     GPU (1 rank on a 12x12x12 box vs 2 ranks on 24x12x12), efficiency =
#     rate(2 ranks) / (2 * rate(1 rank)); and the fraction of the halo
#     exchange hidden behind the interior kernels, from the time per step
#     and GPU (same work per GPU): 1 - (t2_overlap - t1) / (t2_no_overlap - t1),
#     t1 the 1-rank time (no exchange), t2_* the 2-rank times with
#     parallel.overlap on / off (off: the exchange completes before any
#     kernel of the stage runs).  The host time blocked in MPI_Wait on rank
#     0 is printed too.
set -uo pipefail
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
B=/tmp/dgrun-build
export DGRUN_CACHE_DIR=/tmp/dgrun-cache
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee "$OUT/gpu.txt"
NGPU=$(nvidia-smi -L | wc -l)
if ! command -v mpiexec > /dev/null; then
  echo "no mpiexec on this machine: nothing to check" | tee "$OUT/mpi_check.txt"; exit 0
fi
if [ ! -x $B/problems/dgrun ]; then
  cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release > "$OUT/cmake.log" 2>&1 || { tail -30 "$OUT/cmake.log"; exit 1; }
  cmake --build $B -j16 > "$OUT/build.log" 2>&1 || { grep -E "error" "$OUT/build.log" | head -30; exit 1; }
fi
grep -E "MPI|HDF5" "$OUT/cmake.log" 2>/dev/null | head -5
D=$B/problems/dgrun
MPX="mpiexec --oversubscribe -x DGRUN_CACHE_DIR -x OMPI_MCA_btl_vader_single_copy_mechanism"
ctest --test-dir $B -L mpi --output-on-failure -j4 > "$OUT/ctest_mpi.log" 2>&1
grep -E "tests passed|Failed|\*\*\*" "$OUT/ctest_mpi.log"

run() { # name nranks overrides...
  local name=$1 n=$2; shift 2
  $MPX -n "$n" $D problems/cases/maxwell3d/maxwell3d.cfg backend.device=cuda output.enabled=false "$@" \
    > "$OUT/$name.log" 2>&1
  local rc=$?
  echo "== $name (exit $rc)"; grep -E "backend|halo|final t|DOF-updates|error" "$OUT/$name.log" | tail -8
  return $rc
}
norm() { grep "final t" "$OUT/$1.log" | head -1 | sed -E 's/.*L2 error ([0-9.e+-]+).*/\1/'; }
rate() { grep -E "step [0-9]+/[0-9]+ .*DOF-updates/s" "$OUT/$1.log" | tail -1 | sed -E 's/.* ([0-9.e+-]+) DOF-updates\/s.*/\1/'; }
wait_s() { grep "halo (rank 0)" "$OUT/$1.log" | sed -E 's/.* ([0-9.]+) s blocked.*/\1/'; }

# 2. correctness: 2 ranks on one GPU vs 1 rank
C=("mesh.cells=6 6 6" discretization.order=4 time.final=0.05)
run one_gpu_np1 1 "${C[@]}"
run one_gpu_np2 2 "${C[@]}" parallel.gpu_oversubscribe=true
a=$(norm one_gpu_np1); b=$(norm one_gpu_np2)
python3 - "$a" "$b" <<PY | tee "$OUT/mpi_check.txt"
import sys
a, b = float(sys.argv[1]), float(sys.argv[2])
rel = abs(a - b) / max(abs(a), 1e-300)
print(f"one GPU: L2 error 1 rank {a:.15e}, 2 ranks {b:.15e}, relative difference {rel:.2e}: "
      + ("OK" if rel <= 1e-10 else "MISMATCH"))
PY

# 3. weak scaling on 2 GPUs
if [ "$NGPU" -lt 2 ]; then
  echo "only $NGPU GPU: the 2-GPU weak-scaling run is outstanding" | tee -a "$OUT/mpi_check.txt"
  exit 0
fi
S=(discretization.order=4 time.final=0.1)
run weak_np1 1 "mesh.cells=12 12 12" "mesh.upper=1 1 1" "${S[@]}"
run weak_np2 2 "mesh.cells=24 12 12" "mesh.upper=2 1 1" "${S[@]}"
run weak_np2_nooverlap 2 "mesh.cells=24 12 12" "mesh.upper=2 1 1" "${S[@]}" parallel.overlap=false
run weak_np2_staged 2 "mesh.cells=24 12 12" "mesh.upper=2 1 1" "${S[@]}" parallel.cuda_aware=off
python3 - "$(rate weak_np1)" "$(rate weak_np2)" "$(wait_s weak_np2)" "$(wait_s weak_np2_nooverlap)" \
  "$(rate weak_np2_nooverlap)" "$(rate weak_np2_staged)" <<PY | tee -a "$OUT/mpi_check.txt"
import sys
r1, r2, w_on, w_off, r2n, r2s = (float(x) if x else float('nan') for x in sys.argv[1:7])
print(f"weak scaling Maxwell 3D N=4: 1 GPU {r1:.3e} DOF-updates/s, 2 GPUs {r2:.3e}: "
      f"efficiency {r2 / (2 * r1):.3f} (target >= 0.90)")
print(f"  without overlap {r2n:.3e} (efficiency {r2n / (2 * r1):.3f}); staged through the host "
      f"{r2s:.3e} (efficiency {r2s / (2 * r1):.3f})")
t1, t_on, t_off = 1 / r1, 2 / r2, 2 / r2n  # time per DOF-update on one GPU
hidden = 1 - (t_on - t1) / (t_off - t1) if t_off > t1 else float('nan')
print(f"halo cost per GPU: {100 * (t_on / t1 - 1):.1f}% of the step with overlap, "
      f"{100 * (t_off / t1 - 1):.1f}% without: {100 * hidden:.0f}% of the exchange hidden "
      f"behind the interior kernels")
print(f"host time blocked in MPI_Wait on rank 0: {w_on:.3f} s with overlap, {w_off:.3f} s without")
PY
