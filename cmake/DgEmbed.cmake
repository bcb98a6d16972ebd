# dg_embed_sources(<target> <symbol> <glob>...): the files matching the globs
# (relative to the source root) embedded into <target> as the table <symbol>
# (cmake/embed_sources.cmake), regenerated at build time whenever one of them
# changes; a new or removed file re-runs the configure step (CONFIGURE_DEPENDS).
function(dg_embed_sources target symbol)
  set(files)
  foreach(g IN LISTS ARGN)
    file(GLOB found CONFIGURE_DEPENDS RELATIVE ${CMAKE_SOURCE_DIR} ${CMAKE_SOURCE_DIR}/${g})
    list(APPEND files ${found})
  endforeach()
  list(SORT files)
  set(abs)
  foreach(f IN LISTS files)
    list(APPEND abs ${CMAKE_SOURCE_DIR}/${f})
  endforeach()
  set(out ${CMAKE_CURRENT_BINARY_DIR}/${symbol}.c)
  string(REPLACE ";" "|" files_arg "${files}") # one argument through the shell
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DSYMBOL=${symbol} -DROOT=${CMAKE_SOURCE_DIR}
            "-DFILES=${files_arg}" -P ${CMAKE_SOURCE_DIR}/cmake/embed_sources.cmake
    DEPENDS ${abs} ${CMAKE_SOURCE_DIR}/cmake/embed_sources.cmake
    COMMENT "Embedding ${symbol}: ${files}"
    VERBATIM)
  target_sources(${target} PRIVATE ${out})
endfunction()
