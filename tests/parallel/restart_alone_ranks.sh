#!/bin/sh
# problems.mpi_restart_alone_np2: `mpiexec -n 2 dgrun --restart ckpt.h5`
# with no cfg and no override, from another working directory, continues a
# 2-rank run from its checkpoint at t = 0.1 to its final time 0.2 (both from
# the checkpoint's stored configuration): the final checkpoint is the
# uninterrupted run's, value for value and checksum for checksum
# (test_h5same with tolerance 0: same ranks, same partition, same kernels,
# so the restart is bitwise), the final L2 error line is the same, the
# stored output directory is used and nothing is written where it was
# started.  A forbidden override (discretization.order=3) is refused once,
# for both ranks, naming '<command line>', and writes nothing.
# usage: restart_alone_ranks.sh mpiexec dgrun h5same problem.cfg workdir [overrides]
mpiexec=$1; dgrun=$2; same=$3; cfg=$4; work=$5; shift 5
rm -rf "$work" && mkdir -p "$work/elsewhere" || exit 1
fail() { echo "FAIL: $*"; [ -f "$work/log" ] && cat "$work/log"; exit 1; }
l2() { sed -n 's/.*final t = .*L2 error \([^ ]*\).*/\1/p' "$1"; }
"$mpiexec" -n 2 --oversubscribe "$dgrun" "$cfg" backend.device=cpu output.enabled=false \
  time.final=0.2 output.checkpoint_interval=0.1 "output.directory=$work/run" "$@" \
  > "$work/full.log" 2>&1 || fail "first run: $(cat "$work/full.log")"
set -- "$work"/run/*_checkpoint_*.h5
[ $# -eq 2 ] || fail "checkpoints of the first run: $*"
cp "$1" "$work/ck.h5" && mv "$2" "$work/uninterrupted.h5" || exit 1
last=$(basename "$2")
rm -f "$work"/run/*
# the restart alone: no cfg, no override, another working directory
(cd "$work/elsewhere" && "$mpiexec" -n 2 --oversubscribe "$dgrun" --restart ../ck.h5 \
  > "$work/log" 2>&1) || fail "restart alone on 2 ranks"
grep -q "restarting from ../ck.h5 at t = 0.1" "$work/log" || fail "no restart line"
grep -q "partition: 2 parts" "$work/log" || fail "not partitioned over 2 ranks"
[ -f "$work/run/$last" ] || fail "no $last in the stored output directory: $(ls "$work/run")"
[ -z "$(ls -A "$work/elsewhere")" ] || fail "wrote into the working directory: $(ls -A "$work/elsewhere")"
"$same" "$work/uninterrupted.h5" "$work/run/$last" 0 || fail "final checkpoints differ"
[ -n "$(l2 "$work/log")" ] && [ "$(l2 "$work/log")" = "$(l2 "$work/full.log")" ] ||
  fail "L2 error $(l2 "$work/log"), uninterrupted $(l2 "$work/full.log")"
# a forbidden override: one report, nothing written
state() { ls -lR "$work/run" "$work/elsewhere"; cksum "$work/ck.h5"; }
before=$(state)
"$mpiexec" -n 2 --oversubscribe "$dgrun" --restart "$work/ck.h5" discretization.order=3 \
  > "$work/log" 2>&1 && fail "order=3 accepted"
[ $(grep -c "<command line>: error: \[discretization\] order = '3', but checkpoint" "$work/log") -eq 1 ] ||
  fail "order=3: not one report naming <command line>"
[ "$before" = "$(state)" ] || fail "a refused restart wrote files"
echo "ok: 2-rank restart from the checkpoint alone equals the uninterrupted run (L2 error $(l2 "$work/full.log"))"
