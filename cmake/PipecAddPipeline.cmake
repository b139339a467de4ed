# pipec_add_pipeline(): build a .pipe pipeline's executable as part of a CMake
# project. Installed with the pipec package (find_package(pipec)) and included
# by pipec's own top-level CMakeLists.txt for in-tree use. See
# docs/build-integration.md.
#
#   pipec_add_pipeline(NAME PIPE file.pipe
#                      [PIPELINE name]      # which pipeline, when the file has several
#                      [OUTPUT_DIR dir]     # the bundle (default: <binary dir>/NAME-bundle)
#                      [TARGETS list])      # pipec --target (default: all)
#
# Defines:
#   NAME          the executable: the generated driver and the steps' sources
#                 (compiled where they are) linked with pipec::pipe
#   NAME_pipec    runs `pipec build` (with a depfile, so edits to the .pipe
#                 file, its imports, the step sources and their local headers
#                 re-run it, and an unchanged rebuild runs nothing)
#   NAME_bundle   packs the bundle into NAME-bundle.tar.gz (binary dir), which
#                 builds with plain CMake where pipec is not installed
# NAME gets the properties PIPEC_BUNDLE_DIR, PIPEC_BUNDLE_TARBALL and
# PIPEC_PIPELINE (the pipeline's name, which is the bundle executable's name).

if(CMAKE_VERSION VERSION_LESS 3.20)
  message(FATAL_ERROR "pipec_add_pipeline needs CMake 3.20 or later (DEPFILE for custom commands)")
endif()
# Functions keep the policies in effect where they are defined: DEPFILE paths
# transformed for Ninja (CMP0116) whatever the calling project asks for.
cmake_policy(PUSH)
cmake_policy(VERSION 3.20...3.28)

# pipe_link_library(): a step's `libraries` entry, found or a clear error.
# Installed next to this file; in-tree it is the runtime's copy.
if(EXISTS "${CMAKE_CURRENT_LIST_DIR}/PipeLinkLibrary.cmake")
  include("${CMAKE_CURRENT_LIST_DIR}/PipeLinkLibrary.cmake")
else()
  include("${CMAKE_CURRENT_LIST_DIR}/../runtime/cmake/PipeLinkLibrary.cmake")
endif()

# The pipec that lists a pipeline's sources while CMake configures. Installed:
# the imported executable. In-tree, pipec is not built yet at configure time,
# so a host copy is built once under the binary dir (pipec-host/).
function(_pipec_configure_tool out)
  get_property(tool GLOBAL PROPERTY _PIPEC_CONFIGURE_TOOL)
  if(tool)
    set(${out} "${tool}" PARENT_SCOPE)
    return()
  endif()
  if(NOT TARGET pipec::pipec)
    message(FATAL_ERROR "pipec_add_pipeline: no pipec::pipec target (call find_package(pipec) first)")
  endif()
  get_target_property(imported pipec::pipec IMPORTED)
  if(imported)
    get_target_property(tool pipec::pipec IMPORTED_LOCATION)
    if(NOT tool)
      get_target_property(configs pipec::pipec IMPORTED_CONFIGURATIONS)
      foreach(config IN LISTS configs)
        get_target_property(tool pipec::pipec IMPORTED_LOCATION_${config})
        if(tool)
          break()
        endif()
      endforeach()
    endif()
    if(NOT tool OR NOT EXISTS "${tool}")
      message(FATAL_ERROR "pipec_add_pipeline: cannot find the pipec executable (pipec::pipec: `${tool}`)")
    endif()
  else()
    get_filename_component(source_dir "${CMAKE_CURRENT_FUNCTION_LIST_DIR}" DIRECTORY)
    set(host_dir "${CMAKE_BINARY_DIR}/pipec-host")
    message(STATUS "pipec: building a host pipec in ${host_dir} (lists pipelines' sources at configure time)")
    execute_process(
      COMMAND "${CMAKE_COMMAND}" -S "${source_dir}" -B "${host_dir}" -G "${CMAKE_GENERATOR}"
              "-DCMAKE_C_COMPILER=${CMAKE_C_COMPILER}" -DPIPEC_HOST_TOOLS_ONLY=ON
              -DCMAKE_CUDA_COMPILER=NOTFOUND # listing sources needs no CUDA: skip the slow probe
      RESULT_VARIABLE rc OUTPUT_VARIABLE log ERROR_VARIABLE log)
    if(rc EQUAL 0)
      execute_process(COMMAND "${CMAKE_COMMAND}" --build "${host_dir}" --target pipec
                      RESULT_VARIABLE rc OUTPUT_VARIABLE log ERROR_VARIABLE log)
    endif()
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "pipec_add_pipeline: building the host pipec failed:\n${log}")
    endif()
    set(tool "${host_dir}/compiler/pipec")
  endif()
  set_property(GLOBAL PROPERTY _PIPEC_CONFIGURE_TOOL "${tool}")
  set(${out} "${tool}" PARENT_SCOPE)
