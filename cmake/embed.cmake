# tilelab_embed(OUT_CPP TABLE_NAME BASE_DIR FILES...)
# Generates OUT_CPP defining
#   const std::vector<std::pair<std::string, std::string>>& TABLE_NAME();
# with (path relative to BASE_DIR, file contents) for each file, regenerated when a file changes.
function(tilelab_embed out_cpp table base_dir)
  set(files ${ARGN})
  add_custom_command(
    OUTPUT ${out_cpp}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out_cpp} -DTABLE=${table} -DBASE=${base_dir}
            "-DFILES=${files}" -P ${CMAKE_SOURCE_DIR}/cmake/embed_run.cmake
    DEPENDS ${files} ${CMAKE_SOURCE_DIR}/cmake/embed_run.cmake
    COMMENT "Embedding ${table}"
    VERBATIM)
endfunction()
