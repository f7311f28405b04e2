# The RUNPATH of installed Talon binaries (libtalon.so, the `talon` command).
#
# CMake's INSTALL_RPATH_USE_LINK_PATH would carry every build-time link directory into the
# install: LLVM's own lib/ (symlinks into the system's directory) and the CUDA toolkit's. An
# installed binary needs a directory only when the dynamic loader would not search it anyway,
# so the shared libraries Talon links (recorded by the layers that link them, in the global
# property TALON_SHARED_DEPENDENCIES) contribute their real directory unless that is a system
# directory or one the loader's cache (ld.so.conf) already lists. Where every dependency is in
# such a directory the installed binaries have no RUNPATH at all.

# Directories that the dynamic loader's cache (`ldconfig -p`) holds libraries from, as real
# paths (/lib/x86_64-linux-gnu is /usr/lib/x86_64-linux-gnu on a merged-/usr system).
function(talon_loader_cache_directories out)
  find_program(TALON_LDCONFIG ldconfig PATHS /sbin /usr/sbin)
  set(dirs)
  if(TALON_LDCONFIG)
    execute_process(COMMAND ${TALON_LDCONFIG} -p OUTPUT_VARIABLE cache ERROR_QUIET)
    string(REGEX MATCHALL "=> [^\n]+" entries "${cache}")
    foreach(entry IN LISTS entries)
      string(SUBSTRING "${entry}" 3 -1 library)
      get_filename_component(dir "${library}" DIRECTORY)
      file(REAL_PATH "${dir}" dir)
      list(APPEND dirs "${dir}")
    endforeach()
    list(REMOVE_DUPLICATES dirs)
  endif()
  set(${out} "${dirs}" PARENT_SCOPE)
endfunction()

# Sets `target`'s INSTALL_RPATH to the directories of its shared dependencies that the
# loader does not search by itself.
function(talon_set_install_rpath target)
  get_property(dependencies GLOBAL PROPERTY TALON_SHARED_DEPENDENCIES)
  set(searched)
  foreach(dir IN LISTS CMAKE_PLATFORM_IMPLICIT_LINK_DIRECTORIES CMAKE_CXX_IMPLICIT_LINK_DIRECTORIES)
    file(REAL_PATH "${dir}" dir)
    list(APPEND searched "${dir}")
  endforeach()
  talon_loader_cache_directories(cached)
  list(APPEND searched ${cached})
  set(rpath)
  foreach(library IN LISTS dependencies)
    file(REAL_PATH "${library}" library)
    get_filename_component(dir "${library}" DIRECTORY)
    if(NOT dir IN_LIST searched)
      list(APPEND rpath "${dir}")
    endif()
  endforeach()
  list(REMOVE_DUPLICATES rpath)
  set_target_properties(${target} PROPERTIES INSTALL_RPATH "${rpath}")
endfunction()
