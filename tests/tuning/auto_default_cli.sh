#!/bin/sh
# tuning.auto_default_cli: dgrun on the cpu backend with no tuning flag and
# an empty tuning database prints the notice once and runs; --tune=off and
# knobs set by hand print no tuning line; nothing is stored in the tuning
# database.  The kernel modules come from the shared test cache; the tuning
# database is a fresh folder (DGRUN_CACHE_DIR/tuning would be shared).
dgrun=$1 cfg=$2
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
run() {
  # the run's tuning database: $work/tuning (DGRUN_CACHE_DIR is the modules' folder)
  DGRUN_CACHE_DIR="$work" "$dgrun" "$cfg" backend.device=cpu "mesh.cells=2 2" \
    discretization.order=1 output.enabled=false time.final=0.01 "$@" 2>&1
}
out=$(run) || fail "default run: $out"
echo "$out"
[ "$(echo "$out" | grep -c 'tuning')" -eq 1 ] || fail "not one tuning line: $out"
echo "$out" | grep -q "^dgrun: tuning: no tuning entry for this operator (2D, N = 1, 1 component, double) on the cpu backend: running the default knobs" ||
  fail "notice: $out"
echo "$out" | grep -q "final t = 0.01" || fail "the run did not finish: $out"
out=$(run --tune=off) || fail "--tune=off: $out"
echo "$out" | grep -q tuning && fail "--tune=off printed a tuning line: $out"
out=$(run backend.cpu_chunk=4) || fail "knob: $out"
echo "$out" | grep -q tuning && fail "a knob by hand printed a tuning line: $out"
[ -z "$(ls "$work/tuning" 2>/dev/null)" ] || fail "tuning database written: $(ls "$work/tuning")"
echo ok
