#!/bin/sh
# problems.cli: --help explains every option, --version names the build and
# what it finds at run time, a mistyped option gets the nearest one, and an
# input error prints its message alone (the call trace only with --debug or
# DGRUN_DEBUG=1, and always for an internal error).
# usage: cli.sh dgrun problem.cfg
set -u
dgrun=$1 cfg=$2
fail() { echo "FAIL: $*"; exit 1; }
out=$("$dgrun" --help) || fail "--help exit $?"
for o in --quiet --restart --tune= --dump-kernels --timings --debug --devices --help-config \
         --version import tune section.key=value Examples: "Exit status"; do
  echo "$out" | grep -q -- "$o" || fail "--help does not mention $o"
done
echo "$out" | awk 'length > 80 { bad = 1 } END { exit bad }' || fail "--help lines over 80 columns"
out=$("$dgrun" --version) || fail "--version exit $?"
for w in "^dgrun [0-9]" "^build: " "^options: .*cuda backend" "^backends compiled in:.* cpu" "^cpu: "; do
  echo "$out" | grep -q -- "$w" || fail "--version lacks '$w': $out"
done
out=$("$dgrun" "$cfg" --tun=auto 2>&1); rc=$?
[ $rc -eq 2 ] || fail "unknown option exit $rc"
echo "$out" | grep -q "did you mean '--tune=auto'" || fail "no suggestion: $out"
out=$("$dgrun" "$cfg" --restat x 2>&1)
echo "$out" | grep -q "did you mean '--restart'" || fail "no suggestion: $out"
out=$("$dgrun" "$cfg" --restart 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q "needs a value" || fail "--restart without a file: $rc $out"
out=$("$dgrun" "$cfg" discretization.ordr=2 2>&1); rc=$?
[ $rc -eq 1 ] || fail "bad key exit $rc"
[ "$(echo "$out" | wc -l)" -eq 1 ] || fail "more than the message: $out"
echo "$out" | grep -q "^dgrun: <command line>: error: unknown key 'ordr'" || fail "message: $out"
echo "$out" | grep -q "input error" && fail "'error' twice: $out"
out=$(DGRUN_DEBUG=1 "$dgrun" "$cfg" discretization.ordr=2 2>&1)
echo "$out" | grep -q "raised in" || fail "DGRUN_DEBUG=1 gives no trace: $out"
out=$("$dgrun" "$cfg" discretization.ordr=2 --debug 2>&1)
echo "$out" | grep -q "raised in" || fail "--debug gives no trace: $out"
# --geometry-order of a .msh: refused (the order is the file's), nothing written
msh=$(dirname "$0")/../../meshes/box.msh
h5=${TMPDIR:-/tmp}/dgrun_cli_import_$$.h5
rm -f "$h5"
out=$("$dgrun" import "$msh" "$h5" --geometry-order 2 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q "applies to a .geo" || fail "import --geometry-order of a .msh: $rc $out"
[ -e "$h5" ] && fail "import --geometry-order of a .msh wrote $h5"
echo ok
