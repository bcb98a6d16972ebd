#!/bin/sh
# Special files as inputs and outputs (issue 36, classes 3 and 6): things
# that cannot live in git (FIFOs, device nodes, directories and symbolic
# links made here in a scratch folder), each given to dgrun in one place:
#   in:  a FIFO as cfg, flux, Gmsh mesh, HDF5 mesh and checkpoint; /dev/zero
#        as the mesh: refused at once with "is a FIFO" / "is a character
#        device", never waited on (each run has a 60 s limit);
#   out: [poisson] matrix_file naming a character device (mknod c 1 7, the
#        /dev/full numbers; skipped where mknod fails), a FIFO, a directory,
#        a symbolic link to a directory; a FIFO under a snapshot's name in
#        the output directory: refused before the run, the node left as it
#        was, nothing written;
#   cache: a FIFO in place of a kernel-cache entry is a corrupt entry: the
#        run recompiles and completes (it does not block, so its SIGTERM
#        handler stays in charge).
# usage: special.sh DGRUN CASES_DIR POISSON_DIR WORK_DIR
dgrun=$1; cases=$2; poisson=$3; work=$4
rm -rf "$work" && mkdir -p "$work/s" "$work/cache" || exit 1
cp "$cases/base2d.cfg" "$cases/base.flux" "$cases/mesh2d.cfg" "$cases/good.msh" "$work/s/" &&
  cp "$poisson/poisson.cfg" "$poisson/poisson.flux" "$work/s/" || exit 1
cd "$work/s" || exit 1
export DGRUN_CACHE_DIR="$work/cache"
failures=0
fail() { echo "FAIL $name: $*"; head -c 2000 "$work/err"; failures=$((failures + 1)); }
state() { find . | sort; find . -type f -exec cksum {} + | sort; }
# refused NAME WANT ARGS...: non-zero exit, no signal or hang, WANT on stderr,
# nothing created or changed in the scratch folder
refused() {
  name=$1; want=$2; shift 2
  before=$(state)
  timeout 60 "$dgrun" "$@" > "$work/out" 2> "$work/err"
  rc=$?
  after=$(state)
  if [ $rc -eq 124 ]; then fail "hung (killed after 60 s)"; return; fi
  if [ $rc -eq 0 ] || [ $rc -ge 128 ]; then fail "exit $rc"; return; fi
  grep -qF -- "$want" "$work/err" || { fail "stderr lacks '$want'"; return; }
  [ "$before" = "$after" ] || { fail "files created or changed"; return; }
  echo "ok $name: $(grep -F -- "$want" "$work/err" | head -n 1 | cut -c1-160)"
}
mkfifo fifo.cfg fifo.flux fifo.msh fifo.h5 fifo.ckpt || exit 1
refused cfg_fifo "is a FIFO, not a regular file" fifo.cfg
refused flux_fifo "is a FIFO, not a regular file" base2d.cfg problem.flux=fifo.flux
refused msh_fifo "is a FIFO, not a regular file" mesh2d.cfg mesh.file=fifo.msh
refused h5_fifo "is a FIFO, not a regular file" mesh2d.cfg mesh.file=fifo.h5
refused mesh_dev_zero "is a character device, not a regular file" mesh2d.cfg mesh.file=/dev/zero
refused restart_fifo "is a FIFO, not a regular file" base2d.cfg --restart fifo.ckpt
refused restart_dir "is a directory, not a regular file" base2d.cfg --restart .

small="mesh.cells=2 2"
if mknod fulldev c 1 7 2> /dev/null; then
  refused matrix_chardev "is a character device, not a regular file" poisson.cfg "$small" \
    poisson.matrix_file=fulldev
  [ -c fulldev ] || fail "matrix_file: the device node was replaced"
  rm -f fulldev
else
  echo "skip matrix_chardev: mknod is not allowed here"
fi
mkfifo matrix.fifo && refused matrix_fifo "is a FIFO, not a regular file" poisson.cfg "$small" \
  poisson.matrix_file=matrix.fifo
[ -p matrix.fifo ] || fail "matrix_file: the FIFO was replaced"
mkdir matrix.dir && ln -s matrix.dir matrix.link
refused matrix_dir "is a directory, not a regular file" poisson.cfg "$small" \
  poisson.matrix_file=matrix.dir
refused matrix_link_dir "is a symbolic link to a directory" poisson.cfg "$small" \
  poisson.matrix_file=matrix.link
[ -L matrix.link ] || fail "matrix_file: the symbolic link was replaced"
mkdir out && mkfifo out/base2d_000000.hdf
refused snapshot_fifo "is a FIFO, not a regular file" base2d.cfg output.directory=out
[ -p out/base2d_000000.hdf ] || fail "snapshot: the FIFO was replaced"
rm -rf out
mkdir out && mkfifo out/base2d_000000.h5
refused snapshot_h5_fifo "is a FIFO, not a regular file" base2d.cfg output.directory=out \
  output.format=xdmf
[ -p out/base2d_000000.h5 ] || fail "snapshot: the FIFO was replaced"
rm -rf out
mkdir out && mkdir out/base2d.xdmf
refused xdmf_dir "is a directory, not a regular file" base2d.cfg output.directory=out \
  output.format=xdmf
rm -rf out

# the kernel cache: fill it, make one entry a FIFO, run again
timeout 120 "$dgrun" base2d.cfg output.enabled=false > "$work/out" 2> "$work/err" ||
  fail "first run failed"
entry=$(find "$work/cache" -type f | head -n 1)
if [ -n "$entry" ]; then
  name=cache_fifo
  rm -f "$entry" && mkfifo "$entry"
  timeout 120 "$dgrun" base2d.cfg output.enabled=false > "$work/out" 2> "$work/err"
  rc=$?
  if [ $rc -eq 124 ]; then fail "blocked on a FIFO in the kernel cache"
  elif [ $rc -ne 0 ]; then fail "exit $rc"
  elif ! grep -q "is a FIFO" "$work/err"; then fail "no warning about the FIFO entry"
  else echo "ok cache_fifo: $(grep "is a FIFO" "$work/err" | head -n 1 | cut -c1-160)"; fi
else
  fail "the first run cached nothing"
fi
[ $failures -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
