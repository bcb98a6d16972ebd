#!/bin/sh
# problems.mpi_fail_one_rank: rank 1 fails mid-run (test hook
# DGRUN_TEST_FAIL_RANK/STEP); every rank must end with a non-zero status
# within seconds (the ctest TIMEOUT catches a hang), and the failing rank
# must be named.
# usage: fail_one_rank.sh mpiexec dgrun problem.cfg outdir [overrides]
mpiexec=$1; dgrun=$2; cfg=$3; out=$4; shift 4
start=$(date +%s)
DGRUN_TEST_FAIL_RANK=1 DGRUN_TEST_FAIL_STEP=3 "$mpiexec" -n 2 --oversubscribe \
  -x DGRUN_TEST_FAIL_RANK -x DGRUN_TEST_FAIL_STEP \
  "$dgrun" "$cfg" backend.device=cpu output.directory="$out" "$@" > "$out.log" 2>&1
rc=$?
end=$(date +%s)
cat "$out.log"
echo "exit status $rc after $((end - start)) s"
[ "$rc" -ne 0 ] || { echo "FAIL: the job exited 0"; exit 1; }
grep -q "rank 1 of 2 failed" "$out.log" || { echo "FAIL: the failing rank is not named"; exit 1; }
grep -q "induced failure on rank 1" "$out.log" || { echo "FAIL: no trace from rank 1"; exit 1; }
[ $((end - start)) -le 30 ] || { echo "FAIL: took more than 30 s to stop"; exit 1; }
echo OK
