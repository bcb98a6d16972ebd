#!/bin/sh
# problems.mpi_shock_*: shock capturing ([shock]) on N ranks gives the serial
# run's snapshots -- the fields and the live artificial viscosity coef_av --
# to 1e-12 (test_h5same).  The cases put the discontinuity where the
# viscosity reaches a partition boundary within the run: leaving out the
# vertex maximum over the ranks or the viscosity's halo exchange
# (problems/solver/shock.h) makes them differ (checked by hand: 1e-12 fails
# with either one switched off).
# usage: [SHOCK_RANKS_EXPECT=text] shock_ranks.sh mpiexec dgrun h5same problem.cfg workdir N
#        [overrides]
mpiexec=$1; dgrun=$2; same=$3; cfg=$4; work=$5; n=$6; shift 6
rm -rf "$work"; mkdir -p "$work"
set -- "$cfg" backend.device=cpu output.enabled=true "$@"
"$dgrun" "$@" output.directory="$work/serial" > "$work/serial.log" 2>&1 ||
  { cat "$work/serial.log"; exit 1; }
"$mpiexec" -n "$n" --oversubscribe "$dgrun" "$@" output.directory="$work/ranks" \
  > "$work/ranks.log" 2>&1 || { cat "$work/ranks.log"; exit 1; }
# the exchange exists: rank 0 shares vertices with another rank
grep -Eq "shock capturing \(rank 0\): [1-9][0-9]* of [0-9]+ vertices shared" "$work/ranks.log" ||
  { echo "FAIL: no vertex shared across ranks"; cat "$work/ranks.log"; exit 1; }
# SHOCK_RANKS_EXPECT: a line the partitioned run's log must hold
if [ -n "$SHOCK_RANKS_EXPECT" ]; then
  grep -q "$SHOCK_RANKS_EXPECT" "$work/ranks.log" ||
    { echo "FAIL: the log does not say '$SHOCK_RANKS_EXPECT'"; cat "$work/ranks.log"; exit 1; }
fi
files=$(cd "$work/serial" && ls)
[ "$files" = "$(cd "$work/ranks" && ls)" ] ||
  { echo "FAIL: files differ:"; ls "$work/serial" "$work/ranks"; exit 1; }
nh5=0
for f in $files; do
  case $f in
    *_mesh.hdf) ;; # (its cell data names each element's rank)
    *.h5|*.hdf)
      "$same" "$work/serial/$f" "$work/ranks/$f" 1e-12 || exit 1
      nh5=$((nh5 + 1)) ;;
  esac
done
[ $nh5 -ge 3 ] || { echo "FAIL: only $nh5 HDF5 files"; exit 1; }
echo "ok: $nh5 HDF5 files of $n ranks with [shock] equal the serial ones"