endfunction()

function(pipec_add_pipeline name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "PIPE;PIPELINE;OUTPUT_DIR" "TARGETS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "pipec_add_pipeline(${name}): unknown arguments: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT arg_PIPE)
    message(FATAL_ERROR "pipec_add_pipeline(${name}): PIPE file.pipe is required")
  endif()
  get_filename_component(pipe_file "${arg_PIPE}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(NOT EXISTS "${pipe_file}")
    message(FATAL_ERROR "pipec_add_pipeline(${name}): no such file: ${pipe_file}")
  endif()
  if(arg_OUTPUT_DIR)
    get_filename_component(bundle_dir "${arg_OUTPUT_DIR}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
  else()
    set(bundle_dir "${CMAKE_CURRENT_BINARY_DIR}/${name}-bundle")
  endif()
  # Editing the .pipe file can change the source list: configure again.
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${pipe_file}")

  set(select_args "")
  if(arg_PIPELINE)
    list(APPEND select_args --pipeline "${arg_PIPELINE}")
  endif()
  if(arg_TARGETS)
    list(JOIN arg_TARGETS "," target_list)
    list(APPEND select_args --target "${target_list}")
  endif()

  # What to compile, from the .pipe file (pipec build --list-sources).
  _pipec_configure_tool(tool)
  execute_process(
    COMMAND "${tool}" build "${pipe_file}" ${select_args} --list-sources
    WORKING_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}"
    RESULT_VARIABLE rc OUTPUT_VARIABLE listing ERROR_VARIABLE diagnostics)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "pipec_add_pipeline(${name}): pipec cannot build ${pipe_file}:\n${diagnostics}")
  endif()
  if(listing MATCHES ";")
    message(FATAL_ERROR "pipec_add_pipeline(${name}): a path in ${pipe_file} contains `;`, which CMake lists cannot hold")
  endif()
  string(REPLACE "\n" ";" lines "${listing}")
  set(pipeline "")
  set(c_sources "")
  set(cxx_sources "")
  set(cuda_sources "")
  set(libraries "")
  set(generated "")
  set(generated_cuda "")
  foreach(line IN LISTS lines)
    if(line STREQUAL "")
      continue()
    endif()
    string(FIND "${line}" " " space)
    string(SUBSTRING "${line}" 0 ${space} kind)
    math(EXPR start "${space} + 1")
    string(SUBSTRING "${line}" ${start} -1 path)
    if(kind STREQUAL "pipeline")
      set(pipeline "${path}")
    elseif(kind MATCHES "^(pipe|c|cpp|cu)$")
      get_filename_component(path "${path}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
      if(kind STREQUAL "pipe")
        set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${path}")
      elseif(kind STREQUAL "c")
        list(APPEND c_sources "${path}")
      elseif(kind STREQUAL "cpp")
        list(APPEND cxx_sources "${path}")
      else()
        list(APPEND cuda_sources "${path}")
      endif()
    elseif(kind STREQUAL "library")
      # "STEP NAME": linked below through pipe_link_library.
      list(APPEND libraries "${path}")
    elseif(kind STREQUAL "generated-cu")
      list(APPEND generated_cuda "${bundle_dir}/${path}")
    elseif(kind MATCHES "^generated-")
      list(APPEND generated "${bundle_dir}/${path}")
    endif()
  endforeach()
  if(pipeline STREQUAL "" OR generated STREQUAL "")
    message(FATAL_ERROR "pipec_add_pipeline(${name}): unexpected output from `${tool} --list-sources`:\n${listing}")
  endif()

  # pipec writes only the files whose bytes change, so the rule's output is a
  # stamp; the generated files are byproducts (Ninja re-checks their times and
  # recompiles only what changed). The depfile names every file pipec read.
  set(stamp "${CMAKE_CURRENT_BINARY_DIR}/${name}.pipec-stamp")
  set(depfile "${CMAKE_CURRENT_BINARY_DIR}/${name}.pipec.d")
  add_custom_command(
    OUTPUT "${stamp}"
    BYPRODUCTS "${bundle_dir}/bundle.yaml" "${bundle_dir}/CMakeLists.txt" ${generated} ${generated_cuda}
    COMMAND pipec::pipec build "${pipe_file}" -o "${bundle_dir}" ${select_args} -MD -MF "${depfile}" -MT "${stamp}"
    COMMAND "${CMAKE_COMMAND}" -E touch "${stamp}"
    DEPENDS "${pipe_file}" "$<TARGET_FILE:pipec::pipec>"
    DEPFILE "${depfile}"
    WORKING_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}"
    COMMENT "pipec: building the bundle of ${name} (${pipeline})"
    VERBATIM)
  add_custom_target(${name}_pipec DEPENDS "${stamp}")

  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if(cxx_sources AND NOT "CXX" IN_LIST languages)
    message(FATAL_ERROR "pipec_add_pipeline(${name}): ${pipe_file} has C++ sources; enable CXX in project()")
  endif()
  add_executable(${name} ${generated} ${c_sources} ${cxx_sources})
  # As in the bundle's CMakeLists.txt: each step's entry pointer in a section
  # of its own, so that a missing entry's link error names the step.
  set_source_files_properties("${bundle_dir}/src/${pipeline}_main.c" PROPERTIES
    COMPILE_OPTIONS "$<$<C_COMPILER_ID:GNU,Clang,AppleClang>:-fdata-sections>")
  add_dependencies(${name} ${name}_pipec)
  if(cxx_sources)
    set_target_properties(${name} PROPERTIES CXX_STANDARD 17 CXX_STANDARD_REQUIRED ON)
  endif()
  # Command steps run in the bundle's copy of their .pipe file's folder.
  target_compile_definitions(${name} PRIVATE "PIPE_BUNDLE_DIR=\"${bundle_dir}\"")
  # `run` builds itself again first when a source changed since the build
  # (docs/runtime.md, "Edit, run").
  target_compile_definitions(${name} PRIVATE "PIPE_REBUILD_CMAKE=\"${CMAKE_COMMAND}\""
                             "PIPE_REBUILD_DIR=\"${CMAKE_BINARY_DIR}\"" "PIPE_REBUILD_TARGET=\"${name}\"")
  foreach(entry IN LISTS libraries)
    string(FIND "${entry}" " " space)
    string(SUBSTRING "${entry}" 0 ${space} step)
    math(EXPR start "${space} + 1")
    string(SUBSTRING "${entry}" ${start} -1 library)
    pipe_link_library(${name} ${step} "${library}")
  endforeach()
  set_target_properties(${name} PROPERTIES C_STANDARD 11 C_STANDARD_REQUIRED ON
                        PIPEC_PIPELINE "${pipeline}" PIPEC_BUNDLE_DIR "${bundle_dir}"
                        PIPEC_BUNDLE_TARBALL "${CMAKE_CURRENT_BINARY_DIR}/${name}-bundle.tar.gz")
  target_include_directories(${name} PRIVATE "${bundle_dir}/src")
  target_link_libraries(${name} PRIVATE pipec::pipe m)
  # CUDA sources are compiled when the project enabled CUDA (as the bundle's
  # own CMakeLists.txt does when it finds a CUDA compiler); without it, steps
  # that need them fail with a clear message when run.
  if("CUDA" IN_LIST languages AND (cuda_sources OR generated_cuda))
    find_package(CUDAToolkit REQUIRED)
    target_sources(${name} PRIVATE ${cuda_sources} ${generated_cuda})
    target_compile_definitions(${name} PRIVATE PIPE_HAVE_CUDA=1)
    target_link_libraries(${name} PRIVATE CUDA::cudart)
  endif()

  # The bundle as a tarball: NAME-bundle.tar.gz holding the bundle directory.
  get_filename_component(bundle_parent "${bundle_dir}" DIRECTORY)
  get_filename_component(bundle_base "${bundle_dir}" NAME)
  set(tarball "${CMAKE_CURRENT_BINARY_DIR}/${name}-bundle.tar.gz")
  add_custom_command(
    OUTPUT "${tarball}"
    COMMAND "${CMAKE_COMMAND}" -E tar czf "${tarball}" -- "${bundle_base}"
    DEPENDS "${stamp}"
    WORKING_DIRECTORY "${bundle_parent}"
    COMMENT "pipec: packing ${name}-bundle.tar.gz"
    VERBATIM)
  add_custom_target(${name}_bundle DEPENDS "${tarball}")
  add_dependencies(${name}_bundle ${name}_pipec)
endfunction()

cmake_policy(POP)
