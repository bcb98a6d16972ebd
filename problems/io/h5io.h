/* File plumbing shared by snapshots and checkpoints: atomic writes
 * (temp file "<path>.tmp.<pid>" in the same directory, flush, fsync,
 * rename, fsync the directory) and HDF5 calls whose failures become
 * dg_error with the file name and HDF5's own innermost message.
 *
 * Atomicity: a reader (ParaView, a restart) sees either the old file or the
 * complete new one, never a half-written file under the final name, even if
 * the run is killed; rename(2) within one directory is atomic on POSIX.
 * On any error the temp file is removed.
 *
 * Collective files (parallel HDF5, dg_h5io_create_coll): every rank of a
 * communicator opens the same temp file (named after rank 0's pid) through
 * MPI-IO, calls every metadata operation alike and writes its own part of
 * each dataset (problems/io/h5part.h); after all ranks closed it, rank 0 alone
 * makes it durable and renames it.  Each collective step is followed by an
 * agreement on errors, so a failure on one rank takes every rank down the
 * same path (close, remove the temp) instead of leaving one waiting. */
#ifndef DG_PROBLEMS_H5IO_H
#define DG_PROBLEMS_H5IO_H

#include <stddef.h>
#include <stdint.h>

#include "core/comm.h"
#include "core/error.h"

/* "<path>.tmp.<pid>" in *out (malloc'd; the caller frees).  Errors: DG_ERR_MEMORY. */
dg_error dg_h5io_temp_path(const char *path, char **out);

/* Make the finished temp file tmp durable and give it its final name:
 * fsync(tmp), rename(tmp, path), fsync(directory).  On failure tmp (or,
 * when only the directory sync failed, path) is removed.  Errors:
 * DG_ERR_IO naming path. */
dg_error dg_h5io_commit(const char *tmp, const char *path);

/* Write len bytes of text to path atomically.  Errors: DG_ERR_IO. */
dg_error dg_h5io_write_text(const char *path, const char *text, size_t len);

/* mkdir -p dir (0755).  Errors: DG_ERR_IO naming the component that failed. */
dg_error dg_h5io_mkdirs(const char *dir);

/* Is s a non-empty name of letters, digits, '_', '-' and '.' (not first) only?  Names of
 * fields go unescaped into HDF5 paths, file names and XML, so keep them plain. */
int dg_h5io_plain_name(const char *s);

/* FNV-1a 64-bit hash of n bytes (checkpoint data integrity). */
uint64_t dg_h5io_fnv1a(const void *data, size_t n);
/* The same, continuing from the hash h of the bytes before. */
uint64_t dg_h5io_fnv1a_more(uint64_t h, const void *data, size_t n);

#if defined(DGRUN_HAVE_HDF5)
#include <hdf5.h>

/* An HDF5 file being written under a temp name. */
typedef struct dg_h5io_out {
  hid_t file;
  hid_t dxpl;       /* raw-data transfer: H5P_DEFAULT, or collective MPI-IO */
  char *tmp;        /* temp path (owned) */
  const char *path; /* final path (borrowed) */
  dg_comm *comm;    /* NULL: this process alone; else all its ranks write (borrowed) */
  int rank;         /* in comm (0 without) */
  const char *seal; /* core/seal.h magic: the file gets a sealed user block (NULL: none) */
} dg_h5io_out;

/* Turn off HDF5's printing of its error stack (dgrun reports errors itself). */
void dg_h5io_silence(void);

/* Create the temp file for path; with seal (a core/seal.h magic, or NULL)
 * the file starts with a user block of DG_SEAL_SIZE bytes that
 * dg_h5io_finish fills with the seal before the rename.  path must be a
 * regular file or a new name (dg_fsutil_check_output).  Errors: DG_ERR_IO. */
dg_error dg_h5io_create(const char *path, const char *seal, dg_h5io_out *out);
#if defined(DGRUN_HAVE_PARALLEL_HDF5)
/* Collective over comm: create the temp file for path on every rank
 * through MPI-IO, with collective raw-data transfers (out->dxpl).  Errors
 * (on every rank alike): DG_ERR_IO. */
dg_error dg_h5io_create_coll(const char *path, dg_comm *comm, const char *seal,
                             dg_h5io_out *out);
#endif
/* Close, seal (rank 0, when created with a seal) and commit under the final
 * name (collective for a collective file: rank 0 renames once every rank
 * has closed).  On failure the temp is
 * removed. */
dg_error dg_h5io_finish(dg_h5io_out *out);
/* Close (ignoring errors) and remove the temp file after an error (on every
 * rank of a collective file, after the error was agreed on). */
void dg_h5io_abandon(dg_h5io_out *out);
/* For collective files: dg_comm_agree over out's ranks (err unchanged
 * without a communicator).  Use after each collective step. */
dg_error dg_h5io_agree(const dg_h5io_out *out, dg_error err);

/* Open path read-only.  Errors: DG_ERR_INPUT (not a regular file, not HDF5,
 * truncated), DG_ERR_IO (missing, unreadable), naming `what` ("checkpoint")
 * and the file. */
dg_error dg_h5io_open_read(const char *path, const char *what, hid_t *file);

/* Raise code with "<message> (HDF5: <its innermost error>)" and clear the
 * HDF5 error stack.  Use through DG_H5_RAISE, right after the failing call:
 * every HDF5 API call (a close too) clears the stack on entry. */
dg_error dg_h5io_raise(dg_error code, const char *src, int line, const char *func,
                       const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
#define DG_H5_RAISE(code, ...) dg_h5io_raise((code), __FILE__, __LINE__, __func__, __VA_ARGS__)

/* Scalar attributes on an object (file, group or dataset).  Writes fail with
 * DG_ERR_IO, reads with DG_ERR_INPUT (missing attribute, wrong type);
 * `path` names the file in messages. */
dg_error dg_h5io_attr_put_f64(hid_t obj, const char *name, double v, const char *path);
dg_error dg_h5io_attr_put_i64(hid_t obj, const char *name, int64_t v, const char *path);
dg_error dg_h5io_attr_put_u64(hid_t obj, const char *name, uint64_t v, const char *path);
dg_error dg_h5io_attr_put_str(hid_t obj, const char *name, const char *v, const char *path);
dg_error dg_h5io_attr_get_f64(hid_t obj, const char *name, double *v, const char *path);
dg_error dg_h5io_attr_get_i64(hid_t obj, const char *name, int64_t *v, const char *path);
dg_error dg_h5io_attr_get_u64(hid_t obj, const char *name, uint64_t *v, const char *path);
/* String attribute into buf (cap bytes, NUL-terminated; longer is an error). */
dg_error dg_h5io_attr_get_str(hid_t obj, const char *name, char *buf, size_t cap,
                              const char *path);

/* Write a dataset `name` under loc of memory type mtype (stored as the same
 * type) with rank 1 or 2 and dims[0..rank).  Errors: DG_ERR_IO. */
dg_error dg_h5io_write(hid_t loc, const char *name, hid_t mtype, int rank,
                       const uint64_t *dims, const void *data, const char *path);
#endif

#endif
