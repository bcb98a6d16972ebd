#!/bin/sh
# problems/tools/plot_history.py (copied next to dgrun) turns a history CSV
# into a PNG; skipped (77) where matplotlib is not importable (an optional
# dependency).
# usage: history_plot.sh DGRUN PLOT CFG WORKDIR
dgrun=$1; plot=$2; cfg=$3; w=$4
# (the first python3 on PATH may be a virtual environment without it)
py=
for c in python3 /usr/bin/python3; do
  "$c" -c 'import matplotlib' 2>/dev/null && { py=$c; break; }
done
[ -n "$py" ] || { echo "matplotlib not importable: skipped"; exit 77; }
rm -rf "$w"; mkdir -p "$w"
"$dgrun" "$cfg" --quiet backend.device=cpu "mesh.cells=4 4" discretization.order=2 time.final=0.2 \
  output.enabled=false output.history=run.csv output.history_steps=5 "output.directory=$w" || exit 1
"$py" "$plot" "$w/run.csv" l2_u max_u --log -o "$w/run.png" || exit 1
# a PNG starts with the 8 bytes 89 'PNG' 0d 0a 1a 0a
[ "$(head -c 4 "$w/run.png" | od -An -tx1 | tr -d ' \n')" = 89504e47 ] || { echo "FAIL: no PNG"; exit 1; }
"$py" "$plot" "$w/run.csv" nothere -o "$w/bad.png" 2> "$w/bad.err" && { echo "FAIL: unknown column accepted"; exit 1; }
grep -q "no column nothere" "$w/bad.err" || { cat "$w/bad.err"; exit 1; }
echo "ok: $(ls -l "$w/run.png")"
