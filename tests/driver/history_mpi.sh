#!/bin/sh
# [output] history under mpirun: rank 0 writes the reduced quantities, so the
# 2-rank CSV is the serial one (the L2 sums differ by summation order only:
# 1e-12 relative), and a 2-rank run stopped by SIGTERM on rank 1 continues
# on 2 ranks to the uninterrupted 2-rank CSV, all but the wall column.
# usage: history_mpi.sh MPIEXEC DGRUN CFG WORKDIR
mpiexec=$1; dgrun=$2; cfg=$3; w=$4
set -- "$cfg" backend.device=cpu "mesh.cells=4 4" discretization.order=2 time.final=0.3 \
  output.interval=0.1 output.enabled=false output.history=run.csv output.history_steps=10 \
  output.checkpoint_interval=0.1
rm -rf "$w"; mkdir -p "$w"
fail() { echo "FAIL: $*"; exit 1; }
nowall() { cut -d, -f1-3,5- "$1"; }
mpi() { "$mpiexec" -n 2 --oversubscribe "$dgrun" "$@"; }
"$dgrun" "$@" output.directory="$w/serial" > "$w/serial.log" 2>&1 || { cat "$w/serial.log"; fail serial; }
mpi "$@" output.directory="$w/np2" > "$w/np2.log" 2>&1 || { cat "$w/np2.log"; fail "2 ranks"; }
[ "$(ls "$w/np2" | grep -c csv)" = 1 ] || fail "files: $(ls "$w/np2")"
paste -d, "$w/serial/run.csv" "$w/np2/run.csv" | awk -F, '
  NR == 1 { n = NF / 2; next }
  { for (i = 1; i <= n; i++) { if (i == 4) continue; a = $i; b = $(i + n); d = a - b;
      if (d < 0) d = -d; s = a < 0 ? -a : a; if (d > 1e-12 * s) { print "row " NR " column " i ": " a " vs " b; exit 1 } } }
  END { if (NR != 9) { print NR " lines"; exit 1 } }' || fail "2-rank CSV differs from the serial one"
DGRUN_TEST_SIGNAL_STEP=30 DGRUN_TEST_SIGNAL_RANK=1 mpi "$@" output.directory="$w/term" \
  > "$w/term.log" 2>&1 && fail "the signalled run succeeded"
[ -e "$w/term/run.csv" ] && fail "the killed run left run.csv"
[ "$(tail -1 "$w/term/run.csv.partial" | cut -d, -f2)" = 30 ] || fail "partial: $(tail -1 "$w/term/run.csv.partial")"
mpi "$@" output.directory="$w/term" --restart "$w/term/advection2d_checkpoint_000030.h5" \
  > "$w/restart.log" 2>&1 || { cat "$w/restart.log"; fail restart; }
nowall "$w/np2/run.csv" > "$w/np2.nowall"
nowall "$w/term/run.csv" | diff - "$w/np2.nowall" || fail "restarted 2-rank CSV differs"
echo "ok: 2-rank history equals the serial one; restarted on 2 ranks exactly"
