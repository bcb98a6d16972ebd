# dg_add_fuzz(NAME <ctest name> TARGET <binary> SOURCES <fuzz target + the
#             library sources it exercises> [DEFINES ...] [INCLUDES ...]
#             [LINK ...] [FALLBACK_LIBS ...] SEEDS <dirs> [DICT <file>]
#             [ENVIRONMENT ...])
#
# A fuzz target (LLVMFuzzerTestOneInput) and its CTest smoke run.  Where
# clang's libFuzzer works (clang + libclang-rt-dev), the target and the
# sources under test are compiled by clang into a libFuzzer binary with
# coverage, ASan and UBSan (whatever compiler builds the rest), and CTest
# runs 10000 coverage-guided inputs from the seed corpus with leak
# detection.  Otherwise tests/flux/fuzz_driver.c runs the target on the
# seeds plus deterministic random mutations, linked against FALLBACK_LIBS.
#
# Long runs (what the CI smoke run shortens):
#   build/tests/.../<TARGET>_libfuzzer -max_total_time=600 -detect_leaks=1 <scratch> <seeds>
find_program(DG_CLANG NAMES clang clang-14 clang-15 clang-16)
set(DG_LIBFUZZER OFF)
if(DG_CLANG)
  set(probe ${CMAKE_BINARY_DIR}/libfuzzer_probe.c)
  file(WRITE ${probe} "#include <stddef.h>\n#include <stdint.h>\n"
       "int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n")
  execute_process(COMMAND ${DG_CLANG} -fsanitize=fuzzer,address,undefined ${probe}
                          -o ${CMAKE_BINARY_DIR}/libfuzzer_probe
                  RESULT_VARIABLE probe_rc OUTPUT_QUIET ERROR_QUIET)
  if(probe_rc EQUAL 0)
    set(DG_LIBFUZZER ON)
  endif()
endif()
message(STATUS "dgrun: fuzz targets ${DG_LIBFUZZER} (libFuzzer via ${DG_CLANG}; OFF: standalone driver)")

function(dg_add_fuzz)
  cmake_parse_arguments(F "" "NAME;TARGET;DICT"
                        "SOURCES;DEFINES;INCLUDES;LINK;FALLBACK_LIBS;SEEDS;ENVIRONMENT" ${ARGN})
  if(DG_LIBFUZZER)
    set(warn -Wall -Wextra)
    if(DGRUN_WERROR)
      list(APPEND warn -Werror)
    endif()
    set(defs)
    foreach(d ${F_DEFINES})
      list(APPEND defs -D${d})
    endforeach()
    set(incs -I${CMAKE_SOURCE_DIR})
    foreach(i ${F_INCLUDES})
      list(APPEND incs -I${i})
    endforeach()
    set(bin ${CMAKE_CURRENT_BINARY_DIR}/${F_TARGET}_libfuzzer)
    add_custom_command(OUTPUT ${bin}
      COMMAND ${DG_CLANG} -std=c11 -D_POSIX_C_SOURCE=200809L ${warn} -g -O1
              -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
              ${defs} ${incs} ${F_SOURCES} ${F_LINK} -lm -o ${bin}
      DEPENDS ${F_SOURCES}
      COMMENT "Building the libFuzzer target ${F_TARGET} with ${DG_CLANG}" VERBATIM)
    add_custom_target(${F_TARGET} ALL DEPENDS ${bin})
    # libFuzzer adds new inputs to the first corpus folder: a scratch one in
    # the build tree, so the seeds in the source tree stay as they are.
    set(scratch ${CMAKE_CURRENT_BINARY_DIR}/${F_TARGET}_corpus)
    file(MAKE_DIRECTORY ${scratch})
    set(dict)
    if(F_DICT)
      set(dict -dict=${F_DICT})
    endif()
    add_test(NAME ${F_NAME}
             COMMAND ${bin} -runs=10000 -max_total_time=30 -seed=1 -max_len=4096 -timeout=10
                     -detect_leaks=1 ${dict} ${scratch} ${F_SEEDS})
    # The libFuzzer binary is clang's with its own ASan/UBSan in either
    # build, and its run is seeded: the sanitizer pass of .ci/run would
    # repeat the plain pass's run input for input (46 CPU-s).
    if(DGRUN_SANITIZE)
      set_tests_properties(${F_NAME} PROPERTIES DISABLED TRUE)
    endif()
  else()
    list(FILTER F_SOURCES INCLUDE REGEX "/tests/")
    add_executable(${F_TARGET} ${F_SOURCES} ${CMAKE_SOURCE_DIR}/tests/flux/fuzz_driver.c)
    target_link_libraries(${F_TARGET} PRIVATE ${F_FALLBACK_LIBS})
    add_test(NAME ${F_NAME} COMMAND ${F_TARGET} 20000 ${F_SEEDS})
  endif()
  set_tests_properties(${F_NAME} PROPERTIES TIMEOUT 300 LABELS fuzz)
  if(F_ENVIRONMENT)
    set_tests_properties(${F_NAME} PROPERTIES ENVIRONMENT "${F_ENVIRONMENT}")
  endif()
endfunction()
