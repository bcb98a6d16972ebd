#!/bin/sh
# tuning.dgbench_rhs_shock_cpu: dgbench rhs with [shock]
# (problems/bench/rhsbench_shock.c) prints the sensor, vertex-maximum,
# viscosity and limiter rows after the RHS table and the whole stage with
# shock capturing, end to end, over the RHS without it; Sod's tube (the
# sensor fires: the viscous kernels run) and the smooth Euler vortex (every
# stage runs the first-order twin, problems/solver/solver_smooth.h).
# usage: rhs_shock.sh dgbench cases_dir log_dir
bench=$1; cases=$2; logs=$3
run() { # name cfg expected-path overrides...
  name=$1; cfg=$2; path=$3; shift 3
  log="$logs/rhs_shock_$name.log"
  "$bench" rhs "$cfg" backend.device=cpu "$@" --repeats 3 --tune=off > "$log" 2>&1
  rc=$?
  cat "$log"
  [ $rc -eq 0 ] || { echo "FAIL: dgbench exit $rc"; exit 1; }
  for k in sensor vertexmax 'av nodes' 'av faces' limiter; do
    grep -Eq "^$k +[0-9.]+ +[0-9.]+$" "$log" || { echo "FAIL: no '$k' row"; exit 1; }
  done
  grep -Eq "stage with shock capturing, end to end: [0-9.]+ ms \($path: the first-order twin ran in [0-9]+ of 3 stages\), without \[shock\] [0-9.]+ ms: [0-9.]+x" "$log" ||
    { echo "FAIL: no end-to-end line with the $path path"; exit 1; }
}
run sod2d "$cases/sod2d/sod2d.cfg" viscous 'mesh.cells=8 2'
run vortex "$cases/euler3d_vortex_shock/euler3d_vortex_shock.cfg" smooth 'mesh.cells=6 6 1' \
  discretization.order=2
echo ok
