#!/bin/sh
# problems.divergence_layouts: the device norm of the divergence stop reads
# every node of the state and no padding, whatever the layout: field-major,
# element-major and padded element-major (np_align = 8: Np = 10 padded to
# 16) stop at the same step with the same norms in the message.
# usage: divergence_layouts.sh OUTDIR DGRUN CFG overrides...
out=$1; dgrun=$2; shift 2
msg() { "$dgrun" "$@" "output.directory=$out" output.enabled=false 2>&1 >/dev/null |
        grep 'the solution diverges'; }
a=$(msg "$@" backend.layout=field-major backend.np_align=1)
b=$(msg "$@" backend.layout=element-major backend.np_align=1)
c=$(msg "$@" backend.layout=element-major backend.np_align=8)
echo "$a"
[ -n "$a" ] || { echo "FAIL: no divergence stop"; exit 1; }
[ "$a" = "$b" ] || { echo "FAIL: element-major differs: $b"; exit 1; }
[ "$a" = "$c" ] || { echo "FAIL: padded element-major differs: $c"; exit 1; }
echo OK
