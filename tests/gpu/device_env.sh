# Sourced by the GPU machine's scripts (pending_check.sh, ns_peer.sh): $OUT
# for the logs (./gpu-out by default), summary.txt in it, the release build
# of this tree in $B (configured once, rebuilt every call: a warm machine
# keeps /tmp, and a stale build would time old kernels), the kernel cache
# and the tuning database in /tmp.
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
B=/tmp/dgrun-build
export DGRUN_CACHE_DIR=/tmp/dgrun-cache
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
S=$OUT/summary.txt
if [ ! -f $B/build.ninja ]; then
  cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release > "$OUT/cmake.log" 2>&1 || { tail -30 "$OUT/cmake.log"; exit 1; }
fi
cmake --build $B -j16 > "$OUT/build.log" 2>&1 || { grep -E "error" "$OUT/build.log" | head -30; exit 1; }
