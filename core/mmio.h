/* Matrix Market import/export (coordinate real general / symmetric), for
 * checks against other tools (scipy.io.mmread, MATLAB, PETSc).
 *
 * Format (Boisvert, Pozo & Remington, "The Matrix Market Exchange Formats",
 * NIST 1996): a banner "%%MatrixMarket matrix coordinate real general" (or
 * "integer" values, or "symmetric" storage of the lower triangle), comment
 * lines starting with %, a size line "M N L", then L lines "i j value" with
 * 1-based indices.  Symmetric files list i >= j only; reading mirrors the
 * off-diagonal entries.  Repeated entries are summed (as assembly does).
 * Errors in the text are DG_ERR_INPUT naming file:line:col. */
#ifndef DG_CORE_MMIO_H
#define DG_CORE_MMIO_H

#include "core/error.h"
#include "core/sparse.h"

dg_error dg_mmio_read(const char *path, dg_csr **out);

/* Write A (general; symmetric = 1 writes the lower triangle with the
 * "symmetric" banner and requires A to be exactly symmetric).  Values are
 * printed with 17 significant digits, so a read gives back the same bits. */
dg_error dg_mmio_write(const char *path, const dg_csr *A, int symmetric);

#endif
