#!/bin/sh
# problems.mpi_restart_*: a checkpoint written by `first` ranks at t = T/2
# continues on `next` ranks to T, matching the serial run from 0 to T (norms
# and fields, by test_parallel_match).  Each rank of the restart reads only
# its own elements of the checkpoint (a METIS part: several runs of global
# ids).  With first = 1 the checkpoint comes from the serial code path.
# usage: restart_ranks.sh mpiexec dgrun match problem.cfg workdir half final
#                         first next [overrides]
mpiexec=$1; dgrun=$2; match=$3; cfg=$4; work=$5; half=$6; final=$7; first=$8; next=$9
shift 9
rm -rf "$work"; mkdir -p "$work"
"$mpiexec" -n "$first" --oversubscribe "$dgrun" "$cfg" --quiet backend.device=cpu \
  output.directory="$work/first" time.final="$half" output.checkpoint_interval="$half" "$@" || exit 1
ck=$(ls "$work"/first/*_checkpoint_*.h5 | tail -1)
[ -f "$ck" ] || { echo "FAIL: no checkpoint from the $first-rank run"; exit 1; }
echo "restarting from $ck on $next ranks"
"$mpiexec" -n "$next" --oversubscribe "$match" "$cfg" "$work" --restart "$ck" time.final="$final" \
  output.checkpoint_interval="$half" "$@"
