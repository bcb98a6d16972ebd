#!/bin/sh
# problems.mpi_resume_gather_bad: a restart of a 2-rank run whose rank 0
# gathers the output cannot read the snapshot collection (a directory is in
# its place, refused at set-up as not a regular file); rank 0's failure
# stops both ranks the agreed way (agreed_stop.sh).
# usage: resume_bad.sh mpiexec dgrun problem.cfg outdir [overrides]
mpiexec=$1; dgrun=$2; cfg=$3; out=$4; shift 4
here=$(dirname "$0")
rm -rf "$out"
set -- "$cfg" backend.device=cpu output.directory="$out" output.parallel_io=gather \
  output.format=xdmf output.interval=0.1 output.checkpoint_interval=0.2 time.final=0.4 --quiet "$@"
"$mpiexec" -n 2 --oversubscribe "$dgrun" "$@" || { echo "FAIL: the first run failed"; exit 1; }
ckpt=$(ls "$out"/*_checkpoint_*.h5 | head -n 1)
name=$(basename "$ckpt" | sed 's/_checkpoint_.*//')
[ -f "$out/$name.xdmf" ] || { echo "FAIL: no collection $out/$name.xdmf"; exit 1; }
rm "$out/$name.xdmf" && mkdir "$out/$name.xdmf" || exit 1
exec sh "$here/agreed_stop.sh" "$mpiexec" "$dgrun" "$out.log" 0 "'$out/$name.xdmf' is a directory, not a regular file" \
  "$@" --restart "$ckpt"
