#!/usr/bin/env bash
# Issue 39 item 6 on the GPU machine: the Navier-Stokes Taylor-Green vortex
# (problems/cases/tgv_ns, LDG, Rusanov, fp64) per RK step and per RHS with
# `dgbench step` beside PyFR 3.1's navier-stokes on the same mesh in the same
# call (the peer's bench.py: windows of whole steps after set-up and warm-up),
# and the kernels' profile.  Also issue 40's curved rows when the meshes are
# carried.
# usage:
#   here:   bash tests/gpu/ns_peer.sh prep   (the peer's files and PyFR's
#           wheels into .carry/pyfr; the curved meshes: pending_check.sh prep)
#   device: bash tests/gpu/ns_peer.sh profile   dgbench rhs/step rows of the
#           TGV at N = 3, Nsight Compute on its kernels, the curved rows
#           bash tests/gpu/ns_peer.sh variants   explicit knobs, no search
#           bash tests/gpu/ns_peer.sh check   gpu tests, compute-sanitizer
#           bash tests/gpu/ns_peer.sh peer [3|1|both]   PyFR and dgrun per step
#           and RHS, N = 3 on 35^3 x 6 tets and/or N = 1 on 60^3 x 6
# Logs go to $OUT (or ./gpu-out); summary.txt has the lines that matter.
set -uo pipefail
if [ "${1:-}" = prep ]; then
  mkdir -p .carry/pyfr/wheels
  cp ../shared/peers/pyfr/*.py ../shared/peers/pyfr/*.ini .carry/pyfr/
  (cd .carry/pyfr/wheels && python3 -m pip download -q --no-deps --only-binary=:all: \
     --python-version 3.12 --implementation cp --platform manylinux_2_28_x86_64 \
     --platform manylinux_2_17_x86_64 -d . pyfr==3.1 gimmik==3.2.1 mako pytools platformdirs rtree siphash24)
  ls .carry/pyfr .carry/pyfr/wheels
  exit 0
fi
. tests/gpu/device_env.sh
G=$B/core/dgbench
TGV=$PWD/problems/cases/tgv_ns/tgv_ns.cfg
# PyFR's case: no filter, fixed dt 2^-16, rk45 (5 stages: dgrun's lserk4)
n3=("mesh.cells=35 35 35" discretization.order=3 discretization.filter=none time.dt=1.52587890625e-05)
n1=("mesh.cells=60 60 60" discretization.order=1 discretization.filter=none time.dt=1.52587890625e-05)
rhsrow() { local name=$1; shift
  timeout 200 $G rhs "$@" --tune=auto --repeats 20 > "$OUT/rhs_$name.log" 2>&1
  echo "== rhs $name (exit $?)" | tee -a "$S"
  grep -E "DOFs|variant|^surface|^volume|^update|^RHS|untuned" "$OUT/rhs_$name.log" | tee -a "$S"; }
steprow() { local name=$1; shift
  timeout 200 $G step "$@" --tune=auto --warmup 20 --steps 50 --windows 5 > "$OUT/step_$name.log" 2>&1
  echo "== step $name (exit $?)" | tee -a "$S"
  grep -E "DOFs|^step:|^rhs:|finite" "$OUT/step_$name.log" | tee -a "$S"; }
pyfr() { local N=$1 cells=$2
  if [ ! -d /tmp/site ]; then
    python3 -m pip install -q --no-index --no-deps --target /tmp/site .carry/pyfr/wheels/*.whl > "$OUT/pip.log" 2>&1 ||
      { echo "pip failed" | tee -a "$S"; tail -5 "$OUT/pip.log"; return 1; }
  fi
  export PYTHONPATH=/tmp/site
  local d=/tmp/pyfr_$cells
  mkdir -p $d
  [ -f $d/box.pyfrm ] || { python3 .carry/pyfr/genbox.py $cells $d/box.msh && python3 -m pyfr import $d/box.msh $d/box.pyfrm; } > "$OUT/pyfr_import_$cells.log" 2>&1
  (cd $d && timeout 400 python3 $OLDPWD/.carry/pyfr/bench.py box.pyfrm $OLDPWD/.carry/pyfr/tgv_ns.ini --order $N --json $OUT/pyfr_ns_N$N.json) > "$OUT/pyfr_ns_N$N.log" 2>&1
  echo "== PyFR navier-stokes N=$N ${cells}^3 x 6 (exit $?)" | tee -a "$S"
  python3 - "$OUT/pyfr_ns_N$N.json" <<'PY' 2>&1 | tee -a "$S"
import json, sys, statistics as st
j = json.load(open(sys.argv[1]))
ps = [w['s_per_step'] for w in j['steps']]; pr = [w['s_per_rhs'] for w in j['rhs']]
print('PyFR per step ms: median %.3f (windows %s); per RHS ms: median %.3f; setup %.1f s; finite %s'
      % (1e3*st.median(ps), ' '.join('%.3f' % (1e3*x) for x in ps), 1e3*st.median(pr), j.get('setup_s', j.get('tsetup', -1)), j.get('finite')))
PY
}
# the curved meshes travel gzipped (.carry/gz: the carry's 64 MiB)
if [ -d .carry/gz ]; then
  mkdir -p .carry/gpu-meshes
  for z in .carry/gz/*.h5.gz; do
    o=.carry/gpu-meshes/$(basename "$z" .gz)
    [ -f "$o" ] || gunzip -c "$z" > "$o"
  done
fi
visc_check() {
  # the gpu tests of second-order terms and compute-sanitizer on the NS
  # kernels (the separate surface kernel and the fused surface)
  timeout 220 ctest --test-dir $B -L gpu --output-on-failure -j4 \
    -R "heat|advdiff|burgers1d_viscous|ns3d_mms|shock_sod2d|shock_twin|ldg" > "$OUT/ctest_gpu_visc.log" 2>&1
  grep -E "tests passed|\*\*\*|Failed" "$OUT/ctest_gpu_visc.log" | tee -a "$S"
  CS=/usr/local/cuda/bin/compute-sanitizer
  small=($PWD/problems/cases/tgv_ns/tgv_ns_small.cfg backend.device=cuda output.enabled=false "mesh.cells=3 3 3" time.final=0.002 backend.tuning=off)
  for v in plain fused; do
    extra=(); [ $v = fused ] && extra=(backend.fuse_surface=true backend.fuse_update=true backend.work_mode=inline backend.work_per_thread=2)
    for tool in memcheck racecheck; do
      timeout 120 $CS --tool $tool --error-exitcode 9 $B/problems/dgrun "${small[@]}" "${extra[@]}" > "$OUT/cs_${tool}_tgv_$v.log" 2>&1
      echo "compute-sanitizer $tool tgv_ns $v: exit $? ($(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/cs_${tool}_tgv_$v.log" | tail -1))" | tee -a "$S"
    done
  done
}
curved() { # issue 40: the curved kernels' gpu tests (the fused surface too),
  # compute-sanitizer on the fused curved kernels, the rows curved / affine
  M=.carry/gpu-meshes
  [ -f $M/cyl_k2.h5 ] || { echo "no curved meshes" | tee -a "$S"; return; }
  CF=$PWD/tests/problems/inputs/curved_maxwell3d.cfg
  cyl=(mesh.type=file "mesh.file=$PWD/$M/cyl_k2.h5" boundaries.bottom=pec boundaries.top=pec boundaries.wall=pec discretization.order=3)
  small=("${cyl[@]}" "mesh.file=$PWD/$M/cyl_small.h5" discretization.order=2)
  # problems.curved_fused_gpu's program (its ctest needs Gmsh for the
  # annulus): the fused forms against the separate surface and the cpu
  timeout 120 $B/tests/problems/test_problems_curved_fused "$CF" "${small[@]}" > "$OUT/curved_fused.log" 2>&1
  echo "curved_fused (cylinder, 640 tets): exit $? ($(tail -1 "$OUT/curved_fused.log"))" | tee -a "$S"
  for tool in memcheck racecheck; do
    timeout 120 /usr/local/cuda/bin/compute-sanitizer --tool $tool --error-exitcode 9 \
      $B/tests/problems/test_problems_curved_fused "$CF" "${small[@]}" > "$OUT/cs_${tool}_curved_fused.log" 2>&1
    echo "compute-sanitizer $tool curved_fused: exit $? ($(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/cs_${tool}_curved_fused.log" | tail -1))" | tee -a "$S"
  done
  rhsrow cyl_curved "$CF" "${cyl[@]}"
  grep -E "curved kernels|companion|fuse" "$OUT/rhs_cyl_curved.log" | head -5 | tee -a "$S"
  rhsrow cyl_affine "$CF" "${cyl[@]}" "mesh.file=$PWD/$M/cyl_k1.h5"
}
case "${1:-profile}" in
last)
  # problems.curved_fused_gpu's program on the annulus of its ctest (44 of
  # 140 triangles curved, imported here: .carry/ann), plain and under the
  # sanitizers; then the N = 1 peer
  A=(mesh.file=$PWD/.carry/ann/annulus_k3.h5)
  CF2=$PWD/tests/problems/inputs/curved_maxwell2d.cfg
  timeout 60 $B/tests/problems/test_problems_curved_fused "$CF2" "${A[@]}" > "$OUT/curved_fused.log" 2>&1
  echo "curved_fused (annulus): exit $? ($(tail -1 "$OUT/curved_fused.log"))" | tee -a "$S"
  for tool in memcheck racecheck; do
    timeout 90 /usr/local/cuda/bin/compute-sanitizer --tool $tool --error-exitcode 9 \
      $B/tests/problems/test_problems_curved_fused "$CF2" "${A[@]}" > "$OUT/cs_${tool}_curved_fused.log" 2>&1
    echo "compute-sanitizer $tool curved_fused: exit $? ($(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/cs_${tool}_curved_fused.log" | tail -1))" | tee -a "$S"
  done
  steprow tgv_N1 "$TGV" "${n1[@]}"
  pyfr 1 60 ;;
final)
  V=(backend.fuse_surface=true backend.fuse_update=true backend.face_threads=128 backend.work_mode=inline backend.work_per_thread=2 backend.elements_per_block=8)
  timeout 60 $G rhs "$TGV" "${n3[@]}" "${V[@]}" --tune=off --repeats 20 > "$OUT/rhs_v_best.log" 2>&1
  echo "== rhs inline wpt=2 epb=8 (exit $?): $(grep -E '^surface|^volume|^RHS' "$OUT/rhs_v_best.log" | awk '{printf "%s %s  ", $1, $2}')" | tee -a "$S"
  rhsrow tgv_N3 "$TGV" "${n3[@]}"
  steprow tgv_N3 "$TGV" "${n3[@]}"
  pyfr 3 35
  steprow tgv_N3_after_pyfr "$TGV" "${n3[@]}"
  curved
  visc_check ;;
profile)
  rhsrow tgv_N3 "$TGV" "${n3[@]}"
  steprow tgv_N3 "$TGV" "${n3[@]}"
  NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
  if [ -n "$NCU" ]; then
    timeout 240 $NCU --clock-control none -k "regex:dg_gradient|dg_volume" -c 2 \
      --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats \
      --section WarpStateStats --section MemoryWorkloadAnalysis_Tables \
      --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_read.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,smsp__inst_executed.sum \
      $G step "$TGV" "${n3[@]}" --tune=auto --warmup 0 --steps 1 --windows 1 > "$OUT/ncu_tgv_N3.txt" 2>&1
    echo "== ncu tgv N3 (exit $?)" | tee -a "$S"
    grep -E "dg_gradient|dg_volume|Duration|DRAM Throughput|Memory Throughput|dram__bytes|lts__t_sectors|l1tex__t_|Achieved Occupancy|Registers Per|Theoretical Occupancy|Compute \(SM\)|Block Size|Shared Memory Config|Stall|smsp__inst" "$OUT/ncu_tgv_N3.txt" | head -80 | tee -a "$S"
  else
    echo "no ncu" | tee -a "$S"
  fi
  M=.carry/gpu-meshes
  if [ -f $M/cyl_k2.h5 ]; then
    cyl=(mesh.type=file "mesh.file=$PWD/$M/cyl_k2.h5" boundaries.bottom=pec boundaries.top=pec boundaries.wall=pec discretization.order=3)
    CF=$PWD/tests/problems/inputs/curved_maxwell3d.cfg
    rhsrow cyl_curved "$CF" "${cyl[@]}"
    rhsrow cyl_affine "$CF" "${cyl[@]}" "mesh.file=$PWD/$M/cyl_k1.h5"
    [ -n "$NCU" ] && { timeout 200 $NCU --clock-control none -k "regex:dg_surface|dg_volume" -c 4 \
      --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats \
      --metrics dram__bytes_read.sum,dram__bytes_write.sum,smsp__inst_executed.sum \
      $G rhs "$CF" "${cyl[@]}" --tune=auto --repeats 1 > "$OUT/ncu_cyl.txt" 2>&1
      echo "== ncu cylinder (exit $?)" | tee -a "$S"
      grep -E "dg_surface|dg_volume|Duration|DRAM Throughput|dram__bytes|Achieved Occupancy|Registers Per|Block Size|smsp__inst" "$OUT/ncu_cyl.txt" | head -60 | tee -a "$S"; }
  fi ;;
variants)
  # the TGV at N = 3 with given knobs (no search): which volume/gradient
  # pairing is fastest (tuning/RESULTS.md, session 33)
  V=(backend.fuse_surface=true backend.fuse_update=true backend.face_threads=128)
  for v in "inline 2 8 false" "inline 2 8 true" "parallel 1 8 false" "parallel 1 8 true" "inline 2 4 true"; do
    set -- $v
    timeout 100 $G rhs "$TGV" "${n3[@]}" "${V[@]}" backend.work_mode=$1 backend.work_per_thread=$2 \
      backend.elements_per_block=$3 backend.vector_loads=$4 --tune=off --repeats 20 > "$OUT/rhs_v_$1_$2_$3_$4.log" 2>&1
    echo "== rhs $1 wpt=$2 epb=$3 vec=$4 (exit $?): $(grep -E '^surface|^volume|^RHS' "$OUT/rhs_v_$1_$2_$3_$4.log" | awk '{printf "%s %s  ", $1, $2}')" | tee -a "$S"
  done
  rhsrow tgv_N3 "$TGV" "${n3[@]}"
  steprow tgv_N3 "$TGV" "${n3[@]}" ;;
check)
  visc_check ;;
peer)
  which=${2:-both}
  if [ "$which" != 1 ]; then pyfr 3 35; steprow tgv_N3 "$TGV" "${n3[@]}"; rhsrow tgv_N3 "$TGV" "${n3[@]}"; fi
  if [ "$which" != 3 ]; then pyfr 1 60; steprow tgv_N1 "$TGV" "${n1[@]}"; rhsrow tgv_N1 "$TGV" "${n1[@]}"; fi ;;
esac
# the logs in one archive beside the summary (fewer files come back)
(cd "$OUT" && ls | grep -v -e '^summary.txt$' -e '^logs.tgz$' > /tmp/ns_peer_logs && tar czf logs.tgz -T /tmp/ns_peer_logs && xargs rm -rf < /tmp/ns_peer_logs)
