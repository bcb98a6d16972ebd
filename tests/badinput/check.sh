#!/bin/sh
# One case of the bad-input catalogue (tests/badinput/cases): run dgrun on
# it in a scratch copy of the cases folder and require
#   - a non-zero exit that is not a crash (no signal, no sanitizer report);
#   - the expected fragment on stderr (the case's first line "# expect: ..."
#     or, for binary cases, the sidecar file CASE.expect);
#   - no file created, changed or removed anywhere in the scratch tree (two
#     levels above the cases, so '../..' escapes are caught), no file
#     matching *pwned* anywhere under it or in /tmp, and nothing in the
#     kernel cache (a fresh empty DGRUN_CACHE_DIR per case: bad input is
#     refused before any kernel is generated, so the cache stays empty or
#     absent).
# The kind of case is its extension:
#   .cfg  dgrun CASE.cfg                       (a whole problem file)
#   .flux dgrun base2d.cfg problem.flux=CASE   (a flux file on a good problem)
#   .msh .h5  dgrun mesh2d.cfg mesh.file=CASE  (a mesh file)
#   .ckpt dgrun base2d.cfg --restart CASE      (a checkpoint)
#   .args dgrun base2d.cfg ARGS                (command-line overrides: ARGS is the
#                                               case's second line, as a shell reads it)
# With MPIEXEC and NP, dgrun runs on NP ranks (bad input must be refused
# alike, before any kernel, under mpirun too).
# usage: check.sh DGRUN CASES_DIR WORK_DIR CASE_FILE_NAME [MPIEXEC NP]
dgrun=$1; src=$2; work=$3; case=$4; mpiexec=$5; np=$6
rm -rf "$work" && mkdir -p "$work/a/b" "$work/cache" && cp -R "$src" "$work/a/b/cases" || exit 1
cd "$work/a/b/cases" || exit 1
if [ -f "$case.expect" ]; then
  want=$(head -n 1 "$case.expect")
else
  want=$(head -n 1 "$case" | sed -n 's/^[#;] expect: //p')
fi
[ -n "$want" ] || { echo "case $case states no expected message"; exit 1; }
case $case in
  *.cfg) set -- "$case" ;;
  *.flux) set -- base2d.cfg "problem.flux=$case" ;;
  *.msh|*.h5) set -- mesh2d.cfg "mesh.file=$case" ;;
  *.ckpt) set -- base2d.cfg --restart "$case" ;;
  *.args) eval "set -- base2d.cfg $(sed -n 2p "$case")" ;;
  *) echo "unknown kind of case: $case"; exit 1 ;;
esac
state() { (cd "$work" && find . -path ./cache -prune -o -print | sort && find . -path ./cache -prune -o -type f -exec cksum {} + | sort); }
before=$(state)
if [ -n "$mpiexec" ]; then
  DGRUN_CACHE_DIR="$work/cache" "$mpiexec" -n "$np" --oversubscribe "$dgrun" "$@" \
    > "$work.stdout" 2> "$work.stderr"
else
  DGRUN_CACHE_DIR="$work/cache" "$dgrun" "$@" > "$work.stdout" 2> "$work.stderr"
fi
rc=$?
after=$(state)
fail() { echo "FAIL $case: $*"; echo "--- stderr:"; head -c 3000 "$work.stderr"; exit 1; }
[ $rc -ne 0 ] || fail "dgrun exited 0"
[ $rc -lt 128 ] || fail "dgrun died of a signal (exit $rc)"
grep -qE "AddressSanitizer|LeakSanitizer|runtime error:|Segmentation|core dumped" "$work.stderr" &&
  fail "crash or sanitizer report"
# Match with the case's own file name blanked out: errors start with the
# file name, and a fragment like "cells" must not match cfg_cells_zero.cfg.
# (A fragment that names the case itself, e.g. "CASE.flux:3:", checks the
# location and is matched as it stands.)
case $want in
  *"$case"*) cp "$work.stderr" "$work.stderr.noname" ;;
  *) sed "s|$case|CASE|g" "$work.stderr" > "$work.stderr.noname" ;;
esac
# Names from input files are echoed escaped: no control byte but newline
# and tab reaches the terminal (an ESC [2J in a tag name clears it).
LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')" "$work.stderr" &&
  fail "a raw control byte on stderr"
grep -qF -- "$want" "$work.stderr.noname" || fail "stderr (case name blanked) lacks '$want'"
[ "$before" = "$after" ] || fail "files created or changed: $(echo "$before" > "$work/b"; echo "$after" | diff "$work/b" - | grep '^[<>]' | head)"
found=$(find "$work" /tmp -maxdepth 6 -name '*pwned*' 2>/dev/null | head -3)
[ -z "$found" ] || fail "injected command ran: $found"
cached=$(find "$work/cache" -mindepth 1 2>/dev/null | head -3)
[ -z "$cached" ] || fail "kernel cache written: $cached"
echo "ok $case (exit $rc): $(grep -F -- "$want" "$work.stderr" | head -n 1 | cut -c1-200)"
