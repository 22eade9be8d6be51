# Writes the exercise the gui_exercise_error test types into the editor: lesson 02's starting file
# as `tilelab-cli exercise 02 --skeleton` prints it, with one line that does not compile
# (`a_tile[ty][tx] = qq;`) after its first TODO, so the file follows the lesson's kernel.
#   cmake -DCLI=tilelab-cli -DOUT=exercise_02_undefined.cu -P exercise_error_data.cmake
execute_process(COMMAND ${CLI} exercise 02 --skeleton --model-mode RESULT_VARIABLE rc OUTPUT_VARIABLE text
                ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tilelab-cli exercise 02 --skeleton exited with ${rc}:\n${err}")
endif()
string(REGEX REPLACE "(\n[ ]*// TODO\\(1\\)[^\n]*\n)" "\\1        a_tile[ty][tx] = qq;\n" broken "${text}")
if(broken STREQUAL text)
  message(FATAL_ERROR "lesson 02's starting file has no TODO(1) line:\n${text}")
endif()
file(WRITE ${OUT} "${broken}")
