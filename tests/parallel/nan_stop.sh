#!/bin/sh
# problems.mpi_nan_stop: a run that blows up on every rank stops all ranks
# with a non-zero status, the NaN reported once (by rank 0, naming the
# failing rank), no MPI_Abort needed.  problems.mpi_nan_one_rank: the same
# when only one rank's state is not finite (the ctest TIMEOUT catches a hang).
# usage: nan_stop.sh mpiexec dgrun blowup.cfg outdir [failing rank, default 0]
mpiexec=$1; dgrun=$2; cfg=$3; out=$4; bad=${5:-0}
"$mpiexec" -n 2 --oversubscribe "$dgrun" "$cfg" output.directory="$out" > "$out.log" 2>&1
rc=$?
cat "$out.log"
[ "$rc" -ne 0 ] || { echo "FAIL: exit 0"; exit 1; }
[ "$(grep -c 'not finite' "$out.log")" -eq 1 ] || { echo "FAIL: the NaN is not reported exactly once"; exit 1; }
grep -q "rank $bad of 2 failed; every rank stopped" "$out.log" || { echo "FAIL: the failing rank is not named"; exit 1; }
if grep -q "MPI_ABORT" "$out.log"; then echo "FAIL: an agreed stop should not abort"; exit 1; fi
echo OK
