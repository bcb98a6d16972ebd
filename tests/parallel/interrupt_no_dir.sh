#!/bin/sh
# problems.mpi_interrupt_no_dir: SIGTERM to both ranks of a run without
# output or checkpoints (so nothing probed its output directory) whose
# output directory cannot be made (a file is in the way): no checkpoint can
# be written, and every rank stops the agreed way (exit 1, the cause
# reported once by rank 0, no MPI_Abort).
# usage: interrupt_no_dir.sh mpiexec dgrun problem.cfg workdir [overrides]
mpiexec=$1; dgrun=$2; cfg=$3; work=$4; shift 4
rm -rf "$work"; mkdir -p "$work"; : > "$work/file"
outdir="$work/file/out"
. "$(dirname "$0")/start_ranks.sh"
kill -TERM $ranks
wait $pid
rc=$?
cat "$work/log"
[ $rc -eq 1 ] || { echo "FAIL: mpiexec exit $rc, expected 1"; exit 1; }
[ "$(grep -c "cannot create directory" "$work/log")" -eq 1 ] ||
  { echo "FAIL: the cause is not reported exactly once"; exit 1; }
grep -q "rank 0 of 2 failed; every rank stopped" "$work/log" || { echo "FAIL: not an agreed stop"; exit 1; }
if grep -q "MPI_ABORT" "$work/log"; then echo "FAIL: an agreed stop should not abort"; exit 1; fi
echo OK
