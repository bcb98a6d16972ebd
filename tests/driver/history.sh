#!/bin/sh
# [output] history: the CSV's header and rows (by steps, by time), its values
# (the max error of exact initial data at t = 0), a killed run's valid
# <history>.partial, the restart that continues it to the uninterrupted
# run's CSV (all but the wall column), and bad history keys refused before
# anything runs with no file left.
# usage: history.sh DGRUN CFG WORKDIR
dgrun=$1; cfg=$2; w=$3
set -- "$cfg" backend.device=cpu "mesh.cells=4 4" discretization.order=2 time.final=0.3 \
  output.interval=0.1 output.enabled=false output.history=run.csv
rm -rf "$w"; mkdir -p "$w"
fail() { echo "FAIL: $*"; exit 1; }
# Every line has the header's number of fields and ends with a newline.
valid() {
  [ -z "$(tail -c 1 "$1")" ] || fail "$1 does not end with a newline"
  awk -F, 'NR == 1 { n = NF } NF != n { exit 1 }' "$1" || fail "$1: rows of unequal length"
}
nowall() { cut -d, -f1-3,5- "$1"; }
# A killed run in $d: no run.csv, a valid run.csv.partial whose last row is
# of step $1; the restart from the checkpoint of step $2 gives the
# uninterrupted run's CSV and leaves no partial (then the run's arguments).
continues() {
  last=$1; from=$2; shift 2
  [ -e "$d/run.csv" ] && fail "a killed run left a complete-looking run.csv"
  valid "$d/run.csv.partial"
  [ "$(tail -1 "$d/run.csv.partial" | cut -d, -f2)" = "$last" ] ||
    fail "last row: $(tail -1 "$d/run.csv.partial")"
  "$dgrun" "$@" output.history_steps=10 output.checkpoint_interval=0.1 "output.directory=$d" \
    --restart "$d/advection2d_checkpoint_$(printf %06d "$from").h5" > "$d.restart.log" 2>&1 ||
    { cat "$d.restart.log"; fail "restart from step $from"; }
  [ -e "$d/run.csv.partial" ] && fail "run.csv.partial left after the restart"
  nowall "$d/run.csv" | diff - "$w/steps.nowall" ||
    fail "restarted CSV (from step $from) differs from the uninterrupted one"
}

# 1. rows every 10 steps (69 steps to t = 0.3): steps 0, 10, ..., 60 and 69.
d=$w/steps
"$dgrun" "$@" output.history_steps=10 output.checkpoint_interval=0.1 \
  "output.directory=$d" > "$w/steps.log" 2>&1 || { cat "$w/steps.log"; fail "steps run"; }
[ "$(head -1 "$d/run.csv")" = "t,step,dt,wall,l2_u,max_u" ] || fail "header: $(head -1 "$d/run.csv")"
valid "$d/run.csv"
[ -e "$d/run.csv.partial" ] && fail "run.csv.partial left after a complete run"
steps=$(tail -n +2 "$d/run.csv" | cut -d, -f2 | tr '\n' ' ')
[ "$steps" = "0 10 20 30 40 50 60 69 " ] || fail "steps of the rows: $steps"
# t = 0: dt 0; the max nodal error of the interpolated initial data 0 (up
# to rounding of the device's and the host's evaluation of the same
# expression: 1e-14); its L2 error by quadrature is the interpolation
# error, positive (3.2e-2 on this mesh)
awk -F, 'NR == 2 && ($1 != 0 || $3 != 0 || !($5 > 1e-3 && $5 < 0.1) || $6 > 1e-14) { exit 1 }' \
  "$d/run.csv" || fail "first row: $(sed -n 2p "$d/run.csv")"
# the last row's L2 error is the closing summary's
l2=$(sed -n 's/.*final t = .*L2 error \([^ ]*\).*/\1/p' "$w/steps.log")
awk -F, -v l2="$l2" 'END { d = $5 - l2; if (d < 0) d = -d; if ($1 != 0.3 || d > 1e-6 * l2) exit 1 }' \
  "$d/run.csv" || fail "last row $(tail -1 "$d/run.csv") vs final L2 error $l2"
nowall "$d/run.csv" > "$w/steps.nowall"

# 2. rows by time: the loop lands on every multiple of 0.05.
d=$w/interval
"$dgrun" "$@" output.history_interval=0.05 "output.directory=$d" > "$w/interval.log" 2>&1 ||
  { cat "$w/interval.log"; fail "interval run"; }
