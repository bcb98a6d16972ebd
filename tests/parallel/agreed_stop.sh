#!/bin/sh
# A failure that only one rank sees (problems.mpi_output_dir_bad: rank 0
# probes the output directory; resume_bad.sh) stops every rank the agreed
# way: a non-zero status, the message printed once with the failing rank
# named, and no MPI_Abort (which is what a rank failing alone falls back to).
# usage: agreed_stop.sh mpiexec dgrun log failing-rank message dgrun-args...
mpiexec=$1; dgrun=$2; log=$3; bad=$4; want=$5; shift 5
"$mpiexec" -n 2 --oversubscribe "$dgrun" "$@" > "$log" 2>&1
rc=$?
cat "$log"
[ "$rc" -ne 0 ] || { echo "FAIL: exit 0"; exit 1; }
[ "$(grep -c "$want" "$log")" -eq 1 ] || { echo "FAIL: '$want' is not reported exactly once"; exit 1; }
grep -q "rank $bad of 2 failed; every rank stopped" "$log" || { echo "FAIL: not an agreed stop naming rank $bad"; exit 1; }
if grep -q "MPI_ABORT" "$log"; then echo "FAIL: an agreed stop should not abort"; exit 1; fi
echo OK
