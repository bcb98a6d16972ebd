/* Seals: a size + SHA-256 header in front of a file dgrun wrote, verified
 * before any other code (libhdf5) parses a byte of it.
 *
 * Why: libhdf5 1.10 does not survive every damaged file (fuzzing found
 * use-after-free, heap overflows and absurd allocations in its attribute and
 * object-header parsers on mutated mesh and checkpoint files, fixed upstream
 * in later releases, not in the one Debian 12 ships).  So the first
 * DG_SEAL_SIZE bytes of a sealed file (for HDF5 a user block, which libhdf5
 * skips) hold the text
 *     "<magic> v1\nsize <bytes of the whole file>\nsha256 <hex of the rest>\n"
 * NUL-padded, and a reader checks it by streaming the file once.  This
 * catches truncation and any corruption; a file crafted to crash libhdf5
 * with a matching seal is out of its reach (keep HDF5 up to date for that).
 * Used by the HDF5 mesh files (meshes/mesh_h5.c, mesh_h5_write.c) and
 * checkpoints (problems/checkpoint.c). */
#ifndef DG_CORE_SEAL_H
#define DG_CORE_SEAL_H

#include <stddef.h>

#include "core/error.h"

enum { DG_SEAL_SIZE = 512 };

/* Seal an image of n >= DG_SEAL_SIZE bytes in memory: its first
 * DG_SEAL_SIZE bytes are overwritten with the header over the rest. */
void dg_seal_image(unsigned char *image, size_t n, const char *magic);

/* Seal the file at path in place (its first DG_SEAL_SIZE bytes are
 * reserved, e.g. an HDF5 user block): hash the rest, write the header, and
 * flush it.  Errors: DG_ERR_IO naming path (a short file, a read or write
 * error). */
dg_error dg_seal_file(const char *path, const char *magic);

/* Verify path's seal (the file is opened as an input, core/fsutil.h: a FIFO
 * or device is refused, never waited on).  full = 0 checks the header and
 * the file's size only (for the ranks of a parallel read, one of which
 * checks in full).  Errors: DG_ERR_INPUT "<what> '<path>' ..." for a file
 * without the header (not_sealed says what such a file may be), a
 * truncated or extended one or one whose bytes do not match the SHA-256,
 * and for a FIFO, device or directory; DG_ERR_IO for a missing or
 * unreadable file. */
dg_error dg_seal_check(const char *path, const char *magic, const char *what,
                       const char *not_sealed, int full);

#endif
