# Third-party dependencies.  Required: LAPACKE/BLAS, libm, libdl, threads.
# Optional at build time: CUDA headers (cuda backend), Gmsh SDK, MPI, HDF5,
# METIS, OpenMP (the cpu backend's generated code uses the system compiler's
# -fopenmp at run time; the host side uses OpenMP when found).

find_package(Threads REQUIRED)
find_package(OpenMP COMPONENTS C)

# LAPACKE + BLAS (reference-element linear algebra).
find_path(LAPACKE_INCLUDE_DIR lapacke.h PATH_SUFFIXES openblas)
find_library(LAPACKE_LIBRARY lapacke)
find_package(BLAS REQUIRED)
find_package(LAPACK REQUIRED)
if(NOT LAPACKE_INCLUDE_DIR OR NOT LAPACKE_LIBRARY)
  message(FATAL_ERROR "LAPACKE not found: install liblapacke-dev (see README.md)")
endif()
add_library(dg_lapacke INTERFACE)
target_include_directories(dg_lapacke INTERFACE ${LAPACKE_INCLUDE_DIR})
target_link_libraries(dg_lapacke INTERFACE ${LAPACKE_LIBRARY} ${LAPACK_LIBRARIES} ${BLAS_LIBRARIES} m)

# CUDA: headers only (cuda.h, nvrtc.h); the libraries are dlopen'ed.
set(DGRUN_HAVE_CUDA OFF)
if(DGRUN_WITH_CUDA)
  find_path(CUDA_DRIVER_INCLUDE_DIR cuda.h
            HINTS $ENV{CUDA_HOME}/include $ENV{CUDA_PATH}/include /usr/local/cuda/include)
  find_path(NVRTC_INCLUDE_DIR nvrtc.h
            HINTS $ENV{CUDA_HOME}/include $ENV{CUDA_PATH}/include /usr/local/cuda/include)
  if(CUDA_DRIVER_INCLUDE_DIR AND NVRTC_INCLUDE_DIR)
    set(DGRUN_HAVE_CUDA ON)
    get_filename_component(DGRUN_CUDA_ROOT ${CUDA_DRIVER_INCLUDE_DIR} DIRECTORY)
  endif()
endif()
message(STATUS "dgrun: cuda backend ${DGRUN_HAVE_CUDA}")

# HDF5 (serial or parallel), C API.
find_package(HDF5 COMPONENTS C)
set(DGRUN_HAVE_HDF5 ${HDF5_FOUND})
message(STATUS "dgrun: HDF5 ${HDF5_FOUND} (parallel: ${HDF5_IS_PARALLEL})")

# MPI.
set(DGRUN_HAVE_MPI OFF)
if(DGRUN_WITH_MPI)
  find_package(MPI COMPONENTS C)
  if(MPI_C_FOUND)
    set(DGRUN_HAVE_MPI ON)
  endif()
endif()
message(STATUS "dgrun: MPI ${DGRUN_HAVE_MPI}")

# Gmsh SDK (C API gmshc.h).
set(DGRUN_HAVE_GMSH OFF)
if(DGRUN_WITH_GMSH)
  find_path(GMSH_INCLUDE_DIR gmshc.h)
  find_library(GMSH_LIBRARY gmsh)
  if(GMSH_INCLUDE_DIR AND GMSH_LIBRARY)
    set(DGRUN_HAVE_GMSH ON)
  endif()
endif()
message(STATUS "dgrun: Gmsh ${DGRUN_HAVE_GMSH}")

# METIS.
find_path(METIS_INCLUDE_DIR metis.h)
find_library(METIS_LIBRARY metis)
set(DGRUN_HAVE_METIS OFF)
if(METIS_INCLUDE_DIR AND METIS_LIBRARY)
  set(DGRUN_HAVE_METIS ON)
endif()
message(STATUS "dgrun: METIS ${DGRUN_HAVE_METIS}")
