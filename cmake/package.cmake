# Installing, and the Debian package: `cpack -G DEB` in a build folder packs the programs that
# build made (no second build): tilelab (when TILELAB_GUI), tilelab-cli and tilelab-gpu-worker,
# side by side in /usr/bin, where the app and the CLI look for the worker. Lessons, kernels, drills
# and the interface's strings are embedded in the binaries; the fonts come from Debian packages.
#
# The CUDA Toolkit is not a Debian package here (NVIDIA installs it under /usr/local/cuda-*), so
# the package does not declare it: the installed programs carry a RUNPATH to the toolkit's library
# folder found at build time (cudart, NVRTC, cuBLAS; the worker opens CUPTI there too), and NVRTC
# reads the CUDA headers from that toolkit's include folder. `tilelab --version` names the folder.
# A machine that installs the package needs the same CUDA major version at the same place
# (or LD_LIBRARY_PATH pointing at its lib64); without a driver or GPU it starts in model mode.
include(GNUInstallDirs)

set(TILELAB_INSTALLED_PROGRAMS tilelab-cli)
foreach(program tilelab-gpu-worker tilelab)
  if(TARGET ${program})
    list(APPEND TILELAB_INSTALLED_PROGRAMS ${program})
  endif()
endforeach()
install(TARGETS ${TILELAB_INSTALLED_PROGRAMS} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${CMAKE_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/tilelab)

# `--version`: TileLab's version and the toolkit it was built with (engine/src/model/version.cpp).
set(TILELAB_VERSION_DEFINES TILELAB_VERSION="${PROJECT_VERSION}")
if(TILELAB_CUDA)
  list(APPEND TILELAB_VERSION_DEFINES TILELAB_BUILT_WITH_CUDA="${CUDAToolkit_VERSION_MAJOR}.${CUDAToolkit_VERSION_MINOR}")
  set_target_properties(${TILELAB_INSTALLED_PROGRAMS} PROPERTIES INSTALL_RPATH "${CUDAToolkit_LIBRARY_DIR}")
endif()
set_source_files_properties(${CMAKE_SOURCE_DIR}/engine/src/model/version.cpp PROPERTIES
                            COMPILE_DEFINITIONS "${TILELAB_VERSION_DEFINES}")

set(CPACK_PACKAGE_NAME tilelab)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "TileLab developers <tilelab@tilelab.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "desktop tutor for GPU tiling that runs the real kernels")
set(CPACK_PACKAGE_DESCRIPTION "Lessons on tiled matrix multiply, shared-memory banks, stencils, registers and occupancy; \
every parameter change compiles the exact kernel with NVRTC and runs it on the GPU, or shows the models without one. \
Needs the CUDA Toolkit it was built with (see tilelab --version).")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
# The shared libraries' packages (libglfw3, libmd4c0, libegl1, libfontconfig1, libstdc++6, ...) are
# found by dpkg-shlibdeps on the release the package is built on; the toolkit's libraries belong to
# no package and are skipped (their folder is named so that dpkg-shlibdeps finds them).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
if(TILELAB_CUDA)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS "${CUDAToolkit_LIBRARY_DIR}")
endif()
if(TILELAB_GUI)
  # The app's fonts (fontconfig finds them); Chinese and headless rendering on the CPU are extras.
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "fonts-dejavu-core, fontconfig")
  set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "fonts-wqy-microhei, libegl-mesa0, libgl1-mesa-dri, openssh-client")
else()
  set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "openssh-client")
endif()
include(CPack)
