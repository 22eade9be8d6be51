# Renders one lesson's first step headless at a projector's three sizes in both languages and
# checks each PNG; the app itself fails (--check-layout) when a frame cut a headline, a table
# header or a step's parameter out of view (ctest runs this with cmake -P). The PNGs stay in
# the build folder to be looked at: screenshot_<lesson>_<lang>_<width>x<height>.png.
foreach(lang en zh)
  foreach(size 1600x900 1280x720 1024x768)
    string(REPLACE "x" ";" wh ${size})
    list(GET wh 0 width)
    list(GET wh 1 height)
    set(png ${PNG_DIR}/screenshot_${LESSON}_${lang}_${size}.png)
    file(REMOVE ${png})
    execute_process(COMMAND ${APP} --headless --lesson ${LESSON} --lang ${lang} --width ${width} --height ${height}
                            --check-layout --screenshot ${png} --timeout 300
                    RESULT_VARIABLE app_rc ERROR_VARIABLE app_err)
    if(NOT app_rc EQUAL 0)
      message(FATAL_ERROR "tilelab --headless --lesson ${LESSON} --lang ${lang} at ${size} exited with ${app_rc}:\n${app_err}")
    endif()
    execute_process(COMMAND ${CHECK} ${png} ${width} ${height} RESULT_VARIABLE check_rc)
    if(NOT check_rc EQUAL 0)
      message(FATAL_ERROR "the screenshot of lesson ${LESSON} (${lang}, ${size}) failed its check")
    endif()
  endforeach()
endforeach()
