# ctest's install test (tests/api/CMakeLists.txt): installs the build tree into a fresh prefix,
# moves the prefix (the package must be relocatable), then builds examples/cpp_host against it
# twice - with find_package(talon) and with `pkg-config talon` alone - runs both and checks
# what they print. Inputs: BUILD_DIR, SOURCE_DIR, WORK_DIR, CXX, GENERATOR.

# Runs a command; fails the test with its output when it fails, else leaves its stdout in
# `output`.
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT code EQUAL 0)
    message(FATAL_ERROR "failed (${code}): ${ARGN}\n${out}\n${err}")
  endif()
  set(output "${out}" PARENT_SCOPE)
endfunction()

# The host's three worlds drop the ball from 1, 1.25 and 1.5 m; each must rest on the floor at
# the ball's radius, 0.1 m.
function(check_host_output program)
  run(${program} ${SOURCE_DIR}/models/sphere_drop.xml 3)
  message(STATUS "${program}:\n${output}")
  foreach(expected "world 0: z = 0.100" "world 2: z = 0.100" "3 of 3 worlds stepped 150 x 0.01 s")
    string(FIND "${output}" "${expected}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "${program} did not print '${expected}'")
    endif()
  endforeach()
endfunction()

# Fails unless every RUNPATH entry of the installed binary `file` is a directory holding a
# library it needs (cmake/talon_install_rpath.cmake): the build's link directories (LLVM's
# lib/, the CUDA toolkit's) must not follow the library into an install that does not use them.
function(check_runpath file)
  run(readelf -d ${file})
  string(REGEX MATCHALL "Shared library: \\[[^]\n]+\\]" needed "${output}")
  string(REGEX REPLACE "Shared library: \\[([^]\n]+)\\]" "\\1" needed "${needed}")
  set(runpath)
  if(output MATCHES "(RUNPATH|RPATH)\\)[^[]*\\[([^]\n]*)\\]")
    string(REPLACE ":" ";" runpath "${CMAKE_MATCH_2}")
  endif()
  get_filename_component(origin ${file} DIRECTORY)
  foreach(dir IN LISTS runpath)
    string(REPLACE "$ORIGIN" "${origin}" dir "${dir}")
    set(used FALSE)
    foreach(library IN LISTS needed)
      if(EXISTS ${dir}/${library})
        set(used TRUE)
      endif()
    endforeach()
    if(NOT used)
      message(FATAL_ERROR "${file}: RUNPATH entry '${dir}' holds none of its libraries: ${needed}")
    endif()
  endforeach()
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/moved_prefix)
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix)
file(RENAME ${WORK_DIR}/prefix ${prefix})

file(GLOB_RECURSE installed_library ${prefix}/*/libtalon.so)
check_runpath(${installed_library})
check_runpath(${prefix}/bin/talon)
# clang's frontend, which both open on their first compilation (codegen/clang_module.h).
file(GLOB_RECURSE installed_module ${prefix}/*/talon/libtalon_clang.so)
if(NOT installed_module)
  message(FATAL_ERROR "libtalon_clang.so is not installed in LIBDIR/talon/")
endif()
check_runpath(${installed_module})

# Nothing installed may point back into the source or build tree.
file(GLOB_RECURSE package_files ${prefix}/*.cmake ${prefix}/*.pc ${prefix}/include/*)
foreach(file IN LISTS package_files)
  file(READ ${file} text)
  foreach(tree ${SOURCE_DIR} ${BUILD_DIR} ${WORK_DIR}/prefix/)
    string(FIND "${text}" "${tree}" at)
    if(NOT at EQUAL -1)
      message(FATAL_ERROR "${file} names ${tree}")
    endif()
  endforeach()
endforeach()

# 1. CMake: find_package(talon CONFIG REQUIRED) -> talon::talon, nothing else on the paths.
run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/cpp_host -B ${WORK_DIR}/host -G ${GENERATOR}
    -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${prefix})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/host)
check_host_output(${WORK_DIR}/host/cpp_host)

# 2. pkg-config: talon.pc finds the moved prefix from its own location.
file(GLOB_RECURSE talon_pc ${prefix}/*/talon.pc)
get_filename_component(pc_dir ${talon_pc} DIRECTORY)
set(ENV{PKG_CONFIG_PATH} ${pc_dir})
run(pkg-config --variable=libdir talon)
string(STRIP "${output}" libdir)
run(pkg-config --cflags --libs talon)
separate_arguments(flags UNIX_COMMAND "${output}")
run(${CXX} -std=c++17 -o ${WORK_DIR}/cpp_host_pkg_config ${SOURCE_DIR}/examples/cpp_host/main.cpp
    ${flags} -Wl,-rpath,${libdir})
check_host_output(${WORK_DIR}/cpp_host_pkg_config)

# 3. The installed `talon` compiles with the installed clang module, not the build tree's: a
# cold build in a fresh cache, and the dynamic loader's record of the files it opened.
set(ENV{TALON_CACHE_DIR} ${WORK_DIR}/cold_cache)
set(ENV{LD_DEBUG} files)
execute_process(COMMAND ${prefix}/bin/talon simulate ${SOURCE_DIR}/models/sphere_drop.xml --steps 1
                RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
unset(ENV{LD_DEBUG})
if(NOT code EQUAL 0)
  message(FATAL_ERROR "the installed talon failed (${code}):\n${out}\n${err}")
endif()
string(FIND "${err}" "file=${installed_module} " at)
if(at EQUAL -1)
  message(FATAL_ERROR "the installed talon did not open ${installed_module}:\n${err}")
endif()
