# Renders one lesson headless and checks the PNG (ctest runs this with cmake -P).
file(REMOVE ${PNG})
execute_process(COMMAND ${APP} --headless --lesson ${LESSON} --width ${WIDTH} --height ${HEIGHT}
                        --screenshot ${PNG} --timeout 300
                RESULT_VARIABLE app_rc)
if(NOT app_rc EQUAL 0)
  message(FATAL_ERROR "tilelab --headless --lesson ${LESSON} exited with ${app_rc}")
endif()
execute_process(COMMAND ${CHECK} ${PNG} ${WIDTH} ${HEIGHT} RESULT_VARIABLE check_rc)
if(NOT check_rc EQUAL 0)
  message(FATAL_ERROR "the screenshot of lesson ${LESSON} failed its check")
endif()
