# dg_add_test(NAME <layer.what> SOURCES <files> [LIBS <libs>] [LABELS <labels>]
#             [ARGS <args>] [TIMEOUT <s>])
# One CTest test per behaviour.  A test program exits 77 to report "skipped"
# (e.g. a gpu test on a machine without a CUDA device).
function(dg_add_test)
  cmake_parse_arguments(T "" "NAME;TIMEOUT" "SOURCES;LIBS;LABELS;ARGS" ${ARGN})
  string(REPLACE "." "_" exe "test_${T_NAME}")
  if(NOT TARGET ${exe})
    add_executable(${exe} ${T_SOURCES})
    target_link_libraries(${exe} PRIVATE ${T_LIBS})
  endif()
  add_test(NAME ${T_NAME} COMMAND ${exe} ${T_ARGS})
  set_tests_properties(${T_NAME} PROPERTIES SKIP_RETURN_CODE 77)
  if(T_LABELS)
    set_tests_properties(${T_NAME} PROPERTIES LABELS "${T_LABELS}")
  endif()
  if(T_TIMEOUT)
    set_tests_properties(${T_NAME} PROPERTIES TIMEOUT ${T_TIMEOUT})
  endif()
endfunction()

# dg_add_test_command(NAME <name> COMMAND <cmd...> [LABELS ...]): a test that
# runs an existing program (e.g. the dgrun driver on a cfg).
function(dg_add_test_command)
  cmake_parse_arguments(T "" "NAME;TIMEOUT" "COMMAND;LABELS" ${ARGN})
  add_test(NAME ${T_NAME} COMMAND ${T_COMMAND})
  set_tests_properties(${T_NAME} PROPERTIES SKIP_RETURN_CODE 77)
  if(T_LABELS)
    set_tests_properties(${T_NAME} PROPERTIES LABELS "${T_LABELS}")
  endif()
  if(T_TIMEOUT)
    set_tests_properties(${T_NAME} PROPERTIES TIMEOUT ${T_TIMEOUT})
  endif()
endfunction()

# dg_plain_only(<test>...): heavy tests of numerics whose time goes into the
# cpu backend's compiled kernels or into compilers (NVRTC, cc: not
# instrumented), on host code that smaller tests run too.  They carry the
# label `heavy`; a DGRUN_SANITIZE build lists them as disabled, so that the
# sanitizer pass of .ci/run spends its time on the code it instruments
# (parsers, readers, fuzz regressions, the generator, I/O).
function(dg_plain_only)
  set_property(TEST ${ARGN} APPEND PROPERTY LABELS heavy)
  # ctest -j starts the costly tests first where it has no measured times
  # (a clean build): the heavy ones before the many small ones.
  set_property(TEST ${ARGN} PROPERTY COST 60)
  if(DGRUN_SANITIZE)
    set_tests_properties(${ARGN} PROPERTIES DISABLED TRUE)
  endif()
endfunction()

# dg_full_unwind(<test>...): single-process tests that start MPI (MPI_Init in
# the program, or dgrun on a Poisson cfg): in a DGRUN_SANITIZE build they
# keep the slow unwinder at every malloc that the suppressions of Open MPI's
# exit-time allocations need (tests/CMakeLists.txt; tests labelled mpi keep
# it without this).
function(dg_full_unwind)
  set_tests_properties(${ARGN} PROPERTIES DG_FULL_UNWIND 1)
endfunction()
