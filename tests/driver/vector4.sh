#!/bin/sh
# problems.snapshot_vector4: a run with a field of 4 components finishes and
# its snapshots hold the components as scalar datasets q_0 .. q_3.
# usage: vector4.sh DGRUN SRC_DIR WORK_DIR
dgrun=$1; src=$2; work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
cp "$src/vector4.flux" . || exit 1
cat > vector4.cfg <<CFG
[problem]
flux = vector4.flux
[mesh]
type = rectangle
cells = 2 2
periodic = x y
[discretization]
order = 1
[time]
final = 0.01
wave_speed = 1
[output]
interval = 0.01
format = xdmf
CFG
"$dgrun" vector4.cfg > log 2>&1 || { cat log; echo "FAIL: dgrun exited non-zero"; exit 1; }
for s in 000000 000001; do
  for c in 0 1 2 3; do
    grep -q "/fields/q_$c<" "output/vector4_$s.xdmf" ||
      { echo "FAIL: snapshot $s lacks q_$c"; exit 1; }
  done
done
echo "ok: q_0 .. q_3 in both snapshots"
