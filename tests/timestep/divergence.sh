#!/bin/sh
# problems.divergence_*: a run that blows up while staying finite (rotation2d
# at cfl 16, 16x past its stability limit; it exited 0 before, issue 42)
# stops with the divergence message naming time and step, exits non-zero,
# reports it once (also under mpiexec: every rank stops together) and leaves
# no snapshot or checkpoint at or past the time it stopped at; the snapshots
# before it are kept.
# usage: divergence.sh OUTDIR "LAUNCHER" DGRUN CFG overrides...
out=$1; launcher=$2; dgrun=$3; shift 3
rm -rf "$out"
err=$($launcher "$dgrun" "$@" "output.directory=$out" 2>&1 >/dev/null)
rc=$?
fail() { echo "FAIL: $1"; echo "$err"; exit 1; }
[ $rc -ne 0 ] || fail "dgrun exited 0"
[ "$(echo "$err" | grep -c 'the solution diverges')" -eq 1 ] || fail "want one divergence message"
echo "$err" | grep -q 'reduce \[time\] cfl or dt' || fail "no advice"
echo "$err" | grep -q 'not finite' && fail "the NaN check spoke, not the divergence stop"
# "... at t = 0.175 (step 21), ..."
t=$(echo "$err" | sed -n 's/.*diverges: .* at t = \([0-9.e+-]*\) (step \([0-9]*\)).*/\1/p')
s=$(echo "$err" | sed -n 's/.*diverges: .* at t = \([0-9.e+-]*\) (step \([0-9]*\)).*/\2/p')
[ -n "$t" ] && [ -n "$s" ] || fail "no time and step in the message"
series=$(ls "$out"/*.hdf.series 2>/dev/null | head -1)
[ -n "$series" ] || fail "no snapshot series kept"
n=$(grep -c '"time"' "$series")
[ "$n" -ge 2 ] || fail "want the snapshots before the stop kept, found $n"
late=$(sed -n 's/.*"time" : \([0-9.e+-]*\).*/\1/p' "$series" |
       awk -v t="$t" '$1 >= t * (1 - 1e-12) { print }')
[ -z "$late" ] || fail "snapshot at t = $late, not before the stop at t = $t"
for f in "$out"/*.hdf "$out"/*.h5; do
  [ -e "$f" ] || continue
  k=$(basename "$f" | sed -n 's/.*_0*\([0-9][0-9]*\)\.h*[5df]*$/\1/p')
  [ -n "$k" ] && [ "$k" -ge "$s" ] && fail "$(basename "$f") written at or past step $s"
done
echo "ok (exit $rc, stopped at t = $t, step $s, $n snapshots kept)"
