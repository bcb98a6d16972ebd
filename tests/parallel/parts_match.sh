#!/bin/sh
# problems.mpi_h5_parts, problems.mpi_curved_parts: a mesh imported with
# --parts 2 is read part by part on 2 ranks (each rank only its own part, as
# logged) and the run matches the serial run of the same file to 1e-12
# (test_parallel_match: the parts' global ids are the serial run's element
# numbers); on R ranks the 2-part file is read whole and partitioned again,
# with the same result.
#  - mpi_h5_parts: a Gmsh mesh of a periodic square (explicit periodic face
#    pairs, which cross the partition), R = 4;
#  - mpi_curved_parts: meshes/annulus.geo at geometry order 2 (the parts
#    carry the high-order nodes; rank 0 must hold curved elements, first in
#    its numbering), R = 3.
# usage: parts_match.sh mpiexec dgrun match mesh flux workdir order R
#          [--import FLAG]... [--expect LOG-TEXT]... [CFG-LINE]...
# (CFG-LINEs are appended to the case's problem.cfg: a [time] wave_speed,
# a [boundaries] section.)
mpiexec=$1; dgrun=$2; match=$3; mesh=$4; flux=$5; work=$6; order=$7; ranks=$8; shift 8
imp=""; expect=""; extra=""
while [ $# -gt 0 ]; do
  case $1 in
    --import) imp="$imp $2"; shift 2 ;;
    --expect) expect="$expect
$2"; shift 2 ;;
    *) extra="$extra
$1"; shift ;;
  esac
done
rm -rf "$work"; mkdir -p "$work"
# shellcheck disable=SC2086 # the import flags are words
"$dgrun" import "$mesh" "$work/mesh2.h5" --parts 2 $imp || exit 1
cat > "$work/case.cfg" <<CFG
[problem]
flux = $flux
[mesh]
type = file
file = $work/mesh2.h5
[discretization]
order = $order
[output]
directory = $work/out
[time]
final = 0.05$extra
CFG
"$mpiexec" -n 2 --oversubscribe "$dgrun" "$work/case.cfg" backend.device=cpu > "$work/log2" 2>&1 || { cat "$work/log2"; exit 1; }
cat "$work/log2"
grep -q "has 2 parts: each rank reads only its own" "$work/log2" || { echo "FAIL: the ranks did not read their parts alone"; exit 1; }
printf '%s\n' "$expect" | while IFS= read -r line; do
  [ -z "$line" ] && continue
  grep -qF "$line" "$work/log2" || { echo "FAIL: the log does not say '$line'"; exit 1; }
done || exit 1
"$mpiexec" -n 2 --oversubscribe "$match" "$work/case.cfg" "$work/m" || exit 1
"$mpiexec" -n "$ranks" --oversubscribe "$match" "$work/case.cfg" "$work/m" || exit 1
echo OK
