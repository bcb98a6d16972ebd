#!/bin/sh
# problems.mpi_collective_atomic: a collective file that cannot take its
# final name (a directory is in the way: root ignores permissions) stops
# all ranks of the run with one report naming the file and exit 1, within
# the test's time limit (no rank left waiting), and leaves no temp file and
# nothing of that output under a final name: for a snapshot no .xdmf of its
# step and no entry in the collection; for a checkpoint no file.
# A directory at an output name before the run is refused at set-up (a
# directory is not a regular file); so rank 0 stops itself after step 3
# ($DGRUN_TEST_SIGNAL=STOP), the directory is made while the job waits, and
# SIGCONT lets it go on to its step-7 rename.
# usage: collective_atomic.sh mpiexec dgrun problem.cfg workdir [overrides]
mpiexec=$1; dgrun=$2; cfg=$3; work=$4; shift 4
rm -rf "$work"; mkdir -p "$work"
# (the XDMF format: its step files and collection are checked below)
# (time.wave_speed = 1: dt 0.00625, the step numbers below; the speed the
# flux file computes would take other steps)
set -- "$cfg" backend.device=cpu output.interval=0.025 output.parallel_io=collective \
  output.format=both time.wave_speed=1 "$@"
# the run writes snapshots at steps 0, 7, 14 and a checkpoint at step 7
for what in maxwell3d_000007.h5 maxwell3d_checkpoint_000007.h5; do
  out="$work/$what.d"
  mkdir -p "$out"
  DGRUN_TEST_SIGNAL=STOP DGRUN_TEST_SIGNAL_STEP=3 DGRUN_TEST_SIGNAL_RANK=0 \
    "$mpiexec" -n 2 --oversubscribe "$dgrun" "$@" output.directory="$out" \
    output.checkpoint_interval=0.025 > "$out.log" 2>&1 &
  job=$!
  pid=
  for i in $(seq 1 600); do # up to 60 s
    pid=$(ps -eo pid=,stat=,args= | grep -F -- "output.directory=$out" | grep -v grep |
          awk '$2 ~ /^T/ { print $1; exit }')
    [ -n "$pid" ] && break
    sleep 0.1
  done
  [ -n "$pid" ] || { echo "FAIL ($what): rank 0 did not stop at step 3"; kill $job; cat "$out.log"; exit 1; }
  mkdir "$out/$what"
  kill -CONT "$pid"
  wait $job
  rc=$?
  [ $rc -eq 1 ] || { echo "FAIL ($what): exit $rc, expected 1"; cat "$out.log"; exit 1; }
  # (refused when the file is created, before any byte of it is written;
  # without that check the rename onto the directory fails instead)
  grep -Eq "cannot rename .*$what|$what' is a directory, not a regular file" "$out.log" ||
    { echo "FAIL ($what): message"; cat "$out.log"; exit 1; }
  [ $(grep -c "every rank stopped" "$out.log") -eq 1 ] ||
    { echo "FAIL ($what): not one report of all ranks stopping"; cat "$out.log"; exit 1; }
  ls -A "$out" | grep -q tmp && { echo "FAIL ($what): temp file left: $(ls -A "$out")"; exit 1; }
  case $what in
    *checkpoint*)
      [ -z "$(ls "$out" | grep checkpoint | grep -v "^$what\$")" ] ||
        { echo "FAIL ($what): a checkpoint was written: $(ls "$out")"; exit 1; } ;;
    *)
      [ ! -e "$out/maxwell3d_000007.xdmf" ] || { echo "FAIL ($what): step 7 XDMF written"; exit 1; }
      grep -q "maxwell3d_000007.h5" "$out/maxwell3d.xdmf" &&
        { echo "FAIL ($what): collection lists step 7"; exit 1; } ;;
  esac
  [ -d "$out/$what" ] || { echo "FAIL ($what): the directory in the way was replaced"; exit 1; }
  [ -f "$out/maxwell3d_000000.h5" ] || { echo "FAIL ($what): the earlier snapshot is gone"; exit 1; }
  echo "ok ($what): $(grep -Eo "cannot rename[^(]*|is a directory, not a regular file" "$out.log" | head -1)"
done
