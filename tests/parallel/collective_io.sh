#!/bin/sh
# problems.mpi_collective_io_np<N>: with parallel HDF5, N ranks write every
# snapshot and checkpoint collectively (one file each, [output]
# parallel_io = collective), and the files hold the same datasets and
# attributes as those rank 0 writes after gathering (parallel_io = gather,
# equal values) and as the serial run's (fields to 1e-12: the partitioned
# run may round differently), with the same XDMF files and no temp file left.
# usage: collective_io.sh mpiexec dgrun h5same problem.cfg workdir N [overrides]
mpiexec=$1; dgrun=$2; same=$3; cfg=$4; work=$5; n=$6; shift 6
rm -rf "$work"; mkdir -p "$work"
# (the XDMF format's .h5 files and the XDMF text beside the VTKHDF ones)
set -- "$cfg" backend.device=cpu output.interval=0.025 output.checkpoint_interval=0.025 \
  output.format=both "$@"
"$dgrun" "$@" output.directory="$work/serial" > "$work/serial.log" 2>&1 ||
  { cat "$work/serial.log"; exit 1; }
for mode in gather collective; do
  "$mpiexec" -n "$n" --oversubscribe "$dgrun" "$@" output.directory="$work/$mode" \
    output.parallel_io=$mode > "$work/$mode.log" 2>&1 || { cat "$work/$mode.log"; exit 1; }
done
grep -q "parallel HDF5: all $n ranks write each snapshot and checkpoint collectively" \
  "$work/collective.log" || { echo "FAIL: the run did not write collectively"; cat "$work/collective.log"; exit 1; }
grep -q "rank 0 gathers" "$work/gather.log" || { echo "FAIL: gather run did not gather"; exit 1; }
files=$(cd "$work/gather" && ls)
[ "$files" = "$(cd "$work/collective" && ls -A)" ] ||
  { echo "FAIL: files differ:"; ls -A "$work/gather" "$work/collective"; exit 1; }
[ "$files" = "$(cd "$work/serial" && ls -A)" ] || { echo "FAIL: serial files differ"; exit 1; }
nh5=0
for f in $files; do
  case $f in
    *.h5)
      "$same" "$work/gather/$f" "$work/collective/$f" 0 || exit 1
      "$same" "$work/serial/$f" "$work/collective/$f" 1e-12 || exit 1
      nh5=$((nh5 + 1)) ;;
    *.xdmf)
      cmp "$work/gather/$f" "$work/collective/$f" || exit 1 ;;
  esac
done
case "$files" in *checkpoint*) ;; *) echo "FAIL: no checkpoint written"; exit 1 ;; esac
[ $nh5 -ge 4 ] || { echo "FAIL: only $nh5 HDF5 files"; exit 1; }
echo "ok: $nh5 HDF5 files from $n ranks written collectively equal the gathered and serial ones"
