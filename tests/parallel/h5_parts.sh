#!/bin/sh
# problems.mpi_h5_parts: a Gmsh mesh (periodic square: explicit periodic
# face pairs, which cross the partition) imported with --parts 2 is read
# part by part on 2 ranks (each rank only its own part, as logged), and the
# run matches the serial run of the same file to 1e-12; on 4 ranks the
# 2-part file is read whole and partitioned again, with the same result.
# usage: h5_parts.sh mpiexec dgrun match mesh.msh flux workdir
mpiexec=$1; dgrun=$2; match=$3; msh=$4; flux=$5; work=$6
rm -rf "$work"; mkdir -p "$work"
"$dgrun" import "$msh" "$work/square2.h5" --parts 2 || exit 1
cat > "$work/square.cfg" <<CFG
[problem]
flux = $flux
[mesh]
type = file
file = $work/square2.h5
[discretization]
order = 3
[time]
final = 0.05
wave_speed = 1.12
[output]
directory = $work/out
CFG
"$mpiexec" -n 2 --oversubscribe "$dgrun" "$work/square.cfg" backend.device=cpu > "$work/log2" 2>&1 || { cat "$work/log2"; exit 1; }
cat "$work/log2"
grep -q "has 2 parts: each rank reads only its own" "$work/log2" || { echo "FAIL: the ranks did not read their parts alone"; exit 1; }
"$mpiexec" -n 2 --oversubscribe "$match" "$work/square.cfg" "$work/m" || exit 1
"$mpiexec" -n 4 --oversubscribe "$match" "$work/square.cfg" "$work/m" || exit 1
echo OK
