# Runs the app headless and checks its exit code and that its output (stderr and stdout) matches
# a pattern (ctest runs this with cmake -P). ARGS is a ;-separated list.
if(DEFINED CHECK)
  file(REMOVE ${PNG})   # a picture left by an earlier run proves nothing
endif()
execute_process(COMMAND ${APP} ${ARGS} RESULT_VARIABLE app_rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
message("${out}")
if(NOT app_rc EQUAL 0)
  message(FATAL_ERROR "tilelab ${ARGS} exited with ${app_rc}")
endif()
if(NOT out MATCHES "${EXPECT}")
  message(FATAL_ERROR "tilelab ${ARGS}: no line matches \"${EXPECT}\"")
endif()
# Optionally the screenshot it wrote, checked as the lessons' are (right size, not blank).
if(DEFINED CHECK)
  execute_process(COMMAND ${CHECK} ${PNG} ${WIDTH} ${HEIGHT} RESULT_VARIABLE check_rc)
  if(NOT check_rc EQUAL 0)
    message(FATAL_ERROR "the screenshot ${PNG} failed its check")
  endif()
endif()
