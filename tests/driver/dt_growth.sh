#!/bin/sh
# problems.dt_growth: with dt from the computed wave speed, after the speed
# drops 10x the step grows by at most dt_growth (1.2) from one update to the
# next (dt_interval = 2 steps), and reaches the new limit: the history's dt
# column, one row a step.
# usage: dt_growth.sh dgrun advection1d.cfg speed_drop.flux workdir
set -e
dgrun=$1; cfg=$2; flux=$3; dir=$4
rm -rf "$dir"; mkdir -p "$dir"
"$dgrun" "$cfg" problem.flux="$flux" backend.device=cpu output.enabled=false --quiet \
  output.directory="$dir" output.history=h.csv output.history_steps=1 time.final=0.3 \
  time.wave_speed=auto time.cfl=1 time.dt_interval=2 time.dt_growth=1.2
# columns: t, step, dt, ...; rows after the header with step > 0.  dt_max
# grows by at most 1.2x; a step is dt_max shortened so that the steps left
# land on t = 0.3 (by less than 1/m with m steps left, m > 100 while dt
# grows here), hence the 1% between two steps
awk -F, 'NR > 1 && $2 > 0 {
  if (prev > 0 && $3 > 1.2 * 1.01 * prev) { printf "step %d: dt %g after %g grew more than 1.2x (+1%%)\n", $2, $3, prev; bad = 1 }
  if (prev > 0 && $3 > 1.0001 * prev) grew++
  prev = $3; last = $3; first = first ? first : $3
} END {
  if (bad) exit 1
  # the limit at speed 1 is 10x the first (speed 10) step: reached, in more
  # than one growth step (log(10)/log(1.2) = 12.6 updates at least)
  if (last < 9.9 * first || grew < 12) { printf "dt went %g -> %g in %d growing steps\n", first, last, grew; exit 1 }
  printf "ok: dt %g -> %g, %d growing steps, none more than 1.2x\n", first, last, grew
}' "$dir/h.csv"
