# tilelab_registry(OUT_CPP OUT_CPU_CPP OUT_DEVICE_CPP BASE_DIR FILES...)
# Generates OUT_CPP, the table of every variant and family shape that FILES register with
# TILELAB_REGISTER_VARIANT / TILELAB_REGISTER_FAMILY (engine/include/tilelab/registration.h),
# OUT_CPU_CPP, the families' CPU halves (TILELAB_REGISTER_CPU_FAMILY; the CPU run's), and
# OUT_DEVICE_CPP, their GPU halves (TILELAB_REGISTER_DEVICE_FAMILY; the GPU worker's): each table
# goes into the library of the code that reads it.
# Regenerated when a file changes, so adding the line is all a new lesson or family needs; a new
# file is found by the caller's CONFIGURE_DEPENDS glob.
function(tilelab_registry out_cpp out_cpu_cpp out_device_cpp base_dir)
  set(files ${ARGN})
  add_custom_command(
    OUTPUT ${out_cpp} ${out_cpu_cpp} ${out_device_cpp}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out_cpp} -DOUT_CPU=${out_cpu_cpp} -DOUT_DEVICE=${out_device_cpp}
            -DBASE=${base_dir} "-DFILES=${files}" -P ${CMAKE_SOURCE_DIR}/cmake/registry_run.cmake
    DEPENDS ${files} ${CMAKE_SOURCE_DIR}/cmake/registry_run.cmake
    COMMENT "Generating the registry of variants and families"
    VERBATIM)
endfunction()
