/* The MPI side of parallel HDF5: one file opened by every rank of a
 * communicator through MPI-IO (H5Pset_fapl_mpio), the only place where an
 * MPI communicator meets HDF5 (core/ alone talks to MPI).
 *
 * Built with parallel HDF5 (DGRUN_HAVE_PARALLEL_HDF5, see
 * cmake/Dependencies.cmake) a partitioned run writes each snapshot and
 * checkpoint as one file collectively; built with serial HDF5 it cannot,
 * and rank 0 gathers and writes instead (problems/driver/run.c). */
#ifndef DG_CORE_COMM_H5_H
#define DG_CORE_COMM_H5_H

#include "core/comm.h"

/* Whether this build writes HDF5 files collectively (parallel HDF5 + MPI). */
int dg_comm_h5_parallel(void);

#if defined(DGRUN_HAVE_PARALLEL_HDF5)
#include <hdf5.h>

/* Make the file-access list fapl open files over comm's ranks with MPI-IO
 * (every rank then calls the file's metadata operations alike).  Errors:
 * DG_ERR_IO (HDF5 refused), DG_ERR_ARG (NULL comm). */
dg_error dg_comm_h5_fapl(dg_comm *comm, hid_t fapl);
#endif

#endif
