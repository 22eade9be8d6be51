# The engine: everything but the app's window, as one static library per role (engine/src/<role>/).
# A library links only the roles below it, so the direction is the link graph's:
#
#   model      sizes, rules and formulas: variants (lessons/), family shapes, occupancy, banks,
#              precision, quantities, i18n and the string tables. Knows nothing else.
#   store      the files TileLab keeps (bounded reads, atomic writes); child processes      -> model
#   compile    the compile service and its caches, kernel sources, options, ptxas's report,
#              NVRTC itself (CUDA); a compiler in another process, installed by host    -> model store
#   content    lesson text, drills, exercises (their kernels' text) and their stores        -> model store compile
#   protocol   the GPU worker's frames and JSON of results                                  -> model
#   cpu        the CPU run: PTX on the host, the families' CPU halves                       -> model content compile
#   device     finding the GPU without a context (the CUDA runtime; none client-only)       -> model
#   host       the app's and the CLI's engine, the worker client, drill evaluation,
#              remote links, the GPU pool, tune                                             -> all of the above
#   gpu_worker the GPU worker process: runner, families' GPU halves, counters, samples      -> model store protocol compile device
#   testing    hooks only the tests call                                                    -> host
#
# host never links gpu_worker (the app and the CLI start it as a process); only the tests link
# both. Each library is linked whole into a program of its own (layer_check_<role>, built with
# everything), so a call across the direction fails the build, not a review. tilelab_engine is
# what the app, the CLI and the tools link: host and everything under it.

# Sources of one role: *_cuda.cpp only with TILELAB_CUDA=ON, *_nocuda.cpp only with OFF.
function(tilelab_role_sources out)
  file(GLOB sources CONFIGURE_DEPENDS ${ARGN})
  list(FILTER sources EXCLUDE REGEX "/test_[^/]*\\.cpp$")   # a lesson's own tests: tests/CMakeLists.txt
  if(TILELAB_CUDA)
    list(FILTER sources EXCLUDE REGEX "_nocuda\\.cpp$")
  else()
    list(FILTER sources EXCLUDE REGEX "_cuda\\.cpp$")
  endif()
  set(${out} ${sources} PARENT_SCOPE)
endfunction()

