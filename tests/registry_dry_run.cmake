# Dry run of the registry generator (cmake/registry_run.cmake) on a copy of the lessons with two
# folders added and nothing else changed: a new last lesson and one numbered between 05 and 06.
# Both must be registered, each in its folder's place in the teaching order.
# In: SOURCE_DIR (the checkout), WORK_DIR (scratch; removed first).
file(REMOVE_RECURSE ${WORK_DIR})
file(GLOB lesson_sources ${SOURCE_DIR}/lessons/*/*.cpp)
list(FILTER lesson_sources EXCLUDE REGEX "/test_[^/]*\\.cpp$")   # a lesson's own tests register nothing
foreach(f IN LISTS lesson_sources)
  file(RELATIVE_PATH rel ${SOURCE_DIR} ${f})
  configure_file(${f} ${WORK_DIR}/${rel} COPYONLY)
endforeach()
list(LENGTH lesson_sources real_count)

foreach(folder_and_factory IN ITEMS "99_new_last_lesson|make_new_last_variant" "05a_new_middle_lesson|make_new_middle_variant")
  string(REPLACE "|" ";" pair "${folder_and_factory}")
  list(GET pair 0 folder)
  list(GET pair 1 factory)
  file(WRITE ${WORK_DIR}/lessons/${folder}/variant.cpp
       "namespace tilelab {\nVariant ${factory}() { return {}; }\nTILELAB_REGISTER_VARIANT(${factory})\n}\n")
endforeach()

file(GLOB_RECURSE FILES ${WORK_DIR}/lessons/*.cpp)
set(OUT ${WORK_DIR}/registry_table.cpp)
set(BASE ${WORK_DIR})
include(${SOURCE_DIR}/cmake/registry_run.cmake)

file(STRINGS ${OUT} entries REGEX "^        &registered_variant_")
set(order "")
foreach(e IN LISTS entries)
  string(REGEX REPLACE "^ *&registered_variant_([A-Za-z_0-9]+),$" "\\1" name "${e}")
  list(APPEND order ${name})
endforeach()
message(STATUS "registered, in order: ${order}")

list(LENGTH order count)
math(EXPR expected "${real_count} + 2")
if(NOT count EQUAL expected)
  message(FATAL_ERROR "expected ${expected} registrations (${real_count} lessons + 2 new), got ${count}")
endif()
list(GET order -1 last)
if(NOT last STREQUAL "make_new_last_variant")
  message(FATAL_ERROR "the new lesson 99 should come last, not ${last}")
endif()
list(FIND order make_register_2d_matmul i05)
list(FIND order make_new_middle_variant i05a)
list(FIND order make_register_pressure_matmul i07)
if(i05 LESS 0 OR i07 LESS 0 OR NOT (i05 LESS i05a AND i05a LESS i07))
  message(FATAL_ERROR "the new lesson 05a should come between lessons 05 and 07 (indices ${i05} ${i05a} ${i07})")
endif()
