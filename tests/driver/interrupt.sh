#!/bin/sh
# SIGINT/SIGTERM during a run: dgrun writes a checkpoint at the end of the
# current step, exits 128 + signal (130 / 143) naming it, and a run restarted
# from it reaches the same result as an uninterrupted run to the same time.
# The interrupted run is set to run (practically) forever, so the signal
# always lands inside the time loop; the comparison runs then end at
# t_stop = t_checkpoint + 1.
# usage: interrupt.sh DGRUN CFG OUTDIR INT|TERM
dgrun=$1; cfg=$2; out=$3; sig=$4
set -- "$cfg" "mesh.cells=4 4" discretization.order=2 output.interval=0 output.enabled=false
rm -rf "$out"; mkdir -p "$out"
"$dgrun" "$@" time.final=1e6 "output.directory=$out" > "$out/log" 2>&1 &
pid=$!
# Wait until set-up is done (its last line names the DOFs), then let it step.
i=0
while ! grep -q DOFs "$out/log" 2>/dev/null; do
  i=$((i + 1)); [ $i -gt 600 ] && { echo "no set-up line"; cat "$out/log"; kill $pid; exit 1; }
  sleep 0.1
done
sleep 0.3
kill -$sig $pid
wait $pid
rc=$?
want=130; [ "$sig" = TERM ] && want=143
[ $rc -eq $want ] || { echo "exit $rc, expected $want"; cat "$out/log"; exit 1; }
grep -q "SIG$sig: stopped at t = .* after writing checkpoint" "$out/log" ||
  { echo "no interrupt message"; cat "$out/log"; exit 1; }
ck=$(ls "$out"/*_checkpoint_*.h5)
[ -n "$ck" ] && [ $(echo "$ck" | wc -l) -eq 1 ] || { echo "checkpoints: $ck"; exit 1; }
grep -q -- "--restart $ck" "$out/log" || { echo "message does not name $ck"; exit 1; }
ls -a "$out" | grep -q 'tmp' && { echo "temporary file left: $(ls -a $out)"; exit 1; }
tc=$(sed -n 's/.*stopped at t = \([^ ]*\) .*/\1/p' "$out/log")
tstop=$(awk -v t="$tc" 'BEGIN { printf "%.6f", t + 1 }')
# Restart to t_stop, and the same run uninterrupted.
"$dgrun" "$@" time.final=$tstop "output.directory=$out" --restart "$ck" > "$out/restart.log" 2>&1 ||
  { cat "$out/restart.log"; exit 1; }
"$dgrun" "$@" time.final=$tstop "output.directory=$out/full" > "$out/full.log" 2>&1 ||
  { cat "$out/full.log"; exit 1; }
grep -q "restarting from $ck at t = " "$out/restart.log" || { cat "$out/restart.log"; exit 1; }
a=$(sed -n 's/.*final t = .*L2 error \([^ ]*\).*/\1/p' "$out/restart.log")
b=$(sed -n 's/.*final t = .*L2 error \([^ ]*\).*/\1/p' "$out/full.log")
awk -v a="$a" -v b="$b" 'BEGIN { d = a - b; if (d < 0) d = -d;
  if (a == "" || b == "" || b == 0 || d > 1e-6 * b) { print "final L2 error " a " vs " b; exit 1 } }' || exit 1
echo "ok: exit $rc at t = $tc, $(basename "$ck"); restarted to t = $tstop: L2 error $a (uninterrupted $b)"
