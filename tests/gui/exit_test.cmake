# Runs APP with ARGS and checks the exit code (RC) and that stderr matches EXPECT; when NOFILE is
# given, that file must not exist afterwards (a refused run writes nothing).
#   cmake -DAPP=... "-DARGS=a;b" -DRC=2 "-DEXPECT=regex" [-DNOFILE=path] -P exit_test.cmake
if(DEFINED NOFILE)
  file(REMOVE ${NOFILE})
endif()
execute_process(COMMAND ${APP} ${ARGS} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 300)
if(NOT "${rc}" STREQUAL "${RC}")
  message(FATAL_ERROR "tilelab ${ARGS} exited with ${rc}, expected ${RC}; stderr:\n${err}")
endif()
if(NOT err MATCHES "${EXPECT}")
  message(FATAL_ERROR "tilelab ${ARGS}: stderr does not match '${EXPECT}':\n${err}")
endif()
if(DEFINED NOFILE AND EXISTS ${NOFILE})
  message(FATAL_ERROR "tilelab ${ARGS} exited with ${rc} but wrote ${NOFILE}")
endif()
