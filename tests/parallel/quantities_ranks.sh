#!/bin/sh
# problems.mpi_quantities_np2: the L2 errors, max errors and integrals of a
# run on 2 ranks (each rank's sums and maxima combined) print as on 1 rank,
# to all printed digits (7 for the norms, 13 for the integrals).
# usage: quantities_ranks.sh mpiexec dgrun quantities.cfg
mpiexec=$1; dgrun=$2; cfg=$3
one=$("$dgrun" "$cfg" backend.device=cpu time.final=0.01 2>&1) || { echo "$one"; exit 1; }
two=$("$mpiexec" -n 2 --oversubscribe "$dgrun" "$cfg" backend.device=cpu time.final=0.01 2>&1) ||
  { echo "$two"; exit 1; }
a=$(echo "$one" | grep 'final t = ')
b=$(echo "$two" | grep 'final t = ')
echo "1 rank:"; echo "$a"; echo "2 ranks:"; echo "$b"
[ "$(echo "$a" | grep -c 'L2 error')" -eq 2 ] || { echo "FAIL: want 2 norm lines"; exit 1; }
[ "$(echo "$a" | grep -c 'integral')" -eq 4 ] || { echo "FAIL: want 4 integral lines"; exit 1; }
[ "$a" = "$b" ] || { echo "FAIL: 2 ranks differ from 1"; exit 1; }
echo OK
