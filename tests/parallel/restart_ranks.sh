#!/bin/sh
# problems.mpi_restart_2to4: a checkpoint written by 2 ranks at t = T/2
# continues on 4 ranks to T, matching the serial run from 0 to T (norms and
# fields, by test_parallel_match).
# usage: restart_ranks.sh mpiexec dgrun match problem.cfg workdir half final [overrides]
mpiexec=$1; dgrun=$2; match=$3; cfg=$4; work=$5; half=$6; final=$7; shift 7
rm -rf "$work"; mkdir -p "$work"
"$mpiexec" -n 2 --oversubscribe "$dgrun" "$cfg" --quiet backend.device=cpu \
  output.directory="$work/first" time.final="$half" output.checkpoint_interval="$half" "$@" || exit 1
ck=$(ls "$work"/first/*_checkpoint_*.h5 | tail -1)
[ -f "$ck" ] || { echo "FAIL: no checkpoint from the 2-rank run"; exit 1; }
echo "restarting from $ck on 4 ranks"
"$mpiexec" -n 4 --oversubscribe "$match" "$cfg" "$work" --restart "$ck" time.final="$final" \
  output.checkpoint_interval="$half" "$@"