ts=$(tail -n +2 "$d/run.csv" | cut -d, -f1 | awk '{ printf "%.6g ", $1 }')
[ "$ts" = "0 0.05 0.1 0.15 0.2 0.25 0.3 " ] || fail "times of the rows: $ts"

# 2b. neither: rows at the [output] interval times.
d=$w/default
"$dgrun" "$@" "output.directory=$d" > "$w/default.log" 2>&1 || { cat "$w/default.log"; fail "default run"; }
ts=$(tail -n +2 "$d/run.csv" | cut -d, -f1 | awk '{ printf "%.6g ", $1 }')
[ "$(tail -n +2 "$d/run.csv" | cut -d, -f2 | tr '\n' ' ')" = "0 23 46 69 " ] && [ "$ts" = "0 0.1 0.2 0.3 " ] ||
  fail "default rows: $ts"

# 3. SIGTERM at step 30 (checkpoint there): run.csv.partial holds the rows
# through step 30; the restart from it gives the uninterrupted CSV.
d=$w/term
DGRUN_TEST_SIGNAL_STEP=30 "$dgrun" "$@" output.history_steps=10 output.checkpoint_interval=0.1 \
  "output.directory=$d" > "$w/term.log" 2>&1
rc=$?
[ $rc -eq 143 ] || { cat "$w/term.log"; fail "exit $rc, expected 143"; }
continues 30 30 "$@"

# 4. SIGKILL of a run stopped at step 50 (DGRUN_TEST_SIGNAL=STOP): a valid
# partial through step 50; a restart from the checkpoint of step 23 drops
# the rows after it and continues to the uninterrupted CSV.
d=$w/kill
DGRUN_TEST_SIGNAL=STOP DGRUN_TEST_SIGNAL_STEP=50 "$dgrun" "$@" output.history_steps=10 \
  output.checkpoint_interval=0.1 "output.directory=$d" > "$w/kill.log" 2>&1 &
pid=$!
i=0
while [ "$(ps -o stat= -p $pid 2>/dev/null | cut -c1)" != T ]; do
  i=$((i + 1)); [ $i -gt 1200 ] && { kill -9 $pid; cat "$w/kill.log"; fail "never stopped"; }
  sleep 0.1
done
kill -9 $pid; wait $pid 2>/dev/null
continues 50 23 "$@"

# 4b. a history of other columns is not continued: an error, the file kept.
sed -i '1s/max_u/max_v/' "$d/run.csv"
cp "$d/run.csv" "$w/other.csv"
"$dgrun" "$@" output.history_steps=10 output.checkpoint_interval=0.1 "output.directory=$d" \
  --restart "$d/advection2d_checkpoint_000046.h5" > "$w/other.log" 2>&1 && fail "other columns continued"
grep -q "has the columns 't,step,dt,wall,l2_u,max_v', but this run writes 't,step,dt,wall,l2_u,max_u'" \
  "$w/other.log" || { cat "$w/other.log"; fail "no columns message"; }
cmp -s "$d/run.csv" "$w/other.csv" && [ ! -e "$d/run.csv.partial" ] || fail "the history was changed"

# 5. bad keys: an error before anything runs, no file left.
bad() {
  want=$1; shift
  rm -rf "$w/bad"
  err=$("$dgrun" "$@" "output.directory=$w/bad" 2>&1 >/dev/null) && fail "accepted: $*"
  case "$err" in *"$want"*) ;; *) echo "$err"; fail "stderr lacks '$want'";; esac
  case "$err" in *"first step"*) fail "ran before the error: $err";; esac
  [ -e "$w/bad" ] && [ -n "$(ls -A "$w/bad")" ] && fail "files left: $(ls -A "$w/bad")"
  echo "ok: $(echo "$err" | head -1)"
}
bad "must not be negative" "$@" output.history_steps=-1
bad "must not be negative" "$@" output.history_interval=-0.1
bad "not both" "$@" output.history_steps=10 output.history_interval=0.1
mkdir -p "$w/adir"
bad "is a directory" "$@" "output.history=$w/adir"
: > "$w/afile"
bad "afile" "$@" "output.history=$w/afile/run.csv"
bad "kind = poisson" "$(dirname "$cfg")/../poisson/poisson.cfg" output.history=run.csv
# a run failing before its first step (a non-finite initial state): no history
bad "not finite" "$(dirname "$0")/nan_initial.cfg" output.history=run.csv
echo "ok: history rows, values, killed runs, restarts, bad keys"
