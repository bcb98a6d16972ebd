#!/bin/sh
# Run dgrun expecting failure: non-zero exit, the expected text on stderr,
# and no snapshot or checkpoint left in the output directory.
# usage: check_error.sh DGRUN OUTDIR "expected text" args...
dgrun=$1; out=$2; want=$3; shift 3
rm -rf "$out"
err=$("$dgrun" "$@" "output.directory=$out" 2>&1 >/dev/null)
rc=$?
if [ $rc -eq 0 ]; then echo "dgrun succeeded, expected an error"; exit 1; fi
case "$err" in *"$want"*) ;; *) echo "stderr lacks '$want':"; echo "$err"; exit 1;; esac
if [ -d "$out" ] && ls "$out" | grep -q '\.h5$'; then echo "output files left: $(ls $out)"; exit 1; fi
echo "ok (exit $rc): $(echo "$err" | head -1)"
