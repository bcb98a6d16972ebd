# dg_add_mpi_test(NAME <name> TARGET <test executable> RANKS <n>
#                 [ARGS ...] [LABELS ...] [TIMEOUT <s>])
# Run an existing test program under mpiexec -n <n> --oversubscribe (Open
# MPI), labelled mpi.  Open MPI refuses to run as root unless told it may:
# CI containers run as root, so the test's environment allows it.  Nothing
# is added in a build without MPI.
function(dg_add_mpi_test)
  cmake_parse_arguments(T "" "NAME;TARGET;RANKS;TIMEOUT" "ARGS;LABELS" ${ARGN})
  if(NOT DGRUN_HAVE_MPI)
    return()
  endif()
  add_test(NAME ${T_NAME}
           COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${T_RANKS}
                   --oversubscribe ${MPIEXEC_PREFLAGS}
                   $<TARGET_FILE:${T_TARGET}> ${MPIEXEC_POSTFLAGS} ${T_ARGS})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 600)
  endif()
  set_tests_properties(${T_NAME} PROPERTIES
    SKIP_RETURN_CODE 77
    LABELS "mpi;${T_LABELS}"
    PROCESSORS ${T_RANKS}
    TIMEOUT ${T_TIMEOUT}
    ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_btl_vader_single_copy_mechanism=none")
endfunction()
