/* MPI-IO file access for parallel HDF5 (see comm_h5.h). */
#include "core/comm_h5.h"

#if defined(DGRUN_HAVE_PARALLEL_HDF5)
#include <mpi.h>

int dg_comm_h5_parallel(void) { return 1; }

dg_error dg_comm_h5_fapl(dg_comm *comm, hid_t fapl) {
  const MPI_Comm *mpi = dg_comm_mpi_handle(comm);
  DG_CHECK(mpi != NULL, DG_ERR_ARG, "parallel HDF5 needs an MPI communicator");
  /* HDF5 duplicates the communicator: dgrun's own messages cannot match its. */
  DG_CHECK(H5Pset_fapl_mpio(fapl, *mpi, MPI_INFO_NULL) >= 0, DG_ERR_IO,
           "HDF5 refused MPI-IO file access (H5Pset_fapl_mpio)");
  /* Metadata reads by every rank alike, and metadata written by collective
   * MPI-IO calls: fewer small requests to the file system at scale. */
  DG_CHECK(H5Pset_all_coll_metadata_ops(fapl, 1) >= 0 && H5Pset_coll_metadata_write(fapl, 1) >= 0,
           DG_ERR_IO, "HDF5 refused collective metadata operations");
  return DG_OK;
}

#else

int dg_comm_h5_parallel(void) { return 0; }

#endif
