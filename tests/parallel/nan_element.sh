#!/bin/sh
# problems.mpi_nan_element: the element a NaN stop names is the mesh's
# element, on any number of ranks: a 2-rank run names the same element as
# the serial run (not its number among the failing rank's elements).
# usage: nan_element.sh mpiexec dgrun nan_element.cfg log
mpiexec=$1; dgrun=$2; cfg=$3; log=$4
elem() { sed -n 's/.*not finite .* at element \([0-9]*\) (node \([0-9]*\)).*/\1 \2/p' "$1"; }
"$dgrun" "$cfg" > "$log.serial" 2>&1 && { echo "FAIL: the serial run did not stop"; exit 1; }
"$mpiexec" -n 2 --oversubscribe "$dgrun" "$cfg" > "$log.mpi" 2>&1 && { echo "FAIL: the 2-rank run did not stop"; exit 1; }
cat "$log.serial" "$log.mpi"
s=$(elem "$log.serial"); m=$(elem "$log.mpi")
[ -n "$s" ] || { echo "FAIL: no element named by the serial run"; exit 1; }
[ "$s" = "$m" ] || { echo "FAIL: serial run names element/node '$s', 2-rank run '$m'"; exit 1; }
echo OK
