#!/bin/sh
# problems.restart_alone: `dgrun --restart ckpt.h5` without the cfg.
#  1. A 1D run to t = 0.2 with a checkpoint at 0.1 (overrides: cells, order,
#     output directory), restarted from another working directory with no
#     cfg and no override, ends with the final L2 error of the uninterrupted
#     run, digit for digit (the restart is bitwise: problems.interrupt_bitwise).
#  2. An allowed override (time.final=0.3) continues past the first run's end.
#  3. A forbidden override (discretization.order=3) is refused naming the key,
#     both values and '<command line>'; with the cfg given, its own
#     conflicting value is named by file:line:col; nothing is written.
#  4. A flux file whose text differs from the stored one is refused.
#  5. A checkpoint without stored inputs (format version 3) asks for the cfg.
#  6. A checkpoint whose stored cfg text was edited is refused as corrupt.
# usage: restart_alone.sh DGRUN CASES_DIR WORK OLD_CKPT
dgrun=$1; cases=$2; work=$3; old=$4
rm -rf "$work" && mkdir -p "$work/elsewhere" || exit 1
cfg=$cases/advection1d/advection1d.cfg
set -- backend.device=cpu mesh.cells=6 discretization.order=2 output.enabled=false
fail() { echo "FAIL: $*"; [ -f "$work/log" ] && cat "$work/log"; exit 1; }
l2() { sed -n 's/.*final t = .*L2 error \([^ ]*\).*/\1/p' "$1"; }
"$dgrun" "$cfg" "$@" time.final=0.2 output.checkpoint_interval=0.1 \
  "output.directory=$work/run" > "$work/full.log" 2>&1 || fail "first run: $(cat "$work/full.log")"
ck=$(ls "$work"/run/*_checkpoint_*.h5 | head -1)
[ -f "$ck" ] || fail "no checkpoint"
cp "$ck" "$work/ck.h5"
rm "$work"/run/*_checkpoint_*.h5
# 1. no cfg, no override, another working directory
(cd "$work/elsewhere" && "$dgrun" --restart ../ck.h5 > "$work/log" 2>&1) || fail "restart alone"
[ "$(l2 "$work/log")" = "$(l2 "$work/full.log")" ] && [ -n "$(l2 "$work/log")" ] ||
  fail "restart alone: L2 error $(l2 "$work/log"), uninterrupted $(l2 "$work/full.log")"
ls "$work"/run/*_checkpoint_*.h5 > /dev/null 2>&1 || fail "the stored output directory is not used"
[ -z "$(ls "$work/elsewhere")" ] || fail "wrote into the working directory: $(ls "$work/elsewhere")"
# 2. an allowed override
"$dgrun" --restart "$work/ck.h5" time.final=0.3 > "$work/log" 2>&1 || fail "time.final=0.3"
grep -q "final t = 0.3 " "$work/log" || fail "time.final=0.3 did not reach 0.3"
# 3. forbidden: on the command line, and in the cfg given
before=$(ls -R "$work/run" | cksum)
"$dgrun" --restart "$work/ck.h5" discretization.order=3 > "$work/log" 2>&1 && fail "order=3 accepted"
grep -qF "<command line>: error: [discretization] order = '3', but checkpoint '$work/ck.h5' was written with '2'" "$work/log" ||
  fail "order=3: message"
grep -qF "a restart may change only time.final" "$work/log" || fail "order=3: what may change"
"$dgrun" "$cfg" backend.device=cpu mesh.cells=6 --restart "$work/ck.h5" > "$work/log" 2>&1 &&
  fail "the cfg's order 3 (checkpoint: 2) accepted"
grep -qF "$cfg:11:9: error: [discretization] order = '3', but checkpoint" "$work/log" ||
  fail "cfg conflict: message"
[ "$before" = "$(ls -R "$work/run" | cksum)" ] || fail "a refused restart wrote files"
# 4. another flux text
sed 's/$/ /' "$cases/advection1d/advection1d.flux" > "$work/other.flux"
"$dgrun" "$cfg" "$@" "problem.flux=$work/other.flux" --restart "$work/ck.h5" > "$work/log" 2>&1 &&
  fail "another flux text accepted"
grep -qF "flux file '$work/other.flux' differs from the one checkpoint" "$work/log" || fail "flux: message"
# 5. an old checkpoint
"$dgrun" --restart "$old" > "$work/log" 2>&1 && fail "old checkpoint accepted"
grep -qF "does not store the configuration it was written with (format version 3" "$work/log" ||
  fail "old checkpoint: message"
# 6. the stored cfg edited (one digit of 'cells = 6'), the seal left as it was
cp "$work/ck.h5" "$work/edited.h5"
off=$(grep -a -b -o "cells = 6" "$work/edited.h5" | head -1 | cut -d: -f1)
[ -n "$off" ] || fail "no stored cfg text in the checkpoint"
printf 7 | dd of="$work/edited.h5" bs=1 seek=$((off + 8)) conv=notrunc 2> /dev/null
"$dgrun" --restart "$work/edited.h5" > "$work/log" 2>&1 && fail "edited checkpoint accepted"
grep -qF "is corrupt: its bytes do not match the SHA-256 in its header" "$work/log" ||
  fail "edited: message"
echo "ok: restart alone (L2 error $(l2 "$work/full.log")), allowed and forbidden overrides, flux text, old and edited checkpoints"
