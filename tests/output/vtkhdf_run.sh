#!/bin/sh
# Run a dgrun command writing to OUT (fresh), then check its VTKHDF output
# (vtkhdf_check.c; its arguments after the run's).
# usage: vtkhdf_run.sh CHECK OUT "NAME DIM N K RANKS STEP..." COMMAND...
check=$1 out=$2 args=$3; shift 3
rm -rf "$out"
"$@" output.directory="$out" output.format=vtkhdf backend.device=cpu -q > "$out.log" 2>&1 ||
  { cat "$out.log"; exit 1; }
# shellcheck disable=SC2086
exec "$check" "$out" $args
