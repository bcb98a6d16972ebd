#!/bin/sh
# paraview.vtkhdf: a real ParaView (pvpython, offscreen) opens the VTKHDF output of a
# small N = 3 2D Maxwell run and an N = 2 3D one (check_vtkhdf.py says what it checks).
# Skipped (77) without pvpython.  With PNG set, the 2D snapshot is also rendered
# (ParaView needs a display: under xvfb-run when there is no $DISPLAY).
# Usage: run.sh DGRUN ORDER_PROGRAM SRC OUT [PNG]
dgrun=$1 order=$2 src=$3 out=$4 png=$5
command -v pvpython >/dev/null 2>&1 || { echo "pvpython not found: skipped"; exit 77; }
rm -rf "$out" && mkdir -p "$out" || exit 1
"$dgrun" "$src/problems/cases/maxwell2d_tm/maxwell2d_tm.cfg" output.directory="$out/o2" \
  discretization.order=3 time.final=0.05 output.interval=0.05 'mesh.cells=4 4' \
  output.format=vtkhdf backend.device=cpu -q || exit 1
"$dgrun" "$src/problems/cases/maxwell3d/maxwell3d.cfg" output.directory="$out/o3" \
  discretization.order=2 time.final=0.02 output.interval=0.02 'mesh.cells=2 2 2' \
  output.format=vtkhdf backend.device=cpu -q || exit 1
"$order" --print > "$out/order.txt" || exit 1
# (another folder: the external links are found next to the snapshot, not in the cwd)
cd "$out" || exit 1
run=""
if [ -n "$png" ] && [ -z "$DISPLAY" ]; then
  command -v xvfb-run >/dev/null 2>&1 && run="xvfb-run -a" || png=""
fi
$run pvpython --force-offscreen-rendering "$src/tests/paraview/check_vtkhdf.py" \
  "$out/order.txt" "$out/o2" "$out/o3" $png 2>"$out/pvpython.err"
rc=$?
[ $rc -eq 0 ] || tail -20 "$out/pvpython.err"
exit $rc
