#!/bin/sh
# problems.mpi_interrupt_{one,all}: SIGINT delivered to one rank of a
# 2-rank run, or SIGTERM to every rank, ends all ranks after the same step
# with one checkpoint (written as the build writes: collectively with
# parallel HDF5) and the exit status 128 + signal (130 / 143) from mpiexec,
# naming the checkpoint; a 4-rank run restarted from it matches the serial
# run to the same time (fields and norms, test_parallel_match).
# The interrupted run is set to run (practically) forever, so the signal
# always lands inside the time loop; a fixed step (time.dt = 0.002, 5e8
# steps to the end) makes the restarted run take the steps of the serial one
# (within rounding), so the comparison may ask for 1e-12.
# usage: interrupt_ranks.sh mpiexec dgrun match problem.cfg workdir one|all [overrides]
mpiexec=$1; dgrun=$2; match=$3; cfg=$4; work=$5; who=$6; shift 6
sig=INT; want=130
[ "$who" = all ] && { sig=TERM; want=143; }
rm -rf "$work"; mkdir -p "$work"
outdir="$work/out"
. "$(dirname "$0")/start_ranks.sh"
if [ "$who" = one ]; then
  kill -$sig $(echo "$ranks" | tail -1)
else
  kill -$sig $ranks
fi
wait $pid
rc=$?
[ $rc -eq $want ] || { echo "FAIL: mpiexec exit $rc, expected $want"; cat "$work/log"; exit 1; }
grep -q "SIG$sig: stopped at t = .* after writing checkpoint" "$work/log" ||
  { echo "FAIL: no interrupt message"; cat "$work/log"; exit 1; }
ck=$(ls "$work"/out/*_checkpoint_*.h5)
[ -n "$ck" ] && [ $(echo "$ck" | wc -l) -eq 1 ] || { echo "FAIL: checkpoints: $ck"; exit 1; }
grep -q -- "--restart $ck" "$work/log" || { echo "FAIL: message does not name $ck"; exit 1; }
[ $(grep -c "stopped at t = " "$work/log") -eq 1 ] || { echo "FAIL: reported more than once"; cat "$work/log"; exit 1; }
ls -A "$work/out" | grep -q tmp && { echo "FAIL: temporary file left: $(ls -A "$work/out")"; exit 1; }
tc=$(sed -n 's/.*stopped at t = \([^ ]*\) .*/\1/p' "$work/log")
tstop=$(awk -v t="$tc" 'BEGIN { printf "%.6f", t + 10 * 0.002 }')
echo "stopped at t = $tc ($(basename "$ck")); restarting on 4 ranks to t = $tstop"
"$mpiexec" -n 4 --oversubscribe "$match" "$cfg" "$work" --restart "$ck" time.dt=0.002 \
  time.final="$tstop" "$@"
