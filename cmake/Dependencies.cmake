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

# MPI.
set(DGRUN_HAVE_MPI OFF)
if(DGRUN_WITH_MPI)
  find_package(MPI COMPONENTS C)
  if(MPI_C_FOUND)
    set(DGRUN_HAVE_MPI ON)
  endif()
endif()
message(STATUS "dgrun: MPI ${DGRUN_HAVE_MPI}")

# HDF5, C API: the parallel build (MPI-IO; collective snapshots and
# checkpoints under mpirun) or the serial one (rank 0 gathers and writes).
# DGRUN_PARALLEL_HDF5 chooses: AUTO takes the parallel build when it is
# found together with MPI, else the serial one; ON requires the parallel
# build; OFF takes the serial one.  Debian and Ubuntu install both side by
# side (libhdf5-openmpi-dev: /usr/include/hdf5/openmpi and
# /usr/lib/<arch>/hdf5/openmpi; libhdf5-dev: .../serial), and which one
# FindHDF5 sees depends on the `hdf5` alternatives, so the parallel one is
# looked up by its own paths (or DGRUN_HDF5_PARALLEL_INCLUDE_DIR /
# DGRUN_HDF5_PARALLEL_LIBRARY); elsewhere a FindHDF5 result that is
# parallel (HDF5_IS_PARALLEL) counts as parallel.
# Everything that uses HDF5 links dg_hdf5, so one binary never mixes the two.
set(DGRUN_PARALLEL_HDF5 AUTO CACHE STRING "Parallel HDF5 for collective output: AUTO, ON or OFF")
set_property(CACHE DGRUN_PARALLEL_HDF5 PROPERTY STRINGS AUTO ON OFF)
string(TOUPPER "${DGRUN_PARALLEL_HDF5}" dg_par_h5)
if(NOT dg_par_h5 MATCHES "^(AUTO|ON|OFF)$")
  message(FATAL_ERROR "DGRUN_PARALLEL_HDF5 = ${DGRUN_PARALLEL_HDF5}: use AUTO, ON or OFF")
endif()
set(DGRUN_HAVE_HDF5 OFF)
set(DGRUN_HAVE_PARALLEL_HDF5 OFF)
set(DGRUN_HDF5_INCLUDE_DIRS)
set(DGRUN_HDF5_LIBRARIES)
set(DGRUN_HDF5_DEFINITIONS)
if(NOT dg_par_h5 STREQUAL "OFF" AND DGRUN_HAVE_MPI)
  find_path(DGRUN_HDF5_PARALLEL_INCLUDE_DIR H5pubconf.h
            PATHS /usr/include/hdf5/openmpi NO_DEFAULT_PATH)
  find_library(DGRUN_HDF5_PARALLEL_LIBRARY hdf5
               PATHS /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/hdf5/openmpi
                     /usr/lib64/openmpi/lib NO_DEFAULT_PATH)
  if(DGRUN_HDF5_PARALLEL_INCLUDE_DIR AND DGRUN_HDF5_PARALLEL_LIBRARY)
    file(STRINGS ${DGRUN_HDF5_PARALLEL_INCLUDE_DIR}/H5pubconf.h dg_h5_par
         REGEX "^#define H5_HAVE_PARALLEL 1")
    if(dg_h5_par)
      set(DGRUN_HAVE_PARALLEL_HDF5 ON)
      set(DGRUN_HDF5_INCLUDE_DIRS ${DGRUN_HDF5_PARALLEL_INCLUDE_DIR})
      set(DGRUN_HDF5_LIBRARIES ${DGRUN_HDF5_PARALLEL_LIBRARY})
    endif()
  endif()
endif()
if(NOT DGRUN_HAVE_PARALLEL_HDF5)
  set(HDF5_PREFER_PARALLEL FALSE)
  find_package(HDF5 COMPONENTS C)
  if(HDF5_FOUND)
    set(DGRUN_HDF5_INCLUDE_DIRS ${HDF5_C_INCLUDE_DIRS})
    set(DGRUN_HDF5_LIBRARIES ${HDF5_C_LIBRARIES})
    set(DGRUN_HDF5_DEFINITIONS ${HDF5_C_DEFINITIONS})
    if(HDF5_IS_PARALLEL)
      if(dg_par_h5 STREQUAL "OFF" OR NOT DGRUN_HAVE_MPI)
        message(FATAL_ERROR "the HDF5 found (${HDF5_C_LIBRARIES}) is a parallel build, but "
                "DGRUN_PARALLEL_HDF5 is OFF or MPI is off: point HDF5_ROOT at a serial HDF5")
      endif()
      set(DGRUN_HAVE_PARALLEL_HDF5 ON)
    endif()
  endif()
endif()
if(DGRUN_HDF5_LIBRARIES)
  set(DGRUN_HAVE_HDF5 ON)
endif()
if(dg_par_h5 STREQUAL "ON" AND NOT DGRUN_HAVE_PARALLEL_HDF5)
  message(FATAL_ERROR "DGRUN_PARALLEL_HDF5=ON but no parallel HDF5 was found together with MPI: "
          "install libhdf5-openmpi-dev (or set DGRUN_HDF5_PARALLEL_INCLUDE_DIR and "
          "DGRUN_HDF5_PARALLEL_LIBRARY), or use AUTO/OFF")
endif()
add_library(dg_hdf5 INTERFACE)
if(DGRUN_HAVE_HDF5)
  target_include_directories(dg_hdf5 INTERFACE ${DGRUN_HDF5_INCLUDE_DIRS})
  target_link_libraries(dg_hdf5 INTERFACE ${DGRUN_HDF5_LIBRARIES})
  target_compile_definitions(dg_hdf5 INTERFACE DGRUN_HAVE_HDF5=1 ${DGRUN_HDF5_DEFINITIONS})
  if(DGRUN_HAVE_PARALLEL_HDF5)
    # the parallel hdf5.h includes mpi.h
    target_link_libraries(dg_hdf5 INTERFACE MPI::MPI_C)
    target_compile_definitions(dg_hdf5 INTERFACE DGRUN_HAVE_PARALLEL_HDF5=1)
    list(APPEND DGRUN_HDF5_INCLUDE_DIRS ${MPI_C_INCLUDE_DIRS})
    list(APPEND DGRUN_HDF5_LIBRARIES ${MPI_C_LIBRARIES})
    list(APPEND DGRUN_HDF5_DEFINITIONS DGRUN_HAVE_PARALLEL_HDF5=1)
  endif()
endif()
message(STATUS "dgrun: HDF5 ${DGRUN_HAVE_HDF5} (parallel: ${DGRUN_HAVE_PARALLEL_HDF5}; "
        "DGRUN_PARALLEL_HDF5=${dg_par_h5}; ${DGRUN_HDF5_LIBRARIES})")

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
