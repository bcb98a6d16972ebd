#!/bin/sh
# The largest stable cfl of the computed wave speed's time step (the table
# of problems/PROBLEM_CFG.md), by bisection in [1, 17] to within 0.5.
# A run is stable when it exits 0 (no NaN or divergence stop) and its final
# L2 error is at most 1.5x that at cfl 1, over about 1500/cfl steps (the
# final time scaled with (N+1)^-2; FINAL=t fixes it).
# usage: cfl_limits.sh DGRUN CASES_DIR [backend]   (SCHEMES, ORDERS narrow it;
# HI: the upper end of the bisection, 17 unless given)
D=$1; P=$2; BACKEND=${3:-cpu}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
run() { # cfg scheme N cfl final extra...
  cfg=$1; sc=$2; N=$3; c=$4; fin=$5; shift 5
  out=$("$D" "$P/$cfg" backend.device=$BACKEND output.enabled=false time.scheme=$sc \
        discretization.order=$N time.cfl=$c time.final=$fin time.wave_speed=auto "$@" 2>&1) ||
    { echo 1e99; return; }
  echo "$out" | grep -o "L2 error [0-9.e+-]*" | head -1 | awk '{print $3}'
}
bisect() { # name cfg scale extra...
  name=$1; cfg=$2; scale=$3; shift 3
  for sc in ${SCHEMES:-lserk4 ssprk3}; do for N in ${ORDERS:-1 2 3 4}; do
    fin=${FINAL:-$(awk "BEGIN{print $scale/(($N+1)*($N+1))}")}
    lo=1; hi=${HI:-17}
    ref=$(run $cfg $sc $N 1 $fin "$@")
    lim=$(awk "BEGIN{print 1.5*$ref + 1e-12}")
    for i in 1 2 3 4 5; do
      m=$(awk "BEGIN{print ($lo+$hi)/2}")
      e=$(run $cfg $sc $N $m $fin "$@")
      if [ "$(awk "BEGIN{print ($e <= $lim) ? 1 : 0}")" = 1 ]; then lo=$m; else hi=$m; fi
    done
    echo "$name $sc N=$N stable $lo unstable $hi (final $fin, error at cfl 1 $ref)"
  done; done
}
bisect advection2d advection2d/advection2d.cfg 118 "mesh.cells=4 4"
bisect advection3d advection3d/advection3d.cfg 231 "mesh.cells=2 2 2"
# (at N >= 3 the coarse vortex goes unstable by aliasing after t = 6 at any
# cfl: the table's Euler entries for N = 3, 4 use FINAL=3)
bisect euler2d_vortex euler2d_vortex/euler2d_vortex.cfg 400 "mesh.cells=5 5"
