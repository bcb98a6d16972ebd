# Sourced by the interrupt tests: start a 2-rank run of "$dgrun" "$cfg" "$@"
# that steps (practically) forever without output, its output directory
# $outdir and its log $work/log; wait until set-up is done (its last line
# names the DOFs) and it steps; set pid (mpiexec) and ranks (the dgrun
# processes).
"$mpiexec" -n 2 --oversubscribe "$dgrun" "$cfg" backend.device=cpu output.enabled=false \
  time.dt=0.002 time.final=1e6 output.directory="$outdir" "$@" > "$work/log" 2>&1 &
pid=$!
i=0
while ! grep -q DOFs "$work/log" 2>/dev/null; do
  i=$((i + 1)); [ $i -gt 600 ] && { echo "FAIL: no set-up line"; cat "$work/log"; kill $pid; exit 1; }
  kill -0 $pid 2>/dev/null || { echo "FAIL: the run ended early"; cat "$work/log"; exit 1; }
  sleep 0.1
done
sleep 0.5
# the ranks: mpiexec's children running dgrun
ranks=$(ps -o pid=,comm= --ppid $pid | awk '$2 == "dgrun" { print $1 }')
[ $(echo "$ranks" | wc -w) -eq 2 ] || { echo "FAIL: ranks '$ranks'"; ps -ef; kill $pid; exit 1; }
