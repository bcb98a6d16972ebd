#!/bin/sh
# paraview.vtkhdf: a real ParaView (pvpython, offscreen) opens the VTKHDF output of a
# small N = 3 2D Maxwell run and an N = 2 3D one (check_vtkhdf.py says what it checks).
# Skipped (77) without pvpython.  With PNG set, the 2D snapshot is also rendered
# (ParaView 5.11 of Debian needs an X display: under xvfb-run when there is no $DISPLAY;
# without either the picture is left out).
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
pvpython --force-offscreen-rendering "$src/tests/paraview/check_vtkhdf.py" \
  "$out/order.txt" "$out/o2" "$out/o3" 2>"$out/pvpython.err" ||
  { tail -20 "$out/pvpython.err"; exit 1; }
[ -n "$png" ] || exit 0
run=""
if [ -z "$DISPLAY" ]; then
  if command -v xvfb-run >/dev/null 2>&1; then run="xvfb-run -a"
  else echo "no display and no xvfb-run: not rendering"; exit 0; fi
fi
# (Debian's 5.11 renders through X only; a fresh Xvfb is at times not yet
# accepting connections when ParaView opens its window: three tries)
for try in 1 2 3; do
  rm -f "$png"
  $run pvpython "$src/tests/paraview/check_vtkhdf.py" "$out/order.txt" "$out/o2" "$out/o3" \
    "$png" 2>"$out/render.err" && break
done
# an 800 x 600 picture of a coloured field is tens of kB; a blank one a few
size=$(wc -c < "$png" 2>/dev/null || echo 0)
[ "$size" -gt 10000 ] || { echo "FAIL: rendered $png has $size bytes"; tail -5 "$out/render.err"; exit 1; }
echo "rendered $png ($size bytes)"
