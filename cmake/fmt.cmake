# tilelab_fmt: what every TileLab target links for fmt. With fmt 9 (Debian 12, Ubuntu 24.04) fmt's
# compiled core is built once, into a static library (cmake/fmt_once.cpp says why), and the
# sources include fmt's headers without FMT_HEADER_ONLY: a clean build is several minutes
# shorter. Any other fmt (Ubuntu 22.04's 8.1) stays header-only, as before.
if(fmt_VERSION VERSION_GREATER_EQUAL 9 AND fmt_VERSION VERSION_LESS 10)
  get_target_property(_tilelab_fmt_includes fmt::fmt-header-only INTERFACE_INCLUDE_DIRECTORIES)
  add_library(tilelab_fmt STATIC ${CMAKE_SOURCE_DIR}/cmake/fmt_once.cpp)
  target_include_directories(tilelab_fmt SYSTEM PUBLIC ${_tilelab_fmt_includes})
  set_target_properties(tilelab_fmt PROPERTIES POSITION_INDEPENDENT_CODE ON)
else()
  add_library(tilelab_fmt INTERFACE)
  target_link_libraries(tilelab_fmt INTERFACE fmt::fmt-header-only)
endif()
