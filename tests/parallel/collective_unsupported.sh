#!/bin/sh
# problems.mpi_collective_unsupported (builds with serial HDF5 only):
# [output] parallel_io = collective is refused up front with a message
# that says why and what to do, exit 1, and no output left behind; auto
# falls back to rank 0 gathering and says so.
# usage: collective_unsupported.sh mpiexec dgrun problem.cfg workdir [overrides]
mpiexec=$1; dgrun=$2; cfg=$3; work=$4; shift 4
rm -rf "$work"; mkdir -p "$work"
"$mpiexec" -n 2 --oversubscribe "$dgrun" "$cfg" backend.device=cpu "$@" \
  output.directory="$work/out" output.parallel_io=collective > "$work/log" 2>&1
rc=$?
[ $rc -eq 1 ] || { echo "FAIL: exit $rc, expected 1"; cat "$work/log"; exit 1; }
grep -q "parallel_io = collective needs a dgrun built with parallel HDF5" "$work/log" ||
  { echo "FAIL: no clear message"; cat "$work/log"; exit 1; }
[ ! -e "$work/out" ] || { echo "FAIL: output left behind: $(ls -A "$work/out")"; exit 1; }
"$mpiexec" -n 2 --oversubscribe "$dgrun" "$cfg" backend.device=cpu "$@" \
  output.directory="$work/auto" > "$work/auto.log" 2>&1 || { cat "$work/auto.log"; exit 1; }
grep -q "rank 0 gathers .* (serial HDF5 build)" "$work/auto.log" ||
  { echo "FAIL: auto does not say it gathers"; cat "$work/auto.log"; exit 1; }
echo "ok: collective refused on a serial-HDF5 build; auto gathers"
