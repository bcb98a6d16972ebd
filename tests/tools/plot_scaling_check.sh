#!/bin/sh
# tools.plot_scaling: the scaling-study plotter on a sample CSV computes the
# weak efficiency rate(P) / (P * rate(1)) and the strong speedup
# rate(P) / rate(1), and writes a PNG.
set -eu
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cp "$1/scaling_sample.csv" "$dir/s.csv"
python3 "$2" "$dir/s.csv" "$dir/s.png" > "$dir/out.txt"
# 1.9e10 / (2 * 1.0e10) = 0.950; 1.5e10 / 8.0e9 = 1.875
grep -q '^weak,maxwell3d,2,.*,0.950$' "$dir/s.csv" || { echo "weak efficiency wrong"; cat "$dir/s.csv"; exit 1; }
grep -q '^strong,euler3d_vortex,2,.*,1.875$' "$dir/s.csv" || { echo "strong speedup wrong"; cat "$dir/s.csv"; exit 1; }
head -c 8 "$dir/s.png" | od -An -c | grep -q 'P   N   G' || { echo "not a PNG"; exit 1; }
echo ok