# tilelab_engine_library(role SOURCES... LINKS libs...): tilelab_<role>, engine/include public,
# engine/src private (internal headers are included by role: "protocol/worker_protocol.h").
function(tilelab_engine_library role)
  cmake_parse_arguments(ARG "" "" "SOURCES;LINKS" ${ARGN})
  if(NOT ARG_SOURCES)   # a role with nothing in this build (testing, client-only)
    add_library(tilelab_${role} INTERFACE)
    target_link_libraries(tilelab_${role} INTERFACE ${ARG_LINKS})
    return()
  endif()
  add_library(tilelab_${role} STATIC ${ARG_SOURCES})
  target_include_directories(tilelab_${role} PUBLIC ${CMAKE_SOURCE_DIR}/engine/include
                             PRIVATE ${CMAKE_SOURCE_DIR}/engine/src)
  target_link_libraries(tilelab_${role} PUBLIC ${ARG_LINKS} Threads::Threads nlohmann_json::nlohmann_json
                        PRIVATE tilelab_fmt)
  # The layer check: this library whole, with nothing but what it links.
  add_executable(layer_check_${role} ${CMAKE_SOURCE_DIR}/cmake/layer_check_main.cpp)
  target_link_libraries(layer_check_${role} PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,tilelab_${role}>")
endfunction()

tilelab_role_sources(model_src ${CMAKE_SOURCE_DIR}/engine/src/model/*.cpp ${CMAKE_SOURCE_DIR}/families/*/shape.cpp
                     ${CMAKE_SOURCE_DIR}/lessons/*/*.cpp)
tilelab_role_sources(cpu_src ${CMAKE_SOURCE_DIR}/engine/src/cpu/*.cpp ${CMAKE_SOURCE_DIR}/families/*/cpu.cpp)
tilelab_role_sources(worker_src ${CMAKE_SOURCE_DIR}/engine/src/gpu_worker/*.cpp ${CMAKE_SOURCE_DIR}/families/*/gpu_cuda.cpp)
foreach(role store content protocol compile device host testing)
  tilelab_role_sources(${role}_src ${CMAKE_SOURCE_DIR}/engine/src/${role}/*.cpp)
endforeach()

# Lessons and families register themselves (engine/include/tilelab/registration.h); the tables that
# call every registration are generated from the same sources, so there is no list to keep.
tilelab_registry(${CMAKE_BINARY_DIR}/generated/registry_table.cpp ${CMAKE_BINARY_DIR}/generated/cpu_registry_table.cpp
                 ${CMAKE_BINARY_DIR}/generated/device_registry_table.cpp ${CMAKE_SOURCE_DIR}
                 ${model_src} ${cpu_src} ${worker_src})

tilelab_engine_library(model SOURCES ${model_src} ${CMAKE_BINARY_DIR}/generated/registry_table.cpp
                       ${CMAKE_BINARY_DIR}/generated/embedded_strings.cpp
                       ${CMAKE_BINARY_DIR}/generated/embedded_lesson_strings.cpp)
tilelab_engine_library(store SOURCES ${store_src} LINKS tilelab_model)
tilelab_engine_library(compile SOURCES ${compile_src} ${CMAKE_BINARY_DIR}/generated/embedded_kernels.cpp
                       LINKS tilelab_store tilelab_model)
tilelab_engine_library(content SOURCES ${content_src} ${CMAKE_BINARY_DIR}/generated/embedded_lessons.cpp
                       ${CMAKE_BINARY_DIR}/generated/embedded_drills.cpp LINKS tilelab_store tilelab_compile tilelab_model)
tilelab_engine_library(protocol SOURCES ${protocol_src} LINKS tilelab_model)
tilelab_engine_library(cpu SOURCES ${cpu_src} ${CMAKE_BINARY_DIR}/generated/cpu_registry_table.cpp
                       LINKS tilelab_content tilelab_compile tilelab_model)
tilelab_engine_library(device SOURCES ${device_src} LINKS tilelab_model)
tilelab_engine_library(host SOURCES ${host_src}
                       LINKS tilelab_cpu tilelab_content tilelab_store tilelab_protocol tilelab_compile tilelab_device
                             tilelab_model ${CMAKE_DL_LIBS})
tilelab_engine_library(testing SOURCES ${testing_src} LINKS tilelab_host)
add_library(tilelab_engine INTERFACE)
target_link_libraries(tilelab_engine INTERFACE tilelab_host)

if(TILELAB_CUDA)
  # cuda_occupancy.h (the occupancy rules) is a header: the model includes it and links nothing.
  target_include_directories(tilelab_model PRIVATE ${CUDAToolkit_INCLUDE_DIRS})
  target_compile_definitions(tilelab_model PRIVATE TILELAB_CUDA_LIBRARY_DIR="${CUDAToolkit_LIBRARY_DIR}")
  target_link_libraries(tilelab_compile PRIVATE CUDA::nvrtc)
  target_compile_definitions(tilelab_compile PRIVATE TILELAB_CUDA_INCLUDE_DIR="${CUDAToolkit_INCLUDE_DIRS}")
  # cudart is linked; libcuda is not (the binary must start without a driver).
  target_link_libraries(tilelab_device PRIVATE CUDA::cudart)

  # ---- the GPU worker: the child process that runs every kernel (engine/src/host/worker_client.h) --
  # Only it links cuBLAS (the families' references), so that the app and the CLI pay neither its
  # size nor its start-up (0.4 s a process, measured). CUPTI (the hardware counters) is not linked
  # at all: the worker opens libcupti with dlopen when a run asks for counters, looking in the
  # toolkit's folder after the loader's search path.
  tilelab_engine_library(gpu_worker SOURCES ${worker_src} ${CMAKE_BINARY_DIR}/generated/device_registry_table.cpp
                         LINKS tilelab_protocol tilelab_compile tilelab_device tilelab_store tilelab_model ${CMAKE_DL_LIBS})
  target_link_libraries(tilelab_gpu_worker PRIVATE CUDA::cudart CUDA::cublas)
  target_compile_definitions(tilelab_gpu_worker PRIVATE TILELAB_CUDA_LIBRARY_DIR="${CUDAToolkit_LIBRARY_DIR}")
  # It goes next to each program that uses the engine's GPU mode, or one folder up (build/tests).
  add_executable(tilelab-gpu-worker ${CMAKE_SOURCE_DIR}/engine/worker/gpu_worker_main.cpp)
  target_include_directories(tilelab-gpu-worker PRIVATE ${CMAKE_SOURCE_DIR}/engine/src)
  target_link_libraries(tilelab-gpu-worker PRIVATE tilelab_gpu_worker)
endif()

# The command-line flags' policy (tilelab/cli_flags.h) for the CLI and the app: CLI11 stays out of
# the engine's headers.
find_package(CLI11 CONFIG REQUIRED)
add_library(tilelab_cli_flags INTERFACE)
target_include_directories(tilelab_cli_flags INTERFACE ${CMAKE_SOURCE_DIR}/cli/include)
target_link_libraries(tilelab_cli_flags INTERFACE CLI11::CLI11 tilelab_model)
