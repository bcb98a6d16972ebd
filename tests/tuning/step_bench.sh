#!/bin/sh
# tuning.dgbench_step_cpu: dgbench step (problems/bench/stepbench.c) times
# windows of whole steps and of bare RHS evaluations after a warm-up, as
# the PyFR peer's bench.py does; it runs the modal filter when the file asks
# for it, says when the state did not stay finite (exit 1), and refuses what
# has no fixed cost per step (adaptive steps, [shock]).
# usage: step_bench.sh dgbench cases_dir log_dir
bench=$1; cases=$2; logs=$3
tgv="$cases/tgv_ns/tgv_ns.cfg"
small="mesh.cells=3 3 3"
run() { # name expected-exit overrides...
  name=$1; want=$2; shift 2
  log="$logs/step_bench_$name.log"
  "$bench" step "$tgv" backend.device=cpu "$small" discretization.order=2 --tune=off \
    --warmup 1 --steps 2 --windows 3 "$@" > "$log" 2>&1
  rc=$?
  cat "$log"
  [ $rc -eq "$want" ] || { echo "FAIL: $name: exit $rc, expected $want"; exit 1; }
}
run plain 0 discretization.filter=none
grep -Eq "scheme lserk4 \(5 stages\), dt [0-9.e-]+$" "$logs/step_bench_plain.log" || { echo "FAIL: no header"; exit 1; }
[ "$(grep -Ec '^  step window [1-3]: 2 in [0-9.]+ s, [0-9.]+ ms each$' "$logs/step_bench_plain.log")" = 3 ] ||
  { echo "FAIL: not 3 step windows"; exit 1; }
grep -Eq "^step: median [0-9.]+ ms per step, [0-9.]+ ms per RHS \(5 stages\), [0-9.e+]+ DOF-updates/s$" \
  "$logs/step_bench_plain.log" || { echo "FAIL: no step median"; exit 1; }
grep -Eq "^rhs: median [0-9.]+ ms per RHS" "$logs/step_bench_plain.log" || { echo "FAIL: no rhs median"; exit 1; }
grep -q "state finite after 7 steps (t = " "$logs/step_bench_plain.log" || { echo "FAIL: step count"; exit 1; }
# the shipped file has the filter: it runs after each step
run filter 0
grep -q "modal filter after each step" "$logs/step_bench_filter.log" || { echo "FAIL: filter not said"; exit 1; }
# a step far past the stable one: the state blows up, and the benchmark says so
run blowup 1 discretization.filter=none time.dt=5
grep -q "the state is not finite" "$logs/step_bench_blowup.log" || { echo "FAIL: blow-up not reported"; exit 1; }
run adaptive 1 time.scheme=rk45
grep -q "adaptive scheme" "$logs/step_bench_adaptive.log" || { echo "FAIL: rk45 not refused"; exit 1; }
"$bench" step "$cases/sod2d/sod2d.cfg" backend.device=cpu 'mesh.cells=8 2' --tune=off > "$logs/step_bench_shock.log" 2>&1
rc=$?; cat "$logs/step_bench_shock.log"
[ $rc -eq 1 ] && grep -q "\[shock\] stages" "$logs/step_bench_shock.log" || { echo "FAIL: [shock] not refused"; exit 1; }
"$bench" step "$tgv" --steps 0 > "$logs/step_bench_usage.log" 2>&1
[ $? -eq 2 ] || { echo "FAIL: --steps 0 accepted"; exit 1; }
echo ok
