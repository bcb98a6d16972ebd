# Run at build time (cmake -P): write OUT with the source tree's
# `git describe`, only when it changed, so `dgrun --version` names the commit
# it was built from without rebuilding anything on an unchanged tree.
# Inputs: SRC (source dir), OUT (header to write).
set(desc "unknown (not a git checkout)")
find_program(GIT git)
if(GIT AND EXISTS "${SRC}/.git")
  execute_process(COMMAND "${GIT}" -C "${SRC}" describe --always --dirty --tags
                  OUTPUT_VARIABLE d RESULT_VARIABLE rc ERROR_QUIET
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(rc EQUAL 0 AND d)
    set(desc "${d}")
  endif()
endif()
set(text "#define DGRUN_GIT_DESCRIBE \"${desc}\"\n")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
  if(old STREQUAL text)
    return()
  endif()
endif()
file(WRITE "${OUT}" "${text}")
