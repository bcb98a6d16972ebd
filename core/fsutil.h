/* File-system helpers shared by the kernel cache, the cpu backend and later
 * the output/checkpoint writers.
 *
 * Atomic writes: the data go to a uniquely named temporary file in the same
 * directory, are fsync'ed, then rename(2)d over the target.  rename within
 * one file system is atomic, so a reader (or a concurrent writer of the same
 * file, e.g. several MPI ranks caching the same kernel) sees either the old
 * complete file or the new complete file, never a torn one. */
#ifndef DG_CORE_FSUTIL_H
#define DG_CORE_FSUTIL_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "core/error.h"

/* Create path and any missing parents (like mkdir -p); existing directories
 * are fine, an existing non-directory is DG_ERR_IO. */
dg_error dg_fsutil_mkdir_p(const char *path, mode_t mode);

/* Write data atomically to path (temp + fsync + rename + fsync of the
 * directory).  mode is the new file's permission before the umask.  On
 * failure no temporary file is left behind. */
dg_error dg_fsutil_write_atomic(const char *path, const void *data, size_t n,
                                mode_t mode);

/* The same replace (temp + rename: readers see the old file or the whole
 * new one) without the fsyncs, for entries that validate themselves (the
 * kernel cache's checksum): after a crash an entry may be lost or torn,
 * which its reader detects and rebuilds. */
dg_error dg_fsutil_write_replace(const char *path, const void *data, size_t n,
                                 mode_t mode);

/* Plain write (create or truncate); for private temporary files. */
dg_error dg_fsutil_write_file(const char *path, const void *data, size_t n,
                              mode_t mode);

/* Inputs are regular files.  A FIFO, a device (/dev/zero), a directory or a
 * socket given as an input would block a reader (open(2) of a FIFO waits
 * for a writer; a read of /dev/zero never ends), and a blocked dgrun no
 * longer answers SIGTERM (problems/signals.h).  So every reader opens its
 * input here: O_NONBLOCK (the open of a FIFO returns at once), fstat on the
 * descriptor (no window between the check and the use), anything but a
 * regular file refused as DG_ERR_INPUT "<what> '<path>' is a FIFO, not a
 * regular file"; a missing or unreadable file is DG_ERR_IO.  The descriptor
 * is handed back blocking (reads of a regular file do not block for long).
 * what: "flux file", "mesh file", ... */
dg_error dg_fsutil_open_input(const char *path, const char *what, int *fd);
/* The same as a stdio stream ("rb"). */
dg_error dg_fsutil_fopen_input(const char *path, const char *what, FILE **f);
/* The same check for a path handed on to a library that opens it itself
 * (Gmsh, libhdf5): open, check, close. */
dg_error dg_fsutil_check_input(const char *path, const char *what);

/* Outputs are regular files or new names.  Every writer replaces its target
 * by rename(2), which would replace a device node, a FIFO or a symbolic
 * link with a regular file (and fails on a directory only after the work);
 * so a path naming anything but a regular file (directly or through a
 * symbolic link) or nothing is DG_ERR_IO "<what> '<path>' is a character
 * device, not a regular file".  Called by the atomic writers below and by
 * the problem setup before a run starts. */
dg_error dg_fsutil_check_output(const char *path, const char *what);

/* dg_fsutil_check_output for every entry of dir whose name starts with
 * prefix and ends with suffix (the names a run will write there, e.g.
 * "<problem>" and ".h5" for snapshots and checkpoints); a missing dir is
 * fine. */
dg_error dg_fsutil_check_outputs(const char *dir, const char *prefix, const char *suffix);

/* Write all n bytes to fd (retrying short writes and EINTR); a failed write
 * (ENOSPC, EIO) is DG_ERR_IO naming path and the system's reason. */
dg_error dg_fsutil_write_fd(int fd, const void *data, size_t n, const char *path);

/* Read a whole file into a malloc'ed buffer (with one extra '\0' byte after
 * the data, so text can be used as a string).  Caller frees *data.  Opened
 * by dg_fsutil_open_input ("file"): a FIFO or device is refused, never
 * waited on. */
dg_error dg_fsutil_read_file(const char *path, void **data, size_t *n);

/* Create a private (0700) directory "$TMPDIR/<prefix>XXXXXX" (TMPDIR
 * defaults to /tmp); *path is malloc'ed, caller frees. */
dg_error dg_fsutil_make_temp_dir(const char *prefix, char **path);

/* Write data to a new private (0600) file "$TMPDIR/<prefix>XXXXXX"; *path is
 * malloc'ed, caller unlinks and frees. */
dg_error dg_fsutil_write_temp(const char *prefix, const void *data, size_t n,
                              char **path);

/* Remove path recursively (never follows symbolic links); a missing path
 * is not an error. */
dg_error dg_fsutil_remove_tree(const char *path);

/* The topmost directory of path that does not exist yet (malloc'ed), i.e.
 * what dg_fsutil_mkdir_p(path) would create first; NULL when path exists
 * (or out of memory).  With dg_fsutil_remove_created, a run that fails
 * before writing anything leaves no empty output directories behind. */
char *dg_fsutil_missing_top(const char *path);

/* rmdir path, then its parents up to and including top, stopping at the
 * first one that is not empty (so nothing but empty directories goes). */
void dg_fsutil_remove_created(const char *path, const char *top);

/* Keep the source of a failed compile of generated code for the reader
 * of the error: written to "$TMPDIR/dgrun-failed-<name>-XXXXXX<ext>" (name
 * reduced to [A-Za-z0-9_]); returns the malloc'ed path, or NULL when it
 * cannot be written (the error is cleared: the compile error matters). */
char *dg_fsutil_keep_source(const char *name, const char *ext, const char *source);

/* Bytes available to this user on the file system holding path (statvfs). */
dg_error dg_fsutil_free_space(const char *path, unsigned long long *bytes);

/* The names (not paths) of the entries of dir that end in suffix, sorted,
 * into a malloc'ed array of malloc'ed strings (*n of them; free with
 * dg_fsutil_free_names).  A missing dir is no entries, not an error. */
dg_error dg_fsutil_list(const char *dir, const char *suffix, char ***names, int *n);
void dg_fsutil_free_names(char **names, int n);

/* Join a directory and a name into a malloc'ed "dir/name" (NULL if out of
 * memory). */
char *dg_fsutil_join(const char *dir, const char *name);

#endif
