#!/bin/sh
# poisson.dgrun_*: `dgrun CFG` end to end: exit 0, the CG iteration count
# and an L2 error below MAXERR printed, one snapshot in the default format
# written (VTKHDF: the step file, the mesh file and the series; readable by
# h5dump when it is installed).
# usage: [LAUNCH="mpiexec -n 2"] run_check.sh DGRUN OUTDIR MAXERR CFG [overrides...]
dgrun=$1; out=$2; maxerr=$3; cfg=$4; shift 4
rm -rf "$out"
log=$(${LAUNCH:-} "$dgrun" "$cfg" "output.directory=$out" "$@" 2>&1); rc=$?
echo "$log"
[ $rc -eq 0 ] || { echo "FAIL: dgrun exited $rc"; exit 1; }
echo "$log" | grep -q "CG converged in [0-9]* iterations" || { echo "FAIL: no iteration count"; exit 1; }
l2=$(echo "$log" | sed -n 's/.*L2 error \([0-9.e+-]*\).*/\1/p' | tail -1)
[ -n "$l2" ] || { echo "FAIL: no L2 error printed"; exit 1; }
awk -v e="$l2" -v m="$maxerr" 'BEGIN { exit !(e + 0 < m + 0) }' || { echo "FAIL: L2 error $l2 >= $maxerr"; exit 1; }
name=$(basename "$cfg" .cfg)
for f in "${name}_000000.hdf" "${name}_mesh.hdf" "${name}.hdf.series"; do
  [ -s "$out/$f" ] || { echo "FAIL: $out/$f missing"; exit 1; }
done
if command -v h5dump > /dev/null; then
  h5dump -H "$out/${name}_000000.hdf" | grep -q '"u"' || { echo "FAIL: no dataset u"; exit 1; }
fi
echo "ok: L2 error $l2 < $maxerr"
