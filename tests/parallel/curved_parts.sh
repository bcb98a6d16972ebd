#!/bin/sh
# problems.mpi_curved_parts: a curved mesh (meshes/annulus.geo at geometry
# order 2) imported with --parts 2 is read part by part on 2 ranks (each
# rank only its own part, high-order nodes included; as logged, and rank 0
# with curved elements) and matches the serial run of the same file to
# 1e-12 (test_parallel_match: the parts' global ids are the serial run's
# element numbers, curved elements first); on 3 ranks the 2-part file is
# read whole and partitioned again.
# usage: curved_parts.sh mpiexec dgrun match annulus.geo flux workdir
mpiexec=$1; dgrun=$2; match=$3; geo=$4; flux=$5; work=$6
rm -rf "$work"; mkdir -p "$work"
"$dgrun" import "$geo" "$work/annulus2.h5" --parts 2 --geometry-order 2 || exit 1
cat > "$work/annulus.cfg" <<CFG
[problem]
flux = $flux
[mesh]
type = file
file = $work/annulus2.h5
[boundaries]
inner = pec
outer = pec
[discretization]
order = 2
[time]
final = 0.05
[output]
directory = $work/out
CFG
"$mpiexec" -n 2 --oversubscribe "$dgrun" "$work/annulus.cfg" backend.device=cpu > "$work/log2" 2>&1 || { cat "$work/log2"; exit 1; }
cat "$work/log2"
grep -q "has 2 parts: each rank reads only its own" "$work/log2" || { echo "FAIL: the ranks did not read their parts alone"; exit 1; }
grep -q "curved ones after it" "$work/log2" || { echo "FAIL: rank 0 holds no curved elements"; exit 1; }
"$mpiexec" -n 2 --oversubscribe "$match" "$work/annulus.cfg" "$work/m" || exit 1
"$mpiexec" -n 3 --oversubscribe "$match" "$work/annulus.cfg" "$work/m" || exit 1
echo OK
